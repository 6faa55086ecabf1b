// Package schema is the stored form of the game's state: the one
// documented, versioned encoding that the Redis store, the embedded store
// and dumps all write, field by field in docs/STORAGE.md. No Go struct of
// package game is ever stored as is: a rename in code changes nothing
// stored, and a reader needs only the document.
//
// Its conventions are docs/STORAGE.md §1's: JSON objects with short field
// names, zero fields left out, integer milliseconds and cents, ticket and
// chest numbers bounded by game.MaxSeq (2^53−1) so that every JSON reader
// reads them exactly, snowflakes as decimal strings. Decoding is strict: an
// unknown format version or field, or a value out of bounds, is an error
// naming the record and the field, and the caller writes nothing.
//
//	b, _ := schema.EncodePlayer(p)           // the record of a game.Player
//	p, err := schema.DecodePlayer("p:{1:2}", b) // and back, checked
//	g, err := schema.DecodeGuild("s:{1}", b)    // a guild's (game.Guild), checked by game
//	e, id, err := schema.DecodeAudit("a:{1} line", 1, b) // a moderator log line
package schema
