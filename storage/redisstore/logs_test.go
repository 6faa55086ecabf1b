package redisstore

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestPrintfLoggerWritesStructuredWarnings(t *testing.T) {
	var buf bytes.Buffer
	l := printfLogger{slog.New(slog.NewTextHandler(&buf, nil))}
	l.Printf(context.Background(), "pool: %s after %d attempts", "failed to dial", 5)
	want := `level=WARN msg="pool: failed to dial after 5 attempts" component=go-redis`
	if got := buf.String(); !strings.Contains(got, want) {
		t.Fatalf("logged %q, want it to contain %q", got, want)
	}
}
