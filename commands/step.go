package commands

import (
	"context"
	"errors"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Every change a handler makes is one storage.Apply of a transition of
// package game, under the interaction's ID: a repeated interaction (a
// retry, a second delivery) changes nothing and is answered from the result
// the first one recorded. Handlers decide no rule themselves.

// change is one step of a player through storage.Apply.
type change struct {
	id storage.PlayerID
	op string // the operation's ID: the interaction's, or derived from it
	// create makes a player who never played, with start cents (the
	// guild's starting balance); otherwise such a player is
	// storage.ErrNoPlayer.
	create bool
	start  int64
	// repair, for a reset to start, rewrites a record that does not
	// decode (storage.Step.Repair) rather than refuse it.
	repair bool
	do     func(p game.Player, now time.Time) (game.Step, error)
	// audit, when not nil, is the moderator log's entry of the step.
	audit func(s game.Step, now time.Time) *game.AuditEntry
}

// now is the time of a step, as stores keep it.
func (a *App) now() time.Time { return storage.Timestamp(a.cfg.Now()) }

// apply runs c through storage.Apply with the configured seeds and time.
// Its errors are storage.Apply's: the transition's (game.Err…),
// storage.ErrNoPlayer, storage.ErrConflict, or internal; callers map them
// with stepErr.
//
// A step with an audit entry is a moderator action: once the store has
// written it, apply logs it at info level (logAudit), so that every
// moderator step is logged without its handler doing anything. A repeated
// operation (Applied.Repeated: nothing written) logs nothing.
func (a *App) apply(ctx context.Context, c change) (storage.Applied, error) {
	now := a.now()
	s := storage.Step{
		ID: c.id, Op: c.op, Create: c.create, Start: c.start, Repair: c.repair, Seeds: a.seeds, Now: now,
		Do: func(p game.Player) (game.Step, error) { return c.do(p, now) },
	}
	var entry *game.AuditEntry // the entry of the write that succeeded: Audit's last call
	if c.audit != nil {
		s.Audit = func(st game.Step) *game.AuditEntry {
			entry = c.audit(st, now)
			return entry
		}
	}
	ap, err := storage.Apply(ctx, a.store, s)
	if err == nil && !ap.Repeated && entry != nil {
		logAudit(ctx, a.logger(ctx), entry)
	}
	return ap, err
}

// settings returns the guild's settings (the store's defaults if its
// moderators set none). The composition root may hand New a store whose
// Guild is cached.
func (a *App) settings(ctx context.Context, guild uint64) (game.Settings, error) {
	g, err := a.store.Guild(ctx, guild)
	if err != nil {
		return game.Settings{}, internal("guild", err)
	}
	return g.Settings, nil
}

// load returns the player's state; ok is false for a player who never
// played (then p is the zero value).
func (a *App) load(ctx context.Context, id storage.PlayerID) (p game.Player, ok bool, err error) {
	v, err := a.store.Load(ctx, id)
	if err != nil {
		return game.Player{}, false, internal("load", err)
	}
	return v.Player, v.Exists(), nil
}

// stepErr maps what every step may fail with: an error already mapped (a
// user error, an internal one) as is, a compare-and-set that kept losing
// to other writers as "try again" (nothing was written), a refusal by the
// rules as an answer (see refusal: it is never retried), anything else as
// an internal error of op.
func stepErr(op string, err error) error {
	var ue *userError
	var se *storeError
	switch {
	case errors.As(err, &ue), errors.As(err, &se):
		return err
	case errors.Is(err, storage.ErrConflict):
		return userErr("err_conflict", nil)
	}
	if r := refusal(err); r != nil {
		return r
	}
	return internal(op, err)
}
