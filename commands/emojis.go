package commands

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/lesclefsdutresor/clefs/art"
	"github.com/lesclefsdutresor/clefs/game"
)

// EmojiImage is a picture the application uploads as its own emoji.
type EmojiImage struct {
	Name string // 2–32 of [A-Za-z0-9_]
	PNG  []byte // at most 256 KiB
}

// HiddenEmojiName is the application emoji's name of a hidden cell.
const HiddenEmojiName = "clefs_hidden"

// EmojiName returns the application emoji's name of symbol s: "clefs_gem"…
func EmojiName(s game.Symbol) string { return "clefs_" + s.String() }

// UnicodeEmojis maps each application emoji's name to its built-in Unicode emoji.
func UnicodeEmojis() map[string]string {
	m := map[string]string{HiddenEmojiName: defaultHiddenEmoji}
	for s := range game.Symbol(game.NumSymbols) {
		m[EmojiName(s)] = defaultEmoji[s]
	}
	return m
}

type glyphs struct {
	sym    [game.NumSymbols]string
	hidden string
}

// newGlyphs resolves the emojis: over's non-empty entries, then app's
// (when not nil), then the built-in Unicode.
func newGlyphs(over glyphs, app *glyphs) *glyphs {
	g := &glyphs{sym: defaultEmoji, hidden: defaultHiddenEmoji}
	if app != nil {
		g.sym, g.hidden = app.sym, app.hidden
	}
	for s := range g.sym {
		g.sym[s] = cmp.Or(over.sym[s], g.sym[s])
	}
	g.hidden = cmp.Or(over.hidden, g.hidden)
	return g
}

func (rd *renderer) glyphs() *glyphs { return rd.emojis.Load() }

// ApplicationEmojis returns the pictures to upload as the application's
// emojis; nil when Config.ApplicationEmojis is off.
func (a *App) ApplicationEmojis() ([]EmojiImage, error) {
	if !a.cfg.ApplicationEmojis {
		return nil, nil
	}
	out := make([]EmojiImage, 0, game.NumSymbols+1)
	for s := range game.Symbol(game.NumSymbols) {
		b, err := art.SymbolPNG(s)
		if err != nil {
			return nil, fmt.Errorf("commands: draw %v: %w", s, err)
		}
		out = append(out, EmojiImage{Name: EmojiName(s), PNG: b})
	}
	b, err := art.HiddenPNG()
	if err != nil {
		return nil, fmt.Errorf("commands: draw the hidden cell: %w", err)
	}
	return append(out, EmojiImage{Name: HiddenEmojiName, PNG: b}), nil
}

// UseApplicationEmojis makes the cards show the application's emojis,
// given their IDs by name, where the operator set none. A name missing or
// an ID that is not a snowflake is an error, and changes nothing.
func (a *App) UseApplicationEmojis(ids map[string]string) error {
	var app glyphs
	var missing []string
	ref := func(name string) string {
		id := ids[name]
		if n, err := strconv.ParseUint(id, 10, 64); err != nil || n == 0 {
			missing = append(missing, name)
			return ""
		}
		return "<:" + name + ":" + id + ">"
	}
	for s := range app.sym {
		app.sym[s] = ref(EmojiName(game.Symbol(s)))
	}
	app.hidden = ref(HiddenEmojiName)
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("commands: application emojis missing or without a valid ID: %v", missing)
	}
	a.emojis.Store(newGlyphs(a.override, &app))
	return nil
}
