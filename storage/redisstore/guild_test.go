package redisstore_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/schema"
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

// TestGuildBytes pins the stored form of a guild: the field p is its
// record in the schema (whose bytes storage/schema's golden files pin), a
// the moderator log line of its last write, and the log's lines are in the
// schema.
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
	line := string(must(schema.EncodeAudit(guild, "s:1", game.AuditEntry{At: at, Guild: guild, Actor: 42, Action: game.ActionSettings, Reason: "why"})))
	got, err := admin.HMGet(ctx, "s:{77}", "v", "p", "a").Result()
	want := []any{"1", string(must(schema.EncodeGuild(game.Guild{Settings: set, Ops: []string{"op-1"}}))), line}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("guild stored as\n%q (%v)\nwant\n%q", got, err, want)
	}
	if log, err := admin.LRange(ctx, "a:{77}", 0, -1).Result(); err != nil || len(log) != 1 || log[0] != line {
		t.Fatalf("moderator log %q, %v; want %q", log, err, line)
	}
	if _, err := storage.ApplyGuild(ctx, st, guild, "rg:1", func(g game.Guild) (game.GuildStep, error) {
		return g.StartReset("rg:1", 42, "", at)
	}); err != nil {
		t.Fatal(err)
	}
	got, err = admin.HMGet(ctx, "s:{77}", "v", "p", "a").Result()
	g2 := game.Guild{Settings: set, Ops: []string{"op-1"}, Reset: &game.GuildReset{Op: "rg:1", Actor: 42, Started: at}}
	if want := []any{"2", string(must(schema.EncodeGuild(g2))), nil}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("guild with a reset stored as\n%q (%v)\nwant\n%q", got, err, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestMigrateLegacyGuild puts in Redis a guild and its moderator log as
// the release before the schema wrote them (the golden files of package
// legacy): the first read rewrites the guild in the schema, keeping its
// version and moving its pending log line to a as it is; the log's old
// lines read as they are, beside the new ones; the guild takes its next
// write and exports.
func TestMigrateLegacyGuild(t *testing.T) {
	payload, err := os.ReadFile("../legacy/testdata/redis-guild.json")
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.ReadFile("../legacy/testdata/redis-audit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const guild = 4242
	want, pending, err := legacy.DecodeRedisGuild(payload, game.DefaultHouse)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(logFile)), "\n") // newest first, as LRANGE gave them
	var wantLog []game.AuditEntry
	for _, l := range lines {
		e, _, err := legacy.DecodeAudit(guild, []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		wantLog = append(wantLog, e)
	}
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
	if err := admin.HSet(ctx, "s:{4242}", "v", "2", "p", string(payload)).Err(); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := admin.RPush(ctx, "a:{4242}", l).Err(); err != nil {
			t.Fatal(err)
		}
	}

	g, err := st.Guild(ctx, guild)
	if err != nil || g.Version != 2 || !reflect.DeepEqual(g.Guild, want) {
		t.Fatalf("migrated guild %+v, %v; want version 2, %+v", g, err, want)
	}
	got, err := admin.HMGet(ctx, "s:{4242}", "v", "p", "a").Result()
	if wantRaw := []any{"2", string(must(schema.EncodeGuild(want))), pending}; err != nil || !reflect.DeepEqual(got, wantRaw) {
		t.Fatalf("migrated record %q, %v; want %q", got, err, wantRaw)
	}
	log, err := st.Audit(ctx, guild, 10)
	if err != nil || !reflect.DeepEqual(log, wantLog) {
		t.Fatalf("old log read as %+v, %v; want %+v", log, err, wantLog)
	}
	// A repeat of the last operation skips; its line, older than a day,
	// is not appended again.
	if _, err := storage.ApplyGuild(ctx, st, guild, want.Ops[len(want.Ops)-1], func(g game.Guild) (game.GuildStep, error) {
		t.Fatal("a remembered operation ran again")
		return game.GuildStep{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	next := want.Settings
	next.DailyAmount++
	now := time.Now()
	up, err := storage.ApplyGuild(ctx, st, guild, "after-migration", func(g game.Guild) (game.GuildStep, error) {
		return g.SetSettings(next, 5, "after", now)
	})
	if err != nil || up.Guild.Version != 3 || up.Guild.Settings != next {
		t.Fatalf("update after migration: %+v, %v", up, err)
	}
	log, err = st.Audit(ctx, guild, 10)
	if err != nil || len(log) != len(lines)+1 || log[0].Reason != "after" || !reflect.DeepEqual(log[1:], wantLog) {
		t.Fatalf("log after the update: %+v, %v", log, err)
	}
	var exported []storage.DecodedGuild
	if err := st.ExportGuilds(ctx, func(d storage.DecodedGuild) error {
		exported = append(exported, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(exported) != 1 || *exported[0].Settings != next || len(exported[0].Audit) != len(lines)+1 {
		t.Fatalf("exported %+v", exported)
	}
}

// TestMigrateLegacyGuildOnExport: an export reads a guild not yet
// migrated, rewriting it first.
func TestMigrateLegacyGuildOnExport(t *testing.T) {
	payload, err := os.ReadFile("../legacy/testdata/redis-guild.json")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := legacy.DecodeRedisGuild(payload, game.DefaultHouse)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url := redistest.URL(t)
	st, err := redisstore.Open(ctx, url, storage.Options{})
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
	if err := admin.HSet(ctx, "s:{4242}", "v", "2", "p", string(payload)).Err(); err != nil {
		t.Fatal(err)
	}
	var exported []storage.DecodedGuild
	if err := st.ExportGuilds(ctx, func(d storage.DecodedGuild) error {
		exported = append(exported, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(exported) != 1 || *exported[0].Settings != want.Settings {
		t.Fatalf("exported %+v; want %+v", exported, want.Settings)
	}
	if p, err := admin.HGet(ctx, "s:{4242}", "p").Result(); err != nil || legacy.IsRedisGuild([]byte(p)) {
		t.Fatalf("not rewritten: %s, %v", p, err)
	}
}
