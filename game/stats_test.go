package game

import (
	"math"
	"testing"
)

// gammaQEven is Q(m, x) for a positive integer m in closed form:
// e^-x Σ_{i<m} x^i/i!.
func gammaQEven(m int, x float64) float64 {
	term, sum := 1.0, 1.0
	for i := 1; i < m; i++ {
		term *= x / float64(i)
		sum += term
	}
	return math.Exp(-x) * sum
}

// gammaQHalf is Q(m+1/2, x) in closed form: erfc(√x) + e^-x Σ_{i<m} x^(i+1/2)/Γ(i+3/2).
func gammaQHalf(m int, x float64) float64 {
	q := math.Erfc(math.Sqrt(x))
	for i := 0; i < m; i++ {
		a := float64(i) + 0.5
		lg, _ := math.Lgamma(a + 1)
		q += math.Exp(a*math.Log(x) - x - lg)
	}
	return q
}

func closeRel(got, want, tol float64) bool {
	if want == 0 {
		return math.Abs(got) < tol
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// TestChiSquarePClosedForms: ChiSquareP(2x, 2m) is Q(m, x) and
// ChiSquareP(2x, 2m+1) is Q(m+1/2, x).
func TestChiSquarePClosedForms(t *testing.T) {
	xs := []float64{0.001, 0.1, 0.5, 1, 2.5, 5, 10, 20, 35, 60, 100}
	for m := 1; m <= 30; m++ {
		for _, x := range xs {
			if got, want := ChiSquareP(2*x, 2*m), gammaQEven(m, x); !closeRel(got, want, 1e-10) {
				t.Errorf("ChiSquareP(%g, %d) = %.15g, want %.15g", 2*x, 2*m, got, want)
			}
			if got, want := ChiSquareP(2*x, 2*m+1), gammaQHalf(m, x); !closeRel(got, want, 1e-10) {
				t.Errorf("ChiSquareP(%g, %d) = %.15g, want %.15g", 2*x, 2*m+1, got, want)
			}
		}
	}
}

func TestChiSquareP(t *testing.T) {
	// Critical values from published chi-square tables (5 significant digits).
	tests := []struct {
		x  float64
		df int
		p  float64
	}{
		{3.8415, 1, 0.05},
		{6.6349, 1, 0.01},
		{18.307, 10, 0.05},
		{32.671, 21, 0.05},
		{46.797, 21, 0.001},
		{16.266, 3, 0.001},
		{7.8147, 3, 0.05},
	}
	for _, tc := range tests {
		if got := ChiSquareP(tc.x, tc.df); !closeRel(got, tc.p, 1e-3) {
			t.Errorf("ChiSquareP(%g, %d) = %g, want %g", tc.x, tc.df, got, tc.p)
		}
	}
	for _, bad := range []struct {
		x  float64
		df int
	}{{1, 0}, {1, -1}, {-1, 3}, {math.NaN(), 3}} {
		if got := ChiSquareP(bad.x, bad.df); !math.IsNaN(got) {
			t.Errorf("ChiSquareP(%g, %d) = %g, want NaN", bad.x, bad.df, got)
		}
	}
	if got := ChiSquareP(0, 6); got != 1 {
		t.Errorf("ChiSquareP(0, 6) = %g, want 1", got)
	}
	if got := ChiSquareP(math.Inf(1), 6); got != 0 {
		t.Errorf("ChiSquareP(+Inf, 6) = %g, want 0", got)
	}
}

func TestChiSquareGroupPools(t *testing.T) {
	var c ChiSquare
	// The two rare cells (expected 1 and 2) are pooled with the next rarest
	// (expected 4) into one cell expecting 7: three cells, two degrees of freedom.
	chiSquareGroup(&c, []int64{1, 2, 4, 93, 100}, []float64{1, 2, 4, 93, 100})
	c.finish()
	if c.DF != 2 || c.Stat != 0 || c.P != 1 {
		t.Errorf("got %+v, want DF 2, Stat 0, P 1", c)
	}
	var d ChiSquare
	chiSquareGroup(&d, []int64{0, 10}, []float64{1, 2})
	d.finish()
	if d.DF != 0 || !math.IsNaN(d.P) {
		t.Errorf("too few expected: got %+v, want no test", d)
	}
}
