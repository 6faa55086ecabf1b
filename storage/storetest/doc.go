// Package storetest is the conformance suite every storage.Store must pass:
// each rule of the contract, each error case, and concurrency (64 goroutines
// playing 200 times on one player and on many, with the exact invariant
// balance = start + granted + daily + won − staked checked from what the calls
// returned).
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
// CheckConcurrency is exported so that a test can show the suite catches a
// non-atomic store.
package storetest
