package redistest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strconv"
	"testing"
	"time"

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
func GuildPattern(guild uint64) string { return "*{" + strconv.FormatUint(guild, 10) + "}*" }

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
		if _, err := redisstore.DeleteGuild(ctx, client, guild); err != nil {
			tb.Errorf("redistest: CleanupGuild: %v", err)
		}
	})
}
