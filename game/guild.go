package game

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// MaxGuildOps is the number of operation IDs a guild remembers.
const MaxGuildOps = 64

// Errors of a reset-guild's steps.
var (
	// ErrNoReset: a Lease, Progress or EndReset applied as an operation that
	// is not the guild's reset-guild.
	ErrNoReset = errors.New("game: no such reset-guild in progress")
	// ErrResetRunning: a reset-guild asked for while another one is in
	// progress; nothing changes, and GuildStep.Guild shows the one running.
	ErrResetRunning = errors.New("game: another reset-guild is in progress")
	// ErrLeaseHeld: a step of a reset-guild by a process that does not
	// hold its lease, while another one does.
	ErrLeaseHeld = errors.New("game: the reset-guild's lease is held by another process")
)

// Settings are a guild's options, set by its moderators.
type Settings struct {
	StartingBalance int64 // cents, for players created (or reset) from now on
	DailyAmount     int64 // cents; 0 disables the daily bonus
	DailyCooldown   time.Duration
	PublicPlays     bool   // plays visible to the channel (else ephemeral)
	Channel         uint64 // the only channel where plays are allowed; 0 = anywhere
	House           House  // the responsible-play rules (DefaultHouse unless set)
}

// Check reports whether s is within the bounds, its cooldown a whole
// number of milliseconds (as stores keep it). The error is a *FieldError.
func (s Settings) Check() error {
	switch {
	case s.StartingBalance < 0 || s.StartingBalance > MaxBalance:
		return fieldErr("StartingBalance", "starting balance %d out of range 0..%d", s.StartingBalance, MaxBalance)
	case s.DailyAmount < 0 || s.DailyAmount > MaxDailyAmount:
		return fieldErr("DailyAmount", "daily amount %d out of range 0..%d", s.DailyAmount, MaxDailyAmount)
	case s.DailyCooldown < 0 || s.DailyCooldown > MaxCooldown:
		return fieldErr("DailyCooldown", "daily cooldown %v out of range 0..%v", s.DailyCooldown, MaxCooldown)
	case s.DailyCooldown%time.Millisecond != 0:
		return fieldErr("DailyCooldown", "daily cooldown %v is not a whole number of milliseconds", s.DailyCooldown)
	}
	if err := s.House.Check(); err != nil {
		fe := err.(*FieldError) // House.Check's
		return &FieldError{Field: "House." + fe.Field, Err: fe.Err}
	}
	return nil
}

// Guild is the whole state of a guild, as a store keeps it beside its
// version. It is a value: transitions return a new Guild and never modify
// what the old one's slices and pointers refer to.
type Guild struct {
	Settings Settings
	// Ops are the most recent operations applied (ApplyGuild), oldest
	// first, at most MaxGuildOps. A guild remembers their IDs only: the
	// result of a guild's operation is its state (the settings, Reset).
	Ops   []string
	Reset *GuildReset // the last reset-guild, in progress or finished; nil if none
}

// GuildReset is the progress of a reset-guild (BeginReset), kept in the
// guild so that one interrupted (a crash, a timeout, a guild too big for one
// interaction) goes on where it stopped when its operation is applied again.
type GuildReset struct {
	Op      string // the reset's operation ID; remembered in Guild.Ops once finished
	Actor   uint64 // the moderator who confirmed it
	Reason  string
	Started time.Time
	After   uint64    // every player whose user ID is at most After is done (0: none yet)
	Count   int64     // players reset so far
	Done    time.Time // when it finished; zero while in progress
	// Holder is the process (an ID of its own choice, at most MaxOpID
	// bytes; "" while none does) holding the reset's lease until Until.
	Holder string
	Until  time.Time
}

// Running reports whether the reset is in progress and its lease held by
// a process other than holder at now.
func (r GuildReset) Running(holder string, now time.Time) bool {
	return !r.Finished() && r.Holder != "" && r.Holder != holder && now.Before(r.Until)
}

// Finished reports whether the reset is over.
func (r GuildReset) Finished() bool { return !r.Done.IsZero() }

// GuildStep is what a guild transition decides: the guild's new state and
// the moderator log's entry, if any. A store persists both in one atomic
// write, or nothing.
type GuildStep struct {
	Guild Guild       // the state after the step; on error, the state before
	Audit *AuditEntry // the entry to append to the moderator log; Guild is 0 (the store's guild)
	// Pending says that the operation goes on (a reset-guild in
	// progress): ApplyGuild does not remember its ID yet, so that its next
	// step is applied. Such steps are idempotent by themselves.
	Pending bool
}

// Check reports whether g is a sound guild: settings within bounds, at
// most MaxGuildOps operations each with a valid ID, and a sound reset. The
// error wraps ErrInvalid.
func (g Guild) Check() error {
	if err := g.Settings.Check(); err != nil {
		return fmt.Errorf("guild: %w", err)
	}
	if len(g.Ops) > MaxGuildOps {
		return fmt.Errorf("%w: guild: %d operations remembered, at most %d", ErrInvalid, len(g.Ops), MaxGuildOps)
	}
	for i, op := range g.Ops {
		if err := ValidateOp(op); err != nil {
			return fmt.Errorf("guild: operation %d: %w", i, err)
		}
	}
	if r := g.Reset; r != nil {
		if err := errors.Join(ValidateOp(r.Op), CheckReason(r.Reason)); err != nil {
			return fmt.Errorf("guild: reset: %w", err)
		}
		if r.Count < 0 || r.Started.IsZero() || (r.Finished() && r.Done.Before(r.Started)) {
			return fmt.Errorf("%w: guild: reset of %d players, started %v, done %v", ErrInvalid, r.Count, r.Started, r.Done)
		}
		if len(r.Holder) > MaxOpID || (r.Holder == "") != r.Until.IsZero() {
			return fmt.Errorf("%w: guild: reset's lease held by %q until %v", ErrInvalid, r.Holder, r.Until)
		}
	}
	return nil
}

// Equal reports whether g and h are the same state.
func (g Guild) Equal(h Guild) bool {
	if g.Settings != h.Settings || !slices.Equal(g.Ops, h.Ops) || (g.Reset == nil) != (h.Reset == nil) {
		return false
	}
	return g.Reset == nil || *g.Reset == *h.Reset
}

// Has reports whether the guild remembers the operation op.
func (g Guild) Has(op string) bool { return slices.Contains(g.Ops, op) }

// A GuildMove is one step of a guild, as a value, as Move is for a
// player: a moderator's settings, or a step of a reset-guild. ApplyGuild
// applies it; a store runs it (storage.GuildStep).
type GuildMove interface {
	applyGuild(g Guild, op string, now time.Time) (GuildStep, error)
}

// ApplyGuild applies m to g as the operation op (a Discord interaction
// ID, a confirmation's), at most once: if g remembers op, it returns
// GuildStep{Guild: g} with repeated true, and nothing changes. Otherwise
// it applies m at now and, on success and unless the step is Pending,
// appends op to the new state's Ops, dropping the oldest past MaxGuildOps;
// an error changes nothing. It is pure. Errors: ErrInvalid for an op
// ValidateOp refuses, no move, or a guild not sound after the step; the move's.
func ApplyGuild(g Guild, op string, m GuildMove, now time.Time) (s GuildStep, repeated bool, err error) {
	if err := ValidateOp(op); err != nil {
		return GuildStep{Guild: g}, false, err
	}
	if m == nil {
		return GuildStep{Guild: g}, false, fmt.Errorf("%w: operation %q without a move", ErrInvalid, op)
	}
	if g.Has(op) {
		return GuildStep{Guild: g}, true, nil
	}
	s, err = m.applyGuild(g, op, now)
	if err != nil {
		return GuildStep{Guild: g}, false, err
	}
	if !s.Pending { // into a new slice: the old one may be shared with g and whoever holds it
		ops := append(slices.Clone(s.Guild.Ops), op)
		s.Guild.Ops = ops[max(len(ops)-MaxGuildOps, 0):]
	}
	if err := s.Guild.Check(); err != nil { // every step, once: the moves leave it here
		return GuildStep{Guild: g}, false, fmt.Errorf("guild step refused: %w", err)
	}
	return s, false, nil
}

// ChangeSettings applies Patch to the guild's settings, a moderator's
// move: its audit entry (ActionSettings) records Actor, what changed
// (SettingsChanges) and Actor's Reason, if any, cut to MaxReason. Settings
// equal to the current ones change nothing and log nothing. It is pure.
// Errors: ErrInvalid for settings out of bounds.
type ChangeSettings struct {
	Patch  SettingsPatch
	Actor  uint64
	Reason string
}

func (m ChangeSettings) applyGuild(g Guild, _ string, now time.Time) (GuildStep, error) {
	set := m.Patch.Apply(g.Settings)
	if err := set.Check(); err != nil {
		return GuildStep{Guild: g}, err
	}
	if set == g.Settings {
		return GuildStep{Guild: g}, nil
	}
	line := SettingsChanges(g.Settings, set)
	if m.Reason != "" {
		line += SettingsReasonSep + m.Reason
	}
	n := g
	n.Settings = set
	return GuildStep{Guild: n, Audit: &AuditEntry{At: now, Actor: m.Actor, Action: ActionSettings, Reason: truncate(line, MaxReason-1)}}, nil
}

// BeginReset starts a reset-guild, the operation it is applied as,
// confirmed by Actor with Reason. A process then takes its lease (Lease),
// resets the players after Reset.After in increasing order of user ID,
// records the progress (Progress) and the end (EndReset), all under the
// same operation.
//
// Starting it again, in progress or finished, changes nothing; a reset is
// never replaced by another, it is finished. Every step but the end is
// Pending. Errors: ErrInvalid for a reason out of bounds; ErrResetRunning.
type BeginReset struct {
	Actor  uint64
	Reason string
}

func (m BeginReset) applyGuild(g Guild, op string, now time.Time) (GuildStep, error) {
	if err := CheckReason(m.Reason); err != nil {
		return GuildStep{Guild: g}, err
	}
	if r := g.Reset; r != nil && r.Op == op {
		return GuildStep{Guild: g, Pending: !r.Finished()}, nil
	}
	if r := g.Reset; r != nil && !r.Finished() {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q", ErrResetRunning, r.Op)
	}
	g.Reset = &GuildReset{Op: op, Actor: m.Actor, Reason: m.Reason, Started: now}
	return GuildStep{Guild: g, Pending: true}, nil
}

// Lease gives the lease of the reset-guild of the operation it is applied
// as to Holder until TTL from now: if no one holds it, if Holder does (a
// renewal), or if it expired (its holder is gone: a crash, a restart).
// Errors: ErrNoReset; ErrInvalid for a Holder empty or longer than MaxOpID
// bytes, or a TTL ≤ 0; ErrLeaseHeld, changing nothing, while another holds
// it.
type Lease struct {
	Holder string
	TTL    time.Duration
}

func (m Lease) applyGuild(g Guild, op string, now time.Time) (GuildStep, error) {
	r := g.Reset
	if r == nil || r.Op != op {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q", ErrNoReset, op)
	}
	if m.Holder == "" || len(m.Holder) > MaxOpID || m.TTL <= 0 {
		return GuildStep{Guild: g}, fmt.Errorf("%w: lease for %q, %v", ErrInvalid, m.Holder, m.TTL)
	}
	if r.Finished() { // its operation forgotten (MaxGuildOps): still a repeat
		return GuildStep{Guild: g}, nil
	}
	if r.Running(m.Holder, now) {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q until %v", ErrLeaseHeld, r.Holder, r.Until)
	}
	nr := *r
	nr.Holder, nr.Until = m.Holder, now.Add(m.TTL)
	g.Reset = &nr
	return GuildStep{Guild: g, Pending: true}, nil
}

// Progress records that the reset-guild of the operation it is applied as
// has reset Count more players, the last of them After (a user ID): players
// up to After are done. Only the lease's Holder records it, and it renews
// the lease until TTL from now. A retry (After not past Reset.After) counts
// no one again, so that no player is counted twice. Errors: ErrNoReset,
// ErrLeaseHeld, ErrInvalid for a negative Count, a TTL ≤ 0 or a total that
// would overflow.
type Progress struct {
	Holder string
	After  uint64
	Count  int64
	TTL    time.Duration
}

func (m Progress) applyGuild(g Guild, op string, now time.Time) (GuildStep, error) {
	r := g.Reset
	if r == nil || r.Op != op {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q", ErrNoReset, op)
	}
	if m.Count < 0 || m.TTL <= 0 {
		return GuildStep{Guild: g}, fmt.Errorf("%w: reset of %d players, lease %v", ErrInvalid, m.Count, m.TTL)
	}
	if r.Finished() { // its operation forgotten (MaxGuildOps): still a repeat
		return GuildStep{Guild: g}, nil
	}
	if r.Holder != m.Holder {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q, not %q", ErrLeaseHeld, r.Holder, m.Holder)
	}
	nr := *r
	nr.Until = now.Add(m.TTL)
	if m.After > r.After {
		var err error
		if nr.Count, err = add(r.Count, m.Count); err != nil {
			return GuildStep{Guild: g}, err
		}
		nr.After = m.After
	}
	g.Reset = &nr
	return GuildStep{Guild: g, Pending: true}, nil
}

// EndReset ends the reset-guild of the operation it is applied as, by its
// lease's Holder: its audit entry (ActionResetGuild, Amount the players
// reset) is logged, the lease is released, and ApplyGuild remembers the
// operation. Errors: ErrNoReset, ErrLeaseHeld.
type EndReset struct{ Holder string }

func (m EndReset) applyGuild(g Guild, op string, now time.Time) (GuildStep, error) {
	r := g.Reset
	if r == nil || r.Op != op {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q", ErrNoReset, op)
	}
	if r.Finished() { // its operation forgotten (MaxGuildOps): still a repeat
		return GuildStep{Guild: g}, nil
	}
	if r.Holder != m.Holder {
		return GuildStep{Guild: g}, fmt.Errorf("%w: %q, not %q", ErrLeaseHeld, r.Holder, m.Holder)
	}
	nr := *r
	nr.Holder, nr.Until, nr.Done = "", time.Time{}, now
	if now.Before(r.Started) { // another process's clock, a little behind
		nr.Done = r.Started
	}
	g.Reset = &nr
	return GuildStep{Guild: g, Audit: &AuditEntry{At: now, Actor: r.Actor, Action: ActionResetGuild, Amount: r.Count, Reason: r.Reason}}, nil
}
