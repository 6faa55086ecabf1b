package commands

import (
	"strings"
	"testing"
)

// TestJournalIsWhollyInTheReadersLanguage: the actions' names and what the
// bot writes in an audit entry beside the moderator's reason (the settings
// changed, the end of a pause lifted, a count of players) read in the
// reader's language; the moderator's own words are kept as they are.
func TestJournalIsWhollyInTheReadersLanguage(t *testing.T) {
	e := newEnv(t)
	e.admin(moderator, modPermsSet, "grant", opt{"user", optUser, "1000000000000000002"}, opt{"amount", optString, "1"})
	e.admin(moderator, modPermsSet, "settings", opt{"daily-amount", optString, "2"}, opt{"any-channel", optBool, true},
		opt{"reason", optString, "trop — généreux"})
	e.playTicket(bob, "en-US")
	e.confirmPause(bob, "en-US", e.pauseAsk(bob, "en-US", "30d"))
	e.admin(moderator, modPermsSet, "lift-pause", opt{"user", optUser, "1000000000000000002"}, opt{"reason", optString, "support 42"})
	e.admin(moderator, modPermsSet, "reset", opt{"user", optUser, "1000000000000000002"})

	fr := e.handle(e.slashPayload(moderator, modPermsSet, "fr", "admin", "audit")).text()
	for _, want := range []string{"bonus quotidien : 5,00 → 2,00", "“trop — généreux”", "pause jusqu'au <t:", "“support 42”", "<@1000000000000000002> · 20,00 crédits", "**crédit**", "**réglages modifiés**"} {
		if !strings.Contains(fr, want) {
			t.Errorf("French journal lacks %q:\n%s", want, fr)
		}
	}
	for _, english := range []string{"daily amount", "paused until", "credits"} {
		if strings.Contains(fr, english) {
			t.Errorf("French journal shows %q:\n%s", english, fr)
		}
	}
	en := e.admin(moderator, modPermsSet, "audit").text()
	for _, want := range []string{"daily amount 5.00 → 2.00", "paused until <t:", "“support 42”", "**grant**", "**settings changed**"} {
		if !strings.Contains(en, want) {
			t.Errorf("English journal lacks %q:\n%s", want, en)
		}
	}
}

// TestSettingsChangesRead: every part settingsChanges writes is read back
// in French; a part cut short is kept as it is.
func TestSettingsChangesRead(t *testing.T) {
	fr := newEnv(t).app.cat.fr
	for in, want := range map[string]string{
		"starting balance 20.00 → 1,234.50":   "solde initial : 20,00 → 1\u202f234,50",
		"daily amount 5.00 → off":             "bonus quotidien : 5,00 → désactivé",
		"plays public → private":              "parties : visibles du salon → visibles du seul joueur",
		"channel <#1> → any":                  "salon : <#1> → tous les salons",
		"max stake per day none → 10.00":      "mise maximale par jour : aucune → 10,00",
		"min interval off → 30s; channel any": "intervalle minimal : désactivé → 30s ; channel any",
	} {
		if got := settingsChangesIn(fr, in); got != want {
			t.Errorf("settingsChangesIn(%q) = %q, want %q", in, got, want)
		}
	}
}
