package game_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// The two syntaxes the product uses: the configuration's (no sign, '.' only,
// up to 10^13 credits) and a moderator's (a sign, ',' or '.', below 10^10).
var (
	configSyntax    = game.CreditSyntax{Max: 1_000_000_000_000_000}
	moderatorSyntax = game.CreditSyntax{Signed: true, Comma: true, Max: 999_999_999_999}
)

func TestParseCredits(t *testing.T) {
	tests := []struct {
		in   string
		syn  game.CreditSyntax
		want int64
		err  error // nil when the amount is accepted
	}{
		{"0", configSyntax, 0, nil},
		{"20", configSyntax, 2000, nil},
		{"20.00", configSyntax, 2000, nil},
		{"20.5", configSyntax, 2050, nil},
		{"0.01", configSyntax, 1, nil},
		{"007.10", configSyntax, 710, nil},
		{"10000000000000", configSyntax, 1_000_000_000_000_000, nil},
		{"000000000000010000000000000.00", configSyntax, 1_000_000_000_000_000, nil}, // leading zeros count for nothing
		{"", configSyntax, 0, game.ErrCreditSyntax},
		{".5", configSyntax, 0, game.ErrCreditSyntax},
		{"5.", configSyntax, 0, game.ErrCreditSyntax},
		{"1.234", configSyntax, 0, game.ErrCreditDecimals},
		{"-1", configSyntax, 0, game.ErrCreditSyntax},
		{"+1", configSyntax, 0, game.ErrCreditSyntax},
		{"1e2", configSyntax, 0, game.ErrCreditSyntax},
		{"1,50", configSyntax, 0, game.ErrCreditSyntax},
		{" 1", configSyntax, 0, game.ErrCreditSyntax},
		{"NaN", configSyntax, 0, game.ErrCreditSyntax},
		{"10000000000001", configSyntax, 0, game.ErrCreditRange},
		{"10000000000000.01", configSyntax, 0, game.ErrCreditRange},
		{"99999999999999999999", configSyntax, 0, game.ErrCreditRange},
		{"99999999999999999999999999999999999999", configSyntax, 0, game.ErrCreditRange},

		{"12.50", moderatorSyntax, 1250, nil},
		{"12,5", moderatorSyntax, 1250, nil},
		{"+3", moderatorSyntax, 300, nil},
		{"-5", moderatorSyntax, -500, nil},
		{"-0,05", moderatorSyntax, -5, nil},
		{"9999999999.99", moderatorSyntax, 999_999_999_999, nil},
		{"-9999999999,99", moderatorSyntax, -999_999_999_999, nil},
		{"10000000000", moderatorSyntax, 0, game.ErrCreditRange},
		{"-10000000000.00", moderatorSyntax, 0, game.ErrCreditRange},
		{"99999999999", moderatorSyntax, 0, game.ErrCreditRange},
		{"-99999999999", moderatorSyntax, 0, game.ErrCreditRange},
		{" 7 ", moderatorSyntax, 0, game.ErrCreditSyntax}, // the caller trims
		{"--1", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"+-1", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"-", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"1e5", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"Inf", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"12.", moderatorSyntax, 0, game.ErrCreditSyntax},
		{",5", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"1 000", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"1,000.00", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"0x10", moderatorSyntax, 0, game.ErrCreditSyntax},
		{"١٢", moderatorSyntax, 0, game.ErrCreditSyntax}, // Arabic-Indic digits
		{"12,345", moderatorSyntax, 0, game.ErrCreditDecimals},
	}
	for _, tt := range tests {
		got, err := game.ParseCredits(tt.in, tt.syn)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParseCredits(%q, %+v) = %d, %v; want %d, %v", tt.in, tt.syn, got, err, tt.want, tt.err)
		}
	}
}

// TestParseCreditsWords checks the words the configuration shows as they are.
func TestParseCreditsWords(t *testing.T) {
	for in, want := range map[string]string{
		"x":              `"x" is not an amount of credits (e.g. 20.00)`,
		"1.005":          `"1.005": at most two decimals`,
		"1e99":           `"1e99" is not an amount of credits (e.g. 20.00)`,
		"2e13":           `"2e13" is not an amount of credits (e.g. 20.00)`,
		"20000000000000": `"20000000000000": too large`,
	} {
		if _, err := game.ParseCredits(in, configSyntax); err == nil || err.Error() != want {
			t.Errorf("ParseCredits(%q): %v, want %s", in, err, want)
		}
	}
}

func FuzzParseCredits(f *testing.F) {
	for _, s := range []string{"20.00", "0.5", "1.234", "x", "-1", "+2,5", "99999999999", "0010000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, syn := range []game.CreditSyntax{configSyntax, moderatorSyntax} {
			c, err := game.ParseCredits(s, syn)
			if err != nil {
				if c != 0 {
					t.Fatalf("ParseCredits(%q) = %d with %v", s, c, err)
				}
				if !errors.Is(err, game.ErrCreditSyntax) && !errors.Is(err, game.ErrCreditDecimals) && !errors.Is(err, game.ErrCreditRange) {
					t.Fatalf("ParseCredits(%q): %v wraps none of the errors", s, err)
				}
				continue
			}
			if c > syn.Max || -c > syn.Max || (c < 0 && !syn.Signed) {
				t.Fatalf("ParseCredits(%q, %+v) = %d", s, syn, c)
			}
			// Round trip through the canonical form.
			sign, abs := "", c
			if c < 0 {
				sign, abs = "-", -c
			}
			back, err := game.ParseCredits(fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100), syn)
			if err != nil || back != c {
				t.Fatalf("round trip of %q: %d → %d, %v", s, c, back, err)
			}
		}
	})
}
