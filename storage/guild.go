package storage

import (
	"context"
	"fmt"

	"github.com/lesclefsdutresor/clefs/game"
)

// GuildApplied is what ApplyGuild did.
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

// ApplyGuild applies the transition t to the guild in one atomic step of
// st, under the operation ID op, as Apply does for a player: it loads the
// guild, runs t through game.ApplyGuild (the rules, and the operation's
// ID: a repeat changes nothing), and writes the result with
// compare-and-set, running t again on the fresh state if another writer
// came first. A step that changes nothing writes nothing. It decides
// nothing itself. Errors are the transition's (game.ErrInvalid…),
// ErrConflict, or internal.
func ApplyGuild(ctx context.Context, st Store, guild uint64, op string, t func(game.Guild) (game.GuildStep, error)) (GuildApplied, error) {
	var out GuildApplied
	g, err := st.UpdateGuild(ctx, guild, func(g VersionedGuild) (GuildWrite, error) {
		out = GuildApplied{Guild: g}
		s, repeated, err := game.ApplyGuild(g.Guild, op, t)
		if err != nil {
			return GuildWrite{}, err
		}
		out.Repeated, out.Pending = repeated, s.Pending
		if repeated || (s.Audit == nil && s.Guild.Equal(g.Guild)) {
			return GuildWrite{Skip: true}, nil
		}
		out.Audit = s.Audit
		return GuildWrite{Guild: s.Guild, Audit: s.Audit}, nil
	})
	out.Guild = g
	if err != nil {
		out.Audit = nil
		return out, err
	}
	if out.Audit != nil {
		a, err := NormalizeAudit(*out.Audit, guild)
		if err != nil { // the store wrote it: it cannot fail here
			return out, fmt.Errorf("storage: guild %d: %w", guild, err)
		}
		out.Audit = &a
	}
	return out, nil
}

// NormalizeGuild checks w (its guild passes game.Guild.Check, its audit
// entry is of guild) and returns it with every time rounded by Timestamp,
// as every store keeps them; it never modifies what w's slices and
// pointers refer to. Stores call it before writing.
func NormalizeGuild(guild uint64, w GuildWrite) (GuildWrite, error) {
	if guild == 0 {
		return w, fmt.Errorf("%w: guild 0", ErrInvalid)
	}
	if r := w.Guild.Reset; r != nil {
		n := *r
		n.Started, n.Done, n.Until = Timestamp(n.Started), Timestamp(n.Done), Timestamp(n.Until)
		w.Guild.Reset = &n
	}
	if len(w.Guild.Ops) == 0 {
		w.Guild.Ops = nil // as it decodes
	}
	if err := w.Guild.Check(); err != nil {
		return w, fmt.Errorf("%w: guild %d: %w", ErrInvalid, guild, err)
	}
	if w.Audit != nil {
		a, err := NormalizeAudit(*w.Audit, guild)
		if err != nil {
			return w, err
		}
		w.Audit = &a
	}
	return w, nil
}
