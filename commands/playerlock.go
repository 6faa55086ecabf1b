package commands

import (
	"context"
	"sync"
)

// playerLocks serialises one player's interactions within this process:
// each holds its player's lock from its store call until its answer has been
// sent, so that the cards a quick succession of clicks updates reach Discord
// in the order the store saw them. Gateway sharding sends all of a guild's
// interactions to one process, so a lock per process is enough there. A
// player's lock exists only while held or waited for.
type playerLocks struct {
	mu sync.Mutex
	m  map[playerKey]*playerLock
}

type playerKey struct{ guild, user uint64 }

// playerLock is one player's lock: held by whoever put the token in ch (a
// channel rather than a mutex, so that a waiter can give up with its
// context).
type playerLock struct {
	ch   chan struct{}
	refs int // holders and waiters; guarded by playerLocks.mu
}

// lock takes the player's lock, waiting for it until ctx ends; a free lock
// is taken even if ctx has ended. On success the caller must call unlock
// exactly once.
func (ls *playerLocks) lock(ctx context.Context, k playerKey) (unlock func(), err error) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = make(map[playerKey]*playerLock)
	}
	l := ls.m[k]
	if l == nil {
		l = &playerLock{ch: make(chan struct{}, 1)}
		ls.m[k] = l
	}
	l.refs++
	ls.mu.Unlock()

	unlock = func() {
		<-l.ch
		ls.release(k, l)
	}
	select {
	case l.ch <- struct{}{}:
		return unlock, nil
	default:
	}
	select {
	case l.ch <- struct{}{}:
		return unlock, nil
	case <-ctx.Done():
		ls.release(k, l)
		return nil, ctx.Err()
	}
}

// release drops one holder or waiter of k's lock, and the lock with the last.
func (ls *playerLocks) release(k playerKey, l *playerLock) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(ls.m, k)
	}
}
