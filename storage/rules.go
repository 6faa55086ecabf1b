package storage

import (
	"cmp"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/lesclefsdutresor/clefs/game"
)

// Limits every store enforces; a value outside them is ErrInvalid.
const MaxReason = 200 // characters of a moderator's reason

// ValidateReason checks a moderator's reason (may be empty).
func ValidateReason(reason string) error {
	if !utf8.ValidString(reason) {
		return fmt.Errorf("%w: reason is not valid UTF-8", ErrInvalid)
	}
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return fmt.Errorf("%w: reason has %d characters, at most %d", ErrInvalid, n, MaxReason)
	}
	return nil
}

// ValidateID checks that both parts of a player's id are set.
func ValidateID(id PlayerID) error {
	if id.Guild == 0 || id.User == 0 {
		return fmt.Errorf("%w: player id %d/%d", ErrInvalid, id.Guild, id.User)
	}
	return nil
}

// ValidateSettings checks a guild's settings.
func ValidateSettings(s Settings) error {
	switch {
	case s.StartingBalance < 0 || s.StartingBalance > game.MaxBalance:
		return fmt.Errorf("%w: starting balance %d out of range 0..%d", ErrInvalid, s.StartingBalance, game.MaxBalance)
	case s.DailyAmount < 0 || s.DailyAmount > game.MaxDailyAmount:
		return fmt.Errorf("%w: daily amount %d out of range 0..%d", ErrInvalid, s.DailyAmount, game.MaxDailyAmount)
	case s.DailyCooldown < 0 || s.DailyCooldown > game.MaxCooldown:
		return fmt.Errorf("%w: daily cooldown %v out of range 0..%v", ErrInvalid, s.DailyCooldown, game.MaxCooldown)
	case s.DailyCooldown%time.Millisecond != 0:
		return fmt.Errorf("%w: daily cooldown %v is not a whole number of milliseconds", ErrInvalid, s.DailyCooldown)
	}
	if err := s.House.Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
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
