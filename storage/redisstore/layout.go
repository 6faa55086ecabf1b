package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// LayoutKey holds the layout of the database's keys (storage.LayoutVersion,
// in decimal). Open writes it in a database this project never wrote and
// reads it at every start; on a cluster it is a key of its own slot.
const LayoutKey = "clefs:layout"

// RestoreKey holds the ID of the restore pending (storage.Restorer):
// clefs restore sets it first and deletes it last.
const RestoreKey = "clefs:restore"

// Restoring implements storage.Restorer.
func (s *Store) Restoring(ctx context.Context) (string, error) {
	id, err := s.rdb.Get(ctx, RestoreKey).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return id, s.wrap("read the restore", err)
}

// SetRestoring implements storage.Restorer.
func (s *Store) SetRestoring(ctx context.Context, id string) error {
	if id == "" {
		return s.wrap("end the restore", s.rdb.Del(ctx, RestoreKey).Err())
	}
	return s.wrap("record the restore", s.rdb.Set(ctx, RestoreKey, id, 0).Err())
}

// Guilds implements storage.Restorer: the guilds of the leaderboards
// (lb:{guild}), found with SCAN on every master.
func (s *Store) Guilds(ctx context.Context) ([]uint64, error) {
	var gs []uint64
	err := scan(ctx, s.rdb, "lb:{*}", func(k string) {
		if g, u, ok := parseKey(k); ok && u == 0 {
			gs = append(gs, g)
		}
	})
	slices.Sort(gs)
	return slices.Compact(gs), s.wrap("scan guilds", err) // SCAN may return a key twice
}

// projectKeys matches every key of this project, of any release: a prefix,
// then a hash tag that begins with a guild ID (p:{g}:u, s:{g}, and 0.3.0's
// p:{g:u}…).
const projectKeys = "*:{[0-9]*"

// checkLayout refuses a database of another layout with storage.ErrLayout:
// a layout marker of another version, or no marker but keys of this
// project (a release before the marker wrote them). A database without
// either gets the marker. Nothing else is written.
func (s *Store) checkLayout(ctx context.Context) error {
	want := strconv.Itoa(storage.LayoutVersion)
	v, err := s.rdb.Get(ctx, LayoutKey).Result()
	if errors.Is(err, redis.Nil) {
		// A key of this project, if any: the whole SCAN runs only on a
		// new database, or on one this build refuses.
		var found string
		if err := scan(ctx, s.rdb, projectKeys, func(k string) { found = cmp.Or(found, k) }); err != nil {
			return s.wrap("check the layout", err)
		}
		if found == "" {
			if err := s.rdb.SetNX(ctx, LayoutKey, want, 0).Err(); err != nil {
				return s.wrap("record the layout", err)
			}
		}
		// Ours, or the one a process opening the database at the same
		// moment recorded before writing its first key.
		v, err = s.rdb.Get(ctx, LayoutKey).Result()
		if errors.Is(err, redis.Nil) {
			return fmt.Errorf("redisstore: the database holds %q and no %s, so a release before 0.4.0 wrote it: %w (clefs export with that release's binary, then clefs import with this one; docs/operating.md)",
				found, LayoutKey, storage.ErrLayout)
		}
	}
	if err != nil {
		return s.wrap("read the layout", err)
	}
	if v != want {
		return fmt.Errorf("redisstore: %s is %q, and this build reads layout %s: %w (clefs export with the release that wrote it, then clefs import with this one; docs/operating.md)",
			LayoutKey, v, want, storage.ErrLayout)
	}
	return nil
}

// scan calls fn with every key matching pattern, on every master of a
// cluster (one after the other: fn need not be safe for concurrent use).
func scan(ctx context.Context, rdb redis.UniversalClient, pattern string, fn func(key string)) error {
	var mu sync.Mutex
	return eachMaster(ctx, rdb, func(ctx context.Context, c redis.Cmdable) error {
		mu.Lock()
		defer mu.Unlock()
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			fn(it.Val())
		}
		return it.Err()
	})
}

// eachMaster runs fn on the server, or on every master of a cluster, at
// the same time.
func eachMaster(ctx context.Context, rdb redis.UniversalClient, fn func(context.Context, redis.Cmdable) error) error {
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return fn(ctx, c) })
	}
	return fn(ctx, rdb)
}

// DeleteGuild deletes every key of guild through rdb and returns how many:
// for tests and the load generator, which write in guilds of their own.
func DeleteGuild(ctx context.Context, rdb redis.UniversalClient, guild uint64) (int, error) {
	var keys []string
	err := scan(ctx, rdb, "*"+guildTag(guild)+"*", func(k string) { keys = append(keys, k) })
	var n int64
	for chunk := range slices.Chunk(keys, 1000) { // all in the guild's hash slot
		if err == nil {
			var d int64
			d, err = rdb.Unlink(ctx, chunk...).Result()
			n += d
		}
	}
	if err != nil {
		return int(n), fmt.Errorf("redisstore: delete guild %d: %w", guild, err)
	}
	return int(n), nil
}
