package storetest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// racyStore is deliberately broken: its Run applies the step, then sets
// the balance to what it computed from a read made before, after a
// moment's wait (a game.Grant with Set) — a read-modify-write without the
// compare, which loses the changes others made meanwhile. Each Run of the
// store beneath is atomic on its own, and a lone writer loses nothing.
type racyStore struct {
	storage.Store
}

func (s racyStore) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	v, err := s.Load(ctx, step.ID)
	if err != nil || !v.Exists() {
		return s.Store.Run(ctx, step)
	}
	want, err := game.Apply(v.Player, step.Move, step.Now)
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	a, aerr := s.Store.Run(ctx, step)
	if err != nil || aerr != nil || a.Repeated || want.Player.Balance == a.Player.Balance {
		return a, aerr
	}
	set := step
	set.Op, set.Move = step.Op+"/set", game.Grant{Amount: want.Player.Balance, Set: true}
	_, err = s.Store.Run(ctx, set)
	return a, err
}

// TestSuiteCatchesARace shows the concurrency check fails on a store that
// is not atomic, and passes on the same store used correctly.
func TestSuiteCatchesARace(t *testing.T) {
	ctx := context.Background()
	ids := []storage.PlayerID{{Guild: 1, User: 1}}

	good := openBolt(t, storage.Options{})
	if err := CheckConcurrency(ctx, good, RandomDrawer(11), ids, 16, 30); err != nil {
		t.Fatalf("the sound store fails the check: %v", err)
	}
	broken := racyStore{openBolt(t, storage.Options{})}
	err := CheckConcurrency(ctx, broken, game.SeededDrawer{}, ids, 16, 30)
	if err == nil {
		t.Fatal("the concurrency check passed a store that loses updates")
	}
	t.Logf("caught, as it should: %.300v", err)
}
