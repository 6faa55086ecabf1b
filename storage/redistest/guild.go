package redistest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// UniqueGuild returns a random guild ID, in 1..2^63-1 like a Discord
// snowflake, for a test's own data on a shared cluster or Sentinel set:
// the store's keys all carry their guild as their hash tag ({guild}), so
// tests in different guilds never touch the same keys.
func UniqueGuild(tb testing.TB) uint64 {
	tb.Helper()
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatalf("redistest: UniqueGuild: %v", err)
	}
	return max(binary.BigEndian.Uint64(b[:])>>1, 1)
}

// GuildPattern is the SCAN pattern of the keys of guild: those whose hash
// tag is {guild} (the store's key formats, such as s:{g} and p:{g}:u; see
// package redisstore).
func GuildPattern(guild uint64) string {
	return "*{" + strconv.FormatUint(guild, 10) + "}*"
}

// CleanupGuild deletes, at cleanup, the keys of guild (GuildPattern) at
// url, whatever its mode: on every master of a cluster. A failure to
// delete fails the test.
func CleanupGuild(tb testing.TB, url string, guild uint64) {
	tb.Helper()
	tb.Cleanup(func() {
		client, err := redisstore.NewClient(url)
		if err != nil {
			tb.Errorf("redistest: CleanupGuild: %v", err)
			return
		}
		defer client.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := DeleteGuild(ctx, client, guild); err != nil {
			tb.Errorf("redistest: CleanupGuild %d: %v", guild, err)
		}
	})
}

// DeleteGuild deletes the keys of guild (GuildPattern) through client, on
// every master of a cluster (the one that holds the guild's slot has them
// all), and returns how many it deleted.
func DeleteGuild(ctx context.Context, client redis.UniversalClient, guild uint64) (int, error) {
	var n atomic.Int64 // ForEachMaster runs on the masters in parallel
	del := func(ctx context.Context, node *redis.Client) error {
		for cursor := uint64(0); ; {
			keys, next, err := node.Scan(ctx, cursor, GuildPattern(guild), 1000).Result()
			if err != nil {
				return err
			}
			if len(keys) > 0 { // one slot: one command deletes them
				if err := node.Unlink(ctx, keys...).Err(); err != nil {
					return err
				}
				n.Add(int64(len(keys)))
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	switch c := client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, del)
	case *redis.Client:
		err = del(ctx, c)
	default:
		return 0, fmt.Errorf("redistest: DeleteGuild: unexpected client %T", client)
	}
	return int(n.Load()), err
}
