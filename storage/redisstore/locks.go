package redisstore

import (
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

type playerLock struct {
	sync.Mutex
	refs int // holders and waiters, under playerLocks.mu
}

// lock takes id's lock and returns the function that releases it.
func (ls *playerLocks) lock(id storage.PlayerID) (unlock func()) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = map[storage.PlayerID]*playerLock{}
	}
	l := ls.m[id]
	if l == nil {
		l = &playerLock{}
		ls.m[id] = l
	}
	l.refs++
	ls.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		ls.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(ls.m, id)
		}
		ls.mu.Unlock()
	}
}
