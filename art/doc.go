// Package art draws the game's symbols and the hidden cell as small square
// pictures, for Discord's application emojis: Unicode has a gem, a bomb, a
// candle… but no smoking pipe (🪈 is a flute), so the bot brings its own.
// The Activity's page also shows its chest, coins and keyholes (Names).
//
// Every picture is drawn in code (golang.org/x/image/vector), in one
// style: flat colours, a highlight and a darker outline per part, legible
// at 22 pixels. The package is pure and deterministic: the same call gives
// the same bytes.
//
// Usage:
//
//	b, err := art.SymbolPNG(game.Pipe) // a 128×128 PNG of a smoking pipe
//	if err != nil { … }
//	h, err := art.HiddenPNG() // the hidden cell: a "?" tile
//	c, err := art.PicturePNG("chest-open") // the treasure chest, open
package art
