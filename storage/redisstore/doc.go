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
// and so that a click rewrites only p (about 650 bytes): what it does not
// change is beside it, read only when needed. A record of a format this
// build does not know, or with a field it does not know, is refused,
// naming its key, rather than written back without it.
//
// # The layout
//
// Open reads clefs:layout. A database this project never wrote gets it; a
// database whose marker names another layout, or that has this project's
// keys but no marker (0.3.0 and before, whose player keys were tagged
// {g:u}), is refused with an error wrapping storage.ErrLayout that names
// the key found: export it with the release that wrote it and import the
// dump (clefs import). Nothing is rewritten. The check is one GET, and,
// only without the marker, a SCAN of every master that stops at the first
// key found.
//
// # The scripts
//
// A player's step is one small generic script (playerScript), one EVALSHA
// in the guild's slot: if the record remembers the operation it answers
// REPEAT with the first result and writes nothing; if the record's version
// is not the one expected (0: it must not exist) it answers CONFLICT with
// the record as it is, so that a conflict costs no extra round trip;
// otherwise it sets v, p (and s when the seeds changed), remembers the
// operation (forgetting the oldest past game.MaxOps), sets the leaderboard
// entry (the score the caller passes, when the balance moved) and pushes
// the history lines, the revealed seed and the moderator's audit line,
// each to its capped list. It holds no rule of the game. casScript is the
// same compare-and-set for a guild's record, with its audit line. They run
// with EVALSHA (EVAL if Redis lost them).
//
// So a step is one atomic unit, on a single server, Sentinel and Cluster
// alike: the player, its history, the leaderboard and the moderator log
// agree after any crash, because Redis runs a script whole or not at all
// (and replicates its effects as one transaction).
//
// # A step
//
// Run applies the move to the state this process last wrote or read (a
// bounded cache) and sends the script: one round trip. On CONFLICT it
// applies the move again to the record the script returned. When the move
// is refused on a cached state, Run reads the record to be sure first.
// No lock orders a process's steps of one player: compare-and-set does.
//
// # Replicas
//
// Redis replicates asynchronously: a failover promotes a replica that may
// lack the master's last writes. So when the masters have replicas (or
// WithReplicaAck says), WAIT follows the script in its pipeline, on the
// same connection, to the master of the guild's slot, and the step is
// acknowledged only once a replica holds it; a WAIT that times out is an
// error (the write may be there or not), and the player is dropped from
// the cache. A repeat, found by a read or by a script that wrote nothing,
// is answered only after settleScript, on the master, has found the
// operation there (the read may have come from a master since demoted,
// whose last writes the failover lost) and written the record's version
// again, unchanged, with WAIT after it: WAIT counts only its own
// connection's writes.
//
// # When things fail
//
// go-redis resends a command whose reply timed out, and the first one may
// still run: Redis stalled, then served it to a client that had gone. The
// script's second run finds its operation remembered and answers REPEAT
// with the record and the result: Run answers it as a repeat, with the
// first result (it cannot tell its own first send from another writer's).
// Nothing is applied, logged or indexed twice.
//
// # The cache
//
// Each Store remembers the players it last wrote or read (DefaultCacheSize,
// WithCacheSize), oldest inserted forgotten first. It is a guess that the
// script checks: a stale entry costs a conflict, answered with the record.
// Versions only grow, so a cached version that matches is the record as it
// is, unless player keys are deleted behind the store's back (FLUSHDB):
// restart the bot after such surgery.
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
