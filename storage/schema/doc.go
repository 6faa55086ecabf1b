// Package schema is the stored form of the game's state: the one
// documented, versioned encoding that the Redis store, the embedded store
// and dumps all write, field by field in docs/STORAGE.md. No Go struct of
// package game is ever stored as is: a rename in code changes nothing
// stored, and a reader needs only the document.
//
// Every value is a JSON object with short field names; a field whose value
// is zero (0, false, "", an empty list, a zero time) is left out, and reads
// as zero. Times are integer milliseconds since the Unix epoch (UTC),
// durations integer milliseconds, amounts integer cents, tiers and lots
// their names. Ticket and chest numbers are unsigned integers bounded by
// game.MaxSeq (2^53−1), so that every JSON reader reads them exactly;
// Discord snowflakes, which pass 2^53, are decimal strings.
//
// Decoding is strict: an unknown format version, a field the schema does
// not have, or a value out of the bounds the bot can carry is an error
// that names the record and the field, and the caller writes nothing.
//
//	b, _ := schema.EncodePlayer(p)           // the record of a game.Player
//	p, err := schema.DecodePlayer("p:{1:2}", b) // and back, checked
//	g, err := schema.DecodeGuild("s:{1}", b)    // a guild's (game.Guild), checked by game
//	e, id, err := schema.DecodeAudit("a:{1} line", 1, b) // a moderator log line
package schema
