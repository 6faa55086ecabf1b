// Package redisstore is the production storage.Store, on Redis (single
// server, Sentinel or Cluster, through redis.UniversalClient). It persists;
// the rules are in package game, applied by Run (storage.Run.Next).
//
// # Keys
//
// The keys, their hash tag {g} (a guild whole on one node of a cluster,
// written whole by one script) and the order of the jobs index's writes are
// docs/STORAGE.md §5's. The player's record is a hash so that the script
// compares the version (HGET v) and finds an operation (HGET o:<id>)
// without decoding anything in Lua, and a click rewrites only p.
//
// # A step
//
// Run applies the move to the state this process last wrote or read (a
// bounded cache, a guess the script checks) and sends playerScript: one
// EVALSHA in the guild's slot, which answers REPEAT, CONFLICT with the
// record (Run then applies the move again to it), or writes the whole step,
// which Redis runs and replicates as one transaction. No lock orders a
// process's steps of one player: compare-and-set does. Versions only grow,
// so a cached version that matches is the record as it is, unless keys are
// deleted behind the store's back (FLUSHDB): restart the bot after such
// surgery.
//
// go-redis resends a command whose reply timed out, and the first may
// still have run: the second finds its operation remembered, and Run
// answers it as a repeat. Nothing is applied, logged or indexed twice.
//
// # Replicas
//
// With replicas, WAIT follows the script on the same connection
// (WithReplicaAck; docs/operating.md, "Durability"). A repeat is answered
// only after settleScript has found the operation on the master and
// written the version again, unchanged, with WAIT after it: WAIT counts
// only its own connection's writes, and the read may have come from a
// master since demoted.
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
