package legacy_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
)

// The guild golden files were written by the release before the schema,
// its stores driven through their own API: guild 4242's settings changed
// twice (operations golden-op-1 and golden-op-2, each logged), then a
// grant to a player logged. wantGuild and wantAudit are what the
// generator asked for.
var (
	goldenAt  = time.Date(2026, 11, 30, 21, 7, 3, 250_000_000, time.UTC)
	wantGuild = game.Guild{
		Settings: game.Settings{StartingBalance: 2500, DailyAmount: 175, DailyCooldown: 22*time.Hour + 30*time.Minute,
			PublicPlays: true, Channel: 1234567890123456789,
			House: game.House{MaxStakeDay: 4000, MinInterval: 3 * time.Second, RealityPlays: 40, RealityEvery: 45 * time.Minute}},
		Ops: []string{"golden-op-1", "golden-op-2"},
	}
	wantAudit = []game.AuditEntry{ // oldest first
		{At: goldenAt, Guild: 4242, Actor: 9876543210987654321, Action: game.ActionSettings, Reason: "golden settings é golden-op-1"},
		{At: goldenAt.Add(time.Hour), Guild: 4242, Actor: 9876543210987654321, Action: game.ActionSettings, Reason: "golden settings é golden-op-2"},
		{At: goldenAt.Add(3 * time.Hour), Guild: 4242, Actor: 9876543210987654321, Target: 1111111111111111111,
			Action: game.ActionGrant, Amount: 300, Reason: "golden grant"},
	}
)

func TestGoldenGuildsRead(t *testing.T) {
	b := read(t, "bolt-guild.json")
	if !legacy.IsBoltGuild(b) || legacy.IsRedisGuild(b) {
		t.Fatal("the bbolt golden guild is not recognised")
	}
	v, g, err := legacy.DecodeBoltGuild(b, game.DefaultHouse)
	if err != nil || v != 2 || !reflect.DeepEqual(g, wantGuild) {
		t.Errorf("bbolt guild: version %d, %+v, %v; want 2, %+v", v, g, err, wantGuild)
	}
	r := read(t, "redis-guild.json")
	if !legacy.IsRedisGuild(r) || legacy.IsBoltGuild(r) {
		t.Fatal("the Redis golden guild is not recognised")
	}
	g, line, err := legacy.DecodeRedisGuild(r, game.DefaultHouse)
	if err != nil || !reflect.DeepEqual(g, wantGuild) {
		t.Errorf("Redis guild: %+v, %v; want %+v", g, err, wantGuild)
	}
	e, id, err := legacy.DecodeAudit(4242, []byte(line))
	if err != nil || id != "s:2" || !reflect.DeepEqual(e, wantAudit[1]) {
		t.Errorf("Redis guild's audit line: %+v %q, %v", e, id, err)
	}
	if err := g.Check(); err != nil {
		t.Errorf("the migrated guild is not sound: %v", err)
	}
}

func TestGoldenAuditRead(t *testing.T) {
	for name, ids := range map[string][]string{"bolt-audit.jsonl": {"", "", ""}, "redis-audit.jsonl": {"u:1111111111111111111:1", "s:2", "s:1"}} {
		lines := bytes.Split(bytes.TrimSpace(read(t, name)), []byte("\n"))
		if len(lines) != len(wantAudit) {
			t.Fatalf("%s: %d lines", name, len(lines))
		}
		for i, l := range lines {
			want := wantAudit[i]
			if name == "redis-audit.jsonl" { // newest first
				want = wantAudit[len(wantAudit)-1-i]
			}
			if !legacy.IsAudit(l) {
				t.Errorf("%s line %d not recognised", name, i)
			}
			e, id, err := legacy.DecodeAudit(4242, l)
			if err != nil || id != ids[i] || !reflect.DeepEqual(e, want) {
				t.Errorf("%s line %d: %+v %q, %v; want %+v", name, i, e, id, err, want)
			}
		}
	}
	if _, _, err := legacy.DecodeAudit(7, bytes.Split(read(t, "bolt-audit.jsonl"), []byte("\n"))[0]); err == nil {
		t.Error("a bbolt line of guild 4242 read as guild 7's")
	}
}

// TestOldGuildWithoutHouse: a record from before house rules reads with
// the store's defaults, and an unknown field is refused.
func TestOldGuildWithoutHouse(t *testing.T) {
	_, g, err := legacy.DecodeBoltGuild([]byte(`{"v":3,"s":{"StartingBalance":100}}`), game.DefaultHouse)
	if err != nil || g.Settings.House != game.DefaultHouse || g.Settings.StartingBalance != 100 {
		t.Errorf("%+v, %v", g, err)
	}
	if _, _, err := legacy.DecodeBoltGuild([]byte(`{"v":3,"s":{"Start":100}}`), game.DefaultHouse); err == nil {
		t.Error("an unknown field was read")
	}
	if _, _, err := legacy.DecodeRedisGuild([]byte(`{"Settings":{},"Extra":1}`), game.DefaultHouse); err == nil {
		t.Error("an unknown field was read")
	}
}
