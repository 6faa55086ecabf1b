package storage_test

import (
	"regexp"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/rulecheck"
)

// TestNoCopyOfGameRules fails if a rule of package game comes back into
// storage or its stores (storetest and redistest, which test the bounds,
// aside): a guild's settings and audit entries are checked by game, the
// operations a guild remembers are bounded by game.ApplyGuild (stores
// trim nothing and check no operation ID), the history kinds are
// game.Kinds, the reminder bounds game.CheckReminder's.
func TestNoCopyOfGameRules(t *testing.T) {
	found, err := rulecheck.Check(".", rulecheck.Rules{
		Names:      regexp.MustCompile(`^(Settings|ValidateSettings|ValidateReason|MaxReason|MaxGuildOps|AuditEntry|Guild|GuildOps|[vV]alidKinds?|[hH]istoryKinds|[kK]inds|(Min|Max|min|max)Reminder)$`),
		Never:      []string{"game.MaxGuildOps", "storage.MaxGuildOps", "game.MaxOpID", "game.MinReminder", "game.MaxReminder"},
		ListPrefix: "game.Kind",
		MaxListed:  1,
		Skip:       []string{"storetest", "redistest"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("a copy of a rule of game: %v", f)
	}
}
