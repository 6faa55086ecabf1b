package art

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/lesclefsdutresor/clefs/game"
)

// The pictures' common measures, in pixels.
const (
	// Size is the width and height of every picture: Discord's emojis
	// are shown at most 128 pixels high.
	Size = 128
	// Padding is the transparent margin every drawing (outline included) keeps inside.
	Padding = 6
	// Outline is the width of the dark ring around every part of a drawing.
	Outline = 4.5
)

// The colours several parts share; dark and light derive the other shades.
var (
	gemBlue     = rgb(0x4fc3f7)
	woodBrown   = rgb(0x9c5b2e)
	briar       = rgb(0x7b4a26)
	sparkYellow = rgb(0xffe45c)
	steel       = rgb(0xcfd8dc)
	gold        = rgb(0xf4b400)
	wax         = rgb(0xfff1d6)
	tileBlue    = rgb(0x5865f2)
	white       = rgb(0xffffff)
)

// drawings are the symbols' drawings, by game.Symbol.
var drawings = [game.NumSymbols]func() []part{
	game.Gem: gem, game.Pipe: pipe, game.Bomb: bomb, game.Sabre: sabre,
	game.Candle: candle, game.Barrel: barrel, game.Key: key,
}

// Symbol draws symbol s; it returns nil for a value that is no symbol.
func Symbol(s game.Symbol) *image.RGBA {
	if s >= game.NumSymbols {
		return nil
	}
	return render(drawings[s]())
}

// Hidden draws the hidden cell: a blue tile with a white question mark.
func Hidden() *image.RGBA { return render(hidden()) }

// Encode returns img as PNG bytes (best compression, deterministic).
func Encode(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	e := png.Encoder{CompressionLevel: png.BestCompression}
	if err := e.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("art: encode PNG: %w", err)
	}
	return b.Bytes(), nil
}

// SymbolPNG returns the PNG of symbol s, an error for a value that is no symbol.
func SymbolPNG(s game.Symbol) ([]byte, error) {
	if s >= game.NumSymbols {
		return nil, fmt.Errorf("art: no picture for %v", s)
	}
	b, err := symbolPNGs[s]()
	return bytes.Clone(b), err
}

// HiddenPNG returns the PNG of the hidden cell.
func HiddenPNG() ([]byte, error) { return PicturePNG("hidden") }

// pictures are the PNGs besides the symbols', by name: the hidden cell
// and, for the Activity's page, the chest closed and open, coins, and the
// key counter's empty slot (a keyhole).
var pictures = map[string]func() ([]byte, error){
	"hidden": drawOnce(hidden), "chest": drawOnce(func() []part { return chest(false) }),
	"chest-open": drawOnce(func() []part { return chest(true) }), "coins": drawOnce(coins), "keyhole": drawOnce(keyhole),
}

// symbolPNGs are the symbols' PNGs, by game.Symbol.
var symbolPNGs = func() (draw [game.NumSymbols]func() ([]byte, error)) {
	for s, d := range drawings {
		draw[s] = drawOnce(d)
	}
	return draw
}()

// drawOnce returns the PNG of drawing d, drawn once per process, when first
// asked for (0.2 s of CPU for all the pictures).
func drawOnce(d func() []part) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) { return Encode(render(d())) })
}

// Names lists, sorted, the pictures PicturePNG draws.
func Names() []string { return slices.Sorted(maps.Keys(pictures)) }

// PicturePNG returns the PNG of the picture named name (see Names), an
// error for another name.
func PicturePNG(name string) ([]byte, error) {
	f, ok := pictures[name]
	if !ok {
		return nil, fmt.Errorf("art: no picture named %q", name)
	}
	b, err := f()
	return bytes.Clone(b), err
}

// gem is a cut diamond seen from the side: a crown over a pointed pavilion,
// with the facets' edges drawn.
func gem() []part {
	tl, tr := pt{42, 22}, pt{86, 22}
	l, r := pt{14, 50}, pt{114, 50}
	tip := pt{64, 114}
	body := poly{tl, tr, r, tip, l}.filling()
	crown := poly{tl, tr, r, l}.filling()
	edges := [][]pt{
		{l, r},
		{pt{34, 50}, pt{50, 22}}, {pt{94, 50}, pt{78, 22}},
		{pt{34, 50}, pt{64, 22}, pt{94, 50}},
		{pt{34, 50}, tip, pt{94, 50}},
	}
	return []part{
		{fill: []poly{body}, c: gemBlue, shine: []poly{poly{{64, 22}, {78, 22}, {94, 50}, {64, 50}}.filling(), poly{{94, 50}, {114, 50}, {64, 114}}.filling()}},
		{fill: []poly{crown}, c: mix(gemBlue, white, 0.35), ink: dark(gemBlue)},
		{lines: edges, lineW: 3, c: dark(gemBlue), ink: dark(gemBlue)},
	}
}

// pipe is a smoking pipe: a bowl with its stem and mouthpiece, smoke rising.
func pipe() []part {
	// The bowl: an upright cup, flat on top, round at the bottom.
	bowl := join(
		[]pt{{70, 50}, {108, 50}},
		quad(pt{108, 50}, pt{110, 106}, pt{89, 106}),
		quad(pt{89, 106}, pt{68, 106}, pt{70, 50}),
	)
	stem := quad(pt{74, 90}, pt{46, 96}, pt{24, 78})
	return []part{
		{lines: [][]pt{stem}, lineW: 13, c: briar},
		{lines: [][]pt{{{24, 78}, {12, 70}}}, lineW: 9, c: rgb(0x3a3a40)},
		{fill: []poly{poly(bowl).filling()}, c: woodBrown, shine: []poly{poly(join(quad(pt{76, 58}, pt{75, 90}, pt{86, 100}), quad(pt{86, 100}, pt{80, 84}, pt{82, 58}))).filling()}},
		{fill: []poly{ellipse(89, 51, 18, 5.5)}, c: rgb(0x3b2416), shine: []poly{ellipse(89, 52, 11, 3)}},
		{lines: [][]pt{
			join(quad(pt{84, 40}, pt{76, 32}, pt{84, 24}), quad(pt{84, 24}, pt{92, 16}, pt{84, 8})),
			join(quad(pt{98, 40}, pt{90, 32}, pt{98, 24}), quad(pt{98, 24}, pt{104, 18}, pt{100, 12})),
		}, lineW: 5, c: rgb(0xc7ced6)},
	}
}

// bomb is a round black bomb with its cap, a fuse and a spark.
func bomb() []part {
	fuse := quad(pt{86, 38}, pt{92, 18}, pt{104, 24})
	return []part{
		{lines: [][]pt{fuse}, lineW: 5, c: rgb(0xd9b26f)},
		{fill: []poly{transform{-math.Pi / 4, 84, 42}.polys([]poly{rect(-10, -9, 10, 9)})[0]}, c: rgb(0x5d6876)},
		{fill: []poly{circle(56, 76, 40)}, c: rgb(0x48525f), shine: []poly{ellipse(42, 60, 11, 7)}},
		{fill: []poly{star(104, 24, 14, 6, 8)}, c: rgb(0xff9800), ink: rgb(0xb33c00)},
		{fill: []poly{star(104, 24, 7.5, 3.5, 8)}, c: sparkYellow, ink: sparkYellow},
	}
}

// star is a star of n points of radii r (points) and q (between points).
func star(cx, cy, r, q float64, n int) poly {
	p := make(poly, 2*n)
	for i := range p {
		a := math.Pi*float64(i)/float64(n) - math.Pi/2
		d := r
		if i%2 == 1 {
			d = q
		}
		p[i] = pt{cx + d*math.Cos(a), cy + d*math.Sin(a)}
	}
	return p.filling()
}

// sabre is a curved sabre, point up: the blade, a guard with its knuckle
// bow, the grip and the pommel.
func sabre() []part {
	// The blade's back follows a quadratic curve from the guard to the
	// point; its edge is the back offset by a width that narrows to zero.
	g, c, tip := pt{38, 90}, pt{98, 82}, pt{114, 12}
	at := func(t float64) (pt, pt) {
		u := 1 - t
		p := pt{u*u*g.x + 2*u*t*c.x + t*t*tip.x, u*u*g.y + 2*u*t*c.y + t*t*tip.y}
		d := pt{2*u*(c.x-g.x) + 2*t*(tip.x-c.x), 2*u*(c.y-g.y) + 2*t*(tip.y-c.y)}
		l := math.Hypot(d.x, d.y)
		return p, pt{d.y / l, -d.x / l} // the normal on the back's side
	}
	var back, edge []pt
	const n = 40
	for i := 0; i <= n; i++ {
		t := float64(i) / n
		p, nr := at(t)
		w := 19 * math.Pow(1-t, 0.55)
		back = append(back, pt{p.x + nr.x*w*0.35, p.y + nr.y*w*0.35})
		edge = append(edge, pt{p.x - nr.x*w*0.65, p.y - nr.y*w*0.65})
	}
	blade := poly(join(back, poly(edge).reversed())).filling()
	var fuller []pt
	for i := 2; i <= n*6/10; i++ {
		p, nr := at(float64(i) / n)
		fuller = append(fuller, pt{p.x + nr.x*0.5, p.y + nr.y*0.5})
	}
	// The hilt runs on from the blade's first direction, backwards.
	_, nr := at(0)
	dir := pt{-nr.y, nr.x} // the tangent at the guard
	hiltEnd := pt{g.x - dir.x*24, g.y - dir.y*24}
	guard := []pt{{g.x + nr.x*14, g.y + nr.y*14}, {g.x - nr.x*14, g.y - nr.y*14}}
	bow := quad(guard[1], pt{hiltEnd.x - nr.x*22, hiltEnd.y - nr.y*22}, hiltEnd)
	return []part{
		{fill: []poly{blade}, c: steel},
		{lines: [][]pt{fuller}, lineW: 2.5, c: mix(steel, rgb(0x607d8b), 0.6), ink: mix(steel, rgb(0x607d8b), 0.6)},
		{lines: [][]pt{{g, hiltEnd}}, lineW: 12, c: rgb(0x6d4c41)},
		{lines: [][]pt{bow}, lineW: 5, c: gold},
		{lines: [][]pt{guard}, lineW: 10, c: gold},
		{fill: []poly{circle(hiltEnd.x, hiltEnd.y, 8)}, c: gold},
	}
}

// candle is a lit candle on a dish: wax body with a drip, wick, flame.
func candle() []part {
	body := poly(join(
		[]pt{{46, 104}, {46, 50}},
		quad(pt{46, 50}, pt{64, 44}, pt{82, 50}),
		[]pt{{82, 104}},
	)).filling()
	drip := poly(join(
		quad(pt{50, 52}, pt{52, 72}, pt{56, 72}),
		quad(pt{56, 72}, pt{60, 72}, pt{60, 54}),
	)).filling()
	flame := func(cx, base, w, h float64) poly {
		return poly(join(
			quad(pt{cx, base - h}, pt{cx + w, base - h*0.35}, pt{cx + w*0.55, base - h*0.1}),
			quad(pt{cx + w*0.55, base - h*0.1}, pt{cx, base + h*0.12}, pt{cx - w*0.55, base - h*0.1}),
			quad(pt{cx - w*0.55, base - h*0.1}, pt{cx - w, base - h*0.35}, pt{cx, base - h}),
		)).filling()
	}
	return []part{
		{fill: []poly{ellipse(64, 110, 40, 9)}, c: gold},
		{fill: []poly{body}, c: wax, shine: []poly{rect(70, 56, 76, 100)}, ink: rgb(0x8a6a40)},
		{fill: []poly{drip}, c: mix(wax, rgb(0xf0c080), 0.3), ink: rgb(0x8a6a40)},
		{lines: [][]pt{{{64, 48}, {64, 40}}}, lineW: 3.5, c: rgb(0x2b2b2b)},
		{fill: []poly{flame(64, 42, 14, 36)}, c: rgb(0xff7a1a), ink: rgb(0xb8400a)},
		{fill: []poly{flame(64, 40, 7, 20)}, c: sparkYellow, ink: sparkYellow},
	}
}

// barrel is a wooden barrel standing, seen slightly from above: bulging
// staves, three iron hoops, the top's lid.
func barrel() []part {
	const top, bottom, rx, bulge = 22.0, 112.0, 34.0, 46.0
	side := func(sign float64) []pt {
		return quad(pt{64 + sign*rx, top}, pt{64 + sign*(2*bulge-rx), (top + bottom) / 2}, pt{64 + sign*rx, bottom})
	}
	body := poly(join(side(1), quad(pt{64 + rx, bottom}, pt{64, bottom + 10}, pt{64 - rx, bottom}), poly(side(-1)).reversed())).filling()
	// hoop is the hoop at height y, as wide as the sides' curve there.
	hoop := func(y float64) []pt {
		t := (y - top) / (bottom - top)
		w := rx + 2*t*(1-t)*2*(bulge-rx)
		return quad(pt{64 - w, y}, pt{64, y + 12}, pt{64 + w, y})
	}
	staves := [][]pt{}
	for _, k := range []float64{-0.5, 0, 0.5} {
		staves = append(staves, quad(pt{64 + k*rx, top + 6}, pt{64 + k*(2*bulge-rx)*1.02, (top+bottom)/2 + 6}, pt{64 + k*rx, bottom + 4}))
	}
	return []part{
		{fill: []poly{body}, c: woodBrown, shine: []poly{poly(join(quad(pt{38, 30}, pt{28, 67}, pt{38, 104}), quad(pt{38, 104}, pt{35, 67}, pt{45, 30}))).filling()}},
		{lines: staves, lineW: 2.5, c: dark(woodBrown), ink: dark(woodBrown)},
		{lines: [][]pt{hoop(34), hoop(92)}, lineW: 7, c: rgb(0x8a969e)},
		{fill: []poly{ellipse(64, top, rx, 9)}, c: mix(woodBrown, rgb(0xf0c090), 0.4), ink: dark(woodBrown)},
	}
}

// key is an old key, bow up-left and bit down-right.
func key() []part {
	// Drawn along the x axis around the origin, then turned by 45°.
	bow := []poly{circle(0, 0, 21), circle(0, 0, 9.5).reversed()} // reversed: a hole
	shaft := rect(16, -6, 92, 6)
	bit := []poly{rect(62, 0, 72, 24), rect(80, 0, 92, 20)}
	t := transform{math.Pi / 4, 32, 32}
	gl := t.polys([]poly{
		poly{{-12, -8}, {-4, -16}, {-2, -14}, {-10, -6}}.filling(),
		rect(24, -3, 84, -1),
	})
	return []part{
		{fill: t.polys(append([]poly{shaft}, bit...)), c: gold, shine: gl[1:]},
		{fill: t.polys(bow), c: gold, shine: gl[:1]},
	}
}

// hidden is the hidden cell's tile: a rounded blue square with a "?".
func hidden() []part {
	mark := join(
		arc(64, 46, 17, math.Pi*1.05, math.Pi*2.25),
		quad(pt{64 + 17*math.Cos(math.Pi*2.25), 46 + 17*math.Sin(math.Pi*2.25)}, pt{64, 62}, pt{64, 74}),
	)
	return []part{
		{fill: []poly{roundRect(10, 10, 118, 118, 22)}, c: tileBlue, shine: []poly{roundRect(20, 18, 108, 30, 6)}},
		{lines: [][]pt{mark}, lineW: 12, c: white, ink: dark(tileBlue)},
		{fill: []poly{circle(64, 95, 8)}, c: white, ink: dark(tileBlue)},
	}
}

// chest is the treasure chest, closed (a domed lid, gold bands, a lock) or
// open (the lid thrown back, gold heaped inside, a sparkle).
func chest(open bool) []part {
	body := part{fill: []poly{rect(14, 58, 114, 112)}, c: woodBrown}
	bands := part{lines: [][]pt{{{24, 40}, {24, 112}}, {{104, 40}, {104, 112}}, {{14, 58}, {114, 58}}, {{14, 110}, {114, 110}}}, lineW: 7, c: gold}
	if open {
		bands.lines = bands.lines[2:]
		return []part{
			{fill: []poly{poly{{14, 58}, {28, 12}, {100, 12}, {114, 58}}.filling()}, c: briar},
			{lines: [][]pt{{{28, 12}, {100, 12}}}, lineW: 7, c: gold},
			{fill: []poly{circle(38, 60, 14), circle(62, 52, 16), circle(88, 58, 14), circle(74, 64, 12)}, c: gold, shine: []poly{ellipse(58, 46, 6, 4), ellipse(34, 55, 5, 3)}},
			body, bands,
			{fill: []poly{star(100, 30, 14, 4, 4)}, c: sparkYellow, ink: sparkYellow},
		}
	}
	lid := poly(join(quad(pt{14, 58}, pt{14, 22}, pt{64, 22}), quad(pt{64, 22}, pt{114, 22}, pt{114, 58}))).filling()
	return []part{
		body, {fill: []poly{lid}, c: woodBrown, shine: []poly{ellipse(44, 34, 12, 4)}}, bands,
		{fill: []poly{roundRect(52, 50, 76, 78, 5)}, c: gold},
		{fill: []poly{circle(64, 60, 4), rect(62, 60, 66, 71)}, c: rgb(0x2b1a10), ink: rgb(0x2b1a10)},
	}
}

// coins is a stack of four coins beside one standing.
func coins() []part {
	var ps []part
	for i := range 4 {
		y := 104 - 13*float64(i)
		ps = append(ps, part{fill: []poly{ellipse(44, y+7, 28, 9), rect(16, y, 72, y+7)}, c: mix(gold, briar, 0.35)},
			part{fill: []poly{ellipse(44, y, 28, 9)}, c: gold, shine: []poly{ellipse(36, y-2, 8, 2.5)}})
	}
	return append(ps, part{fill: []poly{circle(94, 80, 28)}, c: gold, shine: []poly{ellipse(86, 68, 8, 5)}},
		part{lines: [][]pt{arc(94, 80, 18, 0, 2*math.Pi)}, lineW: 3, c: mix(gold, briar, 0.35), ink: mix(gold, briar, 0.35)})
}

// keyhole is a round brass plate pierced by a keyhole: a key not yet earned.
func keyhole() []part {
	return []part{
		{fill: []poly{circle(64, 64, 54)}, c: rgb(0xb08d57), shine: []poly{ellipse(48, 32, 16, 7)}},
		{fill: []poly{circle(64, 52, 14), poly{{57, 58}, {71, 58}, {78, 98}, {50, 98}}.filling()}, c: rgb(0x2b1a10), ink: rgb(0x2b1a10)},
	}
}
