package boltstore

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
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
	ap, err := st.RunGuild(ctx, storage.GuildStep{Guild: 1, Op: "op-1", Move: game.ChangeSettings{Patch: storetest.FullPatch(set), Actor: 42, Reason: "why"}, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	g1 := game.Guild{Settings: set, Ops: []string{"op-1"}}
	if got, want := raw(bucketGuilds, guildKey(1)), `{"v":1,"p":`+string(must(schema.EncodeGuild(g1)))+`}`; got != want {
		t.Fatalf("guild stored as\n%s\nwant\n%s", got, want)
	}
	if got, want := raw(bucketAudit, guildKey(1)), string(must(schema.EncodeAudit(1, "", *ap.Audit))); got != want {
		t.Fatalf("audit entry stored as\n%s\nwant\n%s", got, want)
	}
	if _, err := st.RunGuild(ctx, storage.GuildStep{Guild: 1, Op: "rg:1", Move: game.BeginReset{Actor: 42}, Now: at}); err != nil {
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
