package art_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"testing"

	"github.com/lesclefsdutresor/clefs/art"
	"github.com/lesclefsdutresor/clefs/game"
)

// pictures returns every PNG: the symbols' then the named pictures.
func pictures(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	for s := game.Symbol(0); s < game.NumSymbols; s++ {
		b, err := art.SymbolPNG(s)
		if err != nil {
			tb.Fatalf("SymbolPNG(%v): %v", s, err)
		}
		out[s.String()] = b
	}
	for _, name := range art.Names() {
		b, err := art.PicturePNG(name)
		if err != nil {
			tb.Fatalf("PicturePNG(%q): %v", name, err)
		}
		out[name] = b
	}
	if h, err := art.HiddenPNG(); err != nil || !bytes.Equal(h, out["hidden"]) {
		tb.Fatalf("HiddenPNG: %v, or not the picture named hidden", err)
	}
	return out
}

func TestPictures(t *testing.T) {
	for name, b := range pictures(t) {
		t.Run(name, func(t *testing.T) {
			if len(b) > 256<<10 {
				t.Errorf("%d bytes: over Discord's 256 KiB", len(b))
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if got := img.Bounds(); got != image.Rect(0, 0, art.Size, art.Size) {
				t.Fatalf("bounds %v, want %d×%d", got, art.Size, art.Size)
			}
			for _, c := range []image.Point{{0, 0}, {art.Size - 1, 0}, {0, art.Size - 1}, {art.Size - 1, art.Size - 1}} {
				if _, _, _, a := img.At(c.X, c.Y).RGBA(); a != 0 {
					t.Errorf("corner %v has alpha %d, want transparent", c, a)
				}
			}
			// The padding is transparent all round.
			inner := image.Rect(art.Padding, art.Padding, art.Size-art.Padding, art.Size-art.Padding)
			for y := range art.Size {
				for x := range art.Size {
					if _, _, _, a := img.At(x, y).RGBA(); a != 0 && !(image.Point{x, y}).In(inner) {
						t.Fatalf("pixel (%d, %d) in the padding has alpha %d, want transparent", x, y, a)
					}
				}
			}
			// Ink in the middle: an eighth of the central square at least is opaque.
			opaque, total := 0, 0
			for y := art.Size * 3 / 8; y < art.Size*5/8; y++ {
				for x := art.Size * 3 / 8; x < art.Size*5/8; x++ {
					total++
					if _, _, _, a := img.At(x, y).RGBA(); a == 0xffff {
						opaque++
					}
				}
			}
			if opaque < total/8 {
				t.Errorf("%d of %d central pixels opaque, want at least an eighth", opaque, total)
			}
		})
	}
}

func TestPicturesDiffer(t *testing.T) {
	seen := map[string]string{}
	for name, b := range pictures(t) {
		if other, ok := seen[string(b)]; ok {
			t.Errorf("%s and %s are the same picture", name, other)
		}
		seen[string(b)] = name
	}
	if want := int(game.NumSymbols) + len(art.Names()); len(seen) != want || want < 12 {
		t.Errorf("%d distinct pictures of %d", len(seen), want)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := pictures(t), pictures(t)
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: two calls gave different bytes", name)
		}
	}
}

func TestNoSuchSymbol(t *testing.T) {
	if img := art.Symbol(game.NumSymbols); img != nil {
		t.Error("Symbol(NumSymbols) drew something")
	}
	if _, err := art.SymbolPNG(game.NumSymbols); err == nil {
		t.Error("SymbolPNG(NumSymbols): no error")
	}
	if _, err := art.PicturePNG("dragon"); err == nil {
		t.Error(`PicturePNG("dragon"): no error`)
	}
}

func ExampleSymbolPNG() {
	b, err := art.SymbolPNG(game.Pipe)
	if err != nil {
		panic(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Width, cfg.Height)
	// Output: 128 128
}
