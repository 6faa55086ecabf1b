package main

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// scale is the picture's pixels per CSS pixel of Discord's layout: 2, for
// screens that double.
const scale = 2

// Discord's dark theme.
var (
	chatBG      = rgb(0x313338)
	embedBG     = rgb(0x2b2d31)
	titleColour = rgb(0xf2f3f5)
	textColour  = rgb(0xdbdee1)
	mutedColour = rgb(0x949ba4)
	badgeColour = rgb(0x5865f2)
	buttonBG    = map[discordgo.ButtonStyle]color.NRGBA{
		discordgo.PrimaryButton:   rgb(0x5865f2),
		discordgo.SecondaryButton: rgb(0x4e5058),
		discordgo.SuccessButton:   rgb(0x248046),
		discordgo.DangerButton:    rgb(0xda373c),
	}
)

func rgb(v uint32) color.NRGBA {
	return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// Layout, in CSS pixels.
const (
	margin      = 16  // around everything
	avatar      = 40  // the bot's picture
	gutter      = 16  // between the picture and the message
	embedMax    = 432 // the widest an embed's text runs
	emojiSize   = 22  // an emoji in an embed's text
	buttonH     = 32
	buttonGap   = 8
	buttonPad   = 16
	buttonEmoji = 18
)

// faces are the Go fonts at the sizes the card uses.
type faces struct{ title, text, bold, field, footer, button, name, badge, time font.Face }

func loadFaces() (*faces, error) {
	load := func(ttf []byte, size float64) (font.Face, error) {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("parse font: %w", err)
		}
		return opentype.NewFace(f, &opentype.FaceOptions{Size: size * scale, DPI: 72, Hinting: font.HintingFull})
	}
	var fs faces
	var errs []error
	for _, x := range []struct {
		dst  *font.Face
		ttf  []byte
		size float64
	}{
		{&fs.title, gobold.TTF, 16}, {&fs.text, goregular.TTF, 14}, {&fs.bold, gobold.TTF, 14},
		{&fs.field, gobold.TTF, 14}, {&fs.footer, gomedium.TTF, 12}, {&fs.button, gomedium.TTF, 14},
		{&fs.name, gomedium.TTF, 16}, {&fs.badge, gobold.TTF, 10}, {&fs.time, goregular.TTF, 12},
	} {
		f, err := load(x.ttf, x.size)
		*x.dst = f
		errs = append(errs, err)
	}
	return &fs, errors.Join(errs...)
}

// A span is a piece of a line of text: words in one face, or one emoji.
type span struct {
	text  string
	face  font.Face
	emoji *image.RGBA
}

// spans splits Discord markdown (only **bold** and emojis: Unicode ones
// this file can draw, and application emojis <:name:id>) into spans.
func spans(s string, regular, bold font.Face, emojiPx int) ([]span, error) {
	var out []span
	for i, part := range strings.Split(s, "**") {
		face := regular
		if i%2 == 1 {
			face = bold
		}
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				out = append(out, span{text: text.String(), face: face})
				text.Reset()
			}
		}
		for part != "" {
			name, n := emojiAt(part)
			if n == 0 {
				r, size := utf8.DecodeRuneInString(part)
				text.WriteRune(r)
				part = part[size:]
				continue
			}
			flush()
			img, err := emojiImage(name, emojiPx)
			if err != nil {
				return nil, err
			}
			out = append(out, span{emoji: img})
			part = part[n:]
		}
		flush()
	}
	return out, nil
}

// emojiAt returns the emoji at the start of s and its length in bytes, or
// 0: "id:N" for an application emoji <:name:N>, else the Unicode emoji
// with its variation selector, if any.
func emojiAt(s string) (string, int) {
	if strings.HasPrefix(s, "<:") {
		if end := strings.IndexByte(s, '>'); end > 0 {
			fields := strings.Split(s[2:end], ":")
			return "id:" + fields[len(fields)-1], end + 1
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	if r < 0x2000 {
		return "", 0
	}
	if vs := "\uFE0F"; strings.HasPrefix(s[n:], vs) {
		if _, ok := unicodeEmoji[s[:n+len(vs)]]; ok {
			return s[:n+len(vs)], n + len(vs)
		}
	}
	if _, ok := unicodeEmoji[s[:n]]; ok {
		return s[:n], n
	}
	return "", 0
}

// A line is spans laid out on one row of text.
type line struct {
	spans  []span
	height int // CSS pixels
}

// wrap lays spans out in lines no wider than width (CSS pixels), breaking
// between words; lineH is the line height of text alone.
func wrap(ss []span, width, lineH int) []line {
	var out []line
	cur := line{height: lineH}
	x := 0
	add := func(sp span, w int) {
		if x+w > width && len(cur.spans) > 0 {
			out = append(out, cur)
			cur, x = line{height: lineH}, 0
			if sp.emoji == nil {
				sp.text = strings.TrimLeft(sp.text, " ")
				w = measure(sp)
			}
		}
		cur.spans = append(cur.spans, sp)
		if sp.emoji != nil {
			cur.height = max(cur.height, emojiSize+2)
		}
		x += w
	}
	for _, sp := range ss {
		if sp.emoji != nil {
			add(sp, emojiSize)
			continue
		}
		for _, word := range strings.SplitAfter(sp.text, " ") {
			if word != "" {
				w := span{text: word, face: sp.face}
				add(w, measure(w))
			}
		}
	}
	return append(out, cur)
}

// measure is a span's width in CSS pixels.
func measure(sp span) int {
	if sp.emoji != nil {
		return sp.emoji.Bounds().Dx() / scale
	}
	return font.MeasureString(sp.face, sp.text).Ceil() / scale
}

// block is lines of text or emojis in one colour.
type block struct {
	lines  []line
	colour color.NRGBA
}

func (b block) height() int {
	h := 0
	for _, l := range b.lines {
		h += l.height
	}
	return h
}

func (b block) width() int {
	w := 0
	for _, l := range b.lines {
		x := 0
		for _, sp := range l.spans {
			x += measure(sp)
		}
		w = max(w, x)
	}
	return w
}

// textBlock lays out markdown s, line by line, in width.
func textBlock(s string, regular, bold font.Face, colour color.NRGBA, lineH, width int) (block, error) {
	b := block{colour: colour}
	for _, raw := range strings.Split(s, "\n") {
		ss, err := spans(raw, regular, bold, emojiSize*scale)
		if err != nil {
			return block{}, err
		}
		b.lines = append(b.lines, wrap(ss, width, lineH)...)
	}
	return b, nil
}

// canvas draws in CSS pixels on a picture scale times larger.
type canvas struct{ img *image.RGBA }

func (c canvas) rect(x, y, w, h, r int, col color.NRGBA) {
	fillScaled(c.img, scale, col, roundRect(float64(x), float64(y), float64(x+w), float64(y+h), float64(r)))
}

func (c canvas) image(x, y int, img image.Image) {
	r := img.Bounds().Sub(img.Bounds().Min).Add(image.Pt(x*scale, y*scale))
	draw.Draw(c.img, r, img, img.Bounds().Min, draw.Over)
}

// text draws s in face with its baseline at y.
func (c canvas) text(x, y int, s string, face font.Face, col color.NRGBA) int {
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: face, Dot: fixed.P(x*scale, y*scale)}
	d.DrawString(s)
	return d.Dot.X.Ceil()/scale - x
}

// block draws b from (x, y) and returns its height.
func (c canvas) block(x, y int, b block) int {
	top := y
	for _, l := range b.lines {
		cx := x
		for _, sp := range l.spans {
			if sp.emoji != nil {
				c.image(cx, y+(l.height-emojiSize)/2, sp.emoji)
				cx += emojiSize
				continue
			}
			m := sp.face.Metrics()
			asc, desc := m.Ascent.Ceil()/scale, m.Descent.Ceil()/scale
			cx += c.text(cx, y+(l.height+asc-desc)/2, sp.text, sp.face, b.colour)
		}
		y += l.height
	}
	return y - top
}

// drawCard draws card, a message with one embed and rows of buttons, as
// Discord's dark theme shows it under the bot's name.
func drawCard(card *discordgo.InteractionResponseData) (*image.RGBA, error) {
	if card == nil || len(card.Embeds) != 1 {
		return nil, errors.New("want a message with one embed")
	}
	e := card.Embeds[0]
	fs, err := loadFaces()
	if err != nil {
		return nil, err
	}

	// Lay out the embed: title, description, inline fields, footer.
	title, err := textBlock(e.Title, fs.title, fs.title, titleColour, 22, embedMax)
	if err != nil {
		return nil, err
	}
	desc, err := textBlock(e.Description, fs.text, fs.bold, textColour, 18, embedMax)
	if err != nil {
		return nil, err
	}
	var names, values []block
	colW := 0
	for _, f := range e.Fields {
		n, err := textBlock(f.Name, fs.field, fs.field, titleColour, 18, embedMax/2)
		if err != nil {
			return nil, err
		}
		v, err := textBlock(f.Value, fs.text, fs.bold, textColour, 18, embedMax/2)
		if err != nil {
			return nil, err
		}
		names, values = append(names, n), append(values, v)
		colW = max(colW, n.width(), v.width())
	}
	var footer block
	if e.Footer != nil {
		if footer, err = textBlock(e.Footer.Text, fs.footer, fs.footer, textColour, 16, embedMax); err != nil {
			return nil, err
		}
	}
	fieldsH := 0
	for i := range names {
		fieldsH = max(fieldsH, names[i].height()+2+values[i].height())
	}
	innerW := max(title.width(), desc.width(), footer.width(), len(e.Fields)*(colW+24))
	innerW = min(innerW, embedMax)
	embedH := 8 + title.height() + 8 + desc.height() + 8 + fieldsH + 8 + footer.height() + 12

	// The buttons, row by row.
	type button struct {
		b     discordgo.Button
		emoji *image.RGBA
		w     int
	}
	var rows [][]button
	rowsW := 0
	for _, c := range card.Components {
		r, ok := c.(discordgo.ActionsRow)
		if !ok {
			continue
		}
		var row []button
		x := 0
		for _, c := range r.Components {
			b, ok := c.(discordgo.Button)
			if !ok {
				continue
			}
			bt := button{b: b}
			bt.w = 2*buttonPad + font.MeasureString(fs.button, b.Label).Ceil()/scale
			if b.Emoji != nil && b.Emoji.Name != "" {
				if bt.emoji, err = emojiImage(b.Emoji.Name, buttonEmoji*scale); err != nil {
					return nil, err
				}
				bt.w += buttonEmoji + 6
			}
			row = append(row, bt)
			x += bt.w + buttonGap
		}
		rows = append(rows, row)
		rowsW = max(rowsW, x-buttonGap)
	}

	left := margin + avatar + gutter
	embedW := 4 + 12 + innerW + 16
	width := left + max(embedW, rowsW) + margin
	header := 22
	height := margin + header + 4 + embedH + len(rows)*(buttonH+buttonGap) + margin
	c := canvas{img: image.NewRGBA(image.Rect(0, 0, width*scale, height*scale))}
	draw.Draw(c.img, c.img.Bounds(), image.NewUniform(chatBG), image.Point{}, draw.Src)

	// The bot's picture and name, as over any message.
	av := newPen(avatar * scale)
	av.fill(badgeColour, circle(0.5, 0.5, 0.5))
	c.image(margin, margin, av.img)
	key, err := emojiImage("🗝️", 26*scale)
	if err != nil {
		return nil, err
	}
	c.image(margin+7, margin+7, key)
	x := left
	x += c.text(x, margin+17, "Les Clefs du Trésor", fs.name, titleColour) + 6
	badgeW := font.MeasureString(fs.badge, "APP").Ceil()/scale + 8
	c.rect(x, margin+4, badgeW, 15, 3, badgeColour)
	c.text(x+4, margin+15, "APP", fs.badge, rgb(0xffffff))
	c.text(x+badgeW+8, margin+16, "Today at 20:00", fs.time, mutedColour)

	// The embed: its colour bar, then the blocks.
	y := margin + header + 4
	colour := rgb(uint32(e.Color))
	c.rect(left, y, embedW, embedH, 4, colour)
	c.rect(left+4, y, embedW-4, embedH, 3, embedBG)
	x = left + 4 + 12
	y += 8
	y += c.block(x, y, title) + 8
	y += c.block(x, y, desc) + 8
	for i := range names {
		fx := x + i*(colW+24)
		h := c.block(fx, y, names[i]) + 2
		c.block(fx, y+h, values[i])
	}
	y += fieldsH + 8
	c.block(x, y, footer)
	y = margin + header + 4 + embedH + buttonGap

	// The buttons; a disabled one at half strength.
	for _, row := range rows {
		x := left
		for _, bt := range row {
			bg, fg := buttonBG[bt.b.Style], rgb(0xffffff)
			if bt.b.Disabled {
				bg, fg = mix(bg, chatBG), mix(fg, chatBG)
			}
			c.rect(x, y, bt.w, buttonH, 8, bg)
			tx := x + buttonPad
			if bt.emoji != nil {
				em := bt.emoji
				if bt.b.Disabled {
					em = faded(em)
				}
				c.image(tx, y+(buttonH-buttonEmoji)/2, em)
				tx += buttonEmoji + 6
			}
			c.text(tx, y+21, bt.b.Label, fs.button, fg)
			x += bt.w + buttonGap
		}
		y += buttonH + buttonGap
	}
	return c.img, nil
}

// mix is a over b at half strength.
func mix(a, b color.NRGBA) color.NRGBA {
	return color.NRGBA{uint8((int(a.R) + int(b.R)) / 2), uint8((int(a.G) + int(b.G)) / 2), uint8((int(a.B) + int(b.B)) / 2), 0xff}
}

// faded returns img at half opacity.
func faded(img *image.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.DrawMask(out, out.Bounds(), img, img.Bounds().Min, image.NewUniform(color.Alpha{0x80}), image.Point{}, draw.Over)
	return out
}
