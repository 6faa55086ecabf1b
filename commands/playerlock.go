package commands

import (
	"context"
	"sync"
)

// playerLocks serialises one player's interactions within this process,
// from the store call until the answer is sent, so that quick clicks'
// cards reach Discord in the store's order (gateway sharding sends a
// guild to one process). A lock exists only while held or waited for.
type playerLocks struct {
	mu sync.Mutex
	m  map[playerKey]*playerLock
}

type playerKey struct{ guild, user uint64 }

// playerLock is held by whoever put the token in ch (a channel, so that a
// waiter can give up with its context).
type playerLock struct {
	ch   chan struct{}
	refs int // holders and waiters; guarded by playerLocks.mu
}

// lock takes the player's lock, waiting for it until ctx ends (an internal
// error, "wait_player"); a free lock is taken even if ctx has ended. On
// success the caller must call unlock exactly once.
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
		return nil, internal("wait_player", ctx.Err())
	}
}

func (ls *playerLocks) release(k playerKey, l *playerLock) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(ls.m, k)
	}
}
