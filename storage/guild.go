package storage

import (
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// GuildStep is one change of a guild, as a value: a game.GuildMove under
// an operation ID. A store runs it (Store.RunGuild), as Run does a Step.
type GuildStep struct {
	Guild uint64
	// Op is the operation's ID: a repeat changes nothing (game.ApplyGuild).
	Op   string
	Move game.GuildMove
	Now  time.Time // the time of the step (already rounded by Timestamp)
}

// GuildApplied is what a GuildStep did.
type GuildApplied struct {
	// Guild is the guild after the step with its version; after an
	// error, or for a repeated operation, the guild as it is.
	Guild VersionedGuild
	// Audit is the moderator log's entry written, nil if none (always nil
	// for a repeated operation).
	Audit    *game.AuditEntry
	Repeated bool // the operation had already been applied: nothing changed
	Pending  bool // the step left the operation going on (a reset-guild in progress)
}

// Check checks s on its way in: a guild, an operation's ID, a move. Errors
// wrap ErrInvalid.
func (s GuildStep) Check() error {
	if s.Guild == 0 {
		return fmt.Errorf("%w: guild 0", ErrInvalid)
	}
	if err := game.ValidateOp(s.Op); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if s.Move == nil {
		return fmt.Errorf("%w: guild step %q without a move", ErrInvalid, s.Op)
	}
	return nil
}

// Next applies s to the guild as stored, v (game.ApplyGuild, which checks
// the guild), and returns what to write, every time rounded by Timestamp
// and the audit entry checked to be of the guild, and what the step did; a
// Write with Skip when it writes nothing (a repeat, a step that changes
// nothing). Stores call it again on a fresher state after a conflict: it
// never modifies what v's slices and pointers refer to. Errors: the
// move's, or ErrInvalid.
func (s GuildStep) Next(v VersionedGuild) (GuildWrite, GuildApplied, error) {
	out := GuildApplied{Guild: v}
	st, repeated, err := game.ApplyGuild(v.Guild, s.Op, s.Move, s.Now)
	if err != nil {
		return GuildWrite{}, out, err
	}
	out.Repeated, out.Pending = repeated, st.Pending
	if repeated || (st.Audit == nil && st.Guild.Equal(v.Guild)) {
		return GuildWrite{Skip: true}, out, nil
	}
	w := GuildWrite{Guild: st.Guild}
	if r := w.Guild.Reset; r != nil {
		n := *r
		n.Started, n.Done, n.Until = Timestamp(n.Started), Timestamp(n.Done), Timestamp(n.Until)
		w.Guild.Reset = &n
	}
	if len(w.Guild.Ops) == 0 {
		w.Guild.Ops = nil // as it decodes
	}
	if st.Audit != nil {
		a, err := NormalizeAudit(*st.Audit, s.Guild)
		if err != nil {
			return GuildWrite{}, GuildApplied{Guild: v}, err
		}
		w.Audit, out.Audit = &a, &a
	}
	return w, out, nil
}
