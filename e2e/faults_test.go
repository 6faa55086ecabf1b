package e2e_test

import (
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// The fault tests (issue 22): the real bot, on each transport, against a
// fake Discord that fails on demand. Each plays real cycles under its
// fault (/play, Auto and row clicks, the chest when due, /daily, a
// moderator's grant) and then checks that
//   - the fake saw no mistake of the bot (srv.Failures: no retry before
//     retry_after, no second acknowledgement, no late callback of its own);
//   - every player reached every result: on the answer, or after the
//     fault on the old card or by /play (fx.settle and its fallbacks);
//   - the books balance: the export against the test's own books, each
//     ticket once, the keys and chests chained, `clefs audit` clean;
//   - the fault did happen (srv.Faults), so that the test proves something.
// Edits are reached on both transports by a draw slower than the
// handlers' 2 s DeferAfter: the answer is deferred, then edited.

// TestFaultRateLimits: 429s on callbacks (gateway: on the HTTP endpoint
// the first answer is the HTTP reply) and on edits, per route, and a
// global 429 for one second hitting an edit and what follows.
func TestFaultRateLimits(t *testing.T) {
	t.Parallel()
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			kinds := []fakediscord.FaultKind{fakediscord.FaultRateLimit, fakediscord.FaultGlobalRateLimit}
			if name == "gateway" {
				// The next three callbacks: /play's, Auto's, the row's.
				f.inject(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: routeCallback, Count: 3, RetryAfter: 300 * time.Millisecond})
				f.cycle(alice, win(game.TierCandle), false)
				f.cycle(bob, loss(false), true)
			}
			// Edits: two 429s on the edit of a deferred Auto, one on the
			// chest's.
			f.slow.delay.Store(int64(slowDraw))
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: routeEdit, Count: 3, RetryAfter: 400 * time.Millisecond, Scope: "shared"})
			f.cycle(alice, loss(true), false)
			f.cycle(alice, loss(true), false)
			f.cycle(alice, loss(true), false) // the third key: the chest, slow too
			// A global 429 for one second, set when an answer is deferred:
			// its edit and every call in that second wait it out.
			f.deferred = func() { f.srv.SetGlobalRateLimit(time.Second) }
			f.cycle(bob, win(game.TierBarrel), true)
			f.slow.delay.Store(0)
			f.dailyAndGrant(bob)
			f.dailyAndGrant(alice)
			f.books()
			f.noFailures(nil)
			f.faulted(kinds...)
		})
	}
}
