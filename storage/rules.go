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
const (
	MaxGrant       int64         = 1_000_000_000     // |amount| of one Grant, cents
	MaxBalance     int64         = 1_000_000_000_000 // a balance set or granted, cents
	MaxReason                    = 200               // characters of a moderator's reason
	MaxDailyAmount int64         = MaxGrant          // Settings.DailyAmount, cents
	MaxCooldown    time.Duration = 366 * 24 * time.Hour
	HistoryLimit                 = 50   // entries kept per player
	AuditLimit                   = 1000 // entries kept per guild (and per player on Redis)
)

// CheckInvariant reports whether p's balance equals
// StartingBalance + GrantedCents + WonCents + DailyCents − StakedCents and its
// other fields are in range. It returns nil for a sound player.
func CheckInvariant(p Player) error {
	s := p.Stats
	want := p.StartingBalance + s.GrantedCents + s.WonCents + s.DailyCents - s.StakedCents
	if p.Balance != want {
		return fmt.Errorf("player %d/%d: balance %d ≠ start %d + granted %d + won %d + daily %d − staked %d = %d",
			p.ID.Guild, p.ID.User, p.Balance, p.StartingBalance, s.GrantedCents, s.WonCents, s.DailyCents, s.StakedCents, want)
	}
	if p.Balance < 0 {
		return fmt.Errorf("player %d/%d: negative balance %d", p.ID.Guild, p.ID.User, p.Balance)
	}
	if p.Keys < 0 || p.Keys >= game.MaxKeys {
		return fmt.Errorf("player %d/%d: keys %d out of range 0..%d", p.ID.Guild, p.ID.User, p.Keys, game.MaxKeys-1)
	}
	if s.StakedCents != s.Plays*game.Stake {
		return fmt.Errorf("player %d/%d: staked %d ≠ %d plays × %d", p.ID.Guild, p.ID.User, s.StakedCents, s.Plays, game.Stake)
	}
	return nil
}

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
	case s.StartingBalance < 0 || s.StartingBalance > MaxBalance:
		return fmt.Errorf("%w: starting balance %d out of range 0..%d", ErrInvalid, s.StartingBalance, MaxBalance)
	case s.DailyAmount < 0 || s.DailyAmount > MaxDailyAmount:
		return fmt.Errorf("%w: daily amount %d out of range 0..%d", ErrInvalid, s.DailyAmount, MaxDailyAmount)
	case s.DailyCooldown < 0 || s.DailyCooldown > MaxCooldown:
		return fmt.Errorf("%w: daily cooldown %v out of range 0..%v", ErrInvalid, s.DailyCooldown, MaxCooldown)
	case s.DailyCooldown%time.Millisecond != 0:
		return fmt.Errorf("%w: daily cooldown %v is not a whole number of milliseconds", ErrInvalid, s.DailyCooldown)
	}
	return nil
}

// ValidateGrant checks a Grant of amount to a player whose balance is balance.
func ValidateGrant(balance, amount int64) error {
	switch {
	case amount == 0 || amount > MaxGrant || amount < -MaxGrant:
		return fmt.Errorf("%w: grant %d must be non-zero and within ±%d", ErrInvalid, amount, MaxGrant)
	case balance+amount < 0:
		return fmt.Errorf("%w: grant %d would make the balance %d negative", ErrInvalid, amount, balance+amount)
	case balance+amount > MaxBalance:
		return fmt.Errorf("%w: grant %d would make the balance exceed %d", ErrInvalid, amount, MaxBalance)
	}
	return nil
}

// ValidateBalance checks a balance given to SetBalance.
func ValidateBalance(balance int64) error {
	if balance < 0 || balance > MaxBalance {
		return fmt.Errorf("%w: balance %d out of range 0..%d", ErrInvalid, balance, MaxBalance)
	}
	return nil
}

// ValidateOutcome checks that a drawn outcome is self-consistent, so that a
// faulty Drawer cannot corrupt a player.
func ValidateOutcome(o game.Outcome) error {
	switch {
	case o.Tier >= game.NumTiers:
		return fmt.Errorf("%w: outcome tier %d", ErrInvalid, o.Tier)
	case o.Tier.Winning() && (o.Prize <= 0 || o.Key || o.Row < 0 || o.Row > 2):
		return fmt.Errorf("%w: winning outcome %+v", ErrInvalid, o)
	case !o.Tier.Winning() && (o.Prize != 0 || o.Row != -1):
		return fmt.Errorf("%w: losing outcome %+v", ErrInvalid, o)
	case o.Prize > MaxGrant*10:
		return fmt.Errorf("%w: outcome prize %d", ErrInvalid, o.Prize)
	}
	for _, c := range o.Grid {
		if c >= game.NumSymbols {
			return fmt.Errorf("%w: outcome grid %v", ErrInvalid, o.Grid)
		}
	}
	return nil
}

// ValidateChest checks a drawn chest.
func ValidateChest(c game.Chest) error {
	if c.Lot >= game.NumLots || c.Prize <= 0 || c.Prize > MaxGrant*10 {
		return fmt.Errorf("%w: chest %+v", ErrInvalid, c)
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
