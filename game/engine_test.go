package game

import (
	"errors"
	"math/bits"
	"testing"
)

// seqSource returns the given values in turn, then zeros.
type seqSource struct {
	vals []uint64
	used int
}

func (s *seqSource) Uint64() uint64 {
	if s.used >= len(s.vals) {
		s.used++
		return 0
	}
	v := s.vals[s.used]
	s.used++
	return v
}

// valueFor returns a 64-bit value that uniform(·, n) maps to u in [0, n)
// without rejection: x = ceil((u·2^64 + t)/n) with t = 2^64 mod n, so that
// x·n = u·2^64 + lo with t <= lo < t+n.
func valueFor(tb testing.TB, u, n uint64) uint64 {
	tb.Helper()
	t := -n % n
	lo, c := bits.Add64(0, t, 0)
	q, r := bits.Div64(u+c, lo, n)
	if r != 0 {
		q++
	}
	if got := uniform(&seqSource{vals: []uint64{q}}, n); got != u {
		tb.Fatalf("valueFor(%d, %d) = %d maps to %d", u, n, q, got)
	}
	return q
}

func TestDecideBoundaries(t *testing.T) {
	// Pool layout: gem [0, 600), pipe [600, 2196), bomb, sabre, candle, barrel,
	// then the key range, then the losses without key.
	var cum int64
	for tier := TierGem; tier < NumTiers; tier++ {
		lo := cum
		cum += 12 * tier.Weight()
		for _, u := range []int64{lo, cum - 1} {
			for k := 0; k < MaxKeys; k++ {
				if got, key := decide(uint64(u), k); got != tier || key {
					t.Errorf("decide(%d, %d) = %v, %v; want %v, no key", u, k, got, key, tier)
				}
			}
		}
	}
	win := cum
	if win != 12*25_446_883 {
		t.Fatalf("winning range %d", win)
	}
	for k := 0; k < MaxKeys; k++ {
		tests := []struct {
			u   int64
			key bool
		}{
			{win, true},
			{win + KeyWeight(k) - 1, true},
			{win + KeyWeight(k), false},
			{Pool - 1, false},
		}
		for _, tc := range tests {
			if got, key := decide(uint64(tc.u), k); got != TierLoss || key != tc.key {
				t.Errorf("decide(%d, %d) = %v, %v; want loss, key %v", tc.u, k, got, key, tc.key)
			}
		}
	}
}

func TestFreeRowIsABijection(t *testing.T) {
	seen := map[[3]Symbol]bool{}
	for i := uint64(0); i < freeRows; i++ {
		var g Grid
		freeRow(&g, 1, i)
		r := g.Row(1)
		for _, s := range r {
			if s >= Key {
				t.Fatalf("row %d = %v holds %v", i, r, s)
			}
		}
		if r[0] == r[1] && r[1] == r[2] {
			t.Fatalf("row %d = %v is three of a kind", i, r)
		}
		if seen[r] {
			t.Fatalf("row %d = %v seen twice", i, r)
		}
		seen[r] = true
	}
	if len(seen) != 6*6*6-6 {
		t.Fatalf("%d rows, want 210", len(seen))
	}
}

// TestGridsCoverAllowedSets checks, by exhaustive counting on the parts, that
// the grid construction reaches every allowed grid exactly once: the
// construction's draw range equals the number of allowed grids, counted
// independently by brute force over one row.
func TestGridsCoverAllowedSets(t *testing.T) {
	// Count allowed rows by brute force over the 7^3 rows.
	var free, withOneKey int
	for a := Symbol(0); a < NumSymbols; a++ {
		for b := Symbol(0); b < NumSymbols; b++ {
			for c := Symbol(0); c < NumSymbols; c++ {
				keys := 0
				for _, s := range []Symbol{a, b, c} {
					if s == Key {
						keys++
					}
				}
				triple := a == b && b == c
				switch {
				case keys == 0 && !triple:
					free++
				case keys == 1:
					withOneKey++
				}
			}
		}
	}
	if free != freeRows || withOneKey != 3*keyPairs {
		t.Fatalf("brute force: %d free rows, %d one-key rows; construction uses %d and %d",
			free, withOneKey, freeRows, 3*keyPairs)
	}
	// Allowed key grids: the key's row (3 rows) holds one key, the others are free.
	if allowed := 3 * withOneKey * free * free; allowed != 9*keyPairs*freeRows2 {
		t.Fatalf("allowed key grids %d, construction draws among %d", allowed, 9*keyPairs*freeRows2)
	}
	// The 9·36 draws that differ only in the key's cell and neighbours give
	// 324 distinct valid grids: the construction is one-to-one there, and
	// freeRow (checked above) is one-to-one on the other rows.
	seen := map[Grid]bool{}
	for x := uint64(0); x < 9*keyPairs; x++ {
		src := &seqSource{vals: []uint64{valueFor(t, x*freeRows2, 9*keyPairs*freeRows2)}}
		g, row := grid(src, TierLoss, true)
		if err := Validate(Outcome{Key: true, Row: row, Grid: g}); err != nil {
			t.Fatalf("draw %d: %v", x, err)
		}
		if seen[g] {
			t.Fatalf("draw %d repeats grid %v", x, g)
		}
		seen[g] = true
	}
}

// chiSquareUniform tests counts against the uniform distribution.
func chiSquareUniform(tb testing.TB, counts []int64) ChiSquare {
	tb.Helper()
	var total int64
	for _, c := range counts {
		total += c
	}
	exp := make([]float64, len(counts))
	for i := range exp {
		exp[i] = float64(total) / float64(len(counts))
	}
	var c ChiSquare
	chiSquareGroup(&c, counts, exp)
	c.finish()
	return c
}

// TestGridDistribution checks, on a seeded sample, that the cells are
// uniform among what the rules allow: winning row over 3, key cell over 9,
// the key's neighbours over 36 pairs, other rows over 210.
func TestGridDistribution(t *testing.T) {
	const n = 300_000
	src := NewSeededSource(99, 3)
	rowIndex := func(r [3]Symbol) int {
		v := int(r[0])*36 + int(r[1])*6 + int(r[2])
		return v - v/43 - 1 // inverse of freeRow
	}
	check := func(name string, counts []int64) {
		t.Helper()
		if c := chiSquareUniform(t, counts); !(c.P > 1e-4) {
			t.Errorf("%s: chi-square %.1f, df %d, p = %.2g: not uniform", name, c.Stat, c.DF, c.P)
		}
	}
	t.Run("winning", func(t *testing.T) {
		rows := make([]int64, 3)
		others := make([]int64, freeRows)
		for i := 0; i < n; i++ {
			g, r := grid(src, TierCandle, false)
			rows[r]++
			a, b := otherThan(int(r))
			others[rowIndex(g.Row(a))]++
			others[rowIndex(g.Row(b))]++
		}
		check("winning row", rows)
		check("other rows of a win", others)
	})
	t.Run("key", func(t *testing.T) {
		cells := make([]int64, 9)
		pairs := make([]int64, keyPairs)
		others := make([]int64, freeRows)
		for i := 0; i < n; i++ {
			g, _ := grid(src, TierLoss, true)
			cell := -1
			for j, s := range g {
				if s == Key {
					cell = j
				}
			}
			cells[cell]++
			r := g.Row(cell / 3)
			var p []Symbol
			for _, s := range r {
				if s != Key {
					p = append(p, s)
				}
			}
			pairs[int(p[0])*6+int(p[1])]++
			a, b := otherThan(cell / 3)
			others[rowIndex(g.Row(a))]++
			others[rowIndex(g.Row(b))]++
		}
		check("key cell", cells)
		check("key neighbours", pairs)
		check("rows beside the key", others)
	})
	t.Run("loss", func(t *testing.T) {
		for r := 0; r < 3; r++ {
			counts := make([]int64, freeRows)
			for i := 0; i < n/3; i++ {
				g, _ := grid(src, TierLoss, false)
				counts[rowIndex(g.Row(r))]++
			}
			check("losing row", counts)
		}
	})
}

func TestSeededSourceReproducible(t *testing.T) {
	a, b, c := NewSeededSource(5, 1), NewSeededSource(5, 1), NewSeededSource(5, 2)
	for i := 0; i < 10; i++ {
		oa, ob := play(a, i%3), play(b, i%3)
		if oa != ob {
			t.Fatalf("play %d: %+v != %+v with the same seed", i, oa, ob)
		}
	}
	if a.Uint64() == c.Uint64() {
		t.Fatal("streams 1 and 2 start alike")
	}
}

func TestValidateRejects(t *testing.T) {
	good := func() Outcome {
		g, _ := ParseGrid("GPBSSSCRG")
		return Outcome{Tier: TierSabre, Prize: 500, Row: 1, Grid: g}
	}
	if err := Validate(good()); err != nil {
		t.Fatalf("valid outcome rejected: %v", err)
	}
	mustGrid := func(s string) Grid {
		g, err := ParseGrid(s)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name string
		edit func(*Outcome)
	}{
		{"bad tier", func(o *Outcome) { o.Tier = NumTiers }},
		{"wrong prize", func(o *Outcome) { o.Prize = 100 }},
		{"key on a win", func(o *Outcome) { o.Key = true }},
		{"wrong row", func(o *Outcome) { o.Row = 0 }},
		{"wrong symbol", func(o *Outcome) { o.Tier, o.Prize = TierGem, TierGem.Prize() }},
		{"two triples", func(o *Outcome) { o.Grid = mustGrid("GGGSSSCRG") }},
		{"key shown on a win", func(o *Outcome) { o.Grid = mustGrid("GPKSSSCRG") }},
		{"loss with a triple", func(o *Outcome) { o.Tier, o.Prize, o.Row = TierLoss, 0, -1 }},
		{"loss with a row", func(o *Outcome) { *o = Outcome{Row: 0, Grid: mustGrid("GPBSSCCRG")} }},
		{"key flag without key", func(o *Outcome) { *o = Outcome{Key: true, Row: -1, Grid: mustGrid("GPBSSCCRG")} }},
		{"key cell without flag", func(o *Outcome) { *o = Outcome{Row: -1, Grid: mustGrid("GPBSSCCRK")} }},
		{"two keys", func(o *Outcome) { *o = Outcome{Key: true, Row: -1, Grid: mustGrid("KPBSSCCRK")} }},
		{"bad symbol", func(o *Outcome) { o.Grid[0] = 9 }},
	}
	for _, tc := range tests {
		o := good()
		tc.edit(&o)
		if err := Validate(o); !errors.Is(err, ErrInvalidOutcome) {
			t.Errorf("%s: Validate = %v, want ErrInvalidOutcome", tc.name, err)
		}
	}
}
