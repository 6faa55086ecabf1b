package e2e_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/metrics"
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
// The 5xx test also runs on the gateway with Redis ("gateway-redis"):
// callbacks and edits that took effect and are sent again, over the
// other store.
// Edits are reached on both transports by a draw slower than the
// handlers' 2 s DeferAfter: the answer is deferred, then edited.

// TestFaultRateLimits: 429s on callbacks (gateway: on the HTTP endpoint
// the first answer is the HTTP reply) and on edits, per route, and a
// global 429 for one second hitting an edit and what follows. Every
// result shows on the answer itself: a 429 is waited out and retried.
func TestFaultRateLimits(t *testing.T) {
	t.Parallel()
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			if strings.HasPrefix(name, "gateway") {
				// /play's callback, twice, then Auto's.
				f.inject(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: routeCallback, Count: 3, RetryAfter: 300 * time.Millisecond})
				f.cycle(alice, win(game.TierCandle), false)
			}
			// Two 429s on the edit of a deferred Auto.
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: routeEdit, Count: 2, RetryAfter: 400 * time.Millisecond, Scope: "shared"})
			f.slowCycle(alice, loss(true), false)
			f.cycle(alice, loss(true), true)
			f.cycle(alice, loss(true), false) // the third key: the chest
			// A global 429 for one second, set when an answer is deferred:
			// its edit and every call in that second wait it out.
			f.deferred = func() { f.srv.SetGlobalRateLimit(time.Second) }
			f.slowCycle(bob, win(game.TierBarrel), true)
			f.dailyAndGrant(bob)
			f.sound(0, fakediscord.FaultRateLimit, fakediscord.FaultGlobalRateLimit) // a 429 is waited out
			f.noConsequence()
		})
	}
}

// TestFaultMalformed429s: each malformed 429 of issue 22's "Bad input"
// (no retry_after, negative, huge, not JSON, a Reset-After that is not a
// number), on a callback (gateway) and on an edit (both transports): the
// bot keeps answering, its waits bounded, every result reached, the books
// sound. The outcomes are asserted, never the time taken.
//
// On the edit, the four that the bot waits a default second for come one
// after the other on the same edit (its attempts 1 to 4; the fifth and
// last gets through). A huge retry_after is clamped to a minute: a
// callback gives up at once (its 3-second window would be over) and the
// player's /play hands back the ticket; an edit waits the minute (the
// token lives 15), during which the other players are answered, and the
// result is on the old card once the bot has restarted (the shutdown
// ends the wait).
func TestFaultMalformed429s(t *testing.T) {
	t.Parallel()
	waited := []fakediscord.FaultKind{fakediscord.FaultRateLimitNoRetryAfter, fakediscord.FaultRateLimitNegative,
		fakediscord.FaultRateLimitNotJSON, fakediscord.FaultRateLimitBadResetAfter}
	huge := fakediscord.FaultRateLimitHuge
	for name, env := range transportEnvs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env["SHUTDOWN_TIMEOUT"] = "1s"
			f := newFx(t, env, fakediscord.Options{})
			if name == "gateway" {
				for _, kind := range waited {
					f.inject(fakediscord.Fault{Kind: kind, Route: routeCallback})
					f.expectBalance(alice) // /balance, its callback retried
				}
				f.inject(fakediscord.Fault{Kind: huge, Route: routeCallback})
				f.cycle(alice, win(game.TierCandle), false) // /play given up, handed back by the next
				if n := f.fallbacks.Load(); n != 1 {
					t.Errorf("%d results reached by a second try, want 1 (the /play whose callback got the huge 429)", n)
				}
			}
			f.slow.delay.Store(int64(slowDraw))
			for _, kind := range waited {
				f.inject(fakediscord.Fault{Kind: kind, Route: routeEdit})
			}
			f.cycle(bob, loss(true), false)

			f.inject(fakediscord.Fault{Kind: huge, Route: routeEdit})
			card := f.playCard(bob)
			f.draw.set(loss(true))
			f.press(card, "v1:auto:"+bob, bob)
			waitFor(t, "the huge 429 on the edit", func() bool { return f.hit(huge, "PATCH") })
			f.slow.delay.Store(0)
			f.cycle(alice, loss(false), true) // answered while bob's edit waits
			f.stop()
			f.start()
			f.reveal(f.current(card), bob, loss(true), false)

			f.cycle(bob, loss(false), true)
			f.dailyAndGrant(bob)
			f.books()
			f.noFailures(nil)
			f.allHit()
			f.faulted(append(waited, huge)...)
			if strings.HasPrefix(name, "gateway") && !f.consequence(10062) {
				t.Error("the /play whose callback was given up was not refused: was it answered late?")
			}
		})
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
	for name, env := range withRedis(t, transportEnvs(t)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFx(t, env, fakediscord.Options{})
			if strings.HasPrefix(name, "gateway") {
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
			// One edit: 502 (not processed), then 503 (processed), then
			// through.
			f.inject(fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 502, Route: routeEdit},
				fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 503, Route: routeEdit, After: true})
			f.slowCycle(alice, loss(true), false)
			f.cycle(bob, win(game.TierBarrel), false)
			f.dailyAndGrant(alice)
			f.sound(0, fakediscord.FaultServerError) // a 5xx is retried
		})
	}
}

// TestFaultSlowAndResets: faults on a callback (gateway) and on an
// edit (both transports) that are retried, each result on the answer
// itself:
//   - slow: a callback answered 2.5 s late (processed at once, its answer
//     held: the player sees the card, the bot does not answer twice), and
//     an edit whose answer takes longer than the transport's 5 s attempt
//     timeout (not processed: the attempt times out and the retry
//     delivers it);
//   - reset: the connection reset (RST, no answer) before and after the
//     call is processed, on the callbacks and then on one edit.
func TestFaultSlowAndResets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		kind           fakediscord.FaultKind
		callback, edit []fakediscord.Fault
		then           game.Outcome // alice's last ticket
		rows           bool
	}{
		{"slow", fakediscord.FaultSlow,
			[]fakediscord.Fault{{Kind: fakediscord.FaultSlow, Route: routeCallback, Delay: 2500 * time.Millisecond, After: true}},
			[]fakediscord.Fault{{Kind: fakediscord.FaultSlow, Route: routeEdit, Delay: 6 * time.Second}}, loss(false), true},
		{"reset", fakediscord.FaultReset,
			[]fakediscord.Fault{{Kind: fakediscord.FaultReset, Route: routeCallback}, {Kind: fakediscord.FaultReset, Route: routeCallback, After: true}},
			[]fakediscord.Fault{{Kind: fakediscord.FaultReset, Route: routeEdit}, {Kind: fakediscord.FaultReset, Route: routeEdit, After: true}}, loss(true), false},
	} {
		for name, env := range transportEnvs(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := newFx(t, env, fakediscord.Options{})
				if name == "gateway" {
					f.inject(tc.callback...)
					f.cycle(alice, win(game.TierCandle), false)
				}
				f.inject(tc.edit...)
				f.slowCycle(bob, loss(true), false)
				f.cycle(alice, tc.then, tc.rows)
				f.dailyAndGrant(bob)
				f.sound(0, tc.kind)
				if tc.kind == fakediscord.FaultSlow {
					f.noConsequence() // the late callback was not sent again
				}
			})
		}
	}
}

// TestFaultLateCallbacks: callbacks later than Discord's 3 s window,
// refused with 10062 (the user saw "This interaction failed"): the
// ticket was sold or drawn once all the same, and the player reaches it.
//   - callback: the callbacks of a /play and of an Auto answered too
//     slowly by Discord (gateway): the bot stops at its 3 s window, /play
//     hands back the open ticket, the old card's Auto shows the result;
//   - ack: a window shorter than the bot's deferral (AckTimeout 1.8 s,
//     the deferral at 2 s; both transports): the only refusals are that
//     interaction's, and the old card shows the result.
func TestFaultLateCallbacks(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{}
	for name, env := range transportEnvs(t) {
		cases["ack/"+name] = env
	}
	cases["callback/gateway"] = map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db")}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var opts fakediscord.Options
			if strings.HasPrefix(name, "ack/") {
				opts.AckTimeout = 1800 * time.Millisecond
			}
			f := newFx(t, env, opts)
			if strings.HasPrefix(name, "callback/") {
				late := fakediscord.Fault{Kind: fakediscord.FaultSlow, Route: routeCallback, Delay: 3500 * time.Millisecond}
				f.inject(late)
				card := f.playCard(alice) // its callback too late, the second /play's in time
				f.inject(late)
				f.reveal(card, alice, win(game.TierCandle), false) // likewise Auto's, then the old card's
				f.cycle(bob, loss(true), true)
				f.sound(2) // /play, then Auto on the old card
				if !f.consequence(10062) {
					t.Error("no 10062: the callbacks were not late")
				}
				return
			}
			f.cycle(alice, win(game.TierCandle), false)
			f.slowCycle(bob, loss(true), false) // deferred after the window: refused
			f.cycle(alice, loss(true), true)
			f.dailyAndGrant(bob)
			f.soundBut(10062, "bob's Auto")
		})
	}
}

// TestFaultExpiredTokens: the edit of a deferred answer refused with
// 50027 (an interaction token past its life): the result stays on the
// player's old card (a click shows it).
//   - injected: Discord answers 50027 to the edit (both transports);
//   - life: tokens living 1.5 s, shorter than the draw (2.4 s): the only
//     refusals are that interaction's edits.
func TestFaultExpiredTokens(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{}
	for _, how := range []string{"injected", "life"} {
		for name, env := range transportEnvs(t) {
			cases[how+"/"+name] = env
		}
	}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			injected := strings.HasPrefix(name, "injected/")
			var opts fakediscord.Options
			if !injected {
				opts.TokenLife = 1500 * time.Millisecond
			}
			f := newFx(t, env, opts)
			f.cycle(alice, win(game.TierCandle), false)
			if injected {
				f.inject(fakediscord.Fault{Kind: fakediscord.FaultTokenExpired, Route: routeEdit})
			}
			f.slowCycle(bob, loss(true), false)
			f.cycle(bob, loss(true), true)
			f.dailyAndGrant(alice)
			if injected {
				f.sound(1, fakediscord.FaultTokenExpired) // bob's Auto, on the old card
				return
			}
			f.soundBut(50027, "bob's Auto, on the old card")
		})
	}
}

// TestFaultGateway: op 7 RECONNECT, op 9 INVALID_SESSION (resumable and
// not) and heartbeat ACKs withheld: the session resumes or identifies
// again, then a /play cycle is answered and /healthz is back to ok.
func TestFaultGateway(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	f := newFx(t, map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db"), "METRICS_ADDR": addr},
		fakediscord.Options{HeartbeatInterval: 400 * time.Millisecond})
	sessions := func() int { return len(f.srv.Resumes()) + len(f.srv.Identifies()) }
	healthy := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return metrics.Probe(ctx, addr) == nil
	}
	waitFor(t, "/healthz ok at the start", healthy)
	for _, fault := range []struct {
		name   string
		kind   fakediscord.FaultKind
		inject func()
	}{
		{"op 7 RECONNECT", fakediscord.FaultGatewayReconnect, func() { f.srv.Reconnect() }},
		{"op 9 resumable", fakediscord.FaultGatewayInvalidSession, func() { f.srv.InvalidateSession(true) }},
		{"op 9 not resumable", fakediscord.FaultGatewayInvalidSession, func() { f.srv.InvalidateSession(false) }},
		{"heartbeat ACKs withheld", fakediscord.FaultHeartbeatAcks, func() { f.srv.WithholdHeartbeatAcks(3 * time.Second) }},
	} {
		n, ids := sessions(), len(f.srv.Identifies())
		fault.inject()
		waitFor(t, fault.name+": resumed or identified again", func() bool { return sessions() > n })
		if fault.name == "op 9 not resumable" && len(f.srv.Identifies()) == ids {
			t.Errorf("%s: resumed a session that was not resumable", fault.name)
		}
		waitFor(t, fault.name+": /healthz ok", healthy)
		f.cycle(alice, loss(true), false)
		f.faulted(fault.kind)
	}
	f.dailyAndGrant(alice)
	f.books()
	f.noFailures(nil)
}
