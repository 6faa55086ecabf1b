package game

import (
	"testing"

	"pgregory.net/rapid"
)

// rapidSource lets rapid choose every random value of a play, so that its
// shrinker can search the whole input space of the grid construction,
// including the edges of every range and the rejection branch.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Uint64() uint64 { return rapid.Uint64().Draw(s.t, "u64") }

func TestPropertyPlayTellsTheTruth(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(0, MaxKeys-1).Draw(t, "keys")
		o := play(rapidSource{t}, k)
		if err := Validate(o); err != nil {
			t.Fatal(err)
		}
		if back, err := ParseGrid(o.Grid.String()); err != nil || back != o.Grid {
			t.Fatalf("grid %v does not round-trip: %v, %v", o.Grid, back, err)
		}
	})
}

func TestPropertyNewGridTellsTheTruth(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tier := Tier(rapid.IntRange(0, NumTiers-1).Draw(t, "tier"))
		key := tier == TierLoss && rapid.Bool().Draw(t, "key")
		g, row := grid(rapidSource{t}, tier, key)
		if err := Validate(Outcome{Tier: tier, Prize: tier.Prize(), Key: key, Row: row, Grid: g}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPropertyChestPrize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := chest(rapidSource{t})
		if c.Lot >= NumLots || c.Prize != c.Lot.Prize() || c.Prize <= 0 {
			t.Fatalf("chest %+v", c)
		}
	})
}

func FuzzPlay(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint64(0), 0)
	f.Add(^uint64(0), ^uint64(0), ^uint64(0), 2)
	f.Add(uint64(1)<<63, uint64(12345), uint64(1)<<62, 1)
	f.Fuzz(func(t *testing.T, a, b, c uint64, keys int) {
		o := play(&seqSource{vals: []uint64{a, b, c}}, int(uint(keys)%MaxKeys))
		if err := Validate(o); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseGrid(f *testing.F) {
	f.Add("GPBSCRKGP")
	f.Add("")
	f.Add("GGGGGGGGGG")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGrid(s)
		if err != nil {
			return
		}
		if g.String() != s {
			t.Fatalf("ParseGrid(%q).String() = %q", s, g.String())
		}
	})
}
