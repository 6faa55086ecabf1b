package commands

import (
	"context"
	"sync"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// DefaultSettingsTTL is how long a guild's settings read by /play are reused;
// see Config.SettingsTTL.
const DefaultSettingsTTL = time.Second

// maxCachedGuilds bounds the settings cache: past it, an insert first sweeps
// the expired entries, and empties the cache if none had expired.
const maxCachedGuilds = 4096

// settingsCache keeps each guild's settings for a short time, so that a play
// does not spend a store round trip on them. An entry read by this process
// is dropped at once when this process changes the settings; a change made
// by another process sharing the store is seen once the entry expires.
type settingsCache struct {
	ttl time.Duration // ≤ 0: no caching
	now func() time.Time

	mu sync.Mutex
	m  map[uint64]cachedSettings
	// epoch counts invalidations: a read that started before one must not
	// store what it read, which may predate the change.
	epoch uint64
}

type cachedSettings struct {
	set     storage.Settings
	expires time.Time
}

func newSettingsCache(ttl time.Duration, now func() time.Time) *settingsCache {
	return &settingsCache{ttl: ttl, now: now, m: map[uint64]cachedSettings{}}
}

// get returns the guild's settings, from the cache while fresh, else from
// the store (then cached).
func (c *settingsCache) get(ctx context.Context, store storage.Store, guild uint64) (storage.Settings, error) {
	if c.ttl <= 0 {
		return store.Settings(ctx, guild)
	}
	c.mu.Lock()
	e, ok := c.m[guild]
	epoch := c.epoch
	now := c.now()
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.set, nil
	}
	set, err := store.Settings(ctx, guild)
	if err != nil {
		return set, err
	}
	c.put(guild, set, epoch, now)
	return set, nil
}

// put caches set as read at time now, unless an invalidation happened since
// the read began (epoch).
func (c *settingsCache) put(guild uint64, set storage.Settings, epoch uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		return
	}
	if _, ok := c.m[guild]; !ok && len(c.m) >= maxCachedGuilds {
		for g, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, g)
			}
		}
		if len(c.m) >= maxCachedGuilds {
			clear(c.m)
		}
	}
	c.m[guild] = cachedSettings{set: set, expires: now.Add(c.ttl)}
}

// invalidate drops the guild's entry, and makes reads in flight not cache
// what they read.
func (c *settingsCache) invalidate(guild uint64) {
	c.mu.Lock()
	delete(c.m, guild)
	c.epoch++
	c.mu.Unlock()
}

// len is the number of entries, expired or not.
func (c *settingsCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
