package game

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Step is what a transition decides: the player's new state, the history
// entries to append and the result to show. A store persists Player and
// History in one atomic write, or nothing.
type Step struct {
	Player  Player  // the state after the step; on error, the state before
	History []Entry // the entries the step adds, oldest first
	Result  Result  // what the caller shows
	// Reveals are the seeds the step revealed, oldest first (Rotate,
	// Restore, Repair); a store keeps the last MaxReveals beside the player.
	Reveals  []SeedReveal
	Audit    *AuditEntry // a moderator's step's entry in the moderator log (Moderator)
	Finished bool        // a Reveal showed the ticket's last hidden rows
}

// Result is what a caller shows after a step. Apply records it with the
// operation's ID, so that a repeated operation is answered again with it.
type Result struct {
	Balance int64    // the balance after the step
	Ticket  uint64   // the ticket bought, resumed or revealed (Buy, Reveal)
	Resumed bool     // Buy handed back the open ticket: nothing was charged
	Drawn   bool     // this step drew the ticket (true for exactly one Reveal per ticket)
	Opened  bool     // this step opened the chest (true for exactly one OpenChest per chest)
	Chest   Chest    // the chest opened, or shown again (OpenChest)
	Seed    int64    // the number of the server seed revealed (Rotate, Restore)
	Reality *Reality `json:",omitempty"` // the reality check the ticket's card shows (Buy), if one was due
	// Amount is the credits the step moved, signed: −Stake for a ticket
	// bought, as in its history entry for the others, 0 when none moved.
	Amount int64
}

// A Move is one step of a player, as a value: a button, a slash command,
// an Activity request or a moderator's action becomes one of the types
// below, a store runs it (storage.Step) and Apply applies it. The set is
// closed: only this package's types are moves.
type Move interface {
	apply(p Player, now time.Time) (Step, error)
}

// Apply applies m to p at now: the one function every change of a player
// goes through. It is pure but for the draws of a Reveal or an OpenChest.
// On error the step is Step{Player: p} and nothing is to be written; an
// error is not remembered, so a retry may succeed. The caller (a store,
// through storage.Step) has checked the operation's ID.
func Apply(p Player, m Move, now time.Time) (Step, error) {
	if m == nil {
		return Step{Player: p}, fmt.Errorf("%w: no move", ErrInvalid)
	}
	return m.apply(p, now)
}

func drawer(d Drawer) Drawer {
	if d == nil {
		return SeededDrawer{}
	}
	return d
}

// Moderator names the moderator of a move made on a player by someone
// else, with the reason for the guild's log: the step then carries its
// audit entry (Step.Audit), written with it.
type Moderator struct {
	Guild  uint64
	Actor  uint64 // the moderator
	Target uint64 // the player
	Reason string
}

// audit returns the log's entry of a moderator's step, nil if Actor is 0.
func (m Moderator) audit(action string, amount int64, now time.Time) *AuditEntry {
	if m.Actor == 0 {
		return nil
	}
	return &AuditEntry{At: now, Guild: m.Guild, Actor: m.Actor, Target: m.Target, Action: action, Amount: amount, Reason: m.Reason}
}

// Buy buys ticket TicketSeq+1, not drawn yet, for Stake at now under the
// house rules House, with the reality check due, if any, in Result.Reality.
// An open ticket is handed back instead, with Result.Resumed, and nothing
// is charged. With Again, it is "Play again" on the card of ticket After:
// it acts only if that card is still the player's latest (a double click
// resumes the ticket the first bought). Errors, each variable's doc saying
// when: ErrStaleCard, a *PausedError, ErrChestDue, a *TooSoonError, a
// *LimitError, ErrInsufficientFunds; ErrInvalid for a House out of bounds
// or a balance too close to MaxBalance (BalanceFull).
type Buy struct {
	House House
	Again bool
	After uint64 // with Again: the ticket of the card clicked (0: none yet)
}

// ErrStaleCard refuses a Buy with Again clicked on a card that is no
// longer the player's latest.
var ErrStaleCard = errors.New("game: play again from an old card")

func (m Buy) apply(p Player, now time.Time) (Step, error) {
	if m.Again {
		cur := p.Ticket
		switch {
		case p.ChestDue: // refused below: the chest is shown
		case cur == nil && m.After == 0,
			cur != nil && cur.ID == m.After,                 // closed: buy the next; still open (a chest came first): resume it
			cur != nil && cur.ID == m.After+1 && cur.Open(): // a double click: resume what the first bought
		default:
			return Step{Player: p}, fmt.Errorf("%w: card of ticket %d", ErrStaleCard, m.After)
		}
	}
	if p.Paused(now) {
		return Step{Player: p}, &PausedError{Until: p.Care.PausedUntil}
	}
	if t := p.Ticket; t != nil && t.Open() {
		return Step{Player: p, Result: Result{Balance: p.Balance, Ticket: t.ID, Resumed: true}}, nil
	}
	if p.ChestDue {
		return Step{Player: p}, fmt.Errorf("%w: chest %d", ErrChestDue, p.ChestSeq+1)
	}
	care, reality, err := p.checkBuy(m.House, now)
	if err != nil {
		return Step{Player: p}, err
	}
	if p.Balance < Stake {
		return Step{Player: p}, fmt.Errorf("%w: balance %d, stake %d", ErrInsufficientFunds, p.Balance, Stake)
	}
	if BalanceFull(p.Balance) {
		return Step{Player: p}, fmt.Errorf("%w: balance %d too close to %d to credit a prize", ErrInvalid, p.Balance, MaxBalance)
	}
	if _, ok := p.NextTicket(); !ok {
		return Step{Player: p}, fmt.Errorf("%w: no ticket number left", ErrInvalid)
	}
	n := p
	if n.Stats.Plays, err = add(p.Stats.Plays, 1); err != nil {
		return Step{Player: p}, err
	}
	if n.Stats.StakedCents, err = add(p.Stats.StakedCents, Stake); err != nil {
		return Step{Player: p}, err
	}
	n.Balance -= Stake
	n.TicketSeq++
	n.Ticket = &Ticket{ID: n.TicketSeq, BoughtAt: now}
	n.Care = care
	return p.done(Step{Player: n, Result: Result{Balance: n.Balance, Ticket: n.TicketSeq, Amount: -Stake, Reality: reality}})
}

// Reveal shows Rows (0 to draw without showing any) of the current ticket,
// number Ticket. Its first reveal draws the outcome with Drawer and settles
// it at once (prize, key, chest: docs/game.md); Result.Drawn is true for
// that step only. Later reveals never draw again; rows already shown are no
// error. Errors: ErrUnknownTicket; ErrInvalid for Rows outside AllRows, an
// outcome the rules do not allow (wrapping ErrInvalidOutcome too: a faulty
// drawer cannot corrupt a player) or a prize that cannot be credited; the
// Drawer's error, wrapped.
type Reveal struct {
	Ticket uint64
	Rows   RowMask
	Drawer Drawer // nil means SeededDrawer{}, the verifiable draws; tests force outcomes
}

func (m Reveal) apply(p Player, now time.Time) (Step, error) {
	if m.Rows&^AllRows != 0 {
		return Step{Player: p}, fmt.Errorf("%w: rows %#b", ErrInvalid, m.Rows)
	}
	if p.Ticket == nil || p.Ticket.ID != m.Ticket {
		return Step{Player: p}, fmt.Errorf("%w: ticket %d", ErrUnknownTicket, m.Ticket)
	}
	n, t := p, *p.Ticket
	s := Step{Result: Result{Ticket: t.ID}}
	if !t.Drawn {
		o, err := drawer(m.Drawer).Ticket(p.Seed, p.ClientSeed, t.ID, p.Keys)
		if err != nil {
			return Step{Player: p}, fmt.Errorf("draw ticket %d: %w", t.ID, err)
		}
		if err := Validate(o); err != nil {
			return Step{Player: p}, fmt.Errorf("%w: draw ticket %d: %w", ErrInvalid, t.ID, err)
		}
		t.Drawn, t.Outcome = true, o
		if o.Tier.Winning() {
			if n.Balance, err = credit(p.Balance, o.Prize); err != nil {
				return Step{Player: p}, fmt.Errorf("ticket %d: %w", t.ID, err)
			}
			if n.Stats.WonCents, err = add(p.Stats.WonCents, o.Prize); err != nil {
				return Step{Player: p}, err
			}
			if n.Stats.Wins, err = add(p.Stats.Wins, 1); err != nil {
				return Step{Player: p}, err
			}
			n.Stats.BestWinCents = max(p.Stats.BestWinCents, o.Prize)
			n.Care = p.Care.won(o.Prize, now)
		}
		if o.Key {
			if n.Stats.Keys, err = add(p.Stats.Keys, 1); err != nil {
				return Step{Player: p}, err
			}
			n.Keys++
			if n.Keys >= MaxKeys {
				n.Keys, n.ChestDue, t.Chest = 0, true, true
			}
		}
		t.KeysAfter = n.Keys
		s.Result.Drawn = true
		s.Result.Amount = o.Prize - Stake
		s.History = []Entry{{
			At: now, Kind: KindPlay, TicketID: t.ID, Tier: o.Tier, Key: o.Key, Amount: s.Result.Amount, Balance: n.Balance,
			Fair: true, KeysBefore: p.Keys, Grid: o.Grid, Commitment: p.Seed.Commitment(),
		}}
	}
	t.Revealed |= m.Rows
	if t != *p.Ticket {
		n.Ticket = &t
	}
	s.Player, s.Result.Balance = n, n.Balance
	s.Finished = p.Ticket.Open() && !t.Open()
	return p.done(s)
}

// OpenChest opens the due chest, number Seq (ChestSeq+1 as the caller read
// it), drawn with Drawer; Result.Opened is true for that step only. A
// repeat with the number of the chest just opened (Seq == ChestSeq) changes
// nothing and shows that chest again, so a double click pays once. Errors:
// ErrNoChest for any other Seq, or when no chest is due; ErrInvalid for a
// chest the rules do not allow (wrapping ErrInvalidOutcome too), a prize
// that cannot be credited or no chest number left (NextChest); the
// Drawer's error, wrapped.
type OpenChest struct {
	Seq    int64
	Drawer Drawer // nil means SeededDrawer{}
}

func (m OpenChest) apply(p Player, now time.Time) (Step, error) {
	seq := m.Seq
	if !p.ChestDue || seq != p.ChestSeq+1 {
		if seq == p.ChestSeq && p.LastChest != nil {
			return Step{Player: p, Result: Result{Balance: p.Balance, Chest: *p.LastChest}}, nil
		}
		return Step{Player: p}, fmt.Errorf("%w: chest %d (%d opened, due: %v)", ErrNoChest, seq, p.ChestSeq, p.ChestDue)
	}
	if _, ok := p.NextChest(); !ok || seq < 1 { // no chest number left
		return Step{Player: p}, fmt.Errorf("%w: chest %d", ErrInvalid, seq)
	}
	c, err := drawer(m.Drawer).Chest(p.Seed, p.ClientSeed, seq)
	if err != nil {
		return Step{Player: p}, fmt.Errorf("draw chest %d: %w", seq, err)
	}
	if err := c.check(); err != nil {
		return Step{Player: p}, fmt.Errorf("%w: draw chest %d: %w", ErrInvalid, seq, err)
	}
	n := p
	if n.Balance, err = credit(p.Balance, c.Prize); err != nil {
		return Step{Player: p}, fmt.Errorf("chest %d: %w", seq, err)
	}
	if n.Stats.WonCents, err = add(p.Stats.WonCents, c.Prize); err != nil {
		return Step{Player: p}, err
	}
	if n.Stats.Chests, err = add(p.Stats.Chests, 1); err != nil {
		return Step{Player: p}, err
	}
	n.Stats.BestWinCents = max(p.Stats.BestWinCents, c.Prize)
	n.ChestDue, n.ChestSeq, n.LastChest = false, seq, &c
	n.Care = p.Care.won(c.Prize, now)
	return p.done(Step{
		Player:  n,
		History: []Entry{{At: now, Kind: KindChest, Lot: c.Lot, Amount: c.Prize, Balance: n.Balance, Fair: true, Chest: seq, Commitment: p.Seed.Commitment()}},
		Result:  Result{Balance: n.Balance, Opened: true, Chest: c, Amount: c.Prize},
	})
}

// Grant adds Amount cents (negative to take some back) to the balance, or
// with Set sets the balance to Amount (the same balance is allowed, and
// recorded); the difference counts as granted. A moderator's step, logged
// as ActionGrant or ActionSetBalance when By names the moderator. Errors:
// ErrInvalid for a grant of 0 or beyond ±MaxGrant, a balance set out of
// 0..MaxBalance, or a balance that would leave 0..MaxBalance.
type Grant struct {
	Amount int64
	Set    bool
	By     Moderator
}

func (m Grant) apply(p Player, now time.Time) (Step, error) {
	action, kind, amount := ActionGrant, KindGrant, m.Amount
	switch {
	case m.Set && (m.Amount < 0 || m.Amount > MaxBalance):
		return Step{Player: p}, fmt.Errorf("%w: balance %d out of 0..%d", ErrInvalid, m.Amount, MaxBalance)
	case m.Set:
		action, kind, amount = ActionSetBalance, KindSet, m.Amount-p.Balance // both in 0..MaxBalance once p is sound
	case m.Amount == 0 || m.Amount > MaxGrant || m.Amount < -MaxGrant:
		return Step{Player: p}, fmt.Errorf("%w: grant %d must be non-zero and within ±%d", ErrInvalid, m.Amount, MaxGrant)
	}
	s, err := p.credited(p, kind, amount, now)
	if err == nil {
		s.Audit = m.By.audit(action, m.Amount, now)
	}
	return s, err
}

// Reset puts the player back to a new player's state with Start cents:
// keys, ticket (its number recorded in the reset's line), due chest, last
// chest, statistics and daily claim are lost. The ticket and chest numbers,
// the creation time and the seeds are kept, so that no draw is ever made
// twice (the store keeps the reveals and the operations remembered beside
// the player). A moderator's step, logged as ActionReset when By names the
// moderator; it also repairs a player that is not sound. Errors:
// ErrInvalid for a Start out of 0..MaxBalance, or a player without a seed.
type Reset struct {
	Start int64
	By    Moderator
}

func (m Reset) apply(p Player, now time.Time) (Step, error) {
	start := m.Start
	if start < 0 || start > MaxBalance {
		return Step{Player: p}, fmt.Errorf("%w: starting balance %d out of 0..%d", ErrInvalid, start, MaxBalance)
	}
	n := Player{
		StartingBalance: start, Balance: start,
		ChestSeq: p.ChestSeq, TicketSeq: p.TicketSeq, CreatedAt: p.CreatedAt,
		Seed: p.Seed, NextSeed: p.NextSeed, ClientSeed: p.ClientSeed, SeedNo: p.SeedNo, SeedTicket: p.SeedTicket,
		SeedChest: p.SeedChest, SeedAt: p.SeedAt,
		Care: p.Care, // a reset lifts no pause and no limit
	}
	if n.Care.check() != nil { // corrupt: the pause stands, the rest starts again
		n.Care = Care{PausedUntil: p.Care.PausedUntil}
	}
	n.ChestSeq = max(n.ChestSeq, 0)
	n.TicketSeq = backed(n.TicketSeq, n.ChestSeq)
	if n.checkSeeds() != nil { // corrupt fairness records: start them again
		n.SeedNo, n.SeedTicket, n.SeedChest = max(n.SeedNo, 0), min(n.TicketSeq, MaxSeq), min(n.ChestSeq, MaxSeq)
		n.NextSeed = Seed{} // committed again by WithNextSeed
		if ValidateClientSeed(n.ClientSeed) != nil {
			n.ClientSeed = ""
		}
	}
	// The balance replaced, brought into range first should p be corrupt,
	// so that start − old cannot overflow; a ticket bought and not drawn is
	// thrown away, its number recorded, and old is the balance before it,
	// the last the history shows.
	old, discarded := min(max(p.Balance, 0), MaxBalance), uint64(0)
	if t := p.Ticket; t != nil && !t.Drawn && t.ID == p.TicketSeq {
		old, discarded = min(old+Stake, MaxBalance), t.ID
	}
	amount := start - old
	return p.done(Step{
		Player:  n,
		History: []Entry{{At: now, Kind: KindReset, Amount: amount, Balance: start, Fair: true, Discarded: discarded}},
		Result:  Result{Balance: start, Amount: amount},
		Audit:   m.By.audit(ActionReset, start, now),
	})
}

// truncate cuts s to n runes and an ellipsis when it is longer, its
// invalid bytes replaced.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// NewPlayer returns a new player, created at now, with start cents
// (0..MaxBalance), the server seed seed (from NewSeed) and the client seed
// client (from NewClientSeed). Errors: ErrInvalid for a start out of range
// or a zero seed, ErrClientSeed for an invalid client seed.
func NewPlayer(start int64, seed Seed, client string, now time.Time) (Player, error) {
	if start < 0 || start > MaxBalance {
		return Player{}, fmt.Errorf("%w: starting balance %d out of 0..%d", ErrInvalid, start, MaxBalance)
	}
	if seed == (Seed{}) {
		return Player{}, fmt.Errorf("%w: new player without a seed", ErrInvalid)
	}
	if err := ValidateClientSeed(client); err != nil {
		return Player{}, err
	}
	return Player{StartingBalance: start, Balance: start, Seed: seed, ClientSeed: client, SeedNo: 1, SeedAt: now, CreatedAt: now}, nil
}

// done returns s if its player is sound, and otherwise refuses the step:
// whatever went wrong (a corrupt player read back, a rule broken here), no
// transition hands a store a state that breaks the invariant.
func (p Player) done(s Step) (Step, error) {
	p.placeLines(s.History)
	if err := s.Player.Check(); err != nil {
		return Step{Player: p}, fmt.Errorf("step refused: %w", err)
	}
	return s, nil
}

// DailyReady reports whether cooldown has passed at now since the last
// daily claim (a first claim is always ready), though ClaimDaily may still
// refuse it (a pause, a bonus turned off, a balance that cannot take it).
func (p Player) DailyReady(cooldown time.Duration, now time.Time) bool {
	return p.LastDaily.IsZero() || !now.Before(p.LastDaily.Add(cooldown))
}

// ClaimDaily credits the daily bonus, Amount cents, when DailyReady, and
// records now as the last claim. Errors: ErrDailyDisabled when Amount is 0; a
// *CooldownError (errors.Is ErrDailyCooldown) before the cooldown has
// passed; ErrInvalid for an Amount out of 0..MaxDailyAmount, a Cooldown out
// of 0..MaxCooldown or a balance that would pass MaxBalance.
type ClaimDaily struct {
	Amount   int64
	Cooldown time.Duration
}

func (m ClaimDaily) apply(p Player, now time.Time) (Step, error) {
	amount, cooldown := m.Amount, m.Cooldown
	switch {
	case amount == 0:
		return Step{Player: p}, ErrDailyDisabled
	case amount < 0 || amount > MaxDailyAmount:
		return Step{Player: p}, fmt.Errorf("%w: daily amount %d out of 0..%d", ErrInvalid, amount, MaxDailyAmount)
	case cooldown < 0 || cooldown > MaxCooldown:
		return Step{Player: p}, fmt.Errorf("%w: daily cooldown %v out of 0..%v", ErrInvalid, cooldown, MaxCooldown)
	}
	if p.Paused(now) {
		return Step{Player: p}, &PausedError{Until: p.Care.PausedUntil}
	}
	if !p.DailyReady(cooldown, now) {
		return Step{Player: p}, &CooldownError{Next: p.LastDaily.Add(cooldown)}
	}
	n := p
	n.LastDaily = now
	return p.credited(n, KindDaily, amount, now)
}

// credited is the step of a credit outside play: amount cents (negative
// to debit) credited to n, p as it changes, and counted as daily bonuses
// (KindDaily) or granted (KindGrant, KindSet), with a line of kind k.
func (p Player) credited(n Player, k Kind, amount int64, now time.Time) (Step, error) {
	total := &n.Stats.GrantedCents
	if k == KindDaily {
		total = &n.Stats.DailyCents
	}
	var err error
	if n.Balance, err = credit(n.Balance, amount); err != nil {
		return Step{Player: p}, fmt.Errorf("%s: %w", k, err)
	}
	if *total, err = add(*total, amount); err != nil {
		return Step{Player: p}, err
	}
	return p.done(Step{
		Player:  n,
		History: []Entry{{At: now, Kind: k, Amount: amount, Balance: n.Balance}},
		Result:  Result{Balance: n.Balance, Amount: amount},
	})
}

// backed returns tickets, raised if need be to back chests (MaxKeys keys,
// from as many tickets, each): a corrupt player's reset skips ticket
// numbers rather than reuse a chest's.
func backed(tickets uint64, chests int64) uint64 {
	if c := uint64(max(chests, 0)); c <= MaxSeq/MaxKeys {
		return max(tickets, MaxKeys*c)
	}
	return tickets
}

// ValidateOp reports whether op may name an operation, a player's or a
// guild's: 1 to MaxOpID bytes. The error wraps ErrInvalid.
func ValidateOp(op string) error {
	if op == "" || len(op) > MaxOpID {
		return fmt.Errorf("%w: operation ID of %d bytes, want 1..%d", ErrInvalid, len(op), MaxOpID)
	}
	return nil
}
