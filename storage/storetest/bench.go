package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// BenchOpenFunc opens a fresh, empty store for a benchmark.
type BenchOpenFunc func(b *testing.B, opts storage.Options) storage.Store

// Bench benchmarks a store through Store.Run with the production
// drawer (game.SeededDrawer). Cycle64 reports play cycles per second — Buy,
// then Reveal of all rows (and the chest when one is due) — with 64
// players playing at once, each from its own goroutine; Cycle is one player
// alone; Load, History20 and Leaderboard100of1000 are reads.
func Bench(b *testing.B, open BenchOpenFunc) {
	ctx := context.Background()
	opts := storage.Options{Defaults: defaults}
	var ops atomic.Int64
	cycle := func(b *testing.B, st storage.Store, id storage.PlayerID) {
		now := storage.Timestamp(time.Now())
		apply := func(do game.Move) (storage.Applied, error) {
			return st.Run(ctx, storage.Step{ID: id, Op: fmt.Sprintf("b%d", ops.Add(1)), Create: true, Start: game.MaxBalance / 2, Seeds: rand.Reader, Now: now, Move: do})
		}
		a, err := apply(game.Buy{})
		if errors.Is(err, game.ErrChestDue) {
			seq := a.Player.ChestSeq + 1
			if _, err := apply(game.OpenChest{Seq: seq}); err != nil {
				b.Error(err)
			}
			return
		}
		if err != nil {
			b.Error(err)
			return
		}
		t := a.Result.Ticket
		if _, err := apply(game.Reveal{Ticket: t, Rows: game.AllRows}); err != nil {
			b.Error(err)
		}
	}
	id := storage.PlayerID{Guild: 1, User: 1}
	b.Run("Load", func(b *testing.B) {
		st := open(b, opts)
		cycle(b, st, id)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Load(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Cycle", func(b *testing.B) {
		st := open(b, opts)
		b.ReportAllocs()
		for b.Loop() {
			cycle(b, st, id)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
	})
	b.Run("History20", func(b *testing.B) {
		st := open(b, opts)
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
		st := open(b, opts)
		for u := range 1000 {
			now := time.Now()
			if _, err := st.Run(ctx, storage.Step{ID: storage.PlayerID{Guild: 1, User: uint64(u + 1)}, Op: "set", Create: true, Seeds: rand.Reader, Now: now,
				Move: game.Grant{Amount: int64(u * 7 % 1000), Set: true}}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Leaderboard(ctx, 1, 100, 500); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Cycle64", func(b *testing.B) {
		st := open(b, opts)
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
