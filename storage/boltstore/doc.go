// Package boltstore is the embedded storage.Store: one bbolt file (mode
// 0600, locked by the process that opens it), the default when REDIS_URL is
// unset. It persists; the rules are package game's, applied by Run
// (storage.Run.Next).
//
// # Writes
//
// Run applies the move in a read transaction (in parallel for concurrent
// players), then writes the player, its history lines, the audit entry and
// the leaderboard index in one read-write transaction if the record's
// bytes have not changed; else it applies the move again inside it, so Run
// never returns ErrConflict. A refusal writes nothing. Commits are fsynced,
// shared by concurrent Runs (bbolt's Batch, at most 2 ms of waiting, which
// may run a transaction again: game.Apply is pure). The players decoded
// last are remembered with their bytes (up to 1,024), used only when the
// stored bytes are equal.
//
// # Layout
//
// The buckets and their keys are docs/STORAGE.md's (§5). The
// leaderboard's top n is a cursor walk, O(log N + n); a rank is found by
// counting the entries before it, O(rank): a few milliseconds for the
// 100,000th.
//
//	st, err := boltstore.Open("./data/clefs.db", storage.Options{})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	a, err := st.Run(ctx, storage.Step{ID: id, Op: interactionID, Create: true,
//		Start: 2000, Seeds: rand.Reader, Now: now, Move: game.Buy{}})
package boltstore
