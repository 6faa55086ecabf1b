package cli

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := Main(context.Background(), []string{"version"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "clefs ") || !strings.HasSuffix(out, runtime.Version()+"\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("version printed %q, want one line \"clefs …, %s\"", out, runtime.Version())
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"version", "extra"}, 2},
		{[]string{"version", "-json"}, 2},
		{[]string{"version", "-h"}, 0},
	}
	for _, tt := range tests {
		stdout.Reset()
		err := Main(context.Background(), tt.args, &stdout, &stderr)
		if err == nil || ExitCode(err) != tt.code || stdout.Len() != 0 {
			t.Errorf("%v: err %v (exit %d), stdout %q; want exit %d and no output", tt.args, err, ExitCode(err), stdout.String(), tt.code)
		}
	}
}
