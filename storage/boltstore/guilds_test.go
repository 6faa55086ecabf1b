package boltstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// TestGuildBytes pins the stored form of a guild: its version beside its
// record in the schema (whose bytes storage/schema's golden files pin),
// and the moderator log's lines in the schema.
func TestGuildBytes(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{Defaults: game.Settings{House: game.DefaultHouse}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	raw := func(bucket, key []byte) string { // the last value under key's prefix
		t.Helper()
		var v []byte
		if err := st.db.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucket).Cursor()
			for k, b := c.Seek(key); k != nil && bytes.HasPrefix(k, key); k, b = c.Next() {
				v = append([]byte(nil), b...) // the last one
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, PublicPlays: true, Channel: 9, House: game.DefaultHouse}
	if _, err := storage.ApplyGuild(ctx, st, 1, "op-1", func(g game.Guild) (game.GuildStep, error) {
		return g.SetSettings(set, 42, "why", at)
	}); err != nil {
		t.Fatal(err)
	}
	g1 := game.Guild{Settings: set, Ops: []string{"op-1"}}
	if got, want := raw(bucketGuilds, guildKey(1)), `{"v":1,"p":`+string(must(schema.EncodeGuild(g1)))+`}`; got != want {
		t.Fatalf("guild stored as\n%s\nwant\n%s", got, want)
	}
	entry := game.AuditEntry{At: at, Guild: 1, Actor: 42, Action: game.ActionSettings, Reason: "why"}
	if got, want := raw(bucketAudit, guildKey(1)), string(must(schema.EncodeAudit(1, "", entry))); got != want {
		t.Fatalf("audit entry stored as\n%s\nwant\n%s", got, want)
	}
	if _, err := storage.ApplyGuild(ctx, st, 1, "rg:1", func(g game.Guild) (game.GuildStep, error) {
		return g.StartReset("rg:1", 42, "", at)
	}); err != nil {
		t.Fatal(err)
	}
	g2 := game.Guild{Settings: set, Ops: []string{"op-1"}, Reset: &game.GuildReset{Op: "rg:1", Actor: 42, Started: at}}
	if got, want := raw(bucketGuilds, guildKey(1)), `{"v":2,"p":`+string(must(schema.EncodeGuild(g2)))+`}`; got != want {
		t.Fatalf("guild with a reset stored as\n%s\nwant\n%s", got, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestGuildNotKeptAsIsIsRefused: a house interval that is not a whole
// number of milliseconds would not read back as written: UpdateGuild
// refuses it with storage.ErrInvalid and writes nothing.
func TestGuildNotKeptAsIsIsRefused(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	set := game.Settings{House: game.House{MinInterval: time.Second + time.Microsecond}}
	_, err = storage.ApplyGuild(ctx, st, 1, "op-1", func(g game.Guild) (game.GuildStep, error) {
		return g.SetSettings(set, 42, "why", time.Now())
	})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("UpdateGuild: %v; want storage.ErrInvalid", err)
	}
	if g, err := st.Guild(ctx, 1); err != nil || g.Version != 0 {
		t.Fatalf("after a refused write: %+v, %v", g, err)
	}
}
