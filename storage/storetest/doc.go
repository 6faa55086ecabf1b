// Package storetest is the conformance suite every storage.Store must pass,
// and the test helpers of the packages that use a store.
//
// Run covers each rule of the contract (docs/STORAGE.md): versions and
// compare-and-set under racing writers, refusals that write nothing, the
// operations, reveals, history and audit lists with their bounds, the
// leaderboard, guilds and jobs, canceled contexts and closed stores, the
// dump round trip and bad dumps, and a heap that does not grow with the
// writes. Nothing in it depends on timing.
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
