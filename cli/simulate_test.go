package cli

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSimulateReport(t *testing.T) {
	tests := []struct {
		args  []string
		first string
	}{
		{[]string{"-n", "5_000_000", "-seed", "7", "-workers", "2", "-progress"},
			"Simulated 5,000,000 plays (seed 7, 2 workers, fast draws: ChaCha8, outcomes only)"},
		{[]string{"-n", "200_000", "-seed", "7", "-workers", "2", "-progress", "-fair"},
			"Simulated 200,000 plays (seed 7, 2 workers, verifiable draws: HMAC-SHA256, with grids)"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if err := runSimulate(context.Background(), tc.args, &out, &errOut); err != nil {
			t.Fatalf("simulate %v: %v\n%s", tc.args, err, errOut.String())
		}
		s := out.String()
		for _, want := range []string{
			tc.first, "plays/s",
			"gem", "barrel", "loss", "Chi-square, main game", "keys held", "three-gold", "bronze",
			"Chi-square, chest lots", "Return to player", "exact 72%",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("simulate %v: report lacks %q:\n%s", tc.args, want, s)
			}
		}
		// The p-values are printed and are probabilities.
		re := regexp.MustCompile(`p = ([0-9.]+|NaN)`)
		ms := re.FindAllStringSubmatch(s, -1)
		if len(ms) != 2 {
			t.Fatalf("simulate %v: want two p-values, got %v", tc.args, ms)
		}
		for _, m := range ms {
			p, err := strconv.ParseFloat(m[1], 64)
			if err != nil || p < 0 || p > 1 {
				t.Errorf("simulate %v: p-value %q", tc.args, m[1])
			}
		}
		// -progress ends with a final line on stderr, not on stdout.
		if !strings.Contains(errOut.String(), "100.0%") || strings.Contains(s, "simulate:") {
			t.Errorf("simulate %v: progress: stderr %q", tc.args, errOut.String())
		}
	}
}

func TestSimulateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	err := runSimulate(ctx, []string{"-n", "1e9"}, &out, &errOut)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed a report after cancellation")
	}
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"1_000_000", 1_000_000}, {"1,000", 1000}, {"1e9", 1_000_000_000}, {"2.5e3", 2500},
	}
	for _, tc := range tests {
		if got, err := parseCount(tc.in); err != nil || got != tc.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
