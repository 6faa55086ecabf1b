package redisstore

import (
	"sync"

	"github.com/lesclefsdutresor/clefs/storage"
)

// cache remembers the players this process last wrote or read, so that a
// step tries its compare-and-set without reading first. It is only a guess
// the script checks. It holds at most max players and forgets the oldest
// inserted first. Cached players are values, shared without copying.
type cache struct {
	mu    sync.Mutex
	max   int
	m     map[storage.PlayerID]storage.Versioned
	order []storage.PlayerID // a ring of the insertions; m's keys are among them
	next  int                // the ring's oldest slot once full
}

func newCache(max int) *cache {
	return &cache{max: max, m: make(map[storage.PlayerID]storage.Versioned, max)}
}

func (c *cache) get(id storage.PlayerID) (storage.Versioned, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[id]
	return v, ok
}

// put remembers v unless a newer version is cached: versions only grow, so
// a slow reader cannot replace what a writer of this process just wrote.
func (c *cache) put(id storage.PlayerID, v storage.Versioned) {
	if c.max <= 0 || !v.Exists() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[id]; ok {
		if v.Version > old.Version {
			c.m[id] = v
		}
		return
	}
	if len(c.order) < c.max {
		c.order = append(c.order, id)
	} else {
		delete(c.m, c.order[c.next])
		c.order[c.next] = id
		c.next = (c.next + 1) % c.max
	}
	c.m[id] = v
}

// drop forgets the player: after an error, when the state in Redis is not
// known.
func (c *cache) drop(id storage.PlayerID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}
