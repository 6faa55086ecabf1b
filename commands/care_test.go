package commands

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The tests' clock starts on Monday 2026-11-30 12:00 UTC.

// history returns the user's history, newest first.
func (e *env) history(user uint64) []game.Entry {
	e.t.Helper()
	hs, err := e.store.History(context.Background(), storage.PlayerID{Guild: testGuild, User: user}, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	return hs
}

func (e *env) limits(user uint64, locale, sub string, opts ...opt) *handled {
	e.t.Helper()
	return e.handle(e.slashPayload(user, memberPerms, locale, "limits", sub, opts...))
}

// pauseAsk runs /pause with the length and checks the confirmation.
func (e *env) pauseAsk(user uint64, locale, length string) *handled {
	e.t.Helper()
	h := e.handle(e.slashPayload(user, memberPerms, locale, "pause", "", opt{"length", optString, length}))
	if !h.ephemeral() || len(h.buttons()) != 2 {
		e.t.Fatalf("/pause: not an ephemeral confirmation with two buttons:\n%s", h.text())
	}
	h.mustButton("v1:pz:")
	h.mustButton("v1:pzx:")
	return h
}

// confirmPause presses the confirmation's button as user.
func (e *env) confirmPause(user uint64, locale string, ask *handled) *handled {
	e.t.Helper()
	return e.handle(e.clickPayload(user, memberPerms, locale, ask.message(), ask.mustButton("v1:pz:").CustomID))
}

func TestLimitsSetAndShow(t *testing.T) {
	for _, tc := range []struct {
		locale                           string
		name, now, from, stakeDay, intro string
		limitErr                         string
		title                            string
	}{
		{"en-US", "Stakes per day", "in force now", "from <t:", "1.00 credit", "Lowering a limit applies at once", "would cross one of your limits, **Stakes per day: 1.00 credit**", "Your limits"},
		{"fr", "Mises par jour", "en vigueur dès maintenant", "à partir du <t:", "1,00 crédit", "Baisser", "dépasserait l'une de vos limites, **Mises par jour : 1,00 crédit**", "Vos limites"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newEnv(t)
			show := e.limits(alice, tc.locale, "show")
			if !show.ephemeral() || !strings.Contains(show.text(), tc.title) || e.exists(alice) {
				t.Fatalf("/limits show of a new player (created: %v):\n%s", e.exists(alice), show.text())
			}
			h := e.limits(alice, tc.locale, "set", opt{"stake-day", optString, "1"})
			if !strings.Contains(h.text(), tc.name+" : "+tc.stakeDay) && !strings.Contains(h.text(), tc.name+": "+tc.stakeDay) || !strings.Contains(h.text(), tc.now) {
				t.Fatalf("/limits set stake-day 1:\n%s", h.text())
			}
			if l := e.player(alice).Care.Limits[game.LimitStakeDay]; l != (game.Limit{Amount: 100}) {
				t.Fatalf("stored limit %+v", l)
			}
			// A raise waits 24 hours, and the reply says from when.
			h = e.limits(alice, tc.locale, "set", opt{"stake-day", optString, "5"})
			at := e.clock.Now().Add(game.RaiseDelay)
			if !strings.Contains(h.text(), tc.from) || !strings.Contains(h.text(), timestamp(at.Unix(), "f")) {
				t.Fatalf("a raise:\n%s", h.text())
			}
			if l := e.player(alice).Care.Limits[game.LimitStakeDay]; l.Amount != 100 || l.Next != 500 || !l.At.Equal(at) {
				t.Fatalf("stored raise %+v", l)
			}
			if s := e.limits(alice, tc.locale, "show").text(); !strings.Contains(s, tc.name) || !strings.Contains(s, tc.stakeDay) ||
				!strings.Contains(s, timestamp(at.Unix(), "f")) {
				t.Fatalf("/limits show with a raise waiting:\n%s", s)
			}

			// Two tickets of 0.50 reach the limit of 1.00; the third is refused.
			e.playTicket(alice, tc.locale)
			e.playTicket(alice, tc.locale)
			before := e.player(alice)
			e.handle(e.slashPayload(alice, memberPerms, tc.locale, "play", "")).expectUserError(tc.limitErr)
			if after := e.player(alice); !reflect.DeepEqual(after, before) {
				t.Fatalf("a refused play changed the player: balance %d → %d", before.Balance, after.Balance)
			}
			if before.Balance != startCents-2*game.Stake+before.Stats.WonCents {
				t.Fatalf("balance %d after two tickets", before.Balance)
			}
			// The raise comes in force after 24 hours: a play is allowed.
			e.clock.Add(game.RaiseDelay)
			if h := e.handle(e.slashPayload(alice, memberPerms, tc.locale, "play", "")); strings.HasPrefix(h.text(), "❌") {
				t.Fatalf("a play after the raise: %s", h.text())
			}
		})
	}
}

func TestLimitsBadInput(t *testing.T) {
	e := newEnv(t)
	e.limits(alice, "en-US", "set", opt{"stake-day", optString, "3"}, opt{"reminder", optInt, 10})
	want := e.player(alice)
	for _, tc := range []struct {
		name string
		opts []opt
		err  string
	}{
		{"negative", []opt{{"stake-day", optString, "-5"}}, "negative"},
		{"not a number", []opt{{"loss-day", optString, "abc"}}, "“abc” is not a valid amount"},
		{"three decimals", []opt{{"stake-week", optString, "1.234"}}, "not a valid amount"},
		{"over the maximum", []opt{{"loss-week", optString, "10000000.01"}}, "up to 10,000,000.00 credits"},
		{"a good one and a bad one", []opt{{"stake-week", optString, "2"}, {"loss-day", optString, "x"}}, "not a valid amount"},
		{"reminder too short", []opt{{"reminder", optInt, 3}}, "5 to 1440 minutes"},
		{"reminder too long", []opt{{"reminder", optInt, 2000}}, "5 to 1440 minutes"},
		{"reminder not a whole number", []opt{{"reminder", optInt, 7.5}}, "5 to 1440 minutes"},
		{"amount as a number", []opt{{"stake-day", optInt, 5}}, "missing or invalid"},
		{"no option", nil, "at least one limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.limits(alice, "en-US", "set", tc.opts...).expectUserError(tc.err)
			if got := e.player(alice); !reflect.DeepEqual(got, want) {
				t.Fatalf("a refused /limits set changed the player:\n%+v\n%+v", got.Care, want.Care)
			}
		})
	}
	e.limits(bob, "fr", "set").expectUserError("au moins une limite")
	if e.exists(bob) {
		t.Fatal("a refused /limits set created the player")
	}
	// Words remove a limit (after the delay), like 0.
	h := e.limits(alice, "en-US", "set", opt{"stake-day", optString, "none"})
	if l := e.player(alice).Care.Limits[game.LimitStakeDay]; l.Amount != 300 || l.Next != 0 || !l.Pending() || !strings.Contains(h.text(), "none from <t:") {
		t.Fatalf("removal: %+v\n%s", l, h.text())
	}
}

func TestPauseFlow(t *testing.T) {
	for _, tc := range []struct {
		locale, ask, done, paused, balance string
	}{
		{"en-US", "you cannot shorten it", "Take care of yourself", "Your play is paused until <t:", "Your play is paused until <t:"},
		{"fr", "vous ne pourrez pas l'écourter", "Prenez soin de vous", "Votre jeu est en pause jusqu'au <t:", "Votre jeu est en pause jusqu'au <t:"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newEnv(t)
			e.playTicket(alice, tc.locale)
			card := e.playTicket(alice, tc.locale) // the last card, with Play again
			ask := e.pauseAsk(alice, tc.locale, "24h")
			until := e.clock.Now().Add(24 * time.Hour)
			if !strings.Contains(ask.text(), tc.ask) || !strings.Contains(ask.text(), timestamp(until.Unix(), "F")) {
				t.Fatalf("/pause:\n%s", ask.text())
			}
			if e.player(alice).Paused(e.clock.Now()) {
				t.Fatal("/pause paused before the confirmation")
			}
			// Someone else cannot confirm it.
			e.handle(e.clickPayload(bob, memberPerms, tc.locale, ask.message(), ask.mustButton("v1:pz:").CustomID)).expectUserError("")
			if e.exists(bob) || e.player(alice).Paused(e.clock.Now()) {
				t.Fatal("bob's press paused someone")
			}

			e.clock.Add(time.Minute)
			h := e.confirmPause(alice, tc.locale, ask)
			if h.r.Type != discordgo.InteractionResponseUpdateMessage || len(h.buttons()) != 0 || !strings.Contains(h.text(), tc.done) {
				t.Fatalf("confirm: type %d\n%s", h.r.Type, h.text())
			}
			p := e.player(alice)
			if !p.Care.PausedUntil.Equal(until) {
				t.Fatalf("paused until %v, want %v (from the time asked)", p.Care.PausedUntil, until)
			}
			// A second press, another interaction on the same message: one pause.
			e.clock.Add(time.Minute)
			if again := e.confirmPause(alice, tc.locale, ask); !strings.Contains(again.text(), tc.done) {
				t.Fatalf("second press:\n%s", again.text())
			}
			if q := e.player(alice); !q.Care.PausedUntil.Equal(until) {
				t.Fatalf("second press: paused until %v", q.Care.PausedUntil)
			}
			pauses := 0
			for _, en := range e.history(alice) {
				if en.Kind == game.KindPause {
					pauses++
				}
			}
			if pauses != 1 {
				t.Fatalf("%d pause lines in the history, want 1", pauses)
			}

			// Refused while paused, with the end; nothing charged.
			before := e.player(alice)
			end := timestamp(until.Unix(), "F")
			for what, i := range map[string]*discordgo.Interaction{
				"/play":      e.slashPayload(alice, memberPerms, tc.locale, "play", ""),
				"Play again": e.clickPayload(alice, memberPerms, tc.locale, card.message(), card.mustButton("v1:again:").CustomID),
				"/daily":     e.slashPayload(alice, memberPerms, tc.locale, "daily", ""),
			} {
				h := e.handle(i)
				h.expectUserError(tc.paused)
				if !strings.Contains(h.text(), end) {
					t.Fatalf("%s refused without the end %s:\n%s", what, end, h.text())
				}
			}
			if after := e.player(alice); !reflect.DeepEqual(after, before) {
				t.Fatal("a refused step changed the paused player")
			}
			if b := e.slash(alice, tc.locale, "balance"); !strings.Contains(b.text(), tc.balance) || !strings.Contains(b.text(), end) {
				t.Fatalf("/balance while paused:\n%s", b.text())
			}
			if s := e.limits(alice, tc.locale, "show"); !strings.Contains(s.text(), end) {
				t.Fatalf("/limits show while paused:\n%s", s.text())
			}
			// A longer pause extends it; a shorter one asked after does not
			// shorten it.
			long := e.pauseAsk(alice, tc.locale, "7d")
			until = e.clock.Now().AddDate(0, 0, 7)
			msg := long.message()
			msg.ID = "1310000000000000002" // another confirmation message
			e.handle(e.clickPayload(alice, memberPerms, tc.locale, msg, long.mustButton("v1:pz:").CustomID))
			short := e.pauseAsk(alice, tc.locale, "24h")
			msg = short.message()
			msg.ID = "1310000000000000003"
			e.handle(e.clickPayload(alice, memberPerms, tc.locale, msg, short.mustButton("v1:pz:").CustomID))
			if q := e.player(alice); !q.Care.PausedUntil.Equal(until) {
				t.Fatalf("paused until %v after 7 days then 24 hours, want %v", q.Care.PausedUntil, until)
			}
			// At the end, play again.
			e.clock.Add(until.Sub(e.clock.Now()) - time.Second)
			e.slash(alice, tc.locale, "daily").expectUserError(tc.paused)
			e.clock.Add(time.Second)
			if h := e.slash(alice, tc.locale, "daily"); strings.HasPrefix(h.text(), "❌") {
				t.Fatalf("/daily after the pause: %s", h.text())
			}
		})
	}
}

func TestPauseBadButtons(t *testing.T) {
	e := newEnv(t)
	e.playTicket(alice, "en-US")
	want := e.player(alice)
	ask := e.pauseAsk(alice, "en-US", "7d")

	// Cancel: nothing changes.
	h := e.handle(e.clickPayload(alice, memberPerms, "en-US", ask.message(), ask.mustButton("v1:pzx:").CustomID))
	if !strings.Contains(h.text(), "nothing changed") || len(h.buttons()) != 0 {
		t.Fatalf("cancel:\n%s", h.text())
	}
	// A forged length code.
	forged := customID{kind: kindPauseConfirm, user: alice, code: len(pauseChoices), ts: e.clock.Now().Unix()}.format()
	e.handle(e.clickPayload(alice, memberPerms, "en-US", cardWith(forged), forged)).expectUserError("Run /pause again")
	// From the future.
	future := customID{kind: kindPauseConfirm, user: alice, code: 0, ts: e.clock.Now().Add(time.Hour).Unix()}.format()
	e.handle(e.clickPayload(alice, memberPerms, "en-US", cardWith(future), future)).expectUserError("Run /pause again")
	// Expired.
	e.clock.Add(DefaultConfirmTTL + time.Second)
	e.confirmPause(alice, "en-US", ask).expectUserError("Run /pause again")
	fr := e.handle(e.clickPayload(alice, memberPerms, "fr", ask.message(), ask.mustButton("v1:pz:").CustomID))
	fr.expectUserError("Relancez /pause")
	if got := e.player(alice); !reflect.DeepEqual(got, want) {
		t.Fatalf("a refused pause changed the player: until %v", got.Care.PausedUntil)
	}
	// An unknown length in /pause itself.
	e.handle(e.slashPayload(alice, memberPerms, "en-US", "pause", "", opt{"length", optString, "1y"})).expectUserError("missing or invalid")
}

func TestLiftPause(t *testing.T) {
	e := newEnv(t)
	e.playTicket(bob, "en-US")
	ask := e.pauseAsk(bob, "en-US", "30d")
	e.confirmPause(bob, "en-US", ask)
	until := e.player(bob).Care.PausedUntil
	bobID := opt{"user", optUser, "1000000000000000002"}

	e.admin(alice, memberPerms, "lift-pause", bobID, opt{"reason", optString, "asked"}).expectUserError("Only moderators")
	e.admin(moderator, modPermsSet, "lift-pause", bobID).expectUserError("Give a reason")
	e.admin(moderator, modPermsSet, "lift-pause", bobID, opt{"reason", optString, "   "}).expectUserError("Give a reason")
	if p := e.player(bob); !p.Care.PausedUntil.Equal(until) {
		t.Fatal("a refused lift-pause lifted it")
	}
	if es, _ := e.store.Audit(t.Context(), testGuild, 10); len(es) != 0 {
		t.Fatalf("refusals were audited: %+v", es)
	}

	e.clock.Add(time.Hour)
	h := e.admin(moderator, modPermsSet, "lift-pause", bobID, opt{"reason", optString, "support ticket 42"})
	if strings.HasPrefix(h.text(), "❌") || !strings.Contains(h.text(), "pause is lifted") {
		t.Fatalf("lift-pause:\n%s", h.text())
	}
	p := e.player(bob)
	if p.Paused(e.clock.Now()) {
		t.Fatal("still paused after lift-pause")
	}
	es, err := e.store.Audit(t.Context(), testGuild, 10)
	if err != nil || len(es) != 1 || es[0].Action != "lift-pause" || es[0].Target != bob || es[0].Actor != moderator ||
		!strings.Contains(es[0].Reason, "support ticket 42") || !strings.Contains(es[0].Reason, until.UTC().Format(time.RFC3339)) {
		t.Fatalf("audit %+v, %v", es, err)
	}
	if hs := e.history(bob); len(hs) == 0 || hs[0].Kind != game.KindLift {
		t.Fatalf("history %+v", hs)
	}
	if h := e.slash(bob, "en-US", "play"); strings.HasPrefix(h.text(), "❌") {
		t.Fatalf("/play after the lift: %s", h.text())
	}
	// Not paused any more, or never played.
	e.admin(moderator, modPermsSet, "lift-pause", bobID, opt{"reason", optString, "again"}).expectUserError("is not paused")
	e.admin(moderator, modPermsSet, "lift-pause", opt{"user", optUser, "1000000000000000001"}, opt{"reason", optString, "x"}).expectUserError("never played")
	if e.exists(alice) {
		t.Fatal("lift-pause created a player")
	}
	if es, _ := e.store.Audit(t.Context(), testGuild, 10); len(es) != 1 {
		t.Fatalf("refused lift-pauses were audited: %d entries", len(es))
	}
}

func TestAdminPlayer(t *testing.T) {
	e := newEnv(t)
	e.limits(bob, "en-US", "set", opt{"stake-day", optString, "4"}, opt{"loss-week", optString, "2"})
	e.limits(bob, "en-US", "set", opt{"loss-week", optString, "9"}) // a raise, waiting
	e.playTicket(bob, "en-US")
	e.confirmPause(bob, "en-US", e.pauseAsk(bob, "en-US", "7d"))
	e.admin(moderator, modPermsSet, "grant", opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, "3"}, opt{"reason", optString, "contest"})
	p := e.player(bob)
	bobID := opt{"user", optUser, "1000000000000000002"}

	e.admin(alice, memberPerms, "player", bobID).expectUserError("Only moderators")
	var replies []*handled
	for _, tc := range []struct{ locale, limit, pause, balance string }{
		{"en-US", "Stakes per day: 4.00 credits", "Paused until", "**" + e.app.cat.forLocale("en-US").Credits(p.Balance) + "**"},
		{"fr", "Mises par jour : 4,00 crédits", "En pause jusqu'au", "**" + e.app.cat.forLocale("fr").Credits(p.Balance) + "**"},
	} {
		h := e.handle(e.slashPayload(moderator, modPermsSet, tc.locale, "admin", "player", bobID))
		s := h.text()
		if !h.ephemeral() || !strings.Contains(s, tc.balance) || !strings.Contains(s, tc.pause) ||
			!strings.Contains(s, timestamp(p.Care.PausedUntil.Unix(), "F")) || !strings.Contains(s, p.Commitment().Short()) ||
			!strings.Contains(s, timestamp(p.Care.Limits[game.LimitLossWeek].At.Unix(), "f")) || !strings.Contains(s, "contest") {
			t.Fatalf("/admin player (%s):\n%s", tc.locale, s)
		}
		if !strings.Contains(s, tc.limit) {
			t.Fatalf("/admin player (%s) does not show the limit %q:\n%s", tc.locale, tc.limit, s)
		}
		replies = append(replies, h)
	}
	noSecret(t, p, replies...)
	if p.NextSeed != (game.Seed{}) {
		noSecret(t, game.Player{Seed: p.NextSeed}, replies...)
	}
	if !reflect.DeepEqual(e.player(bob), p) {
		t.Fatal("/admin player changed the player")
	}
	e.admin(moderator, modPermsSet, "player", opt{"user", optUser, "1000000000000000001"}).expectUserError("never played")
	if e.exists(alice) {
		t.Fatal("/admin player created a player")
	}
}

func TestHouseRulesSettings(t *testing.T) {
	e := newEnv(t)
	h := e.admin(moderator, modPermsSet, "settings",
		opt{"max-stake-day", optString, "1"}, opt{"min-interval", optInt, 30},
		opt{"reality-plays", optInt, 5}, opt{"reality-minutes", optInt, 15}, opt{"reason", optString, "care"})
	if !strings.Contains(h.text(), "Settings saved") || !strings.Contains(h.text(), "1.00 credit") || !strings.Contains(h.text(), "30 s") {
		t.Fatalf("settings:\n%s", h.text())
	}
	want := game.House{MaxStakeDay: 100, MinInterval: 30 * time.Second, RealityPlays: 5, RealityEvery: 15 * time.Minute}
	if got := e.settings().House; got != want {
		t.Fatalf("house %+v, want %+v", got, want)
	}
	es, err := e.store.Audit(t.Context(), testGuild, 1)
	if err != nil || len(es) != 1 || es[0].Action != "settings" {
		t.Fatalf("audit %+v, %v", es, err)
	}
	for _, part := range []string{"max stake per day none → 1.00", "min interval off → 30s", "reality check plays 0 → 5", "reality check every off → 15m0s", "care"} {
		if !strings.Contains(es[0].Reason, part) {
			t.Errorf("audit line %q does not say %q", es[0].Reason, part)
		}
	}

	for _, tc := range []struct {
		name string
		o    opt
		err  string
	}{
		{"stake cap over the maximum", opt{"max-stake-day", optString, "10000000.01"}, "up to"},
		{"stake cap negative", opt{"max-stake-day", optString, "-1"}, "negative"},
		{"stake cap not a number", opt{"max-stake-day", optString, "lots"}, "not a valid amount"},
		{"interval too long", opt{"min-interval", optInt, 3601}, "min-interval is 0 to 3600"},
		{"interval negative", opt{"min-interval", optInt, -1}, "min-interval is 0 to 3600"},
		{"too many plays", opt{"reality-plays", optInt, 10001}, "reality-plays is 0 to 10000"},
		{"minutes too short", opt{"reality-minutes", optInt, 3}, "reality-minutes is 5 to 1440"},
		{"minutes too long", opt{"reality-minutes", optInt, 1441}, "reality-minutes is 0 to 1440"},
		{"interval not whole", opt{"min-interval", optInt, 1.5}, "min-interval"},
		{"interval as text", opt{"min-interval", optString, "30"}, "missing or invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.admin(moderator, modPermsSet, "settings", tc.o).expectUserError(tc.err)
			if got := e.settings().House; got != want {
				t.Fatalf("a refused setting changed the house: %+v", got)
			}
		})
	}
	if es, _ := e.store.Audit(t.Context(), testGuild, 10); len(es) != 1 {
		t.Fatalf("refused settings were audited: %d entries", len(es))
	}

	// The rules apply: the minimum interval, then the stake cap.
	e.playTicket(alice, "en-US")
	e.slash(alice, "en-US", "play").expectUserError("a moment between two plays")
	e.clock.Add(30 * time.Second)
	e.playTicket(alice, "en-US")
	e.clock.Add(30 * time.Second)
	before := e.player(alice)
	e.slash(alice, "en-US", "play").expectUserError("this server's limit of 1.00 credit")
	if !reflect.DeepEqual(e.player(alice), before) {
		t.Fatal("a play refused by the house changed the player")
	}
	// /limits show lists them.
	if s := e.limits(alice, "en-US", "show").text(); !strings.Contains(s, "At most 1.00 credit staked per day") || !strings.Contains(s, "30 s between") ||
		!strings.Contains(s, "every 15 minutes or every 5 plays") || !strings.Contains(s, "Staked: 1.00 credit") {
		t.Fatalf("/limits show:\n%s", s)
	}
	// Back to none.
	e.admin(moderator, modPermsSet, "settings", opt{"max-stake-day", optString, "0"}, opt{"min-interval", optInt, 0},
		opt{"reality-plays", optInt, 0}, opt{"reality-minutes", optInt, 0})
	if got := e.settings().House; got != (game.House{}) {
		t.Fatalf("house back to none: %+v", got)
	}
}

func TestRealityCheckOnTheCard(t *testing.T) {
	for _, tc := range []struct{ locale, line string }{
		{"en-US", "Reality check:** you have played for 0 h 2 min in this session: 2 tickets"},
		{"fr", "Point sur votre session :** vous jouez depuis 0 h 2 min : 2 tickets"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newEnv(t)
			e.admin(moderator, modPermsSet, "settings", opt{"reality-plays", optInt, 2})
			for i := range 2 {
				if c := e.playTicket(alice, tc.locale); strings.Contains(c.text(), "⏱️") {
					t.Fatalf("a reality check on card %d:\n%s", i+1, c.text())
				}
				e.clock.Add(time.Minute)
			}
			card := e.slash(alice, tc.locale, "play")
			if !strings.Contains(card.text(), tc.line) {
				t.Fatalf("third card has no reality check %q:\n%s", tc.line, card.text())
			}
			// The same interaction answered again shows it again, once.
			if s := e.player(alice).Care.Session; s.CheckedPlays != 2 || s.Plays != 3 {
				t.Fatalf("session %+v", s)
			}
		})
	}
}
