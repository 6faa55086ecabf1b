package schema_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// guild returns a guild after a settings change, a finished reset-guild
// and more operations, the guild as it was while its reset-guild ran (its
// lease held), and the audit entries its steps logged (of guild 42).
func guild(t testing.TB) (g, running game.Guild, audit []game.AuditEntry) {
	t.Helper()
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	g = game.Guild{Settings: game.Settings{StartingBalance: 2000, DailyAmount: 100, DailyCooldown: 20 * time.Hour, House: game.DefaultHouse}}
	apply := func(op string, m game.GuildMove) {
		t.Helper()
		s, _, err := game.ApplyGuild(g, op, m, now)
		if err != nil {
			t.Fatal(err)
		}
		g = s.Guild
		if s.Audit != nil {
			e, err := s.Audit.OfGuild(42)
			if err != nil {
				t.Fatal(err)
			}
			audit = append(audit, e)
		}
		now = now.Add(time.Minute)
	}
	public, channel, stake := true, uint64(1234567890123456789), int64(5000)
	for i := range 3 {
		daily := int64(150 + i)
		patch := game.SettingsPatch{DailyAmount: &daily, PublicPlays: &public, Channel: &channel, MaxStakeDay: &stake}
		apply(fmt.Sprintf("settings-%d", i), game.ChangeSettings{Patch: patch, Actor: 9876543210987654321, Reason: "daily " + fmt.Sprint(daily)})
	}
	apply("reset-1", game.BeginReset{Actor: 9876543210987654321, Reason: "new season"})
	apply("reset-1", game.Lease{Holder: "host-1f3a", TTL: 30 * time.Second})
	apply("reset-1", game.Progress{Holder: "host-1f3a", After: 1111111111111111111, Count: 7, TTL: 30 * time.Second})
	running = g
	apply("reset-1", game.EndReset{Holder: "host-1f3a"})
	return g, running, audit
}

// TestGuildGolden pins the bytes of a guild record and of audit lines, and
// reads them back as they were.
func TestGuildGolden(t *testing.T) {
	g, running, audit := guild(t)
	b, err := schema.EncodeGuild(g)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "guild.json", b)
	rb, err := schema.EncodeGuild(running)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "guild-running.json", rb)
	if back, err := schema.DecodeGuild("golden running", rb); err != nil || !reflect.DeepEqual(back, running) {
		t.Errorf("running guild read back %+v, %v\nwant %+v", back.Reset, err, running.Reset)
	}
	var lines [][]byte
	for i, e := range audit {
		l, err := schema.EncodeAudit(42, fmt.Sprintf("s:%d", i+1), e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	golden(t, "audit.jsonl", append(bytes.Join(lines, []byte("\n")), '\n'))
	back, err := schema.DecodeGuild("golden", b)
	if err != nil || !reflect.DeepEqual(back, g) {
		t.Errorf("guild read back %+v, %v\nwant %+v", back, err, g)
	}
	for i, l := range lines {
		e, id, err := schema.DecodeAudit("golden", 42, l)
		if err != nil || !reflect.DeepEqual(e, audit[i]) || id != fmt.Sprintf("s:%d", i+1) {
			t.Errorf("audit line %d read back %+v %q, %v; want %+v", i, e, id, err, audit[i])
		}
	}
	// A guild with no settings of its own and no rules reads back too.
	empty := game.Guild{}
	b, err = schema.EncodeGuild(empty)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := schema.DecodeGuild("empty", b); err != nil || !reflect.DeepEqual(back, empty) {
		t.Errorf("empty guild %s read back %+v, %v", b, back, err)
	}
}

// TestBadGuilds feeds guild records and audit lines that are not of the
// schema: each is refused with an error that names the record and the
// field.
func TestBadGuilds(t *testing.T) {
	g, _, audit := guild(t)
	good, _ := schema.EncodeGuild(g)
	edit := func(f func(m map[string]any)) []byte { return editJSON(t, good, f) }
	set := func(m map[string]any) map[string]any { return m["s"].(map[string]any) }
	tests := []struct {
		name, field string
		b           []byte
	}{
		{"unknown version", "field f", edit(func(m map[string]any) { m["f"] = 2 })},
		{"no version", "field f", edit(func(m map[string]any) { delete(m, "f") })},
		{"unknown field", `"zz"`, edit(func(m map[string]any) { m["zz"] = 1 })},
		{"unknown settings field", `"zz"`, edit(func(m map[string]any) { set(m)["zz"] = 1 })},
		{"negative starting balance", "field s", edit(func(m map[string]any) { set(m)["b0"] = -1 })},
		{"daily bonus beyond game's", "field s", edit(func(m map[string]any) { set(m)["d"] = game.MaxDailyAmount + 1 })},
		{"cooldown beyond game's", "field s", edit(func(m map[string]any) { set(m)["dc"] = (game.MaxCooldown + time.Millisecond).Milliseconds() })},
		{"negative cooldown", "field s.dc", edit(func(m map[string]any) { set(m)["dc"] = -1 })},
		{"channel not a snowflake", "field s.ch", edit(func(m map[string]any) { set(m)["ch"] = "general" })},
		{"channel as a number", "field s.ch", edit(func(m map[string]any) { set(m)["ch"] = 12 })},
		{"house stake cap beyond game's", "field s.h", edit(func(m map[string]any) {
			set(m)["h"].(map[string]any)["sd"] = game.MaxLimit + 1
		})},
		{"unknown house field", `"zz"`, edit(func(m map[string]any) { set(m)["h"].(map[string]any)["zz"] = 1 })},
		{"bad operation ID", "field o[0]", edit(func(m map[string]any) { m["o"].([]any)[0] = "" })},
		{"too many operations", "field o", edit(func(m map[string]any) {
			var ops []any
			for i := range 200 {
				ops = append(ops, fmt.Sprintf("op-%d", i))
			}
			m["o"] = ops
		})},
		{"reset's actor not a snowflake", "field r.ac", edit(func(m map[string]any) { m["r"].(map[string]any)["ac"] = "0x12" })},
		{"reset without start", "field r", edit(func(m map[string]any) { delete(m["r"].(map[string]any), "at") })},
		{"reset done before it started", "field r", edit(func(m map[string]any) { m["r"].(map[string]any)["dn"] = 5 })},
		{"reset time out of range", "field r.at", edit(func(m map[string]any) { m["r"].(map[string]any)["at"] = int64(1) << 62 })},
		{"broken JSON", "s:{42}", good[:len(good)-3]},
		{"trailing data", "after the record", append(bytes.Clone(good), []byte(`{}`)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.DecodeGuild("s:{42}", tt.b)
			if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "s:{42}") || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v; want schema.ErrInvalid naming s:{42} and %q", err, tt.field)
			}
		})
	}
	if _, err := schema.DecodeGuild("s:{42}", good); err != nil {
		t.Fatalf("the unedited record is refused: %v", err)
	}
	for _, tt := range []struct{ name, b, field string }{
		{"no time", `{"x":"grant"}`, "time"},
		{"no action", `{"at":5}`, "action"},
		{"unknown field", `{"at":5,"x":"grant","zz":1}`, `"zz"`},
		{"actor not a snowflake", `{"at":5,"x":"grant","ac":"0"}`, "field ac"},
		{"actor as a number", `{"at":5,"x":"grant","ac":12}`, "field ac"},
		{"reason too long", `{"at":5,"x":"grant","rs":"` + strings.Repeat("x", game.MaxReason+1) + `"}`, "reason"},
	} {
		t.Run("audit "+tt.name, func(t *testing.T) {
			_, _, err := schema.DecodeAudit("a:{42}", 42, []byte(tt.b))
			if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "a:{42}") || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v; want schema.ErrInvalid naming a:{42} and %q", err, tt.field)
			}
		})
	}
	if _, err := schema.EncodeAudit(43, "", audit[0]); err == nil {
		t.Error("an entry of guild 42 was encoded in guild 43's log")
	}
	bad := g
	bad.Settings.House.MinInterval = time.Second + time.Microsecond
	if _, err := schema.EncodeGuild(bad); err == nil {
		t.Error("a minimum interval that is not whole milliseconds was encoded: it would not read back")
	}
}
