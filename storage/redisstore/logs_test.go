package redisstore

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// go-redis's lines go to the logger routed last, as structured warnings.
func TestRouteLogsWritesStructuredWarnings(t *testing.T) {
	var first, buf bytes.Buffer
	RouteLogs(slog.New(slog.NewTextHandler(&first, nil)))
	RouteLogs(slog.New(slog.NewTextHandler(&buf, nil)))
	printfLogger{}.Printf(context.Background(), "pool: %s after %d attempts", "failed to dial", 5)
	want := `level=WARN msg="pool: failed to dial after 5 attempts" component=go-redis`
	if got := buf.String(); !strings.Contains(got, want) || first.Len() != 0 {
		t.Fatalf("logged %q (and %q to the first logger), want it to contain %q", got, first.String(), want)
	}
}
