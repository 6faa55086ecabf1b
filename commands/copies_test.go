package commands

import (
	"regexp"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/rulecheck"
)

// TestNoCopyOfGameRules fails if a rule of package game comes back into
// this package as a copy: the handlers call game for every rule they
// explain (game.BalanceFull, game.CanCredit, Player.DailyReady,
// Ticket.KeysBefore, game.CheckReminder), so that the two can never
// drift apart (nearMaxBalance once stood one stake off game's rule).
func TestNoCopyOfGameRules(t *testing.T) {
	found, err := rulecheck.Check(".", rulecheck.Rules{
		// The copies removed, and the names a new one would likely take.
		Names: regexp.MustCompile(`(?i)^(nearMaxBalance|playHeadroom|headroom|balanceFull|canCredit|dailyReady|nextDaily|keysBefore|(min|max)Reminder|reminderBounds?|validReminder|checkReminder)$`),
		// A balance's bound and the reminder's are game's to check.
		NotCompared: []string{"game.MaxBalance", "game.MinReminder", "game.MaxReminder", "game.MaxOpID", "game.MaxGuildOps"},
		// The daily cooldown is Player.DailyReady's; the keys before a
		// ticket are Ticket.KeysBefore's.
		Never:        []string{"game.MaxBalance"},
		NoArithmetic: []string{"KeysAfter"},
		NeverFields:  []string{"LastDaily"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("a copy of a rule of game: %v", f)
	}
}
