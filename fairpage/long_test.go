package fairpage_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// longRun plays a player long enough that both lists of its history are
// trimmed (game.TrimHistory) and its reveals too: tickets, chests, grants
// and rotations at random. It returns what a store keeps: its history and
// its reveals.
func longRun(t *testing.T, seed byte) ([]game.Entry, game.Reveals) {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{seed})
	r := rand.New(rng)
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	newSeed := func() game.Seed {
		s, err := game.NewSeed(rng)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := game.NewPlayer(1_000_000, newSeed(), "longue partie ✓", now)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithNextSeed(newSeed())
	var hist []game.Entry
	var rs game.Reveals
	step := func(s game.Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if s.Reveal != nil {
			rs = append(rs, *s.Reveal)
		}
	}
	var d game.SeededDrawer
	for range 400 {
		now = now.Add(time.Minute)
		switch n := r.IntN(10); {
		case n < 6:
			step(p.Buy(game.House{}, now))
			step(p.Reveal(d, p.TicketSeq, game.AllRows, now))
			if p.ChestDue {
				step(p.OpenChest(d, p.ChestSeq+1, now))
			}
		case n < 8:
			step(p.Grant(1, now))
		default:
			step(p.Rotate(newSeed(), now))
		}
	}
	kept := game.TrimHistory(hist)
	if len(kept) != game.MaxHistory || len(rs) <= game.MaxReveals {
		t.Fatalf("a run of %d lines keeps %d, with %d reveals: want both lists and the reveals trimmed", len(hist), len(kept), len(rs))
	}
	return kept, rs[len(rs)-game.MaxReveals:]
}

// testLongExports checks, on long random runs whose history and reveals
// are trimmed, that the page finds what game finds: every draw under a kept
// revealed seed recomputed, and each link counted as
// game.CheckRevealedLinks counts it, with no break.
func testLongExports(t *testing.T, ctx context.Context) {
	for seed := range byte(3) {
		hist, rs := longRun(t, seed+1)
		want := game.CheckRevealedLinks(rs, hist)
		if len(want.Breaks) > 0 {
			t.Fatalf("run %d: game breaks links: %v", seed, want.Breaks)
		}
		drawn := 0
		rp := game.AfterReveals(rs)
		for _, e := range hist {
			if v, err := rp.Verify(game.SeededDrawer{}, rs, e); err == nil && v.Match {
				drawn++
			}
		}
		rep := checkExport(t, ctx, schema.NewPublicExport(1, 2, hist, rs))
		if !rep.OK || rep.Broken != 0 || rep.Counts["draws"].Checked != drawn {
			t.Fatalf("run %d: the page says %+v; game recomputes %d draws, no break", seed, rep, drawn)
		}
		for link, name := range []string{"keys", "numbers", "commitments", "ranges"} {
			if c := rep.Counts[name]; c.Checked != int(want.Checked[link]) || c.Unchecked != int(want.Unchecked[link]) {
				t.Errorf("run %d, link %s: the page counts %+v, game %d checked and %d unchecked", seed, name, c, want.Checked[link], want.Unchecked[link])
			}
		}
	}
}
