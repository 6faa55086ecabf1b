// Package boltstore is the embedded storage.Store: one bbolt file (mode
// 0600, locked by the process that opens it), the default when REDIS_URL is
// unset. It persists; the rules are package game's, applied by Run
// (storage.Run.Next).
//
// # Writes
//
// Run reads the player in a read transaction, applies the move and encodes
// the result there — in parallel for concurrent players — then, in one
// read-write transaction, writes it if the record's bytes have not changed
// (compare-and-set; the version is part of the record). If another writer
// came first, the move is applied again inside the write transaction,
// which no other writer can interleave with: Run never returns
// ErrConflict. A refusal needs no write transaction at all. Commits are
// fsynced; the Runs of concurrent goroutines share one
// (bbolt's Batch, at most 2 ms of waiting), which is how 64 players
// playing at once stay above 2,000 play cycles per second without
// weakening durability. The players decoded last are remembered with the
// bytes they were decoded from (up to 1,024), so that an active player's
// next step skips decoding: an entry is used only when the stored bytes
// are equal to its own. Batch may run a transaction again, hence the
// move: game.Apply is pure but for the draws, which are the player's. The player, its history lines, the audit
// entry and the leaderboard index are written in the same transaction.
//
// # Layout
//
// Keys are big-endian integers, so that a guild's keys, and a player's, are
// contiguous and ordered. The values are the records of package schema
// (docs/STORAGE.md).
//
//	players  guild|user          → {"v": version, "p": the player's record}
//	history  guild|user|seq      → a ticket line (game.MainLine; the last game.MaxTicketLines kept)
//	others   guild|user|seq      → any other history line (the last game.MaxOtherLines kept)
//	reveals  guild|user|seq      → a revealed seed (the last game.MaxReveals kept)
//	opseq    guild|user|seq      → an operation's ID (the last game.MaxOps kept)
//	ops      guild|user|op ID    → that operation's result
//	audit    guild|seq           → an audit line (the last storage.AuditLimit kept)
//	guilds   guild               → {"v": version, "p": the guild's record}
//	board    guild|^balance|user → nothing: the leaderboard, richest first, ties by user
//	counts   guild               → the guild's number of players (8 bytes)
//	jobs     guild               → nothing: the guilds with a reset-guild in progress (Jobs)
//	meta     "layout"            → storage.LayoutVersion in decimal ("2")
//
// Open writes the layout marker into a new file (or one with no records)
// and refuses, with storage.ErrLayout and changing nothing, a file of
// another layout or one with records and no marker (0.3.0 and earlier):
// there is no rewriting in place; such a file moves by export with its
// release and import with this one (docs/operating.md).
//
// The leaderboard's top n is a cursor walk, O(log N + n). bbolt keeps no
// counts in its tree, so a player's rank is found by counting the entries
// before theirs, O(rank): a few milliseconds for a player ranked
// 100,000th. (The Redis store answers it in O(log N).)
//
// Every time is stored as storage.Timestamp rounds it.
//
//	st, err := boltstore.Open("./data/clefs.db", storage.Options{})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	a, err := st.Run(ctx, storage.Step{ID: id, Op: interactionID, Create: true,
//		Start: 2000, Seeds: rand.Reader, Now: now, Move: game.Buy{}})
package boltstore
