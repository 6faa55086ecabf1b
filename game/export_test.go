package game

import (
	"crypto/hmac"
	"crypto/sha256"
)

// What game's tests reach below the public API: production draws through
// SeededDrawer and FairDraws alone. The external tests (fairspec_test.go)
// see these as game.Play, game.Uniform and game.NewHMACSource.

// Play draws one play for a player holding keysHeld keys from src, as
// SeededDrawer does from a seed's stream; ErrKeysHeld out of range.
func Play(src Source, keysHeld int) (Outcome, error) {
	if err := checkKeys(keysHeld); err != nil {
		return Outcome{}, err
	}
	return play(src, keysHeld), nil
}

// Uniform is uniform for tests, 0 < n.
func Uniform(src Source, n int64) int64 { return int64(uniform(src, uint64(n))) }

// NewHMACSource returns the stream of one draw (hmacSource).
func NewHMACSource(seed Seed, purpose Purpose, client string, nonce uint64) Source {
	s := &hmacSource{mac: hmac.New(sha256.New, seed[:])}
	s.start(purpose, client, nonce)
	return s
}

// TrimHistory returns what a store keeps of hist, oldest first: its last
// MaxTicketLines main lines (MainLine) and its last MaxOtherLines others,
// in their order.
func TrimHistory(hist []Entry) []Entry {
	main, others := countLines(hist)
	out := make([]Entry, 0, min(main, MaxTicketLines)+min(others, MaxOtherLines))
	for _, e := range hist {
		if MainLine(e) {
			if main--; main < MaxTicketLines {
				out = append(out, e)
			}
		} else if others--; others < MaxOtherLines {
			out = append(out, e)
		}
	}
	return out
}
