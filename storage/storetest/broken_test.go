package storetest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// racyStore is deliberately broken: its Update reads the player, calls fn
// on what it read, waits, then writes fn's result over whatever the player
// has become — a compare-and-set without the compare, which loses the
// updates made meanwhile by others. Each write is atomic on its own; the
// read-modify-write is not.
type racyStore struct {
	storage.Store
}

func (s racyStore) Update(ctx context.Context, id storage.PlayerID, op string, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	v, err := s.Load(ctx, id)
	if err != nil {
		return v, err
	}
	w, err := fn(v)
	if err != nil || w.Skip {
		return v, err
	}
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	return s.Store.Update(ctx, id, op, func(storage.Versioned) (storage.Write, error) { return w, nil })
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
