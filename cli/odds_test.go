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

func TestOddsBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		help bool
	}{
		{[]string{"-lang", "de"}, false},
		{[]string{"-nope"}, false},
		{[]string{"extra"}, false},
		{[]string{"-h"}, true},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		err := runOdds(context.Background(), tc.args, &out, &errOut)
		var ue usageError
		switch {
		case tc.help && !errors.Is(err, flag.ErrHelp):
			t.Errorf("odds %v: error %v, want flag.ErrHelp", tc.args, err)
		case !tc.help && !errors.As(err, &ue):
			t.Errorf("odds %v: error %v, want a usage error", tc.args, err)
		}
		if out.Len() != 0 {
			t.Errorf("odds %v: printed %q on a bad command line", tc.args, out.String())
		}
		want := 2
		if tc.help {
			want = 0 // help asked for is not an error
		}
		if ExitCode(err) != want {
			t.Errorf("odds %v: exit code %d, want %d", tc.args, ExitCode(err), want)
		}
	}
}
