package game

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
)

// TestSimulate checks a report of the fast draws and one of the fair
// draws (checkSimReport), the fair ones on fewer plays: the rare tiers are
// pooled into fewer cells of the chi-square, and the interval of the
// return is wider (a gem among so few plays would widen it to about 0.26).
func TestSimulate(t *testing.T) {
	for _, tc := range []struct {
		fair         bool
		plays, chunk int64
		minDF        int
		maxWidth     float64
	}{
		{false, 30_000_000, SimChunk, 18, 0.05}, // 3 × 7 df, less any pooled rare cells
		{true, 200_000, SimFairChunk, 15, 0.3},  // 3 × 5 df: the gem and the pipe pooled with the bomb
	} {
		var done atomic.Int64
		r, err := Simulate(context.Background(), SimConfig{Plays: tc.plays, Seed: 7, Fair: tc.fair, OnChunk: func(n int64) { done.Add(n) }})
		if err != nil {
			t.Fatal(err)
		}
		if done.Load() != tc.plays || r.Fair != tc.fair {
			t.Errorf("OnChunk reported %d plays of %d; report says fair %v", done.Load(), tc.plays, r.Fair)
		}
		checkSimReport(t, r, tc.chunk, tc.minDF, tc.maxWidth)
	}
}

// checkSimReport checks a report of Simulate against the exact odds: counts
// that add up, key rates and the spread of plays over the keys held, chests
// for the keys collected, the chi-square tests (at least minDF degrees of
// freedom for the main game) and the return to player, whose 99% interval
// must be narrower than maxWidth. chunk is the number of plays of a chunk.
func checkSimReport(t *testing.T, r SimReport, chunk int64, minDF int, maxWidth float64) {
	t.Helper()
	plays := r.Plays
	var byKeys, tiers, keys int64
	for k, s := range r.ByKeys {
		byKeys += s.Plays
		keys += s.Keys
		// Keys are collected only on losses, at the exact rate (4.5 sd).
		if s.Keys > s.Tiers[TierLoss] {
			t.Errorf("keys held %d: %d keys from %d losses", k, s.Keys, s.Tiers[TierLoss])
		}
		if z := r.KeyZ(k); math.Abs(z) > 4.5 {
			t.Errorf("keys held %d: key rate %.5f, z = %.2f", k, r.KeyRate(k), z)
		}
		// Plays spread over the key states as the steady state says: 2/9, 3/9, 4/9.
		share := float64(2+k) / 9
		if z := zScore(s.Plays, float64(plays), share); math.Abs(z) > 6 {
			t.Errorf("keys held %d: %d plays, z = %.2f against share %.3f", k, s.Plays, z, share)
		}
	}
	for _, n := range r.Tiers {
		tiers += n
	}
	if byKeys != plays || tiers != plays || keys != r.KeysCollected {
		t.Fatalf("counts do not add up: %d by keys, %d by tier, %d keys of %d", byKeys, tiers, keys, r.KeysCollected)
	}
	// Every third key opens a chest; each chunk may start with up to two keys
	// held and end with up to two uncounted.
	chunks := (plays + chunk - 1) / chunk
	if d := keys - 3*r.Chests; d < -2*chunks || d > 2*chunks {
		t.Errorf("%d keys for %d chests", keys, r.Chests)
	}
	if r.Staked != plays*Stake {
		t.Errorf("staked %d", r.Staked)
	}
	if r.MainFit.DF < minDF || r.MainFit.P < 1e-3 {
		t.Errorf("main game: chi-square %.2f, df %d, p = %.3g", r.MainFit.Stat, r.MainFit.DF, r.MainFit.P)
	}
	if r.ChestFit.P < 1e-3 {
		t.Errorf("chest: chi-square %.2f, df %d, p = %.3g", r.ChestFit.Stat, r.ChestFit.DF, r.ChestFit.P)
	}
	if !(r.RTPLow < r.RTP && r.RTP < r.RTPHigh) || r.RTPHigh-r.RTPLow > maxWidth {
		t.Errorf("RTP interval [%.4f, %.4f] around %.4f", r.RTPLow, r.RTPHigh, r.RTP)
	}
	if got := float64(r.MainWon+r.ChestWon) / float64(r.Staked); math.Abs(got-r.RTP) > 1e-12 {
		t.Errorf("RTP %.6f but won/staked %.6f", r.RTP, got)
	}
	exact, _ := r.ExactRTP.Float64()
	if exact != 0.72 {
		t.Errorf("exact RTP %v", r.ExactRTP)
	}
	// The main game alone is per-play independent: its return is within 5 sd.
	var m2 float64
	for tier := TierGem; tier < NumTiers; tier++ {
		p := float64(tier.Weight()) / float64(MainTotal)
		m2 += p * float64(tier.Prize()*tier.Prize())
	}
	sd := math.Sqrt((m2 - 24.1*24.1) / float64(plays))
	if z := (float64(r.MainWon)/float64(plays) - 24.1) / sd; math.Abs(z) > 5 {
		t.Errorf("main game return %.4f cents per play, z = %.2f", float64(r.MainWon)/float64(plays), z)
	}
}

func TestSimulateIndependentOfWorkers(t *testing.T) {
	ctx := context.Background()
	for _, fair := range []bool{false, true} {
		chunk := int64(SimChunk)
		if fair {
			chunk = SimFairChunk
		}
		cfg := SimConfig{Plays: 3*chunk + 12345, Seed: 42, Fair: fair}
		var reports []SimReport
		for _, w := range []int{1, 2, 5} {
			cfg.Workers = w
			r, err := Simulate(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			r.Workers = 0
			reports = append(reports, r)
		}
		for i := 1; i < len(reports); i++ {
			a, b := reports[0], reports[i]
			if a.ByKeys != b.ByKeys || a.Lots != b.Lots || a.MainWon != b.MainWon || a.ChestWon != b.ChestWon ||
				a.RTPLow != b.RTPLow || a.MainFit != b.MainFit {
				t.Errorf("fair %v: reports differ with the number of workers:\n%+v\n%+v", fair, a, b)
			}
		}
		cfg.Seed = 43
		other, err := Simulate(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if other.ByKeys == reports[0].ByKeys {
			t.Errorf("fair %v: seeds 42 and 43 gave the same counts", fair)
		}
	}
}

// TestSimulateFairDrawsTickets: a fair simulation counts exactly the
// tickets and chests that SeededDrawer draws for its simulated players, so
// that every simulated ticket can be verified like a real one.
func TestSimulateFairDrawsTickets(t *testing.T) {
	const plays = SimFairChunk + 5000 // two players
	r, err := Simulate(context.Background(), SimConfig{Plays: plays, Seed: 3, Fair: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var (
		d     SeededDrawer
		tiers [NumTiers]int64
		lots  [NumLots]int64
		won   int64
	)
	for chunk := uint64(0); chunk < 2; chunk++ {
		seed, client := simPlayer(3, chunk)
		if len(client) != 16 || seed == (Seed{}) {
			t.Fatalf("player %d: client seed %q", chunk, client)
		}
		keys, chests := 0, int64(0)
		for n := uint64(1); n <= min(SimFairChunk, plays-chunk*SimFairChunk); n++ {
			o, err := d.Ticket(seed, client, n, keys)
			if err != nil {
				t.Fatal(err)
			}
			tiers[o.Tier]++
			won += o.Prize
			if o.Key {
				keys++
			}
			if keys == MaxKeys {
				chests++
				c, err := d.Chest(seed, client, chests)
				if err != nil {
					t.Fatal(err)
				}
				lots[c.Lot]++
				won += c.Prize
				keys = 0
			}
		}
	}
	if tiers != r.Tiers || lots != r.Lots || won != r.MainWon+r.ChestWon {
		t.Errorf("simulation counted %v %v %d, the drawer draws %v %v %d", r.Tiers, r.Lots, r.MainWon+r.ChestWon, tiers, lots, won)
	}
	a, b := simPlayer(3, 0)
	if c, d := simPlayer(3, 1); a == c || b == d {
		t.Error("two chunks share a player's seeds")
	}
}

func TestSimulateErrors(t *testing.T) {
	for _, n := range []int64{0, -1, math.MaxInt64} {
		if _, err := Simulate(context.Background(), SimConfig{Plays: n}); err == nil {
			t.Errorf("Simulate(%d plays) accepted", n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, SimConfig{Plays: 10 * SimChunk}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Simulate error %v, want context.Canceled", err)
	}
}

func TestU128(t *testing.T) {
	var a u128
	a.addMul(1<<63, 4) // 2^65
	a.addMul(3, 5)
	b := a
	a.add(b)
	if a.hi != 4 || a.lo != 30 {
		t.Fatalf("got %+v, want hi 4 lo 30", a)
	}
	if f := a.float(); f != 4*0x1p64+30 {
		t.Fatalf("float %g", f)
	}
}
