package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// logLines decodes the JSON lines of buf whose msg is msg.
func logLines(tb testing.TB, buf *syncBuffer, msg string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber() // snowflakes do not fit a float64
		if err := d.Decode(&m); err != nil {
			tb.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// loggingEnv is newEnv whose App logs JSON at level into the returned buffer.
func loggingEnv(tb testing.TB, level slog.Level) (*env, *syncBuffer) {
	tb.Helper()
	e := newEnv(tb)
	buf := &syncBuffer{}
	e.cfg.Logger = slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level}))
	e.app = New(e.cfg, e.store)
	return e, buf
}

func id(u uint64) string { return strconv.FormatUint(u, 10) }

func TestInteractionLoggedAtDebug(t *testing.T) {
	e, buf := loggingEnv(t, slog.LevelDebug)
	e.slash(alice, "en-US", "play")
	e.admin(bob, memberPerms, "grant", opt{"user", optUser, id(alice)}, opt{"amount", optString, "5"}).expectUserError("Only moderators")

	lines := logLines(t, buf, "interaction")
	if len(lines) != 2 {
		t.Fatalf("%d interaction lines, want 2:\n%s", len(lines), buf.String())
	}
	for k, want := range []map[string]any{
		{"kind": "play", "guild": id(testGuild), "user": id(alice), "outcome": "ok"},
		{"kind": "admin grant", "guild": id(testGuild), "user": id(bob), "outcome": "user_error"},
	} {
		for key, v := range want {
			if lines[k][key] != v {
				t.Errorf("line %d: %s = %v, want %v", k, key, lines[k][key], v)
			}
		}
		if _, ok := lines[k]["duration"].(json.Number); !ok {
			t.Errorf("line %d has no duration: %v", k, lines[k])
		}
		if lines[k]["level"] != "DEBUG" {
			t.Errorf("line %d at level %v", k, lines[k]["level"])
		}
	}
}

func TestInteractionNotLoggedAtInfo(t *testing.T) {
	e, buf := loggingEnv(t, slog.LevelInfo)
	e.slash(alice, "en-US", "play")
	if lines := logLines(t, buf, "interaction"); len(lines) != 0 {
		t.Errorf("interaction logged at info level: %v", lines)
	}
}

// TestInteractionUsesTheTransportsLogger: the lines of an interaction carry
// the attributes of the logger the transport put in the context.
func TestInteractionUsesTheTransportsLogger(t *testing.T) {
	e, _ := loggingEnv(t, slog.LevelDebug)
	buf := &syncBuffer{}
	tl := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("transport", "gateway", "shard", 3)
	e.app.Handle(WithLogger(context.Background(), tl), &recorder{}, e.slashPayload(alice, memberPerms, "en-US", "balance", ""))
	lines := logLines(t, buf, "interaction")
	if len(lines) != 1 || lines[0]["transport"] != "gateway" || fmt.Sprint(lines[0]["shard"]) != "3" || lines[0]["kind"] != "balance" {
		t.Fatalf("lines through the transport's logger: %v", lines)
	}
}

// TestModeratorActionsLogged: every moderator action is logged once at
// info, with its actor, target, amount and reason, after it is written;
// a repeated interaction, a refused one and a mere display log nothing.
func TestModeratorActionsLogged(t *testing.T) {
	e, buf := loggingEnv(t, slog.LevelInfo)
	e.slash(bob, "en-US", "play")

	grant := e.slashPayload(moderator, modPermsSet, "en-US", "admin", "grant",
		opt{"user", optUser, id(alice)}, opt{"amount", optString, "12.50"}, opt{"reason", optString, "contest"})
	e.handle(grant)
	e.handle(grant) // the same interaction again: applied once, logged once
	e.admin(moderator, modPermsSet, "set-balance", opt{"user", optUser, id(alice)}, opt{"amount", optString, "3"})
	e.admin(moderator, modPermsSet, "reset", opt{"user", optUser, id(bob)}, opt{"reason", optString, "cheating"})
	e.admin(moderator, modPermsSet, "grant", opt{"user", optUser, id(alice)}, opt{"amount", optString, "-99999"}).expectUserError("")
	e.admin(moderator, modPermsSet, "settings", opt{"daily-amount", optString, "0"}, opt{"reason", optString, "quiet week"})
	e.admin(moderator, modPermsSet, "settings") // a display changes nothing
	ask := e.admin(moderator, modPermsSet, "reset-guild", opt{"reason", optString, "new season"})
	confirm := e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rg:").CustomID)
	e.handle(confirm)
	e.finishJobs()
	e.handle(confirm) // pressed twice

	lines := logLines(t, buf, "moderator action")
	want := []map[string]any{
		{"action": "grant", "actor": moderator, "target": alice, "amount_cents": 1250, "reason": "contest"},
		{"action": "set-balance", "actor": moderator, "target": alice, "amount_cents": 300, "reason": ""},
		{"action": "reset", "actor": moderator, "target": bob, "amount_cents": startCents, "reason": "cheating"},
		{"action": "settings", "actor": moderator, "changes": "daily amount 5.00 → off — quiet week"},
		{"action": "reset-guild", "actor": moderator, "players": 2, "reason": "new season"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d moderator action lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for k, w := range want {
		if lines[k]["level"] != "INFO" || fmt.Sprint(lines[k]["guild"]) != id(testGuild) {
			t.Errorf("line %d: level %v guild %v", k, lines[k]["level"], lines[k]["guild"])
		}
		for key, v := range w {
			if fmt.Sprint(lines[k][key]) != fmt.Sprint(v) {
				t.Errorf("line %d (%v): %s = %v, want %v", k, w["action"], key, lines[k][key], v)
			}
		}
	}
}
