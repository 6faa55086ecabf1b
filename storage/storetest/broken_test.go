package storetest_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// racyStore is deliberately broken: Buy reads the balance, waits, then
// writes back "balance read − stake" — a read-modify-write that loses the
// updates made meanwhile by others. Each step is atomic on its own; the
// sequence is not.
type racyStore struct {
	storage.Store
}

func (s racyStore) Buy(ctx context.Context, id storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	before, err := s.Player(ctx, id)
	if err != nil {
		return before, storage.Ticket{}, false, err
	}
	p, t, resumed, err := s.Store.Buy(ctx, id)
	if err != nil || resumed {
		return p, t, resumed, err
	}
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	// Write back the balance computed from the stale read, hiding the move
	// among the grants as a careless implementation would.
	p, err = s.SetBalance(ctx, 0, id, before.Balance-game.Stake, "")
	return p, t, false, err
}

func openBolt(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestSuiteCatchesARace shows the concurrency check fails on a store that
// is not atomic, and passes on the same store used correctly.
func TestSuiteCatchesARace(t *testing.T) {
	ctx := context.Background()
	opts := storage.Options{Drawer: storetest.RandomDrawer(11), Defaults: storage.Settings{StartingBalance: 1_000_000}}
	ids := []storage.PlayerID{{Guild: 1, User: 1}}

	good := openBolt(t, opts)
	if err := storetest.CheckConcurrency(ctx, good, ids, 16, 30); err != nil {
		t.Fatalf("the sound store fails the check: %v", err)
	}
	broken := racyStore{openBolt(t, opts)}
	err := storetest.CheckConcurrency(ctx, broken, ids, 16, 30)
	if err == nil {
		t.Fatal("the concurrency check passed a store that loses updates")
	}
	t.Logf("caught, as it should: %.300v", err)
}
