// Package backoff computes the waits between the tries of an operation
// that failed for a moment: the REST transport's retries, a late step's
// next try, a store's compare-and-set after a conflict. One formula, so
// that every retry loop of the bot spreads its callers the same way.
package backoff

import "time"

// Jittered returns the wait before the try after try number attempt (1
// for the wait after the first): base doubled at each try, capped at
// ceiling, and jittered ("equal jitter"), half of it fixed and half drawn
// by jitter, which returns a duration in [0, d) (e.g. math/rand/v2's N).
// attempt below 1 counts as 1.
func Jittered(attempt int, base, ceiling time.Duration, jitter func(d time.Duration) time.Duration) time.Duration {
	d := ceiling
	if attempt < 1 {
		attempt = 1
	}
	if attempt < 32 && base<<(attempt-1) > 0 {
		d = min(base<<(attempt-1), ceiling)
	}
	if d <= 1 {
		return d
	}
	return d/2 + jitter(d/2)
}
