package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestGuildFromBeforeHouseRules: settings written before house rules
// existed read with the store's default ones; settings written with no
// house rules keep none.
func TestGuildFromBeforeHouseRules(t *testing.T) {
	ctx := context.Background()
	url := redistest.URL(t)
	defaults := storage.Settings{StartingBalance: 1000, House: game.DefaultHouse}
	st, err := redisstore.Open(ctx, url, storage.Options{Defaults: defaults})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	admin := redis.NewClient(o)
	defer admin.Close()
	if err := admin.HSet(ctx, "s:{1}", "v", "3", "p", `{"Settings":{"StartingBalance":700,"DailyAmount":5,"DailyCooldown":3600000000000,"PublicPlays":true,"Channel":9}}`).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.HSet(ctx, "s:{2}", "v", "1", "p", `{"Settings":{"StartingBalance":700,"House":{"MaxStakeDay":0,"MinInterval":0,"RealityPlays":0,"RealityEvery":0}}}`).Err(); err != nil {
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
}
