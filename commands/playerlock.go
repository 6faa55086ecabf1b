package commands

import (
	"context"
	"sync"
)

// playerLocks serialises one player's interactions within this process:
// each holds its player's lock from its store call until its answer has been
// sent, so that the cards a quick succession of clicks updates reach Discord
// in the order the store saw them (the last card shows the latest state), and
// a confirmation pressed twice at once is acted on once. Gateway sharding
// sends all of a guild's interactions to one process, so a lock per process is
// enough there. Locks exist only while held or waited for: memory does not
// grow with the players seen.
type playerLocks struct {
	mu   sync.Mutex
	m    map[playerKey]*playerLock
	free []*playerLock // locks no one holds nor waits for, to reuse (their channel is empty)
}

// maxFreeLocks bounds playerLocks.free: as many as interactions usually in
// flight at once.
const maxFreeLocks = 64

type playerKey struct{ guild, user uint64 }

// playerLock is one player's lock, held by whoever put the token in ch.
type playerLock struct {
	ls   *playerLocks
	k    playerKey
	ch   chan struct{} // holds one token while locked
	refs int           // holders and waiters; guarded by ls.mu
}

// lock waits for the player's lock until ctx ends. On success, the caller
// must call the lock's unlock exactly once.
func (ls *playerLocks) lock(ctx context.Context, k playerKey) (*playerLock, error) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = make(map[playerKey]*playerLock)
	}
	l := ls.m[k]
	if l == nil {
		if n := len(ls.free); n > 0 {
			l, ls.free = ls.free[n-1], ls.free[:n-1]
		} else {
			l = &playerLock{ls: ls, ch: make(chan struct{}, 1)}
		}
		l.k = k
		ls.m[k] = l
	}
	l.refs++
	alone := l.refs == 1
	ls.mu.Unlock()
	if alone { // no holder, no waiter: the token is free, no need to wait
		l.ch <- struct{}{}
		return l, nil
	}
	select {
	case l.ch <- struct{}{}:
		return l, nil
	case <-ctx.Done():
		ls.release(l)
		return nil, ctx.Err()
	}
}

// unlock releases the lock taken by lock.
func (l *playerLock) unlock() {
	<-l.ch
	l.ls.release(l)
}

func (ls *playerLocks) release(l *playerLock) {
	ls.mu.Lock()
	if l.refs--; l.refs == 0 {
		delete(ls.m, l.k)
		if len(ls.free) < maxFreeLocks {
			ls.free = append(ls.free, l)
		}
	}
	ls.mu.Unlock()
}

// size returns how many players have a lock held or waited for.
func (ls *playerLocks) size() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.m)
}
