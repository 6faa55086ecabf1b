package commands

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/backoff"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Late results (docs/commands.md, "Behaviour common to all"): a step
// still running at its deadline, or ending with an internal error, may
// have been written or not, so it goes on in the background: the same
// chained handler on the same request, under the same operation ID.

const (
	tokenLife  = 15 * time.Minute // how long Discord takes edits with an interaction's token
	lateMargin = 5 * time.Second  // kept before the token ends for the last edit
	// The waits between tries (backoff.Jittered).
	lateFirstWait = time.Second
	lateMaxWait   = 30 * time.Second
	// maxLate bounds the continuations running at once: past it, an
	// internal error gets the plain apology.
	maxLate = 1000
)

type lateSet struct {
	mu     sync.Mutex
	ids    map[string]struct{}
	jitter func(time.Duration) time.Duration // the waits' (backoff.Random)
	wg     sync.WaitGroup                    // the continuations' goroutines (App.Wait)
}

// reserve claims the continuation of interaction id: false if it has one
// already, or too many run.
func (s *lateSet) reserve(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ids[id]; ok || len(s.ids) >= maxLate {
		return false
	}
	s.ids[id] = struct{}{}
	return true
}

func (s *lateSet) release(id string) {
	s.mu.Lock()
	delete(s.ids, id)
	s.mu.Unlock()
}

// tokenExpiry is when the token of interaction id ends: tokenLife after
// its snowflake's time, or after received when that time is not plausible
// (a client's own IDs, a skewed clock).
func tokenExpiry(id string, received time.Time) time.Time {
	start := received
	if t, err := discordgo.SnowflakeTimestamp(id); err == nil && !t.After(received) && t.After(received.Add(-tokenLife)) {
		start = t
	}
	return start.Add(tokenLife)
}

// retryable reports whether err, a step's internal error, may be tried
// again: a store's error (a timeout, a lost connection…), but not a
// closed store, a damaged one, a panic or a handler's bug.
func retryable(err error) bool {
	var se *storeError
	return errors.As(err, &se) && !errors.Is(err, storage.ErrClosed) && !errors.Is(err, storage.ErrDamaged)
}

// transient reports whether a user error on a retry says only "try again"
// (nothing written by this try, but an earlier try's write may still
// land): it is not the step's answer.
func transient(err error) bool {
	var ue *userError
	return errors.As(err, &ue) && (ue.id == "err_conflict" || ue.id == "err_retry")
}

// untold reports whether a user error on a retry judges the time of the
// retry rather than the step (a confirmation that expired since it was
// pressed): it is not the step's answer, and no later try can give it.
func untold(err error) bool {
	var ue *userError
	return errors.As(err, &ue) && ue.id == "err_confirm_expired"
}

func lateApology(kind string) string { return apology(kind) + "_late" }

// lateGaveUp is the message that replaces a late apology when the tries
// end with the step's outcome unknown.
func lateGaveUp(kind string) string {
	return strings.Replace(apology(kind), "err_internal", "late_gave_up", 1)
}

// lateResult handles a result that comes after the apology promised an
// update (ans.mu held): an answer (a reply, a user error) replaces the
// apology; an error worth trying again reports true; anything else ends
// the tries with the give-up message.
func (d *delivery) lateResult(ans *answer, rep reply, err error) (again bool) {
	switch {
	case untold(err) && ans.tries > 1: // given up below
	case err == nil, !transient(err) && errorOutcome(err) == "user_error":
		if err != nil {
			rep = d.renderError(ans.log, ans.rq, err, false)
		}
		d.sendLate(ans, rep)
		ans.log.Info("commands: late result delivered", "interaction", ans.rq.i.ID, "kind", ans.rq.kind,
			"outcome", errorOutcome(err), "tries", ans.tries)
		return false
	case retryable(err), transient(err):
		ans.log.Debug("commands: late step try failed", "interaction", ans.rq.i.ID, "kind", ans.rq.kind,
			"try", ans.tries, "err", err)
		return true
	}
	d.giveUp(ans, err)
	return false
}

// giveUp ends the tries: one warning, and the apology replaced with the
// give-up message while the token lives.
func (d *delivery) giveUp(ans *answer, err error) {
	ans.log.Warn("commands: late step given up; its outcome is unknown", "interaction", ans.rq.i.ID,
		"kind", ans.rq.kind, "guild", ans.rq.guild, "user", ans.rq.user, "tries", ans.tries, "err", err)
	if d.now().Before(ans.expires) {
		d.sendLate(ans, ephemeral("⚠️ "+ans.rq.l.T(lateGaveUp(ans.rq.kind), nil)))
	}
}

// sendLate replaces the apology with rep: the original response, but
// after a button's deferral the apology was a follow-up, and the original
// the card, which an update edits.
func (d *delivery) sendLate(ans *answer, rep reply) {
	rq := ans.rq
	rep = rep.afterFirst(rq.l)
	if rq.i.Type == discordgo.InteractionMessageComponent && ans.afterDeferral {
		ans.followDeferral(rep)
		return
	}
	if err := rq.r.EditOriginal(ans.ctx, rq.i, webhookEdit(rep.data)); err != nil {
		ans.log.Warn("commands: late edit failed", "interaction", rq.i.ID, "kind", rq.kind, "err", err)
	}
}

func (d *delivery) dropLate(ans *answer) {
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.late {
		d.late.release(ans.rq.i.ID)
		ans.late = false
	}
}

// continueLate runs the step of ans again in the background, through h
// (the route's handler in the delivery chain), until it gives an answer or
// the token ends, and then releases its reservation.
func (d *delivery) continueLate(ctx context.Context, ans *answer, h handlerFunc) {
	d.late.wg.Go(func() {
		defer d.dropLate(ans)
		defer d.guard(ans)
		for try := 1; ; try++ {
			wait := backoff.Jittered(try, lateFirstWait, lateMaxWait, d.late.jitter)
			if d.now().Add(wait + d.timeout + lateMargin).After(ans.expires) {
				ans.mu.Lock()
				d.giveUp(ans, ans.lastErr)
				ans.mu.Unlock()
				return
			}
			if err := d.waitFn(ctx, wait); err != nil {
				ans.log.Info("commands: late step abandoned at shutdown; the player's next /play or click, or /admin player, shows its outcome",
					"interaction", ans.rq.i.ID, "kind", ans.rq.kind, "tries", try)
				return
			}
			ans.tries = try + 1
			if _, _ = h(ctx, ans.rq); !ans.goOn { // settle sets goOn and lastErr
				return
			}
		}
	})
}
