package e2e_test

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// TestMaximalInputsStayWithinDiscordsLimits: reasons at their maximum (200
// characters, the widest ones), amounts at theirs, in both languages,
// through every moderator view that shows them: the fake Discord, which
// refuses what Discord would (400), accepts every answer.
func TestMaximalInputsStayWithinDiscordsLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{})
	h.start()
	reason := strings.Repeat("💎", 200) // 200 characters, the option's maximum
	who := fakediscord.Opt{Name: "user", Value: alice}
	admin := func(loc discordgo.Locale, sub string, opts ...fakediscord.Opt) fakediscord.Response {
		t.Helper()
		return h.slash(fakediscord.Slash{User: mod, Locale: loc, Name: "admin", Sub: sub, Perms: fakediscord.PermsModerator, Options: opts})
	}
	h.slash(fakediscord.Slash{User: alice, Name: "play"})
	for range 6 {
		admin("", "grant", who, fakediscord.Opt{Name: "amount", Value: "9999999999.99"}, fakediscord.Opt{Name: "reason", Value: reason})
		admin("", "set-balance", who, fakediscord.Opt{Name: "amount", Value: "0"}, fakediscord.Opt{Name: "reason", Value: reason})
	}
	admin("", "settings", fakediscord.Opt{Name: "daily-amount", Value: "9999999999.99"}, fakediscord.Opt{Name: "reason", Value: reason})
	admin("", "reset", who, fakediscord.Opt{Name: "reason", Value: reason})
	for _, loc := range []discordgo.Locale{"", discordgo.French} {
		for _, sub := range []string{"player", "audit"} {
			var r fakediscord.Response
			if sub == "player" {
				r = admin(loc, sub, who)
			} else {
				r = admin(loc, sub)
			}
			if !r.Ephemeral || len(r.Message.Embeds) == 0 || !strings.Contains(text(r.Message), "💎") {
				t.Errorf("/admin %s (%s):\n%s", sub, loc, text(r.Message))
			}
		}
	}
	// The player's own views, with the balance and counts the grants left.
	for _, loc := range []discordgo.Locale{"", discordgo.French} {
		for _, c := range [][2]string{{"balance", ""}, {"history", ""}, {"leaderboard", ""}, {"daily", ""},
			{"rules", ""}, {"limits", "show"}, {"fairness", "show"}} {
			h.slash(fakediscord.Slash{User: alice, Username: strings.Repeat("W", 32), Locale: loc, Name: c[0], Sub: c[1]})
		}
	}
	if logs := h.logs.String(); strings.Contains(logs, "respond failed") || strings.Contains(logs, "edit") && strings.Contains(logs, "failed") {
		t.Errorf("Discord refused an answer:\n%s", logs)
	}
}
