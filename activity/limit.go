package activity

import (
	"maps"
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
	return l.allowUpTo(key, l.burst, now)
}

// allowUpTo is allow, key's bucket holding up to burst tokens (at least
// the limiter's: a bucket full to that is forgotten).
func (l *limiter) allowUpTo(key string, burst float64, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.b) > 10000 { // forget the full buckets
		maps.DeleteFunc(l.b, func(_ string, b *bucket) bool { return l.fill(b, l.burst, now) >= l.burst })
	}
	b := l.b[key]
	if b == nil {
		b = &bucket{tokens: burst, at: now}
		l.b[key] = b
	}
	b.tokens, b.at = l.fill(b, burst, now), now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}

func (l *limiter) fill(b *bucket, burst float64, now time.Time) float64 {
	return min(burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
}
