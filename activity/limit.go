package activity

import (
	"sync"
	"time"
)

// limiter is a token bucket per key (a user): rate tokens a second, up to
// burst. A key whose bucket is full again is forgotten, so memory follows
// the players active in the last burst/rate seconds.
type limiter struct {
	rate  float64
	burst float64
	mu    sync.Mutex
	b     map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), b: map[string]*bucket{}}
}

// allow takes a token of key at now; if none is left it returns false and
// how long until one is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.b) > 10000 { // forget the full buckets
		for k, b := range l.b {
			if l.fill(b, now) >= l.burst {
				delete(l.b, k)
			}
		}
	}
	b := l.b[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.b[key] = b
	}
	b.tokens, b.at = l.fill(b, now), now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}

// fill is b's tokens at now.
func (l *limiter) fill(b *bucket, now time.Time) float64 {
	return min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
}
