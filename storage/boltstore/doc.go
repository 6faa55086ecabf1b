// Package boltstore is the embedded storage.Store: one bbolt file (mode
// 0600, locked by the process that opens it), the default when REDIS_URL is
// unset.
//
// Every step is one bbolt read-write transaction, fsynced on commit; steps
// of concurrent goroutines share a commit through bbolt's Batch, which is
// how 64 players playing at once stay well above 2,000 play cycles per
// second without weakening durability. Batch may run a step's function more
// than once, so each function computes its result afresh from the
// transaction and has no other effect. A step refused for a user's mistake
// (insufficient balance, chest due…) writes nothing and does not spoil the
// batch it shares. Clicks that change nothing (a resumed ticket, rows already
// shown) are answered from a read-only transaction.
//
// Layout: bucket "players" maps guild|user (16 bytes, big endian, so a
// guild's players are contiguous and ordered) to the player in JSON with the
// sequence of its last history entry; "history" maps guild|user|seq to an
// entry (the last storage.HistoryLimit are kept); "guilds" maps guild to its
// settings and audit sequence; "audit" maps guild|seq to an entry.
//
//	st, err := boltstore.Open("./data/clefs.db", storage.Options{})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	p, t, resumed, err := st.Buy(ctx, storage.PlayerID{Guild: g, User: u})
package boltstore
