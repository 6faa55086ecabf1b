package game

import (
	"cmp"
	"math"
	"slices"
)

// Z99 is the two-sided 99% quantile of the standard normal distribution.
const Z99 = 2.5758293035489004

// GammaQ returns the regularized upper incomplete gamma function
// Q(a, x) = Γ(a, x)/Γ(a) for a > 0 and x ≥ 0 (Numerical Recipes §6.2), NaN
// for invalid arguments.
func GammaQ(a, x float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(x) || a <= 0 || x < 0:
		return math.NaN()
	case x == 0:
		return 1
	case math.IsInf(x, 1):
		return 0
	case x < a+1:
		return 1 - gammaPSeries(a, x)
	}
	return gammaQFraction(a, x)
}

// logPrefix returns log(x^a e^-x / Γ(a)).
func logPrefix(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(x) - x - lg
}

func gammaPSeries(a, x float64) float64 {
	ap, term := a, 1/a
	sum := term
	for n := 0; n < 10000; n++ {
		ap++
		term *= x / ap
		sum += term
		if math.Abs(term) < math.Abs(sum)*1e-17 {
			break
		}
	}
	return sum * math.Exp(logPrefix(a, x))
}

func gammaQFraction(a, x float64) float64 {
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 10000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-17 {
			break
		}
	}
	return math.Exp(logPrefix(a, x)) * h
}

// ChiSquareP returns the p-value of a chi-square statistic x with df degrees
// of freedom: the chance that a chi-square variable exceeds x.
func ChiSquareP(x float64, df int) float64 {
	if df <= 0 {
		return math.NaN()
	}
	return GammaQ(float64(df)/2, x/2)
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
	// Pool the rarest cells together.
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

func (c *ChiSquare) finish() {
	if c.DF == 0 {
		c.P = math.NaN()
		return
	}
	c.P = ChiSquareP(c.Stat, c.DF)
}
