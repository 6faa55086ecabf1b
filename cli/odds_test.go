package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestOddsPrintsRegulationFigures(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-lang", "fr"}, []string{
			// Article 3.1.3, digit for digit.
			"2 000 000,000", "751 879,699", "400,000", "86,207", "14,211", "5,882",
			"1 chance in 3,93",
			// Article 3.2.
			"250 000,000", "16,667", "1,916", "2,392",
			"72,000 %", "18/25", "241/10", "1071/10",
		}},
		{nil, []string{
			"2,000,000.000", "751,879.699", "400.000", "86.207", "14.211", "5.882",
			"1 chance in 3.93", "250,000.000", "16.667", "1.916", "2.392",
			"72.000%", "24.100 cents", "107.100 cents", "9.000",
		}},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if err := runOdds(context.Background(), tc.args, &out, &errOut); err != nil {
			t.Fatalf("odds %v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("odds %v: output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
	}
}

// TestBadFlags: a bad command line is a usage error (exit status 2) that
// prints nothing on stdout; -h is flag.ErrHelp (exit status 0).
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		help bool
	}{
		{[]string{"odds", "-lang", "de"}, false},
		{[]string{"odds", "-nope"}, false},
		{[]string{"odds", "extra"}, false},
		{[]string{"odds", "-h"}, true},
		{[]string{"simulate", "-n", "0"}, false},
		{[]string{"simulate", "-n", "-5"}, false},
		{[]string{"simulate", "-n", "lots"}, false},
		{[]string{"simulate", "-n", "1.5"}, false},
		{[]string{"simulate", "-n", "1e40"}, false},
		{[]string{"simulate", "-seed", "-1"}, false},
		{[]string{"simulate", "-workers", "0"}, false},
		{[]string{"simulate", "-fair=maybe"}, false},
		{[]string{"simulate", "-bogus"}, false},
		{[]string{"simulate", "now"}, false},
		{[]string{"simulate", "-h"}, true},
		{[]string{"export", "-nope"}, false},
		{[]string{"export", "extra"}, false},
		{[]string{"import", "a", "b"}, false},
		{[]string{"import", "-i", "a", "b"}, false},
		{[]string{"audit", "x"}, false},
		{[]string{"restore", "x"}, false},
		{[]string{"register", "extra"}, false},
	} {
		var out, errOut bytes.Buffer
		err := subcommands[tc.args[0]].run(context.Background(), tc.args[1:], &out, &errOut)
		var ue usageError
		switch {
		case tc.help && !errors.Is(err, flag.ErrHelp):
			t.Errorf("%v: error %v, want flag.ErrHelp", tc.args, err)
		case !tc.help && !errors.As(err, &ue):
			t.Errorf("%v: error %v, want a usage error", tc.args, err)
		}
		if out.Len() != 0 {
			t.Errorf("%v: printed %q on a bad command line", tc.args, out.String())
		}
		if want := map[bool]int{false: 2, true: 0}[tc.help]; ExitCode(err) != want {
			t.Errorf("%v: exit code %d, want %d", tc.args, ExitCode(err), want)
		}
	}
}
