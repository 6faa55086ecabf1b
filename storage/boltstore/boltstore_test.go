package boltstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func open(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestConformance(t *testing.T) { storetest.Run(t, open) }

func TestFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Fatalf("mode %o, want 600", m)
	}
}

func TestReopenKeepsState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	ctx := context.Background()
	opts := storage.Options{Defaults: storage.Settings{StartingBalance: 500}, Drawer: storetest.RandomDrawer(3)}
	st, err := boltstore.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	id := storage.PlayerID{Guild: 1, User: 2}
	p, tk, _, err := st.Buy(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Reveal(ctx, id, tk.ID, 0b001); err != nil {
		t.Fatal(err)
	}
	want, _ := st.Player(ctx, id)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = boltstore.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Player(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Balance != p.Balance+want.Stats.WonCents || got.Ticket == nil || *got.Ticket != *want.Ticket {
		t.Fatalf("after reopen: %+v, want %+v", got, want)
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st2, err := boltstore.Open(path, storage.Options{}); err == nil {
		st2.Close()
		t.Fatal("a second Open of a file in use succeeded")
	}
}

func TestKillBetweenBuyAndDraw(t *testing.T) {
	target := os.Getenv("STORETEST_CRASH_TARGET")
	if target == "" {
		target = filepath.Join(t.TempDir(), "clefs.db")
	}
	storetest.KillBetweenBuyAndDraw(t, "TestKillBetweenBuyAndDraw", target, func(path string, opts storage.Options) (storage.Store, error) {
		return boltstore.Open(path, opts)
	})
}

func BenchmarkSteps(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, opts storage.Options) storage.Store {
		st, err := boltstore.Open(filepath.Join(b.TempDir(), "clefs.db"), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		return st
	})
}
