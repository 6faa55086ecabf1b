package backoff

import (
	"testing"
	"time"
)

func TestJittered(t *testing.T) {
	none := func(time.Duration) time.Duration { return 0 }
	most := func(d time.Duration) time.Duration { return d - 1 }
	for _, tc := range []struct {
		attempt  int
		min, max time.Duration
	}{
		{0, 50 * time.Millisecond, 100*time.Millisecond - 1},
		{1, 50 * time.Millisecond, 100*time.Millisecond - 1},
		{2, 100 * time.Millisecond, 200*time.Millisecond - 1},
		{4, 400 * time.Millisecond, 800*time.Millisecond - 1},
		{5, 500 * time.Millisecond, time.Second - 1}, // capped
		{200, 500 * time.Millisecond, time.Second - 1},
	} {
		lo := Jittered(tc.attempt, 100*time.Millisecond, time.Second, none)
		hi := Jittered(tc.attempt, 100*time.Millisecond, time.Second, most)
		if lo != tc.min || hi != tc.max {
			t.Errorf("attempt %d: waits %v..%v, want %v..%v", tc.attempt, lo, hi, tc.min, tc.max)
		}
	}
}
