package redisstore

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// scan calls fn with every key matching pattern, on every master of a
// cluster (one after the other: fn need not be safe for concurrent use).
func (s *Store) scan(ctx context.Context, pattern string, fn func(key string)) error {
	one := func(ctx context.Context, c redis.Cmdable) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			fn(it.Val())
		}
		return it.Err()
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return one(ctx, c)
		})
	}
	return one(ctx, s.rdb)
}

// allPlayers returns the ID of every player record, by guild then user,
// with SCAN (on every master).
func (s *Store) allPlayers(ctx context.Context) ([]storage.PlayerID, error) {
	var ids []storage.PlayerID
	if err := s.scan(ctx, "p:{*}", func(k string) {
		if g, u, ok := parseTag(k); ok && u != 0 {
			ids = append(ids, storage.PlayerID{Guild: g, User: u})
		}
	}); err != nil {
		return nil, s.wrap("scan players", err)
	}
	slices.SortFunc(ids, func(a, b storage.PlayerID) int {
		if c := cmp.Compare(a.Guild, b.Guild); c != 0 {
			return c
		}
		return cmp.Compare(a.User, b.User)
	})
	return slices.Compact(ids), nil // SCAN may return a key twice
}

// CountPlayers implements storage.Dumper: the player records found with
// SCAN (on every master) that hold a player, checked with HEXISTS in
// pipelines of 256.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for start := 0; start < len(ids); start += 256 {
		chunk := ids[start:min(start+256, len(ids))]
		cmds := make([]*redis.BoolCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				cmds[i] = p.HExists(ctx, recordKey(id), "v")
			}
			return nil
		}); err != nil {
			return 0, s.wrap("count players", err)
		}
		for _, c := range cmds {
			if c.Val() {
				n++
			}
		}
	}
	return n, nil
}
