package commands

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// appEmojiIDs are IDs for the eight application emojis, as Discord would list them.
func appEmojiIDs() map[string]string {
	ids := map[string]string{HiddenEmojiName: "1300000000000000008"}
	for s := range game.Symbol(game.NumSymbols) {
		ids[EmojiName(s)] = "130000000000000000" + string(rune('0'+s))
	}
	return ids
}

// TestApplicationEmojisImages: none with the option off; else a PNG per
// symbol and the hidden cell, in order.
func TestApplicationEmojisImages(t *testing.T) {
	if imgs, err := New(Config{Logger: discardLogger()}, nil).ApplicationEmojis(); err != nil || imgs != nil {
		t.Errorf("ApplicationEmojis with the option off = %d images, %v; want none", len(imgs), err)
	}
	imgs, err := New(Config{Logger: discardLogger(), ApplicationEmojis: true}, nil).ApplicationEmojis()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"clefs_gem", "clefs_pipe", "clefs_bomb", "clefs_sabre", "clefs_candle", "clefs_barrel", "clefs_key", "clefs_hidden"}
	if len(imgs) != len(want) {
		t.Fatalf("%d images, want %d", len(imgs), len(want))
	}
	for i, im := range imgs {
		if im.Name != want[i] {
			t.Errorf("image %d named %q, want %q", i, im.Name, want[i])
		}
		if _, err := png.DecodeConfig(bytes.NewReader(im.PNG)); err != nil || len(im.PNG) > 256<<10 {
			t.Errorf("%s: %d bytes, %v", im.Name, len(im.PNG), err)
		}
	}
}

func TestUseApplicationEmojis(t *testing.T) {
	e := newEnv(t)
	e.cfg.ApplicationEmojis = true
	e.cfg.Emoji[game.Pipe] = "🚬"
	e.app = New(e.cfg, e.store)
	before := *e.app.glyphs()
	if before.hidden != defaultHiddenEmoji || before.sym[game.Pipe] != "🚬" || before.sym[game.Gem] != defaultEmoji[game.Gem] {
		t.Fatalf("before the upload: %+v", before)
	}

	// Incomplete or malformed: an error, nothing changes.
	for name, ids := range map[string]map[string]string{
		"none":      {},
		"one short": func() map[string]string { m := appEmojiIDs(); delete(m, "clefs_key"); return m }(),
		"bad id":    func() map[string]string { m := appEmojiIDs(); m["clefs_gem"] = "12a"; return m }(),
		"zero id":   func() map[string]string { m := appEmojiIDs(); m["clefs_hidden"] = "0"; return m }(),
	} {
		if err := e.app.UseApplicationEmojis(ids); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got := *e.app.glyphs(); got != before {
			t.Errorf("%s: the emojis changed to %+v", name, got)
		}
	}

	if err := e.app.UseApplicationEmojis(appEmojiIDs()); err != nil {
		t.Fatal(err)
	}
	g := e.app.glyphs()
	if g.sym[game.Gem] != "<:clefs_gem:1300000000000000000>" || g.sym[game.Key] != "<:clefs_key:1300000000000000006>" {
		t.Errorf("symbols %q", g.sym)
	}
	if g.sym[game.Pipe] != "🚬" {
		t.Errorf("pipe %q: the operator's override must win over the application emoji", g.sym[game.Pipe])
	}
	if g.hidden != "<:clefs_hidden:1300000000000000008>" {
		t.Errorf("hidden %q", g.hidden)
	}
	h := e.slash(alice, "en", "play")
	if n := strings.Count(h.text(), "<:clefs_hidden:1300000000000000008>"); n != 9 {
		t.Errorf("the new card shows %d hidden application emojis, want 9:\n%s", n, h.text())
	}
	checkTruthful(t, e.app, h, e.player(alice))
}
