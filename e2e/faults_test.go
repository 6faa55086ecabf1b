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
			f.allHit()
			f.faulted(kinds...)
		})
	}
}

// TestFaultMalformed429s: each malformed 429 of issue 22's "Bad input"
// (no retry_after, negative, huge, not JSON, a Reset-After that is not a
// number), on a callback (gateway) and on an edit (both transports): the
// bot keeps answering, its waits bounded, every result reached, the books
// sound. The outcomes are asserted, never the time taken.
//
// A huge retry_after is clamped to a minute: a callback gives up at once
// (its 3-second window would be over), and the player's /play hands back
// the ticket; an edit waits the minute (the token lives 15), during which
// the other players are answered; the result is on the old card once the
// bot has restarted (the shutdown ends the wait).
func TestFaultMalformed429s(t *testing.T) {
	t.Parallel()
	kinds := []fakediscord.FaultKind{fakediscord.FaultRateLimitNoRetryAfter, fakediscord.FaultRateLimitNegative,
		fakediscord.FaultRateLimitHuge, fakediscord.FaultRateLimitNotJSON, fakediscord.FaultRateLimitBadResetAfter}
	for _, kind := range kinds {
		for name, env := range transportEnvs(t) {
			t.Run(string(kind)+"/"+name, func(t *testing.T) {
				t.Parallel()
				env["SHUTDOWN_TIMEOUT"] = "1s"
				f := newFx(t, env, fakediscord.Options{})
				if name == "gateway" {
					f.inject(fakediscord.Fault{Kind: kind, Route: routeCallback, Count: 1})
					f.cycle(alice, win(game.TierCandle), false)
				}
				f.slow.delay.Store(int64(slowDraw))
				f.inject(fakediscord.Fault{Kind: kind, Route: routeEdit, Count: 1})
				if kind != fakediscord.FaultRateLimitHuge {
					f.cycle(bob, loss(true), false)
					f.slow.delay.Store(0)
				} else {
					card := f.playCard(bob)
					f.draw.set(loss(true))
					f.press(card, "v1:auto:"+bob, bob)
					waitFor(t, "the huge 429 on the edit", func() bool { return f.hit(kind, "PATCH") })
					f.slow.delay.Store(0)
					f.cycle(alice, loss(false), true) // answered while bob's edit waits
					f.stop()
					f.start()
					f.reveal(f.current(card), bob, loss(true), false)
				}
				f.cycle(alice, loss(false), true)
				f.dailyAndGrant(bob)
				f.books()
				f.noFailures(nil)
				f.allHit()
				f.faulted(kind)
				t.Logf("results reached by a second try: %d", f.fallbacks.Load())
			})
		}
	}
}

// TestFaultServerErrors: 502 and 503 with Discord's front end's HTML
// body, before the call is processed and after it (the call took effect,
// the bot saw the error), on callbacks (gateway) and on edits (both): a
// callback retried after one that took effect gets 40060, which the bot
// reads as its own answer delivered; an edit is retried (idempotent).
// Each result shows on the answer itself.
func TestFaultServerErrors(t *testing.T) {
	t.Parallel()
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			if name == "gateway" {
				f.inject(
					fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 502, Route: routeCallback},              // /play's, not processed
					fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 503, Route: routeCallback, After: true}, // Auto's, processed
				)
				f.cycle(alice, win(game.TierCandle), false)
				f.inject(fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 503, Route: routeCallback, After: true, Count: 4})
				f.cycle(bob, loss(true), true) // /play and three rows, each processed then failed
				if !f.consequence(40060) {
					t.Error("no 40060 after a callback that took effect: the retry was not tested")
				}
			}
			f.slow.delay.Store(int64(slowDraw))
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 502, Route: routeEdit})
			f.cycle(alice, loss(true), false)
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 503, Route: routeEdit, After: true})
			f.cycle(bob, win(game.TierBarrel), false)
			f.slow.delay.Store(0)
			f.dailyAndGrant(alice)
			f.books()
			f.noFailures(nil)
			f.allHit()
			f.faulted(fakediscord.FaultServerError)
			if n := f.fallbacks.Load(); n != 0 {
				t.Errorf("%d results needed a second try: a 5xx was not retried", n)
			}
		})
	}
}

// TestFaultSlowAnswers: a callback answered 2.5 s late (processed at
// once, its answer held: the player sees the card, the bot does not
// answer twice), and an edit whose answer takes longer than the
// transport's 5 s attempt timeout (not processed: the attempt times out
// and the retry delivers it).
func TestFaultSlowAnswers(t *testing.T) {
	t.Parallel()
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			if name == "gateway" {
				f.inject(fakediscord.Fault{Kind: fakediscord.FaultSlow, Route: routeCallback, Delay: 2500 * time.Millisecond, After: true, Count: 2})
				f.cycle(alice, win(game.TierCandle), false)
			}
			f.slow.delay.Store(int64(slowDraw))
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultSlow, Route: routeEdit, Delay: 6 * time.Second})
			f.cycle(bob, loss(true), false)
			f.slow.delay.Store(0)
			f.cycle(alice, loss(false), true)
			f.dailyAndGrant(bob)
			f.books()
			f.noFailures(nil)
			f.allHit()
			f.faulted(fakediscord.FaultSlow)
			if n := f.fallbacks.Load(); n != 0 {
				t.Errorf("%d results needed a second try", n)
			}
		})
	}
}

// TestFaultConnectionResets: the connection reset (RST, no answer)
// before and after the call is processed, on callbacks (gateway) and on
// edits (both): retried, each result on the answer itself.
func TestFaultConnectionResets(t *testing.T) {
	t.Parallel()
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			if name == "gateway" {
				f.inject(
					fakediscord.Fault{Kind: fakediscord.FaultReset, Route: routeCallback},
					fakediscord.Fault{Kind: fakediscord.FaultReset, Route: routeCallback, After: true},
				)
				f.cycle(alice, win(game.TierCandle), false)
			}
			f.slow.delay.Store(int64(slowDraw))
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultReset, Route: routeEdit})
			f.cycle(bob, loss(true), false)
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultReset, Route: routeEdit, After: true})
			f.cycle(alice, loss(true), false)
			f.slow.delay.Store(0)
			f.dailyAndGrant(bob)
			f.books()
			f.noFailures(nil)
			f.allHit()
			f.faulted(fakediscord.FaultReset)
			if n := f.fallbacks.Load(); n != 0 {
				t.Errorf("%d results needed a second try", n)
			}
		})
	}
}
