package redisstore_test

import (
	"context"
	"strconv"
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
	defaults := game.Settings{StartingBalance: 1000, House: game.DefaultHouse}
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
	want := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, PublicPlays: true, Channel: 9, House: game.DefaultHouse}
	if err != nil || g.Settings != want || g.Version != 3 {
		t.Fatalf("settings from before house rules: %+v, %v; want %+v", g, err, want)
	}
	if g, err := st.Guild(ctx, 2); err != nil || g.Settings != (game.Settings{StartingBalance: 700}) {
		t.Fatalf("settings with no house rules: %+v, %v", g, err)
	}
}

// TestGuildBytes pins the stored form of a guild: the same bytes as before
// guilds became game values (settings under their Go names, Ops, the
// audit line of the write), and Reset only once the guild has had a
// reset-guild.
func TestGuildBytes(t *testing.T) {
	ctx := context.Background()
	url := redistest.URL(t)
	st, err := redisstore.Open(ctx, url, storage.Options{Defaults: game.Settings{House: game.DefaultHouse}})
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
	const guild = 77
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, PublicPlays: true, Channel: 9, House: game.DefaultHouse}
	if _, err := storage.ApplyGuild(ctx, st, guild, "op-1", func(g game.Guild) (game.GuildStep, error) {
		return g.SetSettings(set, 42, "why", at)
	}); err != nil {
		t.Fatal(err)
	}
	const settings = `{"StartingBalance":700,"DailyAmount":5,"DailyCooldown":3600000000000,"PublicPlays":true,"Channel":9,"House":{"MaxStakeDay":0,"MinInterval":0,"RealityPlays":100,"RealityEvery":3600000000000}}`
	const line = `{"id":"s:1","at":"2026-01-02T03:04:05Z","actor":"42","target":"0","action":"settings","amount":0,"reason":"why"}`
	got, err := admin.HGet(ctx, "s:{77}", "p").Result()
	if want := `{"Settings":` + settings + `,"Ops":["op-1"],"Audit":` + strconv.Quote(line) + `}`; err != nil || got != want {
		t.Fatalf("guild stored as\n%s (%v)\nwant\n%s", got, err, want)
	}
	if log, err := admin.LRange(ctx, "a:{77}", 0, -1).Result(); err != nil || len(log) != 1 || log[0] != line {
		t.Fatalf("moderator log %q, %v; want %q", log, err, line)
	}
	if _, err := storage.ApplyGuild(ctx, st, guild, "rg:1", func(g game.Guild) (game.GuildStep, error) {
		return g.StartReset("rg:1", 42, "", at)
	}); err != nil {
		t.Fatal(err)
	}
	got, err = admin.HGet(ctx, "s:{77}", "p").Result()
	if want := `{"Settings":` + settings + `,"Ops":["op-1"],"Reset":{"Op":"rg:1","Actor":42,"Reason":"","Started":"2026-01-02T03:04:05Z","After":0,"Count":0,"Done":"0001-01-01T00:00:00Z"}}`; err != nil || got != want {
		t.Fatalf("guild with a reset stored as\n%s (%v)\nwant\n%s", got, err, want)
	}
}
