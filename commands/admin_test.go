package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

const (
	optString  = int(discordgo.ApplicationCommandOptionString)
	optUser    = int(discordgo.ApplicationCommandOptionUser)
	optBool    = int(discordgo.ApplicationCommandOptionBoolean)
	optChannel = int(discordgo.ApplicationCommandOptionChannel)
	optInt     = int(discordgo.ApplicationCommandOptionInteger)
)

func TestAdminPayloadFromTestdata(t *testing.T) {
	e := newEnv(t)
	h := e.handle(loadPayload(t, "slash_admin_grant.json", nil))
	if !h.ephemeral() || !strings.Contains(h.text(), "<@1000000000000000002> a reçu 12,50 crédits") {
		t.Fatalf("grant reply:\n%s", h.text())
	}
	if p := e.player(bob); p.Balance != startCents+1250 || p.Stats.GrantedCents != 1250 {
		t.Fatalf("bob after grant: %+v", p)
	}
	audit := e.admin(moderator, modPermsSet, "audit")
	if !strings.Contains(audit.text(), "contest prize") || !strings.Contains(audit.text(), "**grant**") {
		t.Fatalf("audit does not show the grant:\n%s", audit.text())
	}
}

func TestAdminRefusedToNonModerators(t *testing.T) {
	e := newEnv(t)
	subs := []struct {
		sub  string
		opts []opt
	}{
		{"grant", []opt{{"user", optUser, "1000000000000000002"}, {"amount", optString, "100"}}},
		{"set-balance", []opt{{"user", optUser, "1000000000000000002"}, {"amount", optString, "100"}}},
		{"reset", []opt{{"user", optUser, "1000000000000000002"}}},
		{"reset-guild", nil},
		{"settings", []opt{{"daily-amount", optString, "1000"}}},
		{"audit", nil},
	}
	for _, s := range subs {
		e.admin(alice, memberPerms, s.sub, s.opts...).expectUserError("Only moderators")
	}
	if e.exists(bob) {
		t.Fatal("a refused /admin created bob")
	}
	// An Administrator passes without Manage Server.
	h := e.admin(alice, memberPerms|discordgo.PermissionAdministrator, "grant",
		opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, "1"})
	if strings.Contains(h.text(), "❌") {
		t.Fatalf("administrator refused: %s", h.text())
	}
}

func TestAdminAmounts(t *testing.T) {
	cases := []struct {
		sub, amount string
		ok          bool
		want        int64 // bob's balance after
	}{
		{"grant", "12.50", true, startCents + 1250},
		{"grant", "12,5", true, startCents + 1250},
		{"grant", " 7 ", true, startCents + 700},
		{"grant", "+3", true, startCents + 300},
		{"grant", "-5", true, startCents - 500},
		{"grant", "-25", false, startCents}, // below zero
		{"grant", "1e5", false, startCents},
		{"grant", "NaN", false, startCents},
		{"grant", "Inf", false, startCents},
		{"grant", "12.345", false, startCents},
		{"grant", "12.", false, startCents},
		{"grant", ".5", false, startCents},
		{"grant", "1 000", false, startCents},
		{"grant", "1,000.00", false, startCents},
		{"grant", "99999999999", false, startCents},
		{"grant", "0x10", false, startCents},
		{"grant", "--1", false, startCents},
		{"grant", "", false, startCents},
		{"set-balance", "0", true, 0},
		{"set-balance", "3.05", true, 305},
		{"set-balance", "-1", false, startCents},
		{"set-balance", "١٢", false, startCents}, // Arabic-Indic digits
	}
	for _, c := range cases {
		t.Run(c.sub+" "+c.amount, func(t *testing.T) {
			e := newEnv(t)
			h := e.admin(moderator, modPermsSet, c.sub,
				opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, c.amount}, opt{"reason", optString, "test"})
			if !h.ephemeral() {
				t.Fatal("admin reply not ephemeral")
			}
			if failed := strings.HasPrefix(h.text(), "❌"); failed == c.ok {
				t.Fatalf("ok=%v, reply %q", c.ok, h.text())
			}
			if !c.ok {
				if e.exists(bob) {
					t.Fatalf("a refused %s created bob", c.sub)
				}
			} else if p := e.player(bob); p.Balance != c.want {
				t.Fatalf("balance %d, want %d", p.Balance, c.want)
			}
		})
	}
}

func TestAdminBadOptions(t *testing.T) {
	e := newEnv(t)
	for _, opts := range [][]opt{
		{{"user", optUser, "0"}, {"amount", optString, "1"}},
		{{"user", optUser, "abc"}, {"amount", optString, "1"}},
		{{"user", optString, "1000000000000000002"}, {"amount", optString, "1"}},
		{{"user", optUser, "1000000000000000002"}, {"amount", optInt, 5}},
		{{"user", optUser, "1000000000000000002"}},
		{{"user", optUser, "1000000000000000002"}, {"amount", optString, "1"}, {"reason", optString, strings.Repeat("x", 201)}},
		{{"user", optUser, "1000000000000000002"}, {"amount", optString, "1"}, {"reason", optBool, true}},
	} {
		e.admin(moderator, modPermsSet, "grant", opts...).expectUserError("")
	}
	e.handle(e.slashPayload(moderator, modPermsSet, "en-US", "admin", "")).expectUserError("missing or invalid")
	e.admin(moderator, modPermsSet, "nope").expectUserError("unknown")
	if e.exists(bob) {
		t.Fatalf("bad options created bob: %+v", e.player(bob))
	}
}

func TestAdminResetAndSettings(t *testing.T) {
	e := newEnv(t)
	e.slash(bob, "en-US", "play")
	h := e.admin(moderator, modPermsSet, "reset", opt{"user", optUser, "1000000000000000002"}, opt{"reason", optString, "cheating"})
	if strings.HasPrefix(h.text(), "❌") {
		t.Fatal(h.text())
	}
	if p := e.player(bob); p.Balance != startCents || p.Ticket != nil || p.Stats.Plays != 0 {
		t.Fatalf("bob after reset: %+v", p)
	}

	h = e.admin(moderator, modPermsSet, "settings",
		opt{"starting-balance", optString, "50"}, opt{"daily-amount", optString, "0"},
		opt{"public-plays", optBool, false}, opt{"channel", optChannel, "1110000000000000000"})
	if !strings.Contains(h.text(), "Settings saved") || !strings.Contains(h.text(), "<#1110000000000000000>") {
		t.Fatalf("settings reply:\n%s", h.text())
	}
	if set := e.settings(); set.StartingBalance != 5000 || set.DailyAmount != 0 || set.PublicPlays || set.Channel != testChannel {
		t.Fatalf("settings stored: %+v", e.settings())
	}
	e.slash(alice, "en-US", "daily").expectUserError("disabled")
	if e.exists(alice) {
		t.Fatal("a refused /daily created the player")
	}
	if h := e.slash(alice, "en-US", "balance"); !strings.Contains(h.text(), "**50.00 credits**") || !strings.Contains(h.text(), "No plays yet") {
		t.Fatalf("/balance of a new player:\n%s", h.text())
	}
	e.slash(alice, "en-US", "play")
	if p := e.player(alice); p.Balance != 5000-game.Stake {
		t.Fatalf("new player with starting balance %d", p.Balance+game.Stake)
	}
	e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000000"},
		opt{"any-channel", optBool, true}).expectUserError("not both")
	e.admin(moderator, modPermsSet, "settings", opt{"any-channel", optBool, true})
	if set := e.settings(); set.Channel != 0 {
		t.Fatalf("any-channel kept channel %d", set.Channel)
	}
	if h := e.admin(moderator, modPermsSet, "settings"); !strings.Contains(h.text(), "Game settings") {
		t.Fatalf("settings display:\n%s", h.text())
	}
}

func TestAdminResetGuildNeedsConfirmation(t *testing.T) {
	e := newEnv(t)
	e.slash(alice, "en-US", "play")
	e.slash(bob, "en-US", "play")
	ask := e.admin(moderator, modPermsSet, "reset-guild", opt{"reason", optString, "new season"})
	if !ask.ephemeral() {
		t.Fatal("confirmation not ephemeral")
	}
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatal("reset-guild acted before the confirmation")
	}
	ok := ask.mustButton("v1:rg:").CustomID
	msg := ask.message()

	// Another moderator, or a member who lost the permission, cannot confirm.
	e.handle(e.clickPayload(bob, modPermsSet, "en-US", msg, ok)).expectUserError("belong to")
	e.handle(e.clickPayload(moderator, memberPerms, "en-US", msg, ok)).expectUserError("Only moderators")

	// Too late.
	e.clock.Add(6 * time.Minute)
	e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, ok)).expectUserError("expired")
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatal("reset after expiry")
	}

	// In time.
	ask = e.admin(moderator, modPermsSet, "reset-guild", opt{"reason", optString, "new season"})
	h := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rg:").CustomID))
	if h.r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(h.text(), "Resetting… 0 players so far") || len(h.buttons()) != 0 {
		t.Fatalf("confirm: type %d\n%s", h.r.Type, h.text())
	}
	e.finishJobs()
	for _, u := range []uint64{alice, bob} {
		if p := e.player(u); p.Stats.Plays != 0 || p.Balance != startCents {
			t.Fatalf("player %d not reset: %+v", u, p)
		}
	}
	es, err := e.store.Audit(t.Context(), testGuild, 1)
	if err != nil || len(es) != 1 || es[0].Action != "reset-guild" || es[0].Reason != "new season" {
		t.Fatalf("audit: %+v %v", es, err)
	}

	// Cancel.
	ask = e.admin(moderator, modPermsSet, "reset-guild")
	h = e.handle(e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rgx:").CustomID))
	if !strings.Contains(h.text(), "nothing changed") {
		t.Fatalf("cancel:\n%s", h.text())
	}
}

// TestDailyCooldown: /daily delivered twice pays once; the next one is
// refused until the cooldown ends, saying when.
func TestDailyCooldown(t *testing.T) {
	e := newEnv(t)
	h := e.twice(e.slashPayload(alice, memberPerms, "en-US", "daily", ""))
	if p := e.player(alice); !strings.Contains(h.text(), "5.00 credits") || p.Balance != startCents+500 {
		t.Fatalf("a repeated /daily paid %d:\n%s", p.Balance-startCents, h.text())
	}
	next := storage.Timestamp(e.clock.Now()).Add(testDefaults.DailyCooldown)
	e.slash(alice, "en-US", "daily").expectUserError(timestamp(next.Unix(), "R"))
	e.clock.Add(21 * time.Hour)
	e.slash(alice, "en-US", "daily")
	if p := e.player(alice); p.Balance != startCents+1000 {
		t.Fatalf("balance %d after two bonuses", p.Balance)
	}
}

func TestInfoCommands(t *testing.T) {
	e := newEnv(t)
	e.slash(alice, "en-US", "play")
	e.slash(bob, "en-US", "daily")
	lb := e.slash(alice, "en-US", "leaderboard")
	if lb.ephemeral() || !strings.HasPrefix(lb.r.Data.Embeds[0].Description, "🥇 <@1000000000000000002>") {
		t.Fatalf("leaderboard:\n%s", lb.text())
	}
	if lb.r.Data.AllowedMentions == nil || len(lb.r.Data.AllowedMentions.Parse) != 0 {
		t.Fatal("leaderboard would ping players")
	}
	b := e.slash(alice, "fr", "balance")
	if !b.ephemeral() || !strings.Contains(b.text(), "19,50 crédits") || !strings.Contains(b.text(), "0 clef sur 3") {
		t.Fatalf("balance:\n%s", b.text())
	}
	hist := e.slash(bob, "en-US", "history")
	if !strings.Contains(hist.text(), "daily bonus +5.00 credits") {
		t.Fatalf("history:\n%s", hist.text())
	}
	if r := e.slash(alice, "fr", "rules"); !strings.Contains(r.text(), "1 chance sur 2 000 000,000") ||
		!strings.Contains(r.text(), "72,00 %") || !strings.Contains(r.text(), "par partie") {
		t.Fatalf("rules:\n%s", r.text())
	}
}

func TestHistoryShowsAWinsPrize(t *testing.T) {
	e := newEnv(t)
	e.drawer.setWant(func(o game.Outcome) bool { return o.Tier == game.TierBarrel })
	h := e.slash(alice, "fr", "play")
	e.click(alice, h.message(), autoID(alice, e.player(alice).Ticket.ID))
	hist := e.slash(alice, "fr", "history")
	// A barrel pays the stake back: the line says so, not just "0,00".
	if !strings.Contains(hist.text(), "gain 0,50 crédit (0,00 crédit net de la mise)") {
		t.Fatalf("history:\n%s", hist.text())
	}
}

// TestAdminAmountMessages: an amount of 10^10 credits or more is refused
// with the bound, not as a misspelling (game's TestParseCredits covers the
// grammar); a debit reads as a loss, not as "received -5.00" (its balance:
// TestAdminAmounts).
func TestAdminAmountMessages(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ sub, amount, want, not string }{
		{"grant", "99999999999", "99999999999 credits is more than this bot handles (at most 9,999,999,999.99)", ""},
		{"grant", "-99999999999", "99999999999 credits is more than this bot handles", ""},
		{"grant", "9x", "“9x” is not a valid amount", ""},
		{"set-balance", "-9x", "The amount cannot be negative here.", ""},
		{"grant", "-5", "lost 5.00 credits", "-5"},
	} {
		h := e.admin(moderator, modPermsSet, c.sub, opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, c.amount})
		if !strings.Contains(h.text(), c.want) || c.not != "" && strings.Contains(h.text(), c.not) {
			t.Errorf("%s %q: %q, want %q", c.sub, c.amount, h.text(), c.want)
		}
	}
}
