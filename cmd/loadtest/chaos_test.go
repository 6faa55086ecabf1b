package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestChaosHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("-h exits %d, want 0", code)
	}
	for _, want := range []string{"-chaos D instead runs the chaos test", "-chaos-fraction", "-chaos-seed", "-chaos-kinds", "-chaos-drops", "-chaos-retry-after"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("-h does not say %q:\n%s", want, errOut.String())
		}
	}
}

func TestChaosBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-chaos", "2s", "-redis", "redis://127.0.0.1:1/0", "-bot-process"}, 2, "-bot-process does not apply"},
		{[]string{"-chaos", "2s", "-chaos-fraction", "0.9"}, 1, "chaos fraction 0.9"},
		{[]string{"-chaos", "2s", "-chaos-kinds", "rate_limit,meteor"}, 1, "meteor"},
		{[]string{"-chaos", "2s", "-chaos-retry-after", "1h"}, 1, "retry_after 1h0m0s"},
		{[]string{"-chaos", "2s", "-players", "0"}, 2, "-players 0"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tt.args, &out, &errOut)
		if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%q: exit %d, want %d with %q; stderr:\n%s", tt.args, code, tt.code, tt.want, errOut.String())
		}
	}
}

// TestChaosRun runs a short chaos from the command line: exit 0 and a
// report with no breach.
func TestChaosRun(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-chaos", "2s", "-players", "4", "-chaos-seed", "7", "-chaos-drops", "1"} // the gateway by default
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("%q: exit %d; stdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
	}
	if strings.Contains(out.String(), "http:") {
		t.Errorf("-chaos ran the HTTP endpoint without -transport http:\n%s", out.String())
	}
	for _, want := range []string{"4 players per transport", "seed 7", "gateway:", "breaches: 0 (credit 0, ticket 0, key 0, unreachable 0, discord 0)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}
