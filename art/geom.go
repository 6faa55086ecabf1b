package art

import (
	"cmp"
	"image"
	"image/color"
	"math"
	"slices"

	"golang.org/x/image/vector"
)

// pt is a point of the canvas, in pixels (y grows downwards).
type pt struct{ x, y float64 }

// poly is a closed polygon. Its orientation matters: the rasterizer adds
// the signed areas, so a polygon of positive area (filling) fills and one
// of negative area cuts a hole in what it overlaps.
type poly []pt

// filling returns p oriented to fill: of positive signed area.
func (p poly) filling() poly {
	var area float64 // twice the signed area
	for i := range p {
		q, r := p[i], p[(i+1)%len(p)]
		area += q.x*r.y - r.x*q.y
	}
	if area >= 0 {
		return p
	}
	return p.reversed()
}

// reversed returns p with the opposite orientation.
func (p poly) reversed() poly {
	q := slices.Clone(p)
	slices.Reverse(q)
	return q
}

// steps is the number of segments a full circle is flattened into; curves
// use as many per unit of their parameter.
const steps = 96

// ellipse is an axis-aligned ellipse centred on (cx, cy).
func ellipse(cx, cy, rx, ry float64) poly {
	p := make(poly, steps)
	for i := range p {
		a := 2 * math.Pi * float64(i) / steps
		p[i] = pt{cx + rx*math.Cos(a), cy + ry*math.Sin(a)}
	}
	return p.filling()
}

func circle(cx, cy, r float64) poly { return ellipse(cx, cy, r, r) }

// arc is the polyline of the circle (cx, cy, r) from angle a0 to a1
// (radians, clockwise on screen when a1 > a0).
func arc(cx, cy, r, a0, a1 float64) []pt {
	n := max(2, int(math.Ceil(math.Abs(a1-a0)/(2*math.Pi)*steps)))
	p := make([]pt, n+1)
	for i := range p {
		a := a0 + (a1-a0)*float64(i)/float64(n)
		p[i] = pt{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return p
}

func rect(x0, y0, x1, y1 float64) poly {
	return poly{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}.filling()
}

// roundRect is the rectangle from (x0, y0) to (x1, y1) with corners of radius r.
func roundRect(x0, y0, x1, y1, r float64) poly {
	var p poly
	p = append(p, arc(x1-r, y0+r, r, -math.Pi/2, 0)...)
	p = append(p, arc(x1-r, y1-r, r, 0, math.Pi/2)...)
	p = append(p, arc(x0+r, y1-r, r, math.Pi/2, math.Pi)...)
	p = append(p, arc(x0+r, y0+r, r, math.Pi, 3*math.Pi/2)...)
	return p.filling()
}

// quad is the quadratic Bézier curve from a to c with control point b, as a polyline.
func quad(a, b, c pt) []pt {
	const n = steps / 4
	p := make([]pt, n+1)
	for i := range p {
		t := float64(i) / n
		u := 1 - t
		p[i] = pt{u*u*a.x + 2*u*t*b.x + t*t*c.x, u*u*a.y + 2*u*t*b.y + t*t*c.y}
	}
	return p
}

// join concatenates polylines, dropping a point repeated where two meet.
func join(lines ...[]pt) []pt {
	var out []pt
	for _, l := range lines {
		for _, v := range l {
			if n := len(out); n > 0 && math.Abs(out[n-1].x-v.x) < 1e-9 && math.Abs(out[n-1].y-v.y) < 1e-9 {
				continue
			}
			out = append(out, v)
		}
	}
	return out
}

// stroke is the polyline's line, w pixels wide, with round joins and caps,
// as polygons that fill (they overlap; the rasterizer clamps).
func stroke(line []pt, w float64, closed bool) []poly {
	h := w / 2
	var out []poly
	for _, v := range line {
		out = append(out, circle(v.x, v.y, h))
	}
	n := len(line) - 1
	if closed {
		n = len(line)
	}
	for i := range n {
		a, b := line[i], line[(i+1)%len(line)]
		dx, dy := b.x-a.x, b.y-a.y
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*h, dx/l*h
		out = append(out, poly{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}}.filling())
	}
	return out
}

// transform maps points: rotation by angle a (radians, clockwise on screen)
// about the origin, then translation by (dx, dy).
type transform struct{ a, dx, dy float64 }

func (t transform) polys(ps []poly) []poly {
	s, c := math.Sin(t.a), math.Cos(t.a)
	return mapPolys(ps, func(v pt) pt { return pt{v.x*c - v.y*s + t.dx, v.x*s + v.y*c + t.dy} }) // a rotation keeps the orientation
}

// mapPolys returns ps with every point mapped by m.
func mapPolys[P ~[]pt](ps []P, m func(pt) pt) []P {
	out := make([]P, len(ps))
	for i, p := range ps {
		out[i] = make(P, len(p))
		for j, v := range p {
			out[i][j] = m(v)
		}
	}
	return out
}

// part is one piece of a drawing: a filled area (polygons, with holes)
// and lines (stroked polylines) in one colour. It is drawn in two passes:
// its outline (the area grown by Outline pixels, in the dark shade of the
// colour), then its body.
type part struct {
	fill  []poly  // filled polygons
	lines [][]pt  // open polylines, stroked lineW wide
	lineW float64 // the width of lines
	c     color.NRGBA
	// shine are highlights drawn over the body in the light shade of c,
	// without outline.
	shine []poly
	// ink, when not zero, is the outline's colour instead of the dark shade.
	ink color.NRGBA
}

// geometry returns the part's area grown by g pixels all around.
func (p part) geometry(g float64) []poly {
	out := slices.Clone(p.fill)
	if g > 0 {
		for _, f := range p.fill {
			out = append(out, stroke(f, 2*g, true)...)
		}
	}
	for _, l := range p.lines {
		out = append(out, stroke(l, p.lineW+2*g, false)...)
	}
	return out
}

// The palette logic: every colour comes in three shades, the base for the
// body, a darker one for the outline and a lighter one for highlights.
func dark(c color.NRGBA) color.NRGBA  { return mix(c, color.NRGBA{0x14, 0x10, 0x18, 0xff}, 0.62) }
func light(c color.NRGBA) color.NRGBA { return mix(c, color.NRGBA{0xff, 0xff, 0xff, 0xff}, 0.5) }

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
	return color.NRGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 0xff}
}

func rgb(v uint32) color.NRGBA {
	return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// fillPolys draws polygons in colour c over dst.
func fillPolys(dst *image.RGBA, ps []poly, c color.NRGBA) {
	b := dst.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	for _, p := range ps {
		if len(p) < 3 {
			continue
		}
		z.MoveTo(float32(p[0].x), float32(p[0].y))
		for _, v := range p[1:] {
			z.LineTo(float32(v.x), float32(v.y))
		}
		z.ClosePath()
	}
	z.Draw(dst, b, image.NewUniform(c), image.Point{})
}

// fit scales and moves the parts so that the drawing, outlines included,
// fills the canvas inside the padding along its longer side and is centred
// along the other: every picture keeps the same margin whatever its
// sketch's coordinates. The outline width does not scale.
func fit(parts []part) {
	lo, hi := pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
	grow := func(v pt, m float64) {
		lo = pt{min(lo.x, v.x-m), min(lo.y, v.y-m)}
		hi = pt{max(hi.x, v.x+m), max(hi.y, v.y+m)}
	}
	for _, p := range parts {
		for _, f := range p.fill {
			for _, v := range f {
				grow(v, 0)
			}
		}
		for _, l := range p.lines {
			for _, v := range l {
				grow(v, p.lineW/2)
			}
		}
	}
	// One pixel more than the padding: antialiasing spills half a pixel.
	room := Size - 2*(Padding+1) - 2*Outline
	k := room / max(hi.x-lo.x, hi.y-lo.y)
	c := pt{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2}
	m := func(v pt) pt { return pt{Size/2 + (v.x-c.x)*k, Size/2 + (v.y-c.y)*k} }
	for i := range parts {
		p := &parts[i]
		p.fill, p.shine, p.lines, p.lineW = mapPolys(p.fill, m), mapPolys(p.shine, m), mapPolys(p.lines, m), p.lineW*k
	}
}

// render fits the parts to the canvas and draws them in order, each
// outline under its own body, on a transparent background.
func render(parts []part) *image.RGBA {
	fit(parts)
	img := image.NewRGBA(image.Rect(0, 0, Size, Size)) // transparent
	for _, p := range parts {
		fillPolys(img, p.geometry(Outline), cmp.Or(p.ink, dark(p.c)))
		fillPolys(img, p.geometry(0), p.c)
		fillPolys(img, p.shine, light(p.c))
	}
	return img
}
