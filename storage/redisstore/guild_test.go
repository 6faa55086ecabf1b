package redisstore_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// TestGuildBytes pins the stored form of a guild: the hash s:{g} holds its
// version v and its record p in the schema (whose bytes storage/schema's
// golden files pin), nothing else, and the moderator log a:{g} the lines
// in the schema, written with the guild.
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
	ap, err := st.RunGuild(ctx, storage.GuildStep{Guild: guild, Op: "op-1", Move: game.ChangeSettings{Patch: storetest.FullPatch(set), Actor: 42, Reason: "why"}, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	line := string(must(schema.EncodeAudit(guild, "s:1", *ap.Audit)))
	got, err := admin.HGetAll(ctx, "s:{77}").Result()
	want := map[string]string{"v": "1", "p": string(must(schema.EncodeGuild(game.Guild{Settings: set, Ops: []string{"op-1"}})))}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("guild stored as\n%q (%v)\nwant\n%q", got, err, want)
	}
	if log, err := admin.LRange(ctx, "a:{77}", 0, -1).Result(); err != nil || len(log) != 1 || log[0] != line {
		t.Fatalf("moderator log %q, %v; want %q", log, err, line)
	}
	if _, err := st.RunGuild(ctx, storage.GuildStep{Guild: guild, Op: "rg:1", Move: game.BeginReset{Actor: 42}, Now: at}); err != nil {
		t.Fatal(err)
	}
	got, err = admin.HGetAll(ctx, "s:{77}").Result()
	g2 := game.Guild{Settings: set, Ops: []string{"op-1"}, Reset: &game.GuildReset{Op: "rg:1", Actor: 42, Started: at}}
	if want := map[string]string{"v": "2", "p": string(must(schema.EncodeGuild(g2)))}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("guild with a reset stored as\n%q (%v)\nwant\n%q", got, err, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
