package commands_test

import (
	"math"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// TestOptionValue: the Go value of each type of option as a payload
// decoded from JSON carries it; anything else is refused.
func TestOptionValue(t *testing.T) {
	const (
		str  = discordgo.ApplicationCommandOptionString
		user = discordgo.ApplicationCommandOptionUser
		boo  = discordgo.ApplicationCommandOptionBoolean
		num  = discordgo.ApplicationCommandOptionNumber
		in   = discordgo.ApplicationCommandOptionInteger
	)
	for _, tc := range []struct {
		typ  discordgo.ApplicationCommandOptionType
		in   any
		want any // nil: refused
	}{
		{str, "x", "x"}, {user, "42", "42"}, {str, 1.0, nil}, {str, nil, nil},
		{boo, true, true}, {boo, "true", nil},
		{num, 1.5, 1.5}, {num, math.NaN(), nil}, {num, math.Inf(1), nil}, {num, "1", nil},
		{in, 7.0, int64(7)}, {in, -3.0, int64(-3)}, {in, float64(1 << 53), int64(1 << 53)},
		{in, float64(1<<53 + 2), nil}, {in, 7.5, nil}, {in, "7", nil}, {in, int64(7), nil}, // JSON numbers are float64
		{discordgo.ApplicationCommandOptionSubCommand, "x", nil},
	} {
		got, ok := commands.OptionValue(tc.typ, tc.in)
		if ok != (tc.want != nil) || got != tc.want {
			t.Errorf("OptionValue(%v, %#v) = %#v, %v; want %#v", tc.typ, tc.in, got, ok, tc.want)
		}
	}
}
