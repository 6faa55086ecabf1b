package game

import (
	"slices"
	"strconv"
	"testing"
)

var sinkOutcome Outcome
var sinkChest Chest

// BenchmarkPlaySeeded is one play with its grid from a seeded ChaCha8: the
// draw without the HMAC-SHA256 stream of production (BenchmarkSeededTicket).
func BenchmarkPlaySeeded(b *testing.B) {
	src := NewSeededSource(1, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkOutcome = play(src, i%MaxKeys)
	}
}

// BenchmarkSimulatePlay is the simulator's hot loop, per play, on one core.
func BenchmarkSimulatePlay(b *testing.B) {
	var acc simAcc
	b.ReportAllocs()
	for i := 0; i < b.N; i += SimChunk {
		if err := playChunk(1, uint64(i), min(SimChunk, int64(b.N-i)), false, &acc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimulateFairPlay is the loop of a simulation with SimConfig.Fair,
// per play, on one core: a verifiable ticket with its grid, and a chest one
// play in nine.
func BenchmarkSimulateFairPlay(b *testing.B) {
	var acc simAcc
	b.ReportAllocs()
	for i := 0; i < b.N; i += SimFairChunk {
		if err := playChunk(1, uint64(i), min(SimFairChunk, int64(b.N-i)), true, &acc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComputeOdds is the exact odds, computed from the tables.
func BenchmarkComputeOdds(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ComputeOdds()
	}
}

// BenchmarkSeededTicket is one verifiable ticket: the HMAC-SHA256 stream of
// the ticket and its draw with the grid (SeededDrawer.Ticket).
func BenchmarkSeededTicket(b *testing.B) {
	var d SeededDrawer
	seed := testSeed(1)
	b.ReportAllocs()
	for i := uint64(1); b.Loop(); i++ {
		o, err := d.Ticket(seed, "", i, int(i%MaxKeys))
		if err != nil {
			b.Fatal(err)
		}
		sinkOutcome = o
	}
}

// BenchmarkSeededChest is one verifiable chest (SeededDrawer.Chest).
func BenchmarkSeededChest(b *testing.B) {
	var d SeededDrawer
	seed := testSeed(1)
	b.ReportAllocs()
	for i := int64(1); b.Loop(); i++ {
		c, err := d.Chest(seed, "", i)
		if err != nil {
			b.Fatal(err)
		}
		sinkChest = c
	}
}

// BenchmarkApplyBuyReveal is a ticket's two steps as a store runs them:
// Buy, then Reveal with the seeded drawer, each through Apply, looked up
// first among the MaxOps operations the store remembers beside the player
// and remembered after (the copy included), and the chest when one is due.
func BenchmarkApplyBuyReveal(b *testing.B) {
	p, err := NewPlayer(MaxBalance/2, testSeed(1), "client", t0)
	if err != nil {
		b.Fatal(err)
	}
	type op struct {
		ID     string
		Result Result
	}
	ops := make([]op, 0, MaxOps) // as a store remembers them
	for i := range MaxOps {
		ops = append(ops, op{ID: "warm-" + strconv.Itoa(i)})
	}
	ids := make([]string, 2*1024)
	for i := range ids {
		ids[i] = strconv.Itoa(1_000_000_000_000_000_000 + i) // snowflake-sized
	}
	next := 0
	apply := func(p Player, m Move) Player {
		next++
		id := ids[next%len(ids)]
		if slices.ContainsFunc(ops, func(o op) bool { return o.ID == id }) {
			b.Fatalf("operation %s remembered", id)
		}
		s, err := Apply(p, m, t0)
		if err != nil {
			b.Fatal(err)
		}
		ops = append(slices.Clone(ops[1:]), op{ID: id, Result: s.Result})
		return s.Player
	}
	b.ReportAllocs()
	for b.Loop() {
		p = apply(p, Buy{})
		p = apply(p, Reveal{Ticket: p.TicketSeq, Rows: AllRows})
		if p.ChestDue { // one ticket in nine
			p = apply(p, OpenChest{Seq: p.ChestSeq + 1})
		}
	}
}

// BenchmarkFairDrawsTicket is one verifiable ticket with its grid drawn by
// a FairDraws that keeps its keyed HMAC from one ticket to the next.
func BenchmarkFairDrawsTicket(b *testing.B) {
	f, err := NewFairDraws(testSeed(1), "3f9a0c1d2e4b5a69")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := uint64(1); b.Loop(); i++ {
		o, err := f.Ticket(i, int(i%MaxKeys))
		if err != nil {
			b.Fatal(err)
		}
		sinkOutcome = o
	}
}

// BenchmarkFairDrawsChest is one verifiable chest drawn by a FairDraws.
func BenchmarkFairDrawsChest(b *testing.B) {
	f, err := NewFairDraws(testSeed(1), "3f9a0c1d2e4b5a69")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := int64(1); b.Loop(); i++ {
		c, err := f.Chest(i)
		if err != nil {
			b.Fatal(err)
		}
		sinkChest = c
	}
}
