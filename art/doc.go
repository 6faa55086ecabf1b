// Package art draws the game's symbols and the hidden cell as small square
// pictures, for Discord's application emojis: Unicode has a gem, a bomb, a
// candle… but no smoking pipe (🪈 is a flute), so the bot brings its own.
//
// Every picture is drawn in code (image/draw and golang.org/x/image/vector),
// nothing is read from disk: the pictures are in the binary. They share one
// style: a Size×Size canvas with a transparent background, Padding pixels
// of margin, flat colours with one lighter highlight per part, and every
// part ringed by an outline Outline pixels wide in a darker shade of its own
// colour. The drawings are made to stay recognisable at 22 pixels, the
// size Discord shows an emoji inside text.
//
// The package is pure: it draws and encodes PNG, with no other I/O. Its
// output is deterministic: the same call gives the same bytes.
//
// Usage:
//
//	b, err := art.SymbolPNG(game.Pipe) // a 128×128 PNG of a smoking pipe
//	if err != nil { … }
//	h, err := art.HiddenPNG() // the hidden cell: a "?" tile
package art
