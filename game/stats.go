package game

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// Z99 is the two-sided 99% quantile of the standard normal distribution.
const Z99 = 2.5758293035489004

// ChiSquareP returns the p-value of a chi-square statistic x with df degrees
// of freedom: the chance that a chi-square variable exceeds x, the
// regularized upper incomplete gamma function Q(df/2, x/2); NaN for df ≤ 0
// or x negative or NaN.
func ChiSquareP(x float64, df int) float64 {
	if df <= 0 || !(x >= 0) {
		return math.NaN()
	}
	return mathext.GammaIncRegComp(float64(df)/2, x/2)
}

// ChiSquare is the result of a chi-square goodness-of-fit test.
type ChiSquare struct {
	Stat float64 // Σ (observed − expected)² / expected
	DF   int     // degrees of freedom
	P    float64 // ChiSquareP(Stat, DF); NaN when DF is 0
}

// chiSquareGroup adds to c the test of one multinomial sample, observed
// against expected counts; cells expected fewer than 5 times are pooled,
// rarest first, so that the chi-square approximation holds.
func chiSquareGroup(c *ChiSquare, observed []int64, expected []float64) {
	type cell struct {
		o int64
		e float64
	}
	cells := make([]cell, 0, len(observed))
	for i := range observed {
		cells = append(cells, cell{observed[i], expected[i]})
	}
	slices.SortStableFunc(cells, func(a, b cell) int { return cmp.Compare(a.e, b.e) })
	for len(cells) > 1 && cells[0].e < 5 {
		cells[1].o += cells[0].o
		cells[1].e += cells[0].e
		cells = cells[1:]
		for i := 0; i+1 < len(cells) && cells[i].e > cells[i+1].e; i++ {
			cells[i], cells[i+1] = cells[i+1], cells[i]
		}
	}
	if len(cells) < 2 || cells[0].e < 5 {
		return
	}
	for _, x := range cells {
		d := float64(x.o) - x.e
		c.Stat += d * d / x.e
	}
	c.DF += len(cells) - 1
}

func (c *ChiSquare) finish() { c.P = ChiSquareP(c.Stat, c.DF) }
