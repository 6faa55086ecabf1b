package game

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"time"
)

// RowMask is a set of rows of the grid: bit r set means row r (0..2).
type RowMask uint8

// AllRows is the mask of the three rows.
const AllRows RowMask = 0b111

// Ticket is one play: bought (stake debited), then drawn at the first
// reveal, then revealed row by row (Open until all are).
type Ticket struct {
	ID        uint64 // per player, increasing from 1, never reused
	BoughtAt  time.Time
	Drawn     bool
	Outcome   Outcome // valid when Drawn; never changes once drawn
	KeysAfter int     // keys held after the draw (0..2; 0 when the chest was won)
	Chest     bool    // the draw gave the third key: the chest is due
	Revealed  RowMask // rows shown so far
}

// Open reports whether the ticket still has rows to reveal.
func (t Ticket) Open() bool { return t.Revealed != AllRows }

// KeysBefore returns the keys held when the ticket was drawn (when Drawn).
func (t Ticket) KeysBefore() int {
	switch {
	case t.Chest:
		return MaxKeys - 1
	case t.Outcome.Key:
		return t.KeysAfter - 1
	}
	return t.KeysAfter
}

// Stats are a player's running totals, in cents where named so, which
// Player.Check holds to the balance.
type Stats struct {
	Plays        int64 // tickets bought
	StakedCents  int64 // Plays × Stake
	WonCents     int64 // main game and chest prizes
	GrantedCents int64 // moderators' grants and balance adjustments (may be negative)
	DailyCents   int64 // daily bonuses
	Chests       int64 // chests opened
	BestWinCents int64 // largest single prize
	Wins         int64 // winning plays
	Keys         int64 // keys collected
}

// Player is the whole state of one player. It is a value: transitions
// return a new Player and never modify what the old one's pointers refer
// to, so a Player read from a store may be shared; callers must not modify
// those either.
type Player struct {
	StartingBalance int64  // the balance the player was created (or last reset) with, cents
	Balance         int64  // cents, 0..MaxBalance
	Keys            int    // keys held, 0..MaxKeys-1
	ChestDue        bool   // the third key was found: the chest waits to be opened
	ChestSeq        int64  // chests opened so far (never reset); the next chest is ChestSeq+1
	TicketSeq       uint64 // tickets bought so far (never reset); the next ticket is TicketSeq+1
	Ticket          *Ticket
	LastChest       *Chest // the last chest opened, to show it again; nil if none since creation or reset
	Stats           Stats
	LastDaily       time.Time // the last daily claim; zero if never (or since reset)
	CreatedAt       time.Time
	// The fairness records (docs/FAIRNESS.md): the secret server seed and
	// the next one, committed too (zero in records from before next seeds).
	Seed       Seed
	NextSeed   Seed
	ClientSeed string    // the player's client seed; "" in records from before client seeds
	SeedNo     int64     // the current seed's number: 1 for a new player's (0 in records from before numbering)
	SeedTicket uint64    // TicketSeq when the current seed was committed
	SeedChest  int64     // ChestSeq when the current seed was committed
	SeedAt     time.Time // when the current seed was committed (zero if unknown)
	Care       Care      // responsible play (care.go); a reset keeps it
}

// Kind tells what a history entry records.
type Kind string

// History kinds.
const (
	KindPlay  Kind = "play"        // a ticket drawn
	KindChest Kind = "chest"       // a chest opened
	KindDaily Kind = "daily"       // a daily bonus claimed
	KindGrant Kind = "grant"       // a moderator's grant
	KindSet   Kind = "set-balance" // a moderator set the balance
	KindReset Kind = "reset"       // a moderator reset the player
	KindPause Kind = "pause"       // the player paused their play
	KindLift  Kind = "lift-pause"  // a moderator lifted the player's pause
)

// Kinds returns every history kind, in the order above.
func Kinds() []Kind {
	return []Kind{KindPlay, KindChest, KindDaily, KindGrant, KindSet, KindReset, KindPause, KindLift}
}

// Valid reports whether k is one of the history kinds (Kinds).
func (k Kind) Valid() bool { return slices.Contains(Kinds(), k) }

// Entry is one line of a player's history. Transitions return the entries
// they add in Step.History; stores keep a bounded list of them.
type Entry struct {
	At       time.Time
	Kind     Kind
	TicketID uint64 // for KindPlay
	Tier     Tier   // for KindPlay
	Key      bool   // for KindPlay
	Lot      Lot    // for KindChest
	// Amount is the credits moved, signed: prize − stake for a play, the
	// prize for a chest, the bonus, the grant, new − old balance for
	// set-balance and reset.
	Amount  int64
	Balance int64 // the balance after
	// What verifying the draw needs besides the seeds, when Fair (older
	// lines lack it): a play's keys held before and grid, a chest's number;
	// for a reset, Discarded.
	Fair       bool
	KeysBefore int
	Grid       Grid
	Chest      int64
	// Commitment is the one shown for the seed that drew it (zero in older
	// lines), checked even once the reveal is no longer kept.
	Commitment Commitment
	// Discarded is, on a reset line written with it (Fair), the ticket
	// bought and not drawn that the reset threw away, 0 if none: it
	// explains that number's gap (links.go).
	Discarded uint64
	// After places a line other than a ticket among the tickets
	// (history.go); Placed is false in ticket lines and older lines.
	After  uint64
	Placed bool
}

// Check reports whether p is a sound player: above all, balance = start +
// granted + won + daily − staked, exactly, then every bound and rule of its
// fields. Every transition checks the state it returns; stores check what
// they read. The error is a *FieldError.
func (p Player) Check() error {
	bad := func(field, format string, args ...any) error { return fieldErr(field, "player: "+format, args...) }
	s := p.Stats
	sum := big.NewInt(p.StartingBalance) // in a big.Int, no sum can overflow
	for _, v := range []int64{s.GrantedCents, s.WonCents, s.DailyCents} {
		sum.Add(sum, big.NewInt(v))
	}
	if sum.Sub(sum, big.NewInt(s.StakedCents)).Cmp(big.NewInt(p.Balance)) != 0 {
		return bad("Balance, StartingBalance, Stats.GrantedCents, Stats.WonCents, Stats.DailyCents, Stats.StakedCents",
			"balance %d ≠ start %d + granted %d + won %d + daily %d − staked %d",
			p.Balance, p.StartingBalance, s.GrantedCents, s.WonCents, s.DailyCents, s.StakedCents)
	}
	if p.Balance < 0 || p.Balance > MaxBalance {
		return bad("Balance", "balance %d out of 0..%d", p.Balance, MaxBalance)
	}
	if p.StartingBalance < 0 || p.StartingBalance > MaxBalance {
		return bad("StartingBalance", "starting balance %d out of 0..%d", p.StartingBalance, MaxBalance)
	}
	if p.Keys < 0 || p.Keys >= MaxKeys {
		return bad("Keys", "keys %d out of 0..%d", p.Keys, MaxKeys-1)
	}
	if p.ChestDue && p.Keys != 0 {
		return bad("ChestDue, Keys", "%d keys held while a chest is due", p.Keys)
	}
	for _, c := range []struct {
		field string
		v     int64
	}{
		{"Stats.Plays", s.Plays}, {"Stats.StakedCents", s.StakedCents}, {"Stats.WonCents", s.WonCents}, {"Stats.DailyCents", s.DailyCents},
		{"Stats.Chests", s.Chests}, {"Stats.BestWinCents", s.BestWinCents}, {"Stats.Wins", s.Wins}, {"Stats.Keys", s.Keys}, {"ChestSeq", p.ChestSeq},
	} {
		if c.v < 0 {
			return bad(c.field, "a negative count, %d", c.v)
		}
	}
	if hi, lo := bits.Mul64(uint64(s.Plays), uint64(Stake)); hi != 0 || lo > math.MaxInt64 || int64(lo) != s.StakedCents {
		return bad("Stats.StakedCents, Stats.Plays", "staked %d ≠ %d plays × %d", s.StakedCents, s.Plays, Stake)
	}
	switch {
	case p.TicketSeq > MaxSeq || p.ChestSeq > MaxSeq:
		return bad("TicketSeq, ChestSeq", "ticket %d or chest %d beyond %d", p.TicketSeq, p.ChestSeq, int64(MaxSeq))
	case uint64(s.Plays) > p.TicketSeq:
		return bad("Stats.Plays, TicketSeq", "%d plays of %d tickets", s.Plays, p.TicketSeq)
	case s.Chests > p.ChestSeq:
		return bad("Stats.Chests, ChestSeq", "%d chests opened of %d", s.Chests, p.ChestSeq)
	}
	// Each key comes from a ticket of its own, and each chest, opened or
	// due, takes MaxKeys of them: so a due chest always has a number.
	due := uint64(0)
	if p.ChestDue {
		due = 1
	}
	if keys := MaxKeys*(uint64(p.ChestSeq)+due) + uint64(p.Keys); keys > p.TicketSeq {
		return bad("ChestSeq, ChestDue, Keys, TicketSeq", "%d chests opened, due %v and %d keys held take %d keys, from %d tickets", p.ChestSeq, p.ChestDue, p.Keys, keys, p.TicketSeq)
	}
	if t := p.Ticket; t != nil {
		if err := t.check(p.TicketSeq); err != nil {
			return err
		}
	}
	if c := p.LastChest; c != nil {
		if err := c.check(); err != nil {
			return bad("LastChest", "last chest: %w", err)
		}
	}
	if p.Seed == (Seed{}) {
		return bad("Seed", "no seed")
	}
	if err := p.checkSeeds(); err != nil {
		return err
	}
	return p.Care.check()
}

// check reports whether t is a ticket the rules allow for a player who has
// bought seq tickets.
func (t Ticket) check(seq uint64) error {
	bad := func(field, format string, args ...any) error {
		return fieldErr("Ticket."+field, "player: ticket %d: "+format, append([]any{t.ID}, args...)...)
	}
	switch {
	case t.ID == 0 || t.ID > seq:
		return bad("ID", "of %d bought", seq)
	case t.Revealed&^AllRows != 0:
		return bad("Revealed", "rows %#b", t.Revealed)
	case !t.Drawn && (t.Revealed != 0 || t.Chest || t.KeysAfter != 0 || t.Outcome != Outcome{}):
		return bad("Revealed, Chest, KeysAfter", "shows a result it has not drawn")
	case !t.Drawn:
		return nil
	case t.KeysAfter < 0 || t.KeysAfter >= MaxKeys:
		return bad("KeysAfter", "%d keys after", t.KeysAfter)
	case t.Chest && (!t.Outcome.Key || t.KeysAfter != 0):
		return bad("Chest", "opened a chest without the third key")
	case !t.Chest && t.Outcome.Key && t.KeysAfter == 0:
		return bad("KeysAfter", "a key and no keys after")
	}
	if err := Validate(t.Outcome); err != nil {
		return bad("Outcome", "%w", err)
	}
	return nil
}

func (c Chest) check() error {
	if c.Lot >= NumLots || c.Prize != c.Lot.Prize() {
		return fmt.Errorf("%w: chest %v with prize %d", ErrInvalidOutcome, c.Lot, c.Prize)
	}
	return nil
}
