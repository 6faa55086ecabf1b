package storetest

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
)

// BenchOpenFunc opens a fresh, empty store for a benchmark.
type BenchOpenFunc func(b *testing.B, opts storage.Options) storage.Store

// Bench runs a benchmark of each storage step against the stores open
// gives. Cycle64 reports play cycles per second (buy, reveal all) with 64
// players playing at once.
func Bench(b *testing.B, open BenchOpenFunc) {
	ctx := context.Background()
	rich := storage.Options{Drawer: RandomDrawer(1), Defaults: storage.Settings{StartingBalance: storage.MaxBalance, DailyAmount: 1}}
	id := storage.PlayerID{Guild: 1, User: 1}
	cycle := func(b *testing.B, st storage.Store, id storage.PlayerID) {
		p, t, _, err := st.Buy(ctx, id)
		if errors.Is(err, storage.ErrChestDue) {
			_, _, _, err = st.OpenChest(ctx, id, p.ChestSeq+1)
			if err != nil {
				b.Error(err)
			}
			return
		}
		if err != nil {
			b.Error(err)
			return
		}
		if _, _, err := st.Reveal(ctx, id, t.ID, storage.AllRows); err != nil {
			b.Error(err)
		}
	}
	b.Run("Player", func(b *testing.B) {
		st := open(b, rich)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Player(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Cycle", func(b *testing.B) {
		st := open(b, rich)
		b.ReportAllocs()
		for b.Loop() {
			cycle(b, st, id)
		}
	})
	b.Run("RevealDrawn", func(b *testing.B) {
		st := open(b, rich)
		_, t, _, err := st.Buy(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := st.Reveal(ctx, id, t.ID, 0); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := st.Reveal(ctx, id, t.ID, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Grant", func(b *testing.B) {
		st := open(b, storage.Options{Defaults: storage.Settings{StartingBalance: 1000}})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Grant(ctx, 9, id, 1, "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("History20", func(b *testing.B) {
		st := open(b, rich)
		for range 30 {
			cycle(b, st, id)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.History(ctx, id, 20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Leaderboard100of1000", func(b *testing.B) {
		st := open(b, rich)
		for u := range 1000 {
			if _, err := st.SetBalance(ctx, 9, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, int64(u*7%1000), ""); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Leaderboard(ctx, 1, 100); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Cycle64", func(b *testing.B) {
		st := open(b, rich)
		var next atomic.Uint64
		b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // 64 goroutines
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			id := storage.PlayerID{Guild: 1, User: next.Add(1)}
			for pb.Next() {
				cycle(b, st, id)
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
	})
}
