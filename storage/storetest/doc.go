// Package storetest is the conformance suite every storage.Store must pass,
// and the test helpers of the packages that use a store.
//
// Run covers each rule of the contract: Load creating nothing; Update's
// versions, Skip, fn's error returned as is, racing writers (none lost, a
// stale version never written), times rounded by storage.Timestamp,
// unsound players refused; Apply of every game transition (buy, reveal,
// chest, daily, grant, set balance, reset) with operation IDs, a repeated
// operation changing nothing and answering its first result; the
// operations a store remembers beside the player (Update's op and
// Write.Result: the last game.MaxOps exactly, a repeat caught even when
// the transition would now fail, one operation sent at once by many
// goroutines applied once); the seeds revealed kept beside the player
// (Reveals: the last game.MaxReveals, oldest first, chained to it);
// history and audit lists, newest first and bounded; the leaderboard
// against a sort of what Load reads (~200 players, ties, moves, other
// guilds); Players' order; guild settings with compare-and-set and
// operations; canceled contexts and closed stores; the dump round trip of
// version storage.DumpVersion (reveals and history included, the same
// bytes exported again), dumps of versions 1 and 3 and duplicates (when
// the store is a storage.Dumper); and CheckConcurrency with one and many
// players. Nothing in it depends on timing.
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
// Bench benchmarks a store the same way; KillBetweenBuyAndDraw is the
// crash test of a store kept in a file. CheckConcurrency is exported so
// that a test can show the suite catches a store that is not atomic.
// Drawer, Loss, Win, Chest and RandomDrawer script the draws of
// game.Drawer with valid outcomes; Seeds gives deterministic server seeds;
// Clock is a settable clock.
package storetest
