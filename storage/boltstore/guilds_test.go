package boltstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// TestGuildFromBeforeHouseRules: settings written before house rules
// existed read with the store's default ones, in Guild and in an export;
// settings written with no house rules keep none.
func TestGuildFromBeforeHouseRules(t *testing.T) {
	defaults := storage.Settings{StartingBalance: 1000, House: game.DefaultHouse}
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{Defaults: defaults})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
	g, err := st.Guild(ctx, 1)
	want := storage.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, PublicPlays: true, Channel: 9, House: game.DefaultHouse}
	if err != nil || g.Settings != want || g.Version != 3 {
		t.Fatalf("settings from before house rules: %+v, %v; want %+v", g, err, want)
	}
	if g, err := st.Guild(ctx, 2); err != nil || g.Settings != (storage.Settings{StartingBalance: 700}) {
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
