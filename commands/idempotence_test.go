package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// twice handles the same interaction (same ID) twice, as a second delivery
// or a retry would bring it, and checks that both answers are the same.
func (e *env) twice(i *discordgo.Interaction) *handled {
	e.t.Helper()
	first := e.handle(i)
	second := e.handle(i)
	if first.r.Type != second.r.Type || first.text() != second.text() {
		e.t.Fatalf("a repeated interaction answered differently:\nfirst (type %d):\n%s\nsecond (type %d):\n%s",
			first.r.Type, first.text(), second.r.Type, second.text())
	}
	return second
}

func (e *env) audit(n int) []game.AuditEntry {
	e.t.Helper()
	es, err := e.store.Audit(context.Background(), testGuild, n)
	if err != nil {
		e.t.Fatal(err)
	}
	return es
}

func TestRepeatedGrantChangesNothing(t *testing.T) {
	e := newEnv(t)
	h := e.twice(e.slashPayload(moderator, modPermsSet, "en-US", "admin", "grant",
		opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, "12.50"}, opt{"reason", optString, "prize"}))
	if !strings.Contains(h.text(), "received 12.50 credits") {
		t.Fatalf("grant reply:\n%s", h.text())
	}
	if p := e.player(bob); p.Balance != startCents+1250 || p.Stats.GrantedCents != 1250 {
		t.Fatalf("after a repeated grant: balance %d, granted %d", p.Balance, p.Stats.GrantedCents)
	}
	if es := e.audit(10); len(es) != 1 || es[0].Action != "grant" || es[0].Amount != 1250 ||
		es[0].Actor != moderator || es[0].Target != bob || es[0].Reason != "prize" {
		t.Fatalf("audit: %+v", es)
	}
	// A new interaction is a new grant.
	e.admin(moderator, modPermsSet, "grant", opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, "1"})
	if p := e.player(bob); p.Balance != startCents+1350 {
		t.Fatalf("second grant: balance %d", p.Balance)
	}
}

func TestRepeatedBuyRevealAndChest(t *testing.T) {
	e := newEnv(t)
	key := storetest.Loss(true)
	e.drawer.force(key, key, key)
	e.drawer.forceChest(game.LotGold)

	var ticket uint64
	for n := 1; n <= 3; n++ {
		h := e.twice(e.slashPayload(alice, memberPerms, "en-US", "play", ""))
		p := e.player(alice)
		if p.Stats.Plays != int64(n) || p.Balance != startCents-int64(n)*game.Stake {
			t.Fatalf("play %d repeated: plays %d, balance %d", n, p.Stats.Plays, p.Balance)
		}
		ticket = p.Ticket.ID
		msg := h.message()
		// A row, then Auto, each delivered twice.
		row := rowID(alice, ticket, 0)
		e.twice(e.clickPayload(alice, memberPerms, "en-US", msg, row))
		auto := autoID(alice, ticket)
		done := e.twice(e.clickPayload(alice, memberPerms, "en-US", msg, auto))
		checkTruthful(t, e.app, done, e.player(alice))
	}
	tickets, _ := e.drawer.draws()
	if tickets != 3 {
		t.Fatalf("%d tickets drawn, want 3", tickets)
	}
	p := e.player(alice)
	if !p.ChestDue || p.Keys != 0 {
		t.Fatalf("three keys: chest due %v, keys %d", p.ChestDue, p.Keys)
	}
	chest := chestID(alice, p.ChestSeq+1)
	h := e.twice(e.clickOnCard(alice, chest))
	if !strings.Contains(h.text(), "one gold coin") {
		t.Fatalf("chest:\n%s", h.text())
	}
	q := e.player(alice)
	if q.ChestDue || q.Stats.Chests != 1 || q.Balance != p.Balance+game.LotGold.Prize() {
		t.Fatalf("after a repeated chest: due %v, chests %d, balance %d", q.ChestDue, q.Stats.Chests, q.Balance)
	}
	if _, chests := e.drawer.draws(); chests != 1 {
		t.Fatalf("%d chests drawn, want 1", chests)
	}
	e.obs.mu.Lock()
	defer e.obs.mu.Unlock()
	if e.obs.purchases != 3 || e.obs.plays != 3 || e.obs.chests != 1 {
		t.Fatalf("observed %d purchases, %d plays, %d chests; want 3, 3, 1", e.obs.purchases, e.obs.plays, e.obs.chests)
	}
	if err := q.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestRepeatedSettingsChangeNothing(t *testing.T) {
	e := newEnv(t)
	i := e.slashPayload(moderator, modPermsSet, "en-US", "admin", "settings",
		opt{"daily-amount", optString, "2"}, opt{"any-channel", optBool, true}, opt{"reason", optString, "calmer"})
	first := e.handle(i)
	if !strings.Contains(first.text(), "Settings saved") {
		t.Fatalf("settings:\n%s", first.text())
	}
	es := e.audit(10)
	if len(es) != 1 || es[0].Action != "settings" || es[0].Reason != "daily amount 5.00 → 2.00 — calmer" {
		t.Fatalf("audit: %+v", es)
	}
	// Another moderator changes the daily amount again; the first
	// interaction delivered again must not undo it.
	e.admin(moderator, modPermsSet, "settings", opt{"daily-amount", optString, "3"})
	e.handle(i)
	if set := e.settings(); set.DailyAmount != 300 {
		t.Fatalf("a repeated settings change undid a later one: daily %d", set.DailyAmount)
	}
	if es := e.audit(10); len(es) != 2 {
		t.Fatalf("audit after a repeat: %+v", es)
	}
	g, err := e.store.Guild(t.Context(), testGuild)
	if err != nil || len(g.Ops) != 2 || g.Ops[0] != i.ID {
		t.Fatalf("guild ops %v, %v", g.Ops, err)
	}
	// The same interaction, no later change: the same answer.
	e.twice(e.slashPayload(moderator, modPermsSet, "en-US", "admin", "settings", opt{"public-plays", optBool, false}))
	if es := e.audit(10); len(es) != 3 || es[0].Reason != "plays public → private" {
		t.Fatalf("audit: %+v", es)
	}
}

func TestSettingsAuditSaysWhatChanged(t *testing.T) {
	e := newEnv(t)
	e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000555"},
		opt{"starting-balance", optString, "10"})
	e.admin(moderator, modPermsSet, "settings", opt{"any-channel", optBool, true}, opt{"daily-amount", optString, "0"})
	es := e.audit(2)
	if len(es) != 2 || es[0].Reason != "daily amount 5.00 → off; channel <#1110000000000000555> → any" ||
		es[1].Reason != "starting balance 20.00 → 10.00; channel any → <#1110000000000000555>" {
		t.Fatalf("audit: %+v", es)
	}
	// Setting what is already set writes nothing.
	e.admin(moderator, modPermsSet, "settings", opt{"daily-amount", optString, "0"})
	if es := e.audit(10); len(es) != 2 {
		t.Fatalf("a change to the same value was recorded: %+v", es)
	}
}

func TestResetOfSomeoneWhoNeverPlayed(t *testing.T) {
	e := newEnv(t)
	h := e.admin(moderator, modPermsSet, "reset", opt{"user", optUser, "1000000000000000002"})
	h.expectUserError("<@1000000000000000002> has never played: nothing to reset")
	if e.exists(bob) {
		t.Fatal("a reset created the player")
	}
	if es := e.audit(10); len(es) != 0 {
		t.Fatalf("audit: %+v", es)
	}
	if h := e.slash(alice, "en-US", "leaderboard"); !strings.Contains(h.text(), "Nobody has played yet") {
		t.Fatalf("leaderboard:\n%s", h.text())
	}
	// Reads create nobody either.
	e.slash(bob, "en-US", "balance")
	e.slash(bob, "en-US", "history")
	if e.exists(bob) || e.store.writeCount() != 0 {
		t.Fatal("a read created a player")
	}
}

func TestRepeatedResetGuildConfirmation(t *testing.T) {
	e := newEnv(t)
	msg, ok := askResetGuild(e, "1310000000000000777")
	h := e.twice(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok))
	if !strings.Contains(h.text(), "Resetting… 0 players so far") {
		t.Fatalf("confirm:\n%s", h.text())
	}
	e.finishJobs()
	// Alice plays again; a second press of the same confirmation resets
	// nobody twice.
	e.slash(alice, "en-US", "play")
	h = e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok))
	if !strings.Contains(h.text(), "2 players were reset") {
		t.Fatalf("second press:\n%s", h.text())
	}
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatalf("the second press reset alice again: %+v", p.Stats)
	}
	if es := e.audit(10); len(es) != 1 || es[0].Action != "reset-guild" || es[0].Amount != 2 {
		t.Fatalf("audit: %+v", es)
	}
}

// TestResetGuildFinishesAfterAnInterruption: a confirmation whose first
// attempt reset only some players (a crash, a timeout) resets the others
// when pressed again, and not the ones already done.
func TestResetGuildFinishesAfterAnInterruption(t *testing.T) {
	e := newEnv(t)
	msg, ok := askResetGuild(e, "1310000000000000778")
	// The first attempt got as far as alice.
	now := storage.Timestamp(e.clock.Now())
	if _, err := e.store.Run(t.Context(), storage.Step{
		ID: storage.PlayerID{Guild: testGuild, User: alice}, Op: "rg:" + msg.ID + ":1000000000000000001", Now: now,
		Move: game.Reset{Start: startCents},
	}); err != nil {
		t.Fatal(err)
	}
	e.slash(alice, "en-US", "play") // alice plays after her reset
	e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok))
	e.finishJobs()
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatalf("alice reset twice: %+v", p.Stats)
	}
	if p := e.player(bob); p.Stats.Plays != 0 {
		t.Fatalf("bob not reset: %+v", p.Stats)
	}
}

// TestResetGuildContinuesFromItsProgress: the guild records how far its
// reset went (game.GuildReset); pressing the confirmation again continues
// after the last player recorded, counts the players done before, and
// logs one line at the end.
func TestResetGuildContinuesFromItsProgress(t *testing.T) {
	e := newEnv(t)
	msg, ok := askResetGuild(e, "1310000000000000779")
	// An earlier attempt recorded alice as done (her own step is not
	// remembered: only the guild's progress can keep her from a reset).
	op, now := "rg:"+msg.ID, storage.Timestamp(e.clock.Now())
	for _, m := range []game.GuildMove{
		game.BeginReset{Actor: moderator}, game.Lease{Holder: "gone", TTL: JobLease},
		game.Progress{Holder: "gone", After: alice, Count: 1, TTL: JobLease},
	} {
		if _, err := e.store.RunGuild(t.Context(), storage.GuildStep{Guild: testGuild, Op: op, Move: m, Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	h := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok))
	if !strings.Contains(h.text(), "Resetting… 1 player so far") {
		t.Fatalf("confirm:\n%s", h.text())
	}
	// The process that held it is gone: another takes over once its lease
	// has expired.
	e.clock.Add(JobLease)
	e.finishJobs()
	if txt := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok)).text(); !strings.Contains(txt, "2 players were reset") {
		t.Fatalf("pressed again:\n%s", txt)
	}
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatalf("alice, recorded as done, was reset: %+v", p.Stats)
	}
	if p := e.player(bob); p.Stats.Plays != 0 {
		t.Fatalf("bob not reset: %+v", p.Stats)
	}
	if es := e.audit(10); len(es) != 1 || es[0].Action != game.ActionResetGuild || es[0].Amount != 2 {
		t.Fatalf("audit: %+v", es)
	}
	g, err := e.store.Guild(t.Context(), testGuild)
	if err != nil || g.Reset == nil || !g.Reset.Finished() || g.Reset.After != bob || !g.Has(op) {
		t.Fatalf("guild after the reset: %+v, %v", g, err)
	}
}

func TestLeaderboardShowsTheCallersRank(t *testing.T) {
	e := newEnv(t)
	for k := range 12 {
		e.setBalance(uint64(3000000000000000000+k), int64(10000-100*k))
	}
	e.setBalance(alice, 1200)
	h := e.slash(alice, "en-US", "leaderboard")
	txt := h.text()
	if !strings.Contains(txt, "#13 you — 12.00 credits") || !strings.Contains(txt, "13 players") ||
		!strings.Contains(txt, "**10.**") || strings.Contains(txt, "**11.**") {
		t.Fatalf("leaderboard:\n%s", txt)
	}
	// In the top 10: no extra line.
	e.setBalance(alice, 999999)
	if txt := e.slash(alice, "fr", "leaderboard").text(); strings.Contains(txt, "vous —") || !strings.Contains(txt, "🥇 <@1000000000000000001>") {
		t.Fatalf("leaderboard:\n%s", txt)
	}
}

func TestConflictAsksToTryAgain(t *testing.T) {
	e := newEnv(t)
	e.slash(alice, "en-US", "play")
	p := e.player(alice)
	// Another writer always comes first: the store gives up.
	e.store.conflict.Store(true)
	h := e.click(alice, cardWith(autoID(alice, p.Ticket.ID)), autoID(alice, p.Ticket.ID))
	h.expectUserError("nothing was changed. Please try again")
	e.store.conflict.Store(false)
	if q := e.player(alice); q.Ticket.Drawn {
		t.Fatal("a conflicted reveal was written")
	}
	if e.obs.interactions["auto user_error"] != 1 || len(e.obs.storeErrors) != 0 {
		t.Fatalf("observed %v, store errors %v", e.obs.interactions, e.obs.storeErrors)
	}
}

// askResetGuild has alice and bob play, then asks for a reset-guild in the
// message id, and returns that message and its confirm button's custom ID.
func askResetGuild(e *env, id string) (*discordgo.Message, string) {
	for _, u := range []uint64{alice, bob} {
		e.slash(u, "en-US", "play")
	}
	ask := e.admin(moderator, modPermsSet, "reset-guild")
	msg := ask.message()
	msg.ID = id
	return msg, ask.mustButton("v1:rg:").CustomID
}
