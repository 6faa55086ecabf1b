package e2e_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// appEmojiNames are the application emojis the bot uploads, sorted.
func appEmojiNames() []string {
	names := []string{commands.HiddenEmojiName}
	for s := range game.Symbol(game.NumSymbols) {
		names = append(names, commands.EmojiName(s))
	}
	slices.Sort(names)
	return names
}

// appEmojis returns the fake's application emojis as "<:name:id>" by name.
func (h *harness) appEmojis() map[string]string {
	out := map[string]string{}
	for _, e := range h.srv.Emojis() {
		out[e.Name] = e.MessageFormat()
	}
	return out
}

// hiddenCell is what the bot's cards show for a hidden cell: EMOJI_HIDDEN
// when set, else the application emoji when the bot uploaded it (the
// harness's default, APP_EMOJIS=true), else the built-in ❔.
func (h *harness) hiddenCell() string {
	if h.cfg.Hidden != "" {
		return h.cfg.Hidden
	}
	if e := h.appEmojis()[commands.HiddenEmojiName]; h.cfg.AppEmojis && e != "" {
		return e
	}
	return "❔"
}

// cells returns the nine cells of a card's grid, row by row.
func cells(tb testing.TB, rows []string) []string {
	tb.Helper()
	var out []string
	for _, r := range rows {
		f := strings.Fields(r)
		if len(f) != 4 {
			tb.Fatalf("row %q: want a marker and three cells", r)
		}
		out = append(out, f[1:]...)
	}
	if len(out) != 9 {
		tb.Fatalf("grid %q: %d cells", rows, len(out))
	}
	return out
}

func TestEmojiUploadedOnceAndShown(t *testing.T) {
	h := newHarness(t, map[string]string{"EMOJI_PIPE": "🚬"})
	h.start()
	got := h.appEmojis()
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, appEmojiNames()) {
		t.Fatalf("the fake holds %v, want exactly %v", names, appEmojiNames())
	}
	if n := h.srv.EmojiCreates(); n != 8 {
		t.Errorf("%d emojis created, want 8", n)
	}
	for _, e := range h.srv.Emojis() {
		if len(h.srv.EmojiImage(e.ID)) == 0 {
			t.Errorf("%s: no image", e.Name)
		}
	}

	// The hidden card shows the application's hidden cell nine times.
	h.draw.set(loss(false)) // 💎🪈💣 / 🗡️🕯️🛢️ / 💎🪈💣
	card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	for i, c := range cells(t, gridRows(card)) {
		if c != got[commands.HiddenEmojiName] {
			t.Errorf("hidden cell %d shows %q, want %q", i, c, got[commands.HiddenEmojiName])
		}
	}
	card = h.click(card, "v1:auto:", alice).Message
	want := []string{
		got["clefs_gem"], "🚬", got["clefs_bomb"],
		got["clefs_sabre"], got["clefs_candle"], got["clefs_barrel"],
		got["clefs_gem"], "🚬", got["clefs_bomb"],
	}
	if c := cells(t, gridRows(card)); !slices.Equal(c, want) {
		t.Errorf("revealed grid %q, want %q (EMOJI_PIPE wins over the application emoji)", c, want)
	}
	h.noFailures()

	// A restart against the same Discord creates nothing and shows the same emojis.
	h.stop()
	h.start()
	if n := h.srv.EmojiCreates(); n != 8 || len(h.srv.Emojis()) != 8 {
		t.Errorf("after a restart: %d created in all, %d held; want 8 and 8", n, len(h.srv.Emojis()))
	}
	card = h.slash(fakediscord.Slash{User: bob, Name: "play"}).Message
	if c := cells(t, gridRows(card))[0]; c != got[commands.HiddenEmojiName] {
		t.Errorf("after a restart the hidden cell shows %q", c)
	}
}

// TestEmojiOverHTTPOrOff: the HTTP endpoint uploads the application
// emojis and shows them as the gateway does; APP_EMOJIS=false uploads none
// and shows the built-in ❔.
func TestEmojiOverHTTPOrOff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		emojis int
	}{
		{"http", httpEnv(map[string]string{}), 8},
		{"off", map[string]string{"APP_EMOJIS": "false"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.env)
			h.start()
			if n := len(h.srv.Emojis()); n != tc.emojis {
				t.Fatalf("the fake holds %d emojis, want %d", n, tc.emojis)
			}
			want := "❔"
			if tc.emojis > 0 {
				want = h.appEmojis()[commands.HiddenEmojiName]
			}
			card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
			if c := cells(t, gridRows(card))[4]; c != want {
				t.Errorf("hidden cell %q, want %q", c, want)
			}
		})
	}
}

func TestEmojiUploadRefused(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.SetRefuseEmojis(true)
	h.start()
	if n := len(h.srv.Emojis()); n != 0 {
		t.Errorf("the fake holds %d emojis", n)
	}
	if !strings.Contains(h.logs.String(), "application emojis unavailable") || !strings.Contains(h.logs.String(), "Missing Permissions") {
		t.Errorf("no warning naming the cause in the logs:\n%s", h.logs.String())
	}
	if n := strings.Count(h.logs.String(), "application emojis unavailable"); n != 1 {
		t.Errorf("%d warnings about the emojis, want 1", n)
	}
	h.draw.set(loss(false)) // 💎🪈💣 / 🗡️🕯️🛢️ / 💎🪈💣
	card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	if c := cells(t, gridRows(card))[0]; c != "❔" || h.hiddenCell() != "❔" {
		t.Errorf("hidden cell %q, want the Unicode ❔", c)
	}
	card = h.click(card, "v1:auto:", alice).Message
	if c := cells(t, gridRows(card)); c[0] != "💎" || c[1] != "🪈" {
		t.Errorf("revealed grid %q, want Unicode", c)
	}
	// The one failure is the refused upload.
	for _, f := range h.srv.Failures() {
		if f.Code != 50013 || !strings.HasSuffix(f.Path, "/emojis") {
			t.Errorf("unexpected failure: %v", f)
		}
	}
}
