// Package storetest is the conformance suite every storage.Store must pass,
// and the test helpers of the packages that use a store.
//
// Run covers each rule of the contract: Load creating nothing; Run's
// versions, a refused move returned as is and writing nothing, steps
// refused whole (an ID, an operation ID, a move, an audit entry), racing
// writers (none lost, each writing on top of the state it worked on),
// times rounded by storage.Timestamp; the operations a store remembers
// beside the player (the last game.MaxOps exactly, a repeat caught even
// when the move would now fail, one operation sent at once by many
// goroutines applied once); the seeds revealed kept
// beside the player (Reveals: the last game.MaxReveals, oldest first,
// chained to it, rotations racing); history and audit lists, newest first
// and bounded; the leaderboard against a sort of what Load reads (~200
// players, ties, moves, other guilds); Players' order; guilds with
// compare-and-set, operations and jobs; canceled contexts and closed
// stores; the dump round trip of version storage.DumpVersion (reveals,
// history and the responsible-play state included, the same bytes
// exported again, the leaderboard agreeing with the balances imported),
// duplicates and bad dumps refused (when the store is a storage.Dumper);
// CheckConcurrency with one and many players; a heap that does not grow
// with the writes. Nothing in it depends on timing.
//
// Kill is the crash test, for every backend too: processes applying
// steps are killed (SIGKILL) at random moments, and after each kill the
// players, the leaderboard and the audit log must agree.
//
// The scenarios of game's rules through Store.Run (a play, keys and
// chests, moderators' steps, refusals, limits raced) and the import of
// older dump versions do not depend on the store: they run once, on the
// embedded store, in this package's own tests.
//
// A store's tests run it with a function that opens a fresh, empty store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, opts storage.Options) storage.Store {
//			st, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), opts)
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { st.Close() })
//			return st
//		})
//	}
//
// and Kill with the place of a store that another process can open (a
// file, a Redis URL) and the function that opens it there:
//
//	func TestKill(t *testing.T) {
//		storetest.Kill(t, func(t *testing.T) (string, uint64) { return filepath.Join(t.TempDir(), "clefs.db"), 1 },
//			func(path string, opts storage.Options) (storage.Store, error) { return boltstore.Open(path, opts) })
//	}
//
// Damage is the case of records that do not decode, for every backend
// too, with a function that damages records behind the store's back.
//
// Bench benchmarks a store the same way. CheckConcurrency is exported so
// that a test can show the suite catches a store that is not atomic.
// Drawer, Loss, Win, Chest and RandomDrawer script the draws of
// game.Drawer with valid outcomes; Seeds gives deterministic server seeds;
// Clock is a settable clock.
package storetest
