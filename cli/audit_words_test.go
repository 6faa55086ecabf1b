package cli

import (
	"math/big"
	"testing"
)

// TestAuditWords: the audit's counts agree with their number ("1 player
// checked", "0 breaches") and one credit is singular, as the bot writes it.
func TestAuditWords(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(0, "player", "players"), "0 players"},
		{count(1, "player", "players"), "1 player"},
		{count(2, "player", "players"), "2 players"},
		{count(int64(1), "entry", "entries"), "1 entry"},
		{count(0, "breach", "breaches"), "0 breaches"},
		{bigCredits(big.NewInt(0)), "0.00 credits"},
		{bigCredits(big.NewInt(50)), "0.50 credits"},
		{bigCredits(big.NewInt(100)), "1.00 credit"},
		{bigCredits(big.NewInt(200)), "2.00 credits"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
