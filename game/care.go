package game

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// Playing responsibly (docs/responsible-play.md): each rule is one more
// check of Buy, in the same atomic step, so that two plays at once never
// cross a limit.

// LimitKind names one of a player's limits.
type LimitKind int

// The player's limits (docs/responsible-play.md); a loss is stakes minus prizes.
const (
	LimitStakeDay LimitKind = iota
	LimitStakeWeek
	LimitLossDay
	LimitLossWeek
	NumLimits = 4
)

var limitNames = [NumLimits]string{"stake-day", "stake-week", "loss-day", "loss-week"}

// String returns the limit's name, as stored: "stake-day", ….
func (k LimitKind) String() string { return name(limitNames[:], k, "LimitKind") }

// Loss reports whether the limit counts losses (else stakes).
func (k LimitKind) Loss() bool { return k == LimitLossDay || k == LimitLossWeek }

// Bounds of the responsible-play rules.
const (
	MaxLimit       int64         = MaxGrant             // the largest limit, cents
	RaiseDelay     time.Duration = 24 * time.Hour       // a raise or removal takes effect this long after it is asked
	MinPause       time.Duration = time.Hour            // the shortest pause
	MaxPause       time.Duration = 190 * 24 * time.Hour // the longest pause (six months and a few days)
	SessionGap     time.Duration = 30 * time.Minute     // a play after this long without one starts a new session
	MinReminder    time.Duration = 5 * time.Minute      // the shortest reality-check interval
	MaxReminder    time.Duration = 24 * time.Hour       // the longest reality-check interval
	MaxMinInterval time.Duration = time.Hour            // the longest minimum interval between two plays
	MaxRealityPlay               = 10_000               // the most plays between two reality checks
	Day            time.Duration = 24 * time.Hour       // a limit's day
	maxSpend       int64         = 1 << 62              // the bound of a window's counters
)

// Errors of the responsible-play rules.
var (
	// ErrLimitReached: Buy whose stake would cross a limit (a *LimitError).
	ErrLimitReached = errors.New("game: a limit is reached")
	// ErrPaused: Buy or ClaimDaily during a pause (a *PausedError).
	ErrPaused = errors.New("game: play is paused")
	// ErrTooSoon: Buy sooner than House.MinInterval allows (a *TooSoonError).
	ErrTooSoon = errors.New("game: too soon after the last play")
	// ErrNotPaused: LiftPause of a player who is not paused.
	ErrNotPaused = errors.New("game: play is not paused")
)

// LimitError is the error of a Buy refused by a limit.
type LimitError struct {
	Kind  LimitKind
	House bool      // the guild's daily stake limit (House.MaxStakeDay), not the player's own
	Limit int64     // cents
	Used  int64     // cents staked or lost in the window so far
	Reset time.Time // when the window ends and the count starts again
}

func (e *LimitError) Error() string {
	who := "your"
	if e.House {
		who = "the server's"
	}
	return fmt.Sprintf("game: %s %s limit of %d cents is reached (%d used; resets at %s)", who, e.Kind, e.Limit, e.Used, e.Reset.Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrLimitReached) hold.
func (e *LimitError) Unwrap() error { return ErrLimitReached }

// PausedError is the error of a step refused during a pause.
type PausedError struct{ Until time.Time }

func (e *PausedError) Error() string {
	return "game: play is paused until " + e.Until.Format(time.RFC3339)
}

// Unwrap makes errors.Is(err, ErrPaused) hold.
func (e *PausedError) Unwrap() error { return ErrPaused }

// TooSoonError is the error of a Buy refused by House.MinInterval.
type TooSoonError struct{ Next time.Time }

func (e *TooSoonError) Error() string {
	return "game: the next play is allowed at " + e.Next.Format(time.RFC3339Nano)
}

// Unwrap makes errors.Is(err, ErrTooSoon) hold.
func (e *TooSoonError) Unwrap() error { return ErrTooSoon }

// House is the responsible-play rules of a guild, which its moderators set;
// the zero value sets none.
type House struct {
	MaxStakeDay  int64         // the most a player may stake per day in the guild, cents; 0 none
	MinInterval  time.Duration // the least time between two tickets of a player; 0 none
	RealityPlays int           // a reality check after this many plays of a session; 0 none
	RealityEvery time.Duration // a reality check after this long in a session; 0 none (a player's own Reminder wins)
}

// Check reports whether h is within the bounds; the error is a *FieldError.
func (h House) Check() error {
	switch {
	case h.MaxStakeDay < 0 || h.MaxStakeDay > MaxLimit:
		return fieldErr("MaxStakeDay", "house stake limit %d out of 0..%d", h.MaxStakeDay, MaxLimit)
	case h.MinInterval < 0 || h.MinInterval > MaxMinInterval:
		return fieldErr("MinInterval", "minimum interval %v out of 0..%v", h.MinInterval, MaxMinInterval)
	case h.RealityPlays < 0 || h.RealityPlays > MaxRealityPlay:
		return fieldErr("RealityPlays", "reality check every %d plays, out of 0..%d", h.RealityPlays, MaxRealityPlay)
	}
	if err := CheckReminder(h.RealityEvery); err != nil {
		return fieldErr("RealityEvery", "house reality check: %w", err)
	}
	return nil
}

// CheckReminder checks a reality-check interval: 0, or within
// MinReminder..MaxReminder. The error wraps ErrInvalid.
func CheckReminder(d time.Duration) error {
	if d != 0 && (d < MinReminder || d > MaxReminder) {
		return fmt.Errorf("%w: reality-check reminder every %v, out of %v..%v (or 0)", ErrInvalid, d, MinReminder, MaxReminder)
	}
	return nil
}

// DefaultHouse is the house rules of a guild whose moderators set none.
var DefaultHouse = House{RealityPlays: 100, RealityEvery: time.Hour}

// Limit is one of a player's limits: Amount cents in force (0 for none)
// and, when At is set, the looser Next that takes effect at At.
type Limit struct {
	Amount int64
	Next   int64
	At     time.Time
}

// Pending reports whether a looser amount waits to take effect.
func (l Limit) Pending() bool { return !l.At.IsZero() }

// at returns the limit as it stands at now: Next in force once At has come.
func (l Limit) at(now time.Time) Limit {
	if l.Pending() && !now.Before(l.At) {
		return Limit{Amount: l.Next}
	}
	return l
}

// looser reports whether amount a allows more than b (0 is no limit).
func looser(a, b int64) bool { return b != 0 && (a == 0 || a > b) }

// Spend is what a player staked and won in the current day and week.
type Spend struct {
	Day        time.Time // the start of the day counted (UTC midnight); zero before any play
	Week       time.Time // the start of the week counted (Monday, UTC midnight)
	StakedDay  int64
	WonDay     int64
	StakedWeek int64
	WonWeek    int64
}

// DayStart returns the start of t's day: its UTC midnight.
func DayStart(t time.Time) time.Time { return t.UTC().Truncate(Day) }

// WeekStart returns the start of t's week: the UTC midnight of its Monday.
func WeekStart(t time.Time) time.Time {
	d := DayStart(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// at returns the spend as it stands at now: the counters of a day or a
// week that has ended start again.
func (s Spend) at(now time.Time) Spend {
	if d := DayStart(now); !s.Day.Equal(d) {
		s.Day, s.StakedDay, s.WonDay = d, 0, 0
	}
	if w := WeekStart(now); !s.Week.Equal(w) {
		s.Week, s.StakedWeek, s.WonWeek = w, 0, 0
	}
	return s
}

// Used returns what limit k counts in s (a loss may be negative). Call it
// on Player.SpendAt(now).
func (s Spend) Used(k LimitKind) int64 {
	switch k {
	case LimitStakeDay:
		return s.StakedDay
	case LimitStakeWeek:
		return s.StakedWeek
	case LimitLossDay:
		return s.StakedDay - s.WonDay
	}
	return s.StakedWeek - s.WonWeek
}

// Reset returns when limit k's window of s ends.
func (s Spend) Reset(k LimitKind) time.Time {
	if k == LimitStakeWeek || k == LimitLossWeek {
		return s.Week.AddDate(0, 0, 7)
	}
	return s.Day.AddDate(0, 0, 1)
}

// Session is the current playing session: plays no more than SessionGap
// apart. Reality checks count its time and net result.
type Session struct {
	Start time.Time // the first play of the session; zero before any play
	Last  time.Time // the last ticket bought
	Plays int64     // tickets bought in the session
	Net   int64     // prizes won minus stakes, cents
	// When the last reality check was shown, and after how many plays
	// (the session's start and 0 before the first).
	CheckedAt    time.Time
	CheckedPlays int64
}

// Reality is a reality check: the session's time, tickets and net result.
type Reality struct {
	Played time.Duration
	Plays  int64
	Net    int64
}

// Care is a player's responsible-play state.
type Care struct {
	Limits      [NumLimits]Limit
	Reminder    time.Duration // the player's own reality-check interval; 0 takes the house's
	PausedUntil time.Time     // no play, no daily bonus before it; zero if never paused
	Spend       Spend
	Session     Session
}

// LimitsAt returns the player's limits in force at now.
func (p Player) LimitsAt(now time.Time) [NumLimits]Limit {
	var ls [NumLimits]Limit
	for k, l := range p.Care.Limits {
		ls[k] = l.at(now)
	}
	return ls
}

// SpendAt returns what the player staked and won in now's day and week.
func (p Player) SpendAt(now time.Time) Spend { return p.Care.Spend.at(now) }

// Paused reports whether the player is paused at now.
func (p Player) Paused(now time.Time) bool { return now.Before(p.Care.PausedUntil) }

// LimitSet is one change asked of a limit: Amount cents, 0 to remove it.
type LimitSet struct {
	Kind   LimitKind
	Amount int64
}

// SetLimits changes the player's limits at now. A stricter (or the same)
// amount takes effect at once and drops one waiting; a looser one (0
// removes) waits RaiseDelay from now, even if one was waiting. Reminder,
// unless negative, sets the reality-check interval (0: the house's).
// Errors: ErrInvalid for an unknown or repeated kind, an amount out of
// 0..MaxLimit or a reminder out of range.
type SetLimits struct {
	Sets     []LimitSet
	Reminder time.Duration // negative: no change
}

func (m SetLimits) apply(p Player, now time.Time) (Step, error) {
	n := p
	n.Care.Limits = p.LimitsAt(now)
	var seen [NumLimits]bool
	for _, s := range m.Sets {
		switch {
		case s.Kind < 0 || s.Kind >= NumLimits:
			return Step{Player: p}, fmt.Errorf("%w: limit %v", ErrInvalid, s.Kind)
		case seen[s.Kind]:
			return Step{Player: p}, fmt.Errorf("%w: limit %v given twice", ErrInvalid, s.Kind)
		case s.Amount < 0 || s.Amount > MaxLimit:
			return Step{Player: p}, fmt.Errorf("%w: limit %v of %d cents, out of 0..%d", ErrInvalid, s.Kind, s.Amount, MaxLimit)
		}
		seen[s.Kind] = true
		l := &n.Care.Limits[s.Kind]
		if looser(s.Amount, l.Amount) {
			l.Next, l.At = s.Amount, now.Add(RaiseDelay)
		} else { // stricter, or the same: at once, and nothing waits
			*l = Limit{Amount: s.Amount}
		}
	}
	if m.Reminder >= 0 {
		if err := CheckReminder(m.Reminder); err != nil {
			return Step{Player: p}, err
		}
		n.Care.Reminder = m.Reminder
	}
	return p.done(Step{Player: n, Result: Result{Balance: n.Balance}})
}

// Pause stops tickets and daily bonuses until Until (what was paid for may
// still be revealed or opened); a pause is never shortened. Errors:
// ErrInvalid for a pause out of MinPause..MaxPause.
type Pause struct{ Until time.Time }

func (m Pause) apply(p Player, now time.Time) (Step, error) {
	until := m.Until
	if d := until.Sub(now); d < MinPause || d > MaxPause {
		return Step{Player: p}, fmt.Errorf("%w: a pause of %v, out of %v..%v", ErrInvalid, d, MinPause, MaxPause)
	}
	n := p
	if until.After(p.Care.PausedUntil) {
		n.Care.PausedUntil = until
	}
	return p.done(Step{
		Player:  n,
		History: []Entry{{At: now, Kind: KindPause, Balance: n.Balance}},
		Result:  Result{Balance: n.Balance},
	})
}

// LiftPause ends the player's pause at now, a moderator's step, logged as
// ActionLiftPause, By's reason followed by the end of the pause lifted.
// Errors: ErrNotPaused.
type LiftPause struct{ By Moderator }

func (m LiftPause) apply(p Player, now time.Time) (Step, error) {
	if !p.Paused(now) {
		return Step{Player: p}, fmt.Errorf("%w (paused until %v)", ErrNotPaused, p.Care.PausedUntil)
	}
	n := p
	n.Care.PausedUntil = now
	by := m.By
	by.Reason = truncate(by.Reason+" (paused until "+p.Care.PausedUntil.UTC().Format(time.RFC3339)+")", MaxReason-1)
	return p.done(Step{
		Player:  n,
		History: []Entry{{At: now, Kind: KindLift, Balance: n.Balance}},
		Result:  Result{Balance: n.Balance},
		Audit:   by.audit(ActionLiftPause, 0, now),
	})
}

// checkBuy refuses a ticket the responsible-play rules do not allow at
// now, and returns the care state after the purchase, with the reality
// check due, if any.
func (p Player) checkBuy(h House, now time.Time) (Care, *Reality, error) {
	c := p.Care // Buy refused a pause already
	if err := h.Check(); err != nil {
		return c, nil, err
	}
	if last := c.Session.Last; h.MinInterval > 0 && !last.IsZero() && now.Before(last.Add(h.MinInterval)) {
		return c, nil, &TooSoonError{Next: last.Add(h.MinInterval)}
	}
	c.Limits = p.LimitsAt(now)
	c.Spend = c.Spend.at(now)
	for k, l := range c.Limits {
		kind := LimitKind(k)
		if l.Amount != 0 && c.Spend.Used(kind)+Stake > l.Amount {
			return p.Care, nil, &LimitError{Kind: kind, Limit: l.Amount, Used: c.Spend.Used(kind), Reset: c.Spend.Reset(kind)}
		}
	}
	if h.MaxStakeDay != 0 && c.Spend.StakedDay+Stake > h.MaxStakeDay {
		return p.Care, nil, &LimitError{Kind: LimitStakeDay, House: true, Limit: h.MaxStakeDay, Used: c.Spend.StakedDay, Reset: c.Spend.Reset(LimitStakeDay)}
	}
	c.Spend.StakedDay = min(c.Spend.StakedDay+Stake, maxSpend)
	c.Spend.StakedWeek = min(c.Spend.StakedWeek+Stake, maxSpend)

	s := c.Session
	if s.Last.IsZero() || now.Sub(s.Last) >= SessionGap || now.Before(s.Start) {
		s = Session{Start: now, CheckedAt: now}
	}
	s.Last = now
	s.Plays = min(s.Plays+1, maxSpend)
	s.Net = max(s.Net-Stake, -maxSpend)
	every := cmp.Or(c.Reminder, h.RealityEvery) // the player's own wins
	var r *Reality
	// The check is shown on the card of the ticket that passes a mark,
	// counting the plays before it.
	if (h.RealityPlays > 0 && s.Plays-1-s.CheckedPlays >= int64(h.RealityPlays)) || (every > 0 && now.Sub(s.CheckedAt) >= every) {
		r = &Reality{Played: now.Sub(s.Start), Plays: s.Plays - 1, Net: s.Net + Stake}
		s.CheckedAt, s.CheckedPlays = now, s.Plays-1
	}
	c.Session = s
	return c, r, nil
}

// won counts a prize in the care state: the windows' losses and the
// session's net result.
func (c Care) won(prize int64, now time.Time) Care {
	if prize <= 0 {
		return c
	}
	c.Spend = c.Spend.at(now)
	c.Spend.WonDay = min(c.Spend.WonDay+prize, maxSpend)
	c.Spend.WonWeek = min(c.Spend.WonWeek+prize, maxSpend)
	if !c.Session.Last.IsZero() && now.Sub(c.Session.Last) < SessionGap {
		c.Session.Net = min(c.Session.Net+prize, maxSpend)
	}
	return c
}

// check reports whether c is sound; the error is a *FieldError.
func (c Care) check() error {
	bad := func(field, format string, args ...any) error { return fieldErr(field, "player: "+format, args...) }
	for k, l := range c.Limits {
		f := "Care.Limits." + LimitKind(k).String()
		if l.Amount < 0 || l.Amount > MaxLimit || l.Next < 0 || l.Next > MaxLimit {
			return bad(f, "limit %v: %d, next %d, out of 0..%d", LimitKind(k), l.Amount, l.Next, MaxLimit)
		}
		if l.Pending() && !looser(l.Next, l.Amount) {
			return bad(f, "limit %v: %d waiting, not looser than %d", LimitKind(k), l.Next, l.Amount)
		}
		if !l.Pending() && l.Next != 0 {
			return bad(f, "limit %v: next %d without a time", LimitKind(k), l.Next)
		}
	}
	if err := CheckReminder(c.Reminder); err != nil {
		return bad("Care.Reminder", "%w", err)
	}
	s := c.Spend
	if !s.Day.Equal(DayStart(s.Day)) || (s.Day.IsZero() && !s.Week.IsZero()) || (!s.Day.IsZero() && !s.Week.Equal(WeekStart(s.Day))) {
		return bad("Care.Spend.Day, Care.Spend.Week", "spend day %s and week %s: not a UTC midnight and its Monday's",
			s.Day.Format(time.RFC3339Nano), s.Week.Format(time.RFC3339Nano))
	}
	for _, v := range []struct {
		field string
		v     int64
	}{{"StakedDay", s.StakedDay}, {"WonDay", s.WonDay}, {"StakedWeek", s.StakedWeek}, {"WonWeek", s.WonWeek}} {
		if v.v < 0 || v.v > maxSpend {
			return bad("Care.Spend."+v.field, "spend of %d cents, out of 0..%d", v.v, maxSpend)
		}
	}
	if c.Session.Plays < 0 || c.Session.CheckedPlays < 0 || c.Session.CheckedPlays > c.Session.Plays {
		return bad("Care.Session.Plays, Care.Session.CheckedPlays", "session of %d plays, checked at %d", c.Session.Plays, c.Session.CheckedPlays)
	}
	return nil
}
