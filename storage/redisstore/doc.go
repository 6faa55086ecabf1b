// Package redisstore is the production storage.Store, on Redis (single
// server, Sentinel or Cluster, through redis.UniversalClient). It persists;
// the rules are in package game, run by storage.Apply through Update.
//
// # Keys
//
// A player's keys share the hash tag {guild:user}, hence one slot. The
// values are the records of package schema, field by field in
// docs/STORAGE.md:
//
//	p:{g:u}   hash: v = version (decimal), p = the player's record, a = the
//	          audit line of the write that made this version (if any), and
//	          o:<operation ID> = that operation's result, for the player's
//	          last game.MaxOps operations
//	q:{g:u}   list: those operations' IDs, oldest first
//	h:{g:u}   list: ticket lines (game.MainLine), newest first,
//	          game.MaxTicketLines kept
//	o:{g:u}   list: the other history lines, newest first,
//	          game.MaxOtherLines kept
//	r:{g:u}   list: revealed seeds, newest first, game.MaxReveals kept
//
// A guild's keys share the tag {g}:
//
//	s:{g}     hash: v = version, p = the guild's record (settings, recent
//	          op IDs, reset-guild progress), a = the audit line of the write
//	          that made this version (if any)
//	a:{g}     list: moderator log (audit lines), newest first,
//	          storage.AuditLimit kept
//	lb:{g}    sorted set: the leaderboard index, member = user ID in 20
//	          digits, score = −balance (ZRANGE gives the richest first, and
//	          equal balances by increasing user ID); Players reads it too
//
// One key has a tag of its own, so that it works unchanged on Cluster:
//
//	jobs:{jobs} set: the guilds with a reset-guild in progress (Jobs),
//	          added before the guild's write and removed after the one
//	          that ends it, so that a crash leaves it listed, never lost
//
// The record is a hash so that the script compares the version (HGET v)
// and finds an operation (HGET o:<id>) without decoding anything in Lua,
// and so that a click rewrites only p (about 650 bytes): what it does not
// change is beside it, read only when needed. A record of a format this
// build does not know, or with a field it does not know, is refused rather
// than written back without it; a record of the release before the schema
// ({"Player": …}) is rewritten in the schema at its first read
// (migrateScript), its reveals and operations moved beside it, and so is a
// guild's ({"Settings": …}, migrateGuildScript). The moderator log's lines
// of that release are read as they are, never rewritten (see update.go).
//
// # The scripts
//
// A player's write is one small generic script (playerScript): if the
// record remembers the operation it answers REPEAT with the first result
// and writes nothing; if the record's version is not the one expected (0:
// it must not exist) it answers CONFLICT with the record as it is, so that
// a conflict costs no extra round trip; otherwise it sets v, p and a,
// remembers the operation (forgetting the oldest past game.MaxOps), and
// pushes the history lines and the revealed seed, each to its capped list.
// It holds no rule of the game. casScript is the same compare-and-set for
// a guild (v, p and a); appendOnceScript pushes a line to a capped list
// unless the list has it. They run with EVALSHA (EVAL if Redis lost them).
//
// # A step
//
// Update runs the transition on the state this process last wrote or read
// (a bounded cache), and sends in one pipeline the script (player's slot)
// and, when the balance moved, ZADD of the new balance (guild's slot): one
// round trip, which
// go-redis's cluster pipeline splits per node. On CONFLICT it runs the
// transition again on the record the script returned. When the transition
// fails or skips on a cached state, Update reads the record to be sure
// first. A moderator's action then appends its audit line to a:{g}: a
// second round trip, after the write, so that no entry is logged for a
// write that did not happen. A full play (Buy, then Reveal) takes two
// round trips.
//
// # When things fail
//
// go-redis resends a command (or pipeline) whose reply timed out, and the
// first one may still run: Redis stalled, then served it to a client that
// had gone. Every write is therefore safe to repeat. The script's second run
// finds its operation remembered and answers REPEAT with the record and
// the result, which Update returns: nothing is applied twice. ZADD sets
// an absolute balance. The audit line carries the ID of the write it logs
// (user and version), and appendOnceScript keeps it once.
//
// The leaderboard index is written beside the player, not with it (another
// slot), so it can drift:
//
//   - A ZADD sent with a compare-and-set that failed wrote a balance that
//     was not written. If the retry succeeds, its own ZADD overwrites it; if
//     the Update ends without writing (the transition failed or skipped, or
//     ErrConflict), Update sends a corrective ZADD from the record as it is.
//   - Two processes writing the same player can have their ZADDs (or a
//     correction) arrive out of order: the entry is then stale until the
//     player's next write.
//   - A crash, or a lost connection, between the script and the ZADD (in a
//     cluster they go to different nodes) leaves the entry stale.
//
// storage.Indexer's CheckIndex reports drift (SCAN of every master), and
// RebuildIndex repairs it, safely while the bot plays.
//
// The audit line is appended after the write: if the process dies, or Redis
// fails past go-redis's retries, in between, the line is missing. The record
// keeps the line of the write that made its version, and a repeat of the
// operation (the moderator tries again: Update skips) appends it if it is
// missing (within a day). A line is never logged for a write that did not
// happen. The player's history always has the step.
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
//		return err
//	}
//	defer st.Close()
//	a, err := storage.Apply(ctx, st, step)
package redisstore
