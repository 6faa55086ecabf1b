package game

import (
	"errors"
	"fmt"
	"time"
)

// Limits of the player's state machine. A transition given a value outside
// them, or one whose result would pass them, returns an error wrapping
// ErrInvalid and changes nothing.
const (
	MaxGrant       int64         = 1_000_000_000        // |amount| of one Grant, cents
	MaxBalance     int64         = 1_000_000_000_000    // a balance, whoever sets it, cents
	MaxDailyAmount int64         = MaxGrant             // the amount of one daily bonus, cents
	MaxCooldown    time.Duration = 366 * 24 * time.Hour // the longest daily cooldown
	MaxOps                       = 64                   // operation IDs a player remembers
	MaxOpID                      = 128                  // bytes of one operation ID
	MaxTicketLines               = 50                   // ticket lines a player keeps (history.go)
	MaxOtherLines                = 50                   // other history lines a player keeps, apart
	MaxHistory                   = MaxTicketLines + MaxOtherLines
	// MaxSeq bounds ticket and chest numbers: 2^53−1, the largest integer
	// that every JSON reader, JavaScript's JSON.parse included, reads
	// exactly. At a ticket a millisecond it lasts 285,000 years.
	MaxSeq = 1<<53 - 1
)

// Errors of the transitions, wrapped with context: test them with
// errors.Is. An error changes nothing (Apply); a step that would leave its
// player not sound is refused with ErrInvalid, which the moves' docs do not
// repeat.
var (
	// ErrInsufficientFunds: Buy with a balance below Stake.
	ErrInsufficientFunds = errors.New("game: insufficient balance")
	// ErrChestDue: Buy while the treasure chest waits to be opened.
	ErrChestDue = errors.New("game: the treasure chest must be opened first")
	// ErrNoChest: OpenChest with no chest due under that number.
	ErrNoChest = errors.New("game: no treasure chest is due")
	// ErrUnknownTicket: Reveal of a ticket that is not the player's current one.
	ErrUnknownTicket = errors.New("game: unknown or stale ticket")
	// ErrDailyCooldown: ClaimDaily before the cooldown has passed (a *CooldownError).
	ErrDailyCooldown = errors.New("game: daily bonus already claimed")
	// ErrDailyDisabled: ClaimDaily with an amount of 0 (the bonus is off).
	ErrDailyDisabled = errors.New("game: the daily bonus is disabled")
	// ErrInvalid: an argument out of range, an empty or too long operation
	// ID, a sum that would overflow or pass MaxBalance, a drawer's result the
	// rules do not allow, or a player whose state breaks the invariant (see
	// Player.Check).
	ErrInvalid = errors.New("game: invalid argument")
)

// NextTicket returns the number of the player's next ticket, and false
// once TicketSeq is MaxSeq (Buy refuses then).
func (p Player) NextTicket() (uint64, bool) { return p.TicketSeq + 1, p.TicketSeq < MaxSeq }

// NextChest returns the number of the player's next chest, and false once
// ChestSeq is MaxSeq (OpenChest refuses then).
func (p Player) NextChest() (int64, bool) { return p.ChestSeq + 1, p.ChestSeq < MaxSeq }

// CooldownError is the error of ClaimDaily before the cooldown has passed.
type CooldownError struct {
	Next time.Time // the first moment the next claim is allowed
}

func (e *CooldownError) Error() string {
	return fmt.Sprintf("%v: next claim at %v", ErrDailyCooldown, e.Next)
}

// Unwrap makes errors.Is(err, ErrDailyCooldown) hold.
func (e *CooldownError) Unwrap() error { return ErrDailyCooldown }

// add returns a+b, or an error wrapping ErrInvalid if the sum overflows
// int64. Every statistic is updated through it: a total that would wrap is
// refused, never stored.
func add(a, b int64) (int64, error) {
	s := a + b
	if (a^s)&(b^s) < 0 { // a and b share a sign that s does not have
		return 0, fmt.Errorf("%w: %d + %d overflows", ErrInvalid, a, b)
	}
	return s, nil
}

// credit returns balance+amount (amount may be negative), or an error
// wrapping ErrInvalid when the sum overflows or leaves 0..MaxBalance.
func credit(balance, amount int64) (int64, error) {
	s, err := add(balance, amount)
	if err != nil {
		return 0, err
	}
	if s < 0 || s > MaxBalance {
		return 0, fmt.Errorf("%w: balance %d %+d = %d leaves 0..%d", ErrInvalid, balance, amount, s, MaxBalance)
	}
	return s, nil
}

// CanCredit reports whether amount cents (negative to debit) can be added
// to balance, by the rule every credit of a transition follows.
func CanCredit(balance, amount int64) bool {
	_, err := credit(balance, amount)
	return err == nil
}

// BalanceFull reports whether balance is too close to MaxBalance for Buy
// to sell a ticket (playHeadroom); Buy refuses it with ErrInvalid.
func BalanceFull(balance int64) bool {
	return balance > MaxBalance-playHeadroom()+Stake
}

// playHeadroom is the most one ticket can credit: the largest prize of the
// main game and, if its key opens the chest, the largest chest prize. Buy
// refuses a ticket whose prizes could not all be credited under MaxBalance,
// so that a drawn ticket or a due chest never gets stuck.
func playHeadroom() int64 {
	var tier, lot int64
	for _, t := range tierTable {
		tier = max(tier, t.prize)
	}
	for _, l := range lotTable {
		lot = max(lot, l.prize)
	}
	return tier + lot
}
