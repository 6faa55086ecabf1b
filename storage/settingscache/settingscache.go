// Package settingscache keeps each guild's settings in memory for a short
// time, in front of any storage.Store, so that a play does not spend a store
// round trip reading settings that hardly ever change.
//
// Guild is cached for the TTL given to New. A change through the decorator
// (RunGuild) drops the guild's entry at once, and a read in flight then
// does not put the old value back; a change made elsewhere (another
// process, an import) is seen within the TTL. RunGuild's compare-and-set
// reads the store itself, and every other method goes straight to it.
// storage.Dumper is not forwarded: wrap only the store the handlers use.
//
// Usage, in the composition root:
//
//	st, err := backend.Open(ctx, redisURL, dataPath, opts)
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	app := commands.New(cfg, settingscache.New(st, time.Second, time.Now))
package settingscache

import (
	"context"
	"sync"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// maxGuilds bounds the cache: past it, an insert first sweeps the expired
// entries, and empties the cache if none had expired.
const maxGuilds = 4096

// Store is a storage.Store whose Guild is cached. It is safe for
// concurrent use.
type Store struct {
	storage.Store

	ttl time.Duration // ≤ 0: no caching
	now func() time.Time

	mu sync.Mutex
	m  map[uint64]entry
	// epoch counts invalidations: a read that started before one must not
	// cache what it read, which may predate the change.
	epoch uint64
}

var _ storage.Store = (*Store)(nil)

type entry struct {
	g       storage.VersionedGuild
	expires time.Time
}

// New returns store with each guild's settings (Guild) cached for ttl, as measured
// by now (nil means time.Now). A ttl ≤ 0 caches nothing: every call goes to
// store. Closing the returned Store closes store.
func New(store storage.Store, ttl time.Duration, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{Store: store, ttl: ttl, now: now, m: map[uint64]entry{}}
}

// Guild returns the guild as cached (package doc), or as the wrapped store
// gives it, errors never cached. The Ops slice returned may be shared:
// callers must not modify it.
func (s *Store) Guild(ctx context.Context, guild uint64) (storage.VersionedGuild, error) {
	if s.ttl <= 0 {
		return s.Store.Guild(ctx, guild)
	}
	s.mu.Lock()
	e, ok := s.m[guild]
	epoch := s.epoch
	now := s.now()
	s.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.g, nil
	}
	g, err := s.Store.Guild(ctx, guild)
	if err != nil {
		return g, err
	}
	s.put(guild, g, epoch, now)
	return g, nil
}

// RunGuild runs the guild's step in the wrapped store and drops the
// cached entry, whatever the outcome: a failed call may still have written.
func (s *Store) RunGuild(ctx context.Context, step storage.GuildStep) (storage.GuildApplied, error) {
	a, err := s.Store.RunGuild(ctx, step)
	s.mu.Lock()
	delete(s.m, step.Guild)
	s.epoch++ // the reads in flight must not cache what they read
	s.mu.Unlock()
	return a, err
}

// put caches g as read at time now, unless an invalidation happened since
// the read began (epoch).
func (s *Store) put(guild uint64, g storage.VersionedGuild, epoch uint64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.epoch != epoch {
		return
	}
	if _, ok := s.m[guild]; !ok && len(s.m) >= maxGuilds {
		for k, e := range s.m {
			if !now.Before(e.expires) {
				delete(s.m, k)
			}
		}
		if len(s.m) >= maxGuilds {
			clear(s.m)
		}
	}
	s.m[guild] = entry{g: g, expires: now.Add(s.ttl)}
}
