package game

import (
	"errors"
	"fmt"
)

// ErrKeysHeld refuses a draw for keys held outside 0..MaxKeys-1.
var ErrKeysHeld = errors.New("game: keys held out of range")

// ErrInvalidOutcome refuses an outcome the rules do not allow, or a grid
// that does not tell its truth (Validate).
var ErrInvalidOutcome = errors.New("game: invalid outcome")

// Counts of the grid construction: a "free" row is three non-key symbols not
// all equal (6^3 − 6), a "pair" is the two non-key cells of a key's row.
const (
	freeRows  = 6*6*6 - 6 // 210
	freeRows2 = freeRows * freeRows
	keyPairs  = 6 * 6
)

func checkKeys(keysHeld int) error {
	if keysHeld < 0 || keysHeld >= MaxKeys {
		return fmt.Errorf("%w: %d, want 0..%d", ErrKeysHeld, keysHeld, MaxKeys-1)
	}
	return nil
}

// decide maps one value u of [0, Pool) to the play's result for a player
// holding keys keys: the winning tiers from the gem up, 12·weight values
// each, then "loss with a key", then "loss without a key".
func decide(u uint64, keys int) (Tier, bool) {
	// Three plays in four lose: the values past the winning tiers' are
	// told apart first.
	if wins := uint64(Pool - 12*tierTable[TierLoss].weight); u >= wins {
		return TierLoss, u < wins+uint64(keyTable[keys])
	}
	var cum uint64
	for t := TierGem; t < NumTiers; t++ {
		cum += uint64(12 * tierTable[t].weight)
		if u < cum {
			return t, false
		}
	}
	return TierLoss, false // not reached: the tiers' weights sum to MainTotal
}

// play draws one play and its grid, one uniform value each.
func play(src Source, keys int) Outcome {
	t, key := decide(uniform(src, uint64(Pool)), keys)
	o := Outcome{Tier: t, Prize: tierTable[t].prize, Key: key}
	o.Grid, o.Row = grid(src, t, key)
	return o
}

// freeRow writes free row i (0 ≤ i < 210: three non-key symbols not all
// equal, numbered as docs/FAIRNESS.md section 4.2 says) into row r.
func freeRow(g *Grid, r int, i uint64) {
	v := i + i/42 + 1
	g[3*r] = Symbol(v / 36)
	g[3*r+1] = Symbol(v / 6 % 6)
	g[3*r+2] = Symbol(v % 6)
}

// otherThan returns the two of 0, 1, 2 other than i, in order: the rows
// around row i, or the cells of a row around cell i.
func otherThan(i int) (int, int) {
	switch i {
	case 0:
		return 1, 2
	case 1:
		return 0, 2
	}
	return 0, 1
}

// freeOthers writes the i-th (0 ≤ i < 210²) pair of free rows into the two
// rows other than r.
func freeOthers(g *Grid, r int, i uint64) {
	a, b := otherThan(r)
	freeRow(g, a, i/freeRows)
	freeRow(g, b, i%freeRows)
}

// grid builds the grid shown for tier t (a key when key, only on a loss:
// the caller checks) with one draw from src, and its winning row (-1 for a
// loss): uniform over the grids that tell the truth, as docs/FAIRNESS.md
// section 4.2 specifies it.
func grid(src Source, t Tier, key bool) (Grid, int8) {
	var g Grid
	switch {
	case t != TierLoss:
		x := uniform(src, 3*freeRows2)
		r := int(x / freeRows2)
		s := t.Symbol()
		g[3*r], g[3*r+1], g[3*r+2] = s, s, s
		freeOthers(&g, r, x%freeRows2)
		return g, int8(r)
	case key:
		x := uniform(src, 9*keyPairs*freeRows2)
		cell := int(x / (keyPairs * freeRows2))
		pair := x % (keyPairs * freeRows2) / freeRows2
		r, c := cell/3, cell%3
		a, b := otherThan(c) // the key's neighbours, in order
		g[3*r+c], g[3*r+a], g[3*r+b] = Key, Symbol(pair/6), Symbol(pair%6)
		freeOthers(&g, r, x%freeRows2)
		return g, -1
	}
	x := uniform(src, freeRows*freeRows2)
	freeRow(&g, 0, x/freeRows2)
	freeOthers(&g, 0, x%freeRows2)
	return g, -1
}

// chest draws the treasure chest: a lot with the regulation's odds (one
// uniform value of [0, ChestTotal)) and its prize. The chest always wins.
func chest(src Source) Chest {
	u := int64(uniform(src, uint64(ChestTotal)))
	var cum int64
	for l := Lot(0); l < NumLots-1; l++ {
		cum += lotTable[l].weight
		if u < cum {
			return Chest{Lot: l, Prize: lotTable[l].prize}
		}
	}
	return Chest{Lot: NumLots - 1, Prize: lotTable[NumLots-1].prize}
}

// Validate reports whether o is an outcome the rules allow and whether its
// grid tells its truth. Use it on outcomes read back from storage. The
// error wraps ErrInvalidOutcome.
func Validate(o Outcome) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOutcome, fmt.Sprintf(format, args...))
	}
	if o.Tier >= NumTiers {
		return bad("tier %d", o.Tier)
	}
	if o.Prize != o.Tier.Prize() {
		return bad("prize %d for %v, want %d", o.Prize, o.Tier, o.Tier.Prize())
	}
	if o.Key && o.Tier != TierLoss {
		return bad("key on a winning play (%v)", o.Tier)
	}
	keys := 0
	for i, s := range o.Grid {
		if s >= NumSymbols {
			return bad("cell %d holds %v", i, s)
		}
		if s == Key {
			keys++
		}
	}
	want := 0
	if o.Key {
		want = 1
	}
	if keys != want {
		return bad("grid %v shows %d keys, want %d", o.Grid, keys, want)
	}
	triple := -1
	for r := 0; r < 3; r++ {
		row := o.Grid.Row(r)
		if row[0] == row[1] && row[1] == row[2] {
			if triple >= 0 {
				return bad("grid %v has two rows of three", o.Grid)
			}
			triple = r
		}
	}
	if o.Tier == TierLoss {
		if triple >= 0 || o.Row != -1 {
			return bad("losing grid %v with row %d, three of a kind on %d", o.Grid, o.Row, triple)
		}
		return nil
	}
	if triple < 0 || int(o.Row) != triple || o.Grid[3*triple] != o.Tier.Symbol() {
		return bad("grid %v does not show %v on row %d", o.Grid, o.Tier, o.Row)
	}
	return nil
}
