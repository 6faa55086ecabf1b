// Package backoff computes the waits between the tries of an operation
// that failed for a moment: the REST transport's retries, a late step's
// next try, a store's compare-and-set after a conflict. One formula, so
// that every retry loop of the bot spreads its callers the same way.
package backoff

import (
	"context"
	crand "crypto/rand"
	"math/rand/v2"
	"sync"
	"time"
)

// Jittered returns the wait before the try after try number attempt (1
// for the wait after the first): base doubled at each try, capped at
// ceiling, and jittered ("equal jitter"), half of it fixed and half drawn
// by jitter, which returns a duration in [0, d) (e.g. math/rand/v2's N).
// attempt below 1 counts as 1.
func Jittered(attempt int, base, ceiling time.Duration, jitter func(d time.Duration) time.Duration) time.Duration {
	d, attempt := ceiling, max(attempt, 1)
	if attempt < 32 && base<<(attempt-1) > 0 {
		d = min(base<<(attempt-1), ceiling)
	}
	if d <= 1 {
		return d
	}
	return d/2 + jitter(d/2)
}

// Random returns a jitter for Jittered, safe for concurrent use: a ChaCha8
// generator seeded from crypto/rand, never the global generator.
func Random() func(d time.Duration) time.Duration {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails: crypto/rand panics rather
	var mu sync.Mutex
	r := rand.New(rand.NewChaCha8(seed))
	return func(d time.Duration) time.Duration {
		if d <= 0 {
			return 0
		}
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(r.Int64N(int64(d)))
	}
}

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d): // collected once unreferenced (Go 1.23)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
