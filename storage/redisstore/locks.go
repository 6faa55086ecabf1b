package redisstore

import (
	"context"
	"sync"

	"github.com/lesclefsdutresor/clefs/storage"
)

// playerLocks serializes one process's updates of one player: they would
// otherwise only collide with each other in compare-and-set and retry.
// Compare-and-set still settles the updates of different processes. A
// lock exists only while held or waited for.
type playerLocks struct {
	mu sync.Mutex
	m  map[storage.PlayerID]*playerLock
}

// playerLock is held while its channel holds a value: a waiter can give up
// when its context ends, which a sync.Mutex does not allow.
type playerLock struct {
	held chan struct{} // capacity 1
	refs int           // holders and waiters, under playerLocks.mu
}

// lock takes id's lock and returns the function that releases it, or the
// context's error, holding nothing, if ctx ends first.
func (ls *playerLocks) lock(ctx context.Context, id storage.PlayerID) (unlock func(), err error) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = map[storage.PlayerID]*playerLock{}
	}
	l := ls.m[id]
	if l == nil {
		l = &playerLock{held: make(chan struct{}, 1)}
		ls.m[id] = l
	}
	l.refs++
	ls.mu.Unlock()
	done := func() {
		ls.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(ls.m, id)
		}
		ls.mu.Unlock()
	}
	select {
	case l.held <- struct{}{}:
		return func() {
			<-l.held
			done()
		}, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
