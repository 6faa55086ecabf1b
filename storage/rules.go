package storage

import (
	"cmp"
	"fmt"
	"slices"
)

// ValidateID checks that both parts of a player's id are set.
func ValidateID(id PlayerID) error {
	if id.Guild == 0 || id.User == 0 {
		return fmt.Errorf("%w: player id %d/%d", ErrInvalid, id.Guild, id.User)
	}
	return nil
}

// SortLeaderboard orders entries by balance, highest first, then by user id.
func SortLeaderboard(entries []LeaderboardEntry) {
	slices.SortFunc(entries, func(a, b LeaderboardEntry) int {
		if c := cmp.Compare(b.Balance, a.Balance); c != 0 {
			return c
		}
		return cmp.Compare(a.User, b.User)
	})
}
