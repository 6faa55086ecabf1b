package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/vector"

	"github.com/lesclefsdutresor/clefs/art"
	"github.com/lesclefsdutresor/clefs/game"
)

// The Unicode emojis a ticket card holds besides the symbols, drawn
// plainly in the spirit of Discord's (Twemoji) so that the picture needs no
// emoji font. The 🗝️ of the title is the bot's own key.
var unicodeEmoji = map[string]func(n int) *image.RGBA{
	"🗝️": func(n int) *image.RGBA { return scaled(art.Symbol(game.Key), n) },
	"⭐":  drawStar,
	"▫️": drawSmallSquare,
	"▶️": drawPlayButton,
	"🔒":  func(n int) *image.RGBA { return drawPadlock(n, false) },
	"🔓":  func(n int) *image.RGBA { return drawPadlock(n, true) },
	"🎉":  drawPopper,
	"⚡":  drawBolt,
	"🔁":  drawRepeat,
}

// emojiImage returns the picture of emoji e (a Unicode emoji, or "id:N" for
// an application emoji), n pixels square.
func emojiImage(e string, n int) (*image.RGBA, error) {
	var id uint64
	if _, err := fmt.Sscanf(e, "id:%d", &id); err == nil {
		switch {
		case id >= 1 && id <= uint64(game.NumSymbols):
			return scaled(art.Symbol(game.Symbol(id-1)), n), nil
		case id == uint64(game.NumSymbols)+1:
			return scaled(art.Hidden(), n), nil
		}
		return nil, fmt.Errorf("no application emoji %d", id)
	}
	if f := unicodeEmoji[e]; f != nil {
		return f(n), nil
	}
	return nil, fmt.Errorf("no picture for the emoji %q (%+q)", e, e)
}

// scaled returns src resized to n×n.
func scaled(src image.Image, n int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, n, n))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Over, nil)
	return dst
}

// pt is a point in the unit square, y down.
type pt struct{ x, y float64 }

// pen fills shapes given in the unit square on an n×n picture.
type pen struct {
	img *image.RGBA
	n   float64
}

func newPen(n int) *pen { return &pen{img: image.NewRGBA(image.Rect(0, 0, n, n)), n: float64(n)} }

// fill fills the closed polygons ps in colour c; a polygon wound the other
// way cuts a hole.
func (p *pen) fill(c color.NRGBA, ps ...[]pt) { fillScaled(p.img, p.n, c, ps...) }

// fillScaled fills the closed polygons ps, their points times k, in colour
// c on img; a polygon wound the other way cuts a hole.
func fillScaled(img *image.RGBA, k float64, c color.NRGBA, ps ...[]pt) {
	b := img.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	for _, poly := range ps {
		for i, q := range poly {
			x, y := float32(q.x*k), float32(q.y*k)
			if i == 0 {
				z.MoveTo(x, y)
			} else {
				z.LineTo(x, y)
			}
		}
		z.ClosePath()
	}
	z.Draw(img, b, image.NewUniform(c), image.Point{})
}

// arc returns the points of a circle's arc from angle a0 to a1 (radians,
// y down, so that π to 2π is the upper half).
func arc(cx, cy, r, a0, a1 float64) []pt {
	const steps = 32
	out := make([]pt, 0, steps+1)
	for i := range steps + 1 {
		a := a0 + (a1-a0)*float64(i)/steps
		out = append(out, pt{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	return out
}

func circle(cx, cy, r float64) []pt { return arc(cx, cy, r, 0, 2*math.Pi) }

func roundRect(x0, y0, x1, y1, r float64) []pt {
	var out []pt
	out = append(out, arc(x1-r, y0+r, r, -math.Pi/2, 0)...)
	out = append(out, arc(x1-r, y1-r, r, 0, math.Pi/2)...)
	out = append(out, arc(x0+r, y1-r, r, math.Pi/2, math.Pi)...)
	return append(out, arc(x0+r, y0+r, r, math.Pi, 3*math.Pi/2)...)
}

func reversed(ps []pt) []pt {
	out := slices.Clone(ps)
	slices.Reverse(out)
	return out
}

// Twemoji's colours.
var (
	emojiGold  = color.NRGBA{0xff, 0xac, 0x33, 0xff}
	emojiBlue  = color.NRGBA{0x3b, 0x88, 0xc3, 0xff}
	emojiGrey  = color.NRGBA{0xaa, 0xb8, 0xc2, 0xff}
	emojiLight = color.NRGBA{0xcc, 0xd6, 0xdd, 0xff}
	emojiDark  = color.NRGBA{0x29, 0x2f, 0x33, 0xff}
	emojiRed   = color.NRGBA{0xdd, 0x2e, 0x44, 0xff}
	emojiGreen = color.NRGBA{0x77, 0xb2, 0x55, 0xff}
	emojiSky   = color.NRGBA{0x55, 0xac, 0xee, 0xff}
	emojiWhite = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

func drawStar(n int) *image.RGBA {
	p := newPen(n)
	var star []pt
	for i := range 10 {
		r := 0.48
		if i%2 == 1 {
			r = 0.2
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		star = append(star, pt{0.5 + r*math.Cos(a), 0.54 + r*math.Sin(a)})
	}
	p.fill(emojiGold, star)
	return p.img
}

func drawSmallSquare(n int) *image.RGBA {
	p := newPen(n)
	p.fill(emojiLight, roundRect(0.3, 0.3, 0.7, 0.7, 0.03))
	return p.img
}

func drawPlayButton(n int) *image.RGBA {
	p := newPen(n)
	p.fill(emojiBlue, roundRect(0.04, 0.04, 0.96, 0.96, 0.14))
	p.fill(emojiWhite, []pt{{0.38, 0.27}, {0.76, 0.5}, {0.38, 0.73}})
	return p.img
}

// drawPadlock draws a padlock, its shackle raised when open.
func drawPadlock(n int, open bool) *image.RGBA {
	p := newPen(n)
	lift := 0.0
	if open {
		lift = 0.14
	}
	cy := 0.38 - lift
	ring := append(arc(0.5, cy, 0.25, math.Pi, 2*math.Pi), reversed(arc(0.5, cy, 0.15, math.Pi, 2*math.Pi))...)
	p.fill(emojiGrey, ring)
	p.fill(emojiGrey, []pt{{0.25, cy}, {0.35, cy}, {0.35, 0.5}, {0.25, 0.5}})
	right := 0.5
	if open {
		right = cy + 0.1
	}
	p.fill(emojiGrey, []pt{{0.65, cy}, {0.75, cy}, {0.75, right}, {0.65, right}})
	p.fill(emojiGold, roundRect(0.14, 0.44, 0.86, 0.94, 0.08))
	p.fill(emojiDark, circle(0.5, 0.64, 0.065), []pt{{0.47, 0.66}, {0.53, 0.66}, {0.54, 0.8}, {0.46, 0.8}})
	return p.img
}

func drawPopper(n int) *image.RGBA {
	p := newPen(n)
	p.fill(emojiGold, []pt{{0.06, 0.94}, {0.28, 0.34}, {0.66, 0.72}})
	p.fill(emojiRed, []pt{{0.2, 0.56}, {0.44, 0.8}, {0.36, 0.84}, {0.16, 0.66}})
	p.fill(emojiRed, circle(0.62, 0.14, 0.06))
	p.fill(emojiSky, circle(0.86, 0.36, 0.06))
	p.fill(emojiGreen, circle(0.46, 0.24, 0.05))
	p.fill(emojiGreen, circle(0.78, 0.64, 0.05))
	p.fill(emojiSky, []pt{{0.72, 0.06}, {0.8, 0.02}, {0.84, 0.1}, {0.76, 0.14}})
	p.fill(emojiGold, circle(0.9, 0.16, 0.04))
	return p.img
}

func drawBolt(n int) *image.RGBA {
	p := newPen(n)
	p.fill(emojiGold, []pt{{0.6, 0.02}, {0.18, 0.56}, {0.46, 0.56}, {0.36, 0.98}, {0.82, 0.4}, {0.54, 0.4}, {0.7, 0.02}})
	return p.img
}

func drawRepeat(n int) *image.RGBA {
	p := newPen(n)
	p.fill(emojiBlue, roundRect(0.04, 0.04, 0.96, 0.96, 0.14))
	p.fill(emojiWhite, roundRect(0.2, 0.3, 0.8, 0.72, 0.14), reversed(roundRect(0.29, 0.39, 0.71, 0.63, 0.06)))
	p.fill(emojiBlue, []pt{{0.5, 0.25}, {0.62, 0.25}, {0.62, 0.4}, {0.5, 0.4}})
	p.fill(emojiBlue, []pt{{0.38, 0.62}, {0.5, 0.62}, {0.5, 0.77}, {0.38, 0.77}})
	p.fill(emojiWhite, []pt{{0.52, 0.19}, {0.68, 0.345}, {0.52, 0.5}})
	p.fill(emojiWhite, []pt{{0.48, 0.52}, {0.32, 0.675}, {0.48, 0.83}})
	return p.img
}
