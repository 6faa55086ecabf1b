package main

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCard plays the card the README shows and draws it: the handlers'
// answer must be a finished win with a key held, and every emoji on it
// must have a picture (drawCard refuses one it cannot draw).
func TestCard(t *testing.T) {
	card, err := finishedCard(context.Background(), t.TempDir(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if d := card.Embeds[0].Description; !strings.Contains(d, "Three sabres") || !strings.Contains(d, "<:clefs_sabre:") {
		t.Errorf("seed 4 should win three sabres, shown as application emojis; the card says:\n%s", d)
	}
	img, err := drawCard(card)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 400 {
		t.Errorf("card drawn %v, want at least 600×400", b)
	}
}

func TestRunWritesPNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "card.png")
	if err := run([]string{"-o", out}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatalf("%s is no PNG: %v", out, err)
	}
}

func TestEmojiAt(t *testing.T) {
	for _, tc := range []struct {
		in, name string
		n        int
	}{
		{"<:clefs_gem:1> x", "id:1", 14},
		{"▫️ <:clefs_gem:1>", "▫️", len("▫️")},
		{"⭐ x", "⭐", len("⭐")},
		{"🔓🔒", "🔓", len("🔓")},
		{"Three", "", 0},
		{"· stake", "", 0},
	} {
		if name, n := emojiAt(tc.in); name != tc.name || n != tc.n {
			t.Errorf("emojiAt(%q) = %q, %d; want %q, %d", tc.in, name, n, tc.name, tc.n)
		}
	}
	if _, err := emojiImage("🦄", 22); err == nil {
		t.Error("emojiImage draws an emoji it has no picture for")
	}
}
