// Package redisstore is the production storage.Store, on Redis (single
// server, Sentinel or Cluster, through redis.UniversalClient). It persists;
// the rules are in package game, applied by Run (storage.Run.Next).
//
// # Keys
//
// Every key of a guild carries the hash tag {g} (the guild's ID), so that
// they share one hash slot: one node of a cluster holds a guild whole, and
// one script writes a step whole. The values are the records of package
// schema, field by field in docs/STORAGE.md:
//
//	p:{g}:u   hash: v = version (decimal), p = the player's record, s = its
//	          seeds, and o:<operation ID> = that operation's result, for
//	          the player's last game.MaxOps operations
//	q:{g}:u   list: those operations' IDs, oldest first
//	h:{g}:u   list: ticket lines (game.MainLine), newest first,
//	          game.MaxTicketLines kept
//	o:{g}:u   list: the other history lines, newest first,
//	          game.MaxOtherLines kept
//	r:{g}:u   list: revealed seeds, newest first, game.MaxReveals kept
//	s:{g}     hash: v = version, p = the guild's record (settings, recent
//	          op IDs, reset-guild progress)
//	a:{g}     list: moderator log (audit lines), newest first,
//	          storage.AuditLimit kept
//	lb:{g}    sorted set: the leaderboard, member = user ID in 20 digits,
//	          score = −balance (ZRANGE gives the richest first, and equal
//	          balances by increasing user ID); Players reads it too
//
// Two keys have a slot of their own:
//
//	jobs:{jobs}  set: the guilds with a reset-guild in progress (Jobs),
//	             added before the guild's write and removed after the one
//	             that ends it, so that a crash leaves it listed, never lost
//	clefs:layout the layout of the keys (storage.LayoutVersion)
//
// The record is a hash so that the script compares the version (HGET v)
// and finds an operation (HGET o:<id>) without decoding anything in Lua,
// and a click rewrites only p (about 650 bytes). A record of a format or
// with a field this build does not know is refused, naming its key.
//
// # The layout
//
// Open reads clefs:layout, writes it in a database this project never
// wrote, and refuses another layout, or this project's keys without the
// marker (0.3.0 and before), with storage.ErrLayout naming the key found.
// Nothing is rewritten.
//
// # A step
//
// Run applies the move to the state this process last wrote or read (a
// bounded cache, a guess the script checks) and sends playerScript: one
// EVALSHA in the guild's slot, which answers REPEAT for an operation
// remembered, CONFLICT with the record for a stale version (Run then
// applies the move again to it), or writes the whole step. Redis runs a
// script whole or not at all and replicates it as one transaction, so the
// player, its history, the leaderboard and the moderator log agree after
// any crash, on a single server, Sentinel and Cluster alike. It holds no
// rule of the game. No lock orders a process's steps of one player:
// compare-and-set does. Versions only grow, so a cached version that
// matches is the record as it is, unless keys are deleted behind the
// store's back (FLUSHDB): restart the bot after such surgery.
//
// go-redis resends a command whose reply timed out, and the first may
// still have run: the second finds its operation remembered, and Run
// answers it as a repeat. Nothing is applied, logged or indexed twice.
//
// # Replicas
//
// Redis replicates asynchronously: a failover may lose a master's last
// writes. So when the masters have replicas (or WithReplicaAck says), WAIT
// follows the script on the same connection, and a step is acknowledged
// once a replica holds it (a WAIT that times out is an error, the outcome
// unknown). A repeat is answered only after settleScript has found the
// operation on the master and written the version again, unchanged, with
// WAIT after it: WAIT counts only its own connection's writes, and the
// read may have come from a master since demoted.
//
// # Usage
//
//	st, err := redisstore.Open(ctx, "redis://localhost:6379/0", storage.Options{})
//	if err != nil {
//		return err // errors.Is(err, storage.ErrLayout): another release's store
//	}
//	defer st.Close()
//	a, err := st.Run(ctx, step) // a storage.Step: a game.Move under an operation ID
package redisstore
