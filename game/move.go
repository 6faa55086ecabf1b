package game

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// A Move is one step of a player, as a value: a button, a slash command,
// an Activity request or a moderator's action becomes one of the types
// below, a store runs it (storage.Step) and Apply applies it. The set is
// closed: only this package's types are moves.
type Move interface {
	// apply applies the move to p at now: the transition's rules.
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

// drawer is d, or the verifiable draws when d is nil.
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

// audit returns the log's entry of a moderator's step, nil for a move
// nobody moderated (Actor 0).
func (m Moderator) audit(action string, amount int64, now time.Time) *AuditEntry {
	if m.Actor == 0 {
		return nil
	}
	return &AuditEntry{At: now, Guild: m.Guild, Actor: m.Actor, Target: m.Target, Action: action, Amount: amount, Reason: m.Reason}
}

// Buy buys a ticket under the house rules (Player.Buy), or resumes the
// open one. With Again, it is "Play again" on the card of ticket After: it
// acts only if that card is still the player's latest (the ticket bought
// by a double click of the same card is resumed), and otherwise refuses
// with ErrStaleCard.
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
		case p.ChestDue: // Buy refuses: the chest is shown
		case cur == nil && m.After == 0,
			cur != nil && cur.ID == m.After,                 // closed: buy the next; still open (a chest came first): resume it
			cur != nil && cur.ID == m.After+1 && cur.Open(): // a double click: resume what the first bought
		default:
			return Step{Player: p}, fmt.Errorf("%w: card of ticket %d", ErrStaleCard, m.After)
		}
	}
	return p.Buy(m.House, now)
}

// Reveal shows Rows of ticket Ticket, drawing it at the first reveal
// with Drawer (Player.Reveal).
type Reveal struct {
	Ticket uint64
	Rows   RowMask
	Drawer Drawer // nil means SeededDrawer{}, the verifiable draws; tests force outcomes
}

func (m Reveal) apply(p Player, now time.Time) (Step, error) {
	s, err := p.Reveal(drawer(m.Drawer), m.Ticket, m.Rows, now)
	if err == nil {
		t := p.Ticket // the step's ticket: Reveal refused any other
		s.Finished = t.Open() && t.Revealed|m.Rows == AllRows
	}
	return s, err
}

// OpenChest opens chest number Seq, drawn with Drawer (Player.OpenChest).
type OpenChest struct {
	Seq    int64
	Drawer Drawer // nil means SeededDrawer{}
}

func (m OpenChest) apply(p Player, now time.Time) (Step, error) {
	return p.OpenChest(drawer(m.Drawer), m.Seq, now)
}

// ClaimDaily claims the daily bonus of Amount cents every Cooldown
// (Player.ClaimDaily).
type ClaimDaily struct {
	Amount   int64
	Cooldown time.Duration
}

func (m ClaimDaily) apply(p Player, now time.Time) (Step, error) {
	return p.ClaimDaily(m.Amount, m.Cooldown, now)
}

// Rotate reveals the server seed and commits Fresh as the next
// (Player.Rotate); with Client not nil, it sets the client seed too
// (Player.SetClientSeed).
type Rotate struct {
	Fresh  Seed
	Client *string
}

func (m Rotate) apply(p Player, now time.Time) (Step, error) {
	if m.Client != nil {
		return p.SetClientSeed(*m.Client, m.Fresh, now)
	}
	return p.Rotate(m.Fresh, now)
}

// SetLimits changes the player's limits and reality check (Player.SetLimits).
type SetLimits struct {
	Sets     []LimitSet
	Reminder time.Duration // negative: no change
}

func (m SetLimits) apply(p Player, now time.Time) (Step, error) {
	return p.SetLimits(m.Sets, m.Reminder, now)
}

// Pause pauses the player's play until Until (Player.Pause).
type Pause struct{ Until time.Time }

func (m Pause) apply(p Player, now time.Time) (Step, error) { return p.Pause(m.Until, now) }

// Grant adds Amount cents, or with Set sets the balance to Amount, a
// moderator's step (Player.Grant, Player.SetBalance), logged as
// ActionGrant or ActionSetBalance when By names the moderator.
type Grant struct {
	Amount int64
	Set    bool
	By     Moderator
}

func (m Grant) apply(p Player, now time.Time) (s Step, err error) {
	action := ActionGrant
	if m.Set {
		action = ActionSetBalance
		s, err = p.SetBalance(m.Amount, now)
	} else {
		s, err = p.Grant(m.Amount, now)
	}
	if err == nil {
		s.Audit = m.By.audit(action, m.Amount, now)
	}
	return s, err
}

// Reset starts the player again with Start cents (Player.Reset), logged as
// ActionReset when By names the moderator.
type Reset struct {
	Start int64
	By    Moderator
}

func (m Reset) apply(p Player, now time.Time) (Step, error) {
	s, err := p.Reset(m.Start, now)
	if err == nil {
		s.Audit = m.By.audit(ActionReset, m.Start, now)
	}
	return s, err
}

// LiftPause ends the player's pause (Player.LiftPause), logged as
// ActionLiftPause, the reason followed by the end of the pause lifted.
type LiftPause struct{ By Moderator }

func (m LiftPause) apply(p Player, now time.Time) (Step, error) {
	s, err := p.LiftPause(now)
	if err == nil {
		by := m.By
		by.Reason = truncate(by.Reason+" (paused until "+p.Care.PausedUntil.UTC().Format(time.RFC3339)+")", MaxReason-1)
		s.Audit = by.audit(ActionLiftPause, 0, now)
	}
	return s, err
}

// Repair rebuilds a damaged record (Player.Repair) from what the store
// kept beside it, a store's own move: storage.Step with Repair makes it.
type Repair struct {
	History []Entry
	Reveals Reveals
	Start   int64
	Fresh   Seed
	Client  string
	Then    Move // the move asked for (a Reset): its audit entry is kept
}

func (m Repair) apply(p Player, now time.Time) (Step, error) {
	s, err := p.Repair(m.History, m.Reveals, m.Start, m.Fresh, m.Client, now)
	if err == nil {
		if r, ok := m.Then.(Reset); ok {
			s.Audit = r.By.audit(ActionReset, r.Start, now)
		}
	}
	return s, err
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
