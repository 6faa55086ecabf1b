package commands

import (
	"context"
	"errors"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Every change a handler makes is a game.Move run by the store
// (storage.Store.Run) under the interaction's ID: a repeated interaction (a
// retry, a second delivery) changes nothing and is answered from the result
// the first one recorded. Handlers decide no rule themselves.

// now is the time of a step, as stores keep it.
func (a *App) now() time.Time { return storage.Timestamp(a.cfg.Now()) }

// run runs s with the configured seeds and time. Its errors are the
// store's: the move's (game.Err…), storage.ErrNoPlayer,
// storage.ErrConflict, or internal; callers map them with stepErr.
//
// A moderator's move carries its audit entry: once the store has written
// it, run logs it at info level (logAudit), so that every moderator step
// is logged without its handler doing anything. A repeated operation
// (Applied.Repeated: nothing written) logs nothing.
func (a *App) run(ctx context.Context, s storage.Step) (storage.Applied, error) {
	s.Seeds, s.Now = a.seeds, a.now()
	ap, err := a.store.Run(ctx, s)
	if err == nil && !ap.Repeated && ap.Audit != nil {
		logAudit(ctx, a.logger(ctx), ap.Audit)
	}
	return ap, err
}

// runGuild runs the guild's move m under op, at the store's time: after a
// write that carried an audit entry, it logs the moderator action (a
// repeated operation, which writes nothing, logs nothing).
func (a *App) runGuild(ctx context.Context, guild uint64, op string, m game.GuildMove) (storage.GuildApplied, error) {
	ap, err := a.store.RunGuild(ctx, storage.GuildStep{Guild: guild, Op: op, Move: m, Now: a.now()})
	if err == nil && ap.Audit != nil {
		logAudit(ctx, a.logger(ctx), ap.Audit)
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

// moderator names rq's user as the moderator of a move on target, with
// reason for the guild's log.
func (rq *request) moderator(target uint64, reason string) game.Moderator {
	return game.Moderator{Guild: rq.guild, Actor: rq.user, Target: target, Reason: reason}
}
