package game

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
)

// This file holds what only tests use: production draws through
// SeededDrawer and FairDraws alone. Tests of other packages (commands,
// fairpage) still call these; once they no longer do, this file becomes
// export_test.go, keeping only what game's own tests use.

// Play draws one play for a player holding keysHeld keys (0..MaxKeys-1)
// from src, with its grid, as SeededDrawer does from a seed's stream. It
// returns an error wrapping ErrKeysHeld, and draws nothing, when keysHeld is
// out of range.
func Play(src Source, keysHeld int) (Outcome, error) {
	if err := checkKeys(keysHeld); err != nil {
		return Outcome{}, err
	}
	return play(src, keysHeld), nil
}

// DrawChest draws a treasure chest from src, as SeededDrawer does from a
// seed's stream.
func DrawChest(src Source) Chest { return chest(src) }

// NewGrid builds a grid for tier t, with a key when key, using src for the
// cells (see grid), and its winning row (-1 for a loss). It returns an error
// wrapping ErrInvalidOutcome for an invalid tier or a key on a winning tier.
func NewGrid(src Source, t Tier, key bool) (Grid, int8, error) {
	if t >= NumTiers {
		return Grid{}, -1, fmt.Errorf("%w: tier %d", ErrInvalidOutcome, t)
	}
	if key && t != TierLoss {
		return Grid{}, -1, fmt.Errorf("%w: key on a winning play (%v)", ErrInvalidOutcome, t)
	}
	g, row := grid(src, t, key)
	return g, row, nil
}

// Uniform returns a uniformly distributed integer in [0, n), for 0 < n,
// drawn from src as the draws do (uniform).
func Uniform(src Source, n int64) int64 { return int64(uniform(src, uint64(n))) }

// NewHMACSource returns the stream of one draw (see hmacSource). It returns
// an error wrapping ErrInvalid for another purpose or a client seed longer
// than 2^32−1 bytes.
func NewHMACSource(seed Seed, purpose Purpose, client string, nonce uint64) (Source, error) {
	if purpose != PurposeTicket && purpose != PurposeChest {
		return nil, fmt.Errorf("%w: draw purpose %q", ErrInvalid, purpose)
	}
	if err := checkClient(client); err != nil {
		return nil, err
	}
	s := &hmacSource{mac: hmac.New(sha256.New, seed[:])}
	s.start(purpose, client, nonce)
	return s, nil
}

// TrimHistory returns what a store keeps of hist, a player's lines oldest
// first: its last MaxTicketLines main lines (MainLine) and its last
// MaxOtherLines others, in their order.
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
