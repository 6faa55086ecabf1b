package loadtest

import (
	"fmt"
	"time"
)

// Latency summarises a set of durations (nanoseconds in JSON).
type Latency struct {
	N    int           `json:"n"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
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
