package boltstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// openAt opens the store at path, failing the test on an error.
func openAt(tb testing.TB, path string, opts storage.Options) *boltstore.Store {
	tb.Helper()
	st, err := boltstore.Open(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

func open(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	st := openAt(t, filepath.Join(t.TempDir(), "clefs.db"), opts)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestConformance(t *testing.T) { storetest.Run(t, open) }

// TestOpenFile: the file is created with mode 600, and locked while open.
func TestOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openAt(t, path, storage.Options{})
	defer st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Fatalf("mode %o, want 600", m)
	}
	if st2, err := boltstore.Open(path, storage.Options{}); err == nil {
		st2.Close()
		t.Fatal("a second Open of a file in use succeeded")
	}
}

func TestReopenKeepsState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	ctx := context.Background()
	st := openAt(t, path, storage.Options{})
	id := storage.PlayerID{Guild: 1, User: 2}
	now := storage.Timestamp(time.Now())
	step := func(op string, do game.Move) storage.Step {
		return storage.Step{ID: id, Op: op, Create: true, Start: 500, Seeds: storetest.Seeds(1), Now: now, Move: do}
	}
	a, err := st.Run(ctx, step("buy", game.Buy{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Run(ctx, step("reveal", game.Reveal{Ticket: a.Result.Ticket, Rows: 0b001})); err != nil {
		t.Fatal(err)
	}
	want, _ := st.Load(ctx, id)
	wantHist, _ := st.History(ctx, id, 10)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openAt(t, path, storage.Options{})
	defer st.Close()
	got, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := st.History(ctx, id, 10)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(hist, wantHist) || len(hist) != 1 {
		t.Fatalf("after reopen: %+v %+v, want %+v %+v", got, hist, want, wantHist)
	}
	// The operations are remembered across the restart.
	again, err := st.Run(ctx, step("buy", game.Buy{}))
	if err != nil || !again.Repeated {
		t.Fatalf("repeated buy after reopen: %+v, %v", again, err)
	}
}

func TestOpenRefusesBadDefaults(t *testing.T) {
	_, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{Defaults: game.Settings{DailyAmount: -1}})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Open with invalid defaults: %v", err)
	}
}

func TestKill(t *testing.T) {
	storetest.Kill(t, func(t *testing.T) (string, uint64) { return filepath.Join(t.TempDir(), "clefs.db"), 1 },
		func(path string, opts storage.Options) (storage.Store, error) { return boltstore.Open(path, opts) })
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, opts storage.Options) storage.Store {
		st := openAt(b, filepath.Join(b.TempDir(), "clefs.db"), opts)
		b.Cleanup(func() { _ = st.Close() })
		return st
	})
}
