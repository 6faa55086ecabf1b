package loadtest

import (
	"fmt"
	"slices"
	"time"
)

// Latency summarises a set of durations.
type Latency struct {
	N             int
	Mean          time.Duration
	P50, P95, P99 time.Duration
	Max           time.Duration
}

// summarize sorts samples (nanoseconds) in place and returns their summary.
func summarize(samples []int64) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	slices.Sort(samples)
	var sum int64
	for _, s := range samples {
		sum += s
	}
	return Latency{
		N:    len(samples),
		Mean: time.Duration(sum / int64(len(samples))),
		P50:  time.Duration(percentile(samples, 50)),
		P95:  time.Duration(percentile(samples, 95)),
		P99:  time.Duration(percentile(samples, 99)),
		Max:  time.Duration(samples[len(samples)-1]),
	}
}

// percentile returns the nearest-rank p-th percentile of sorted samples.
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	// Nearest rank: ceil(p/100 × n), 1-based.
	rank := (p*len(sorted) + 99) / 100
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// String formats the summary on one line.
func (l Latency) String() string {
	if l.N == 0 {
		return "no samples"
	}
	return fmt.Sprintf("n=%d mean=%s p50=%s p95=%s p99=%s max=%s",
		l.N, round(l.Mean), round(l.P50), round(l.P95), round(l.P99), round(l.Max))
}

// round keeps three significant digits or so, for reading.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= 100*time.Microsecond:
		return d.Round(time.Microsecond)
	default:
		return d.Round(100 * time.Nanosecond)
	}
}
