package e2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// TestCare plays responsibly through the real bot and the real discordgo
// client: a stake limit stops the third ticket, a pause confirmed with its
// button stops the daily bonus, a moderator lifts it with a reason and sees
// the player's state; in English and in French.
func TestCare(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{})
	h.start()
	for _, tc := range []struct {
		locale                                     discordgo.Locale
		user                                       string
		limitSet, refused, paused, lifted, limitIs string
	}{
		{"en-US", alice, "Stakes per day: 1.00 credit, in force now", "would cross one of your limits, **Stakes per day: 1.00 credit**",
			"Your play is paused until", "pause is lifted", "Stakes per day: 1.00 credit"},
		{discordgo.French, bob, "Mises par jour : 1,00 crédit", "dépasserait l'une de vos limites, **Mises par jour : 1,00 crédit**",
			"Votre jeu est en pause jusqu'au", "est levée : il ou elle peut de nouveau jouer", "Mises par jour : 1,00 crédit"},
	} {
		t.Run(string(tc.locale), func(t *testing.T) {
			u, loc := tc.user, tc.locale
			r := h.slash(fakediscord.Slash{User: u, Locale: loc, Name: "limits", Sub: "set",
				Options: []fakediscord.Opt{{Name: "stake-day", Value: "1.00"}}})
			if !r.Ephemeral || !strings.Contains(text(r.Message), tc.limitSet) {
				t.Fatalf("/limits set:\n%s", text(r.Message))
			}
			card := h.slash(fakediscord.Slash{User: u, Locale: loc, Name: "play"}).Message
			card = h.click(card, "v1:auto:"+u, u).Message
			card = h.click(card, "v1:again:"+u, u).Message
			card = h.click(card, "v1:auto:"+u, u).Message
			r = h.slash(fakediscord.Slash{User: u, Locale: loc, Name: "play"})
			h.refused(r, "third /play")
			if !strings.Contains(text(r.Message), tc.refused) {
				t.Fatalf("third /play:\n%s", text(r.Message))
			}
			r = clickIn(h, card, "v1:again:"+u, u, loc)
			h.refused(r, "third Play again")
			if !strings.Contains(text(r.Message), tc.refused) {
				t.Fatalf("third Play again:\n%s", text(r.Message))
			}

			ask := h.slash(fakediscord.Slash{User: u, Locale: loc, Name: "pause", Options: []fakediscord.Opt{{Name: "length", Value: "24h"}}})
			if !ask.Ephemeral || !hasButton(ask.Message, "v1:pzx:") {
				t.Fatalf("/pause:\n%s", text(ask.Message))
			}
			done := clickIn(h, ask.Message, "v1:pz:"+u, u, loc)
			if !strings.Contains(text(done.Message), tc.paused) || len(fakediscord.Buttons(done.Message)) != 0 {
				t.Fatalf("confirmed:\n%s", text(done.Message))
			}
			r = h.slash(fakediscord.Slash{User: u, Locale: loc, Name: "daily"})
			h.refused(r, "/daily while paused")
			if !strings.Contains(text(r.Message), tc.paused) {
				t.Fatalf("/daily while paused:\n%s", text(r.Message))
			}

			who := []fakediscord.Opt{{Name: "user", Value: u}}
			r = h.slash(fakediscord.Slash{User: mod, Locale: loc, Name: "admin", Sub: "lift-pause", Perms: fakediscord.PermsModerator,
				Options: append(who, fakediscord.Opt{Name: "reason", Value: "asked by the player"})})
			if !strings.Contains(text(r.Message), tc.lifted) {
				t.Fatalf("lift-pause:\n%s", text(r.Message))
			}
			r = h.slash(fakediscord.Slash{User: mod, Locale: loc, Name: "admin", Sub: "player", Perms: fakediscord.PermsModerator, Options: who})
			if s := text(r.Message); !r.Ephemeral || !strings.Contains(s, tc.limitIs) || !strings.Contains(s, "asked by the player") || strings.Contains(s, tc.paused) {
				t.Fatalf("/admin player:\n%s", s)
			}
		})
	}

	// Several /play at once under a limit never stake past it.
	h.slash(fakediscord.Slash{User: carol, Name: "limits", Sub: "set", Options: []fakediscord.Opt{{Name: "stake-day", Value: "1.00"}}})
	for round := 0; round < 3; round++ {
		ps := make([]*fakediscord.Pending, 4)
		for i := range ps {
			ps[i] = h.send(fakediscord.Slash{User: carol, Name: "play"})
		}
		var cards []*discordgo.Message
		for _, p := range ps { // all sent before any answer is awaited
			r, err := p.Wait(h.ctx())
			if err != nil {
				t.Fatalf("concurrent /play: %v", err)
			}
			if r.Message != nil && hasButton(r.Message, "v1:auto:") {
				cards = append(cards, r.Message)
			}
		}
		if round < 2 && len(cards) == 0 {
			t.Fatalf("round %d: no ticket sold", round)
		}
		if round == 2 && len(cards) != 0 {
			t.Fatalf("round %d: a ticket sold past the limit", round)
		}
		if len(cards) > 0 {
			h.click(cards[0], "v1:auto:"+carol, carol)
		}
	}
	h.stop()
	h.noFailures()
	if p := h.player(carol); p.Stats.StakedCents != 2*game.Stake || p.Care.Spend.StakedDay != 2*game.Stake {
		t.Fatalf("carol staked %d (today %d), want %d", p.Stats.StakedCents, p.Care.Spend.StakedDay, 2*game.Stake)
	}
	for _, u := range []string{alice, bob} {
		if p := h.player(u); p.Stats.Plays != 2 || p.Balance != 2000-2*game.Stake || p.Paused(time.Now()) {
			t.Errorf("player %s: %d plays, balance %d, paused until %v", u, p.Stats.Plays, p.Balance, p.Care.PausedUntil)
		}
	}
}

// clickIn is h.click by a user of the locale.
func clickIn(h *harness, msg *discordgo.Message, prefix, user string, locale discordgo.Locale) fakediscord.Response {
	h.t.Helper()
	id := button(h.t, msg, prefix)
	p, err := h.srv.Click(h.ctx(), fakediscord.Click{Message: msg.ID, CustomID: id, User: user, Locale: locale})
	return h.answered(p, err, "click "+id+" by "+user)
}
