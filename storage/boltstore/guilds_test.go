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

// TestGuildFromBeforeHouseRules: settings written before house rules
// existed (and before the schema) are rewritten at Open with the store's
// default ones, in Guild and in an export; settings written with no house
// rules keep none.
func TestGuildFromBeforeHouseRules(t *testing.T) {
	defaults := game.Settings{StartingBalance: 1000, House: game.DefaultHouse}
	path := filepath.Join(t.TempDir(), "clefs.db")
	st, err := Open(path, storage.Options{Defaults: defaults})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketGuilds)
		if err := b.Put(guildKey(1), []byte(`{"v":3,"s":{"StartingBalance":700,"DailyAmount":5,"DailyCooldown":3600000000000,"PublicPlays":true,"Channel":9}}`)); err != nil {
			return err
		}
		return b.Put(guildKey(2), []byte(`{"v":1,"s":{"StartingBalance":700,"House":{"MaxStakeDay":0,"MinInterval":0,"RealityPlays":0,"RealityEvery":0}}}`))
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(path, storage.Options{Defaults: defaults}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := st.Guild(ctx, 1)
	want := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, PublicPlays: true, Channel: 9, House: game.DefaultHouse}
	if err != nil || g.Settings != want || g.Version != 3 {
		t.Fatalf("settings from before house rules: %+v, %v; want %+v", g, err, want)
	}
	if g, err := st.Guild(ctx, 2); err != nil || g.Settings != (game.Settings{StartingBalance: 700}) {
		t.Fatalf("settings with no house rules: %+v, %v", g, err)
	}
	var houses []game.House
	if err := st.ExportGuilds(ctx, func(r storage.DecodedGuild) error {
		houses = append(houses, r.Settings.House)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(houses) != 2 || houses[0].RealityPlays != game.DefaultHouse.RealityPlays || houses[1].RealityPlays != 0 {
		t.Fatalf("exported houses %+v, %+v", houses[0], houses[1])
	}
}

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
