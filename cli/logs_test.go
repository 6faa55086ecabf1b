package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSubcommandRoutesGoRedisLogs: a subcommand's go-redis lines go through
// slog on the subcommand's stderr (structured, component=go-redis), not
// through go-redis's own logger on the process's stderr; at the default
// level they are left out, the subcommand's error saying the same.
func TestSubcommandRoutesGoRedisLogs(t *testing.T) {
	unreachable := "redis://127.0.0.1:1/0" // nothing listens on port 1
	for _, tt := range []struct {
		level string
		want  bool
	}{{"", false}, {"warn", true}} {
		t.Run("LOG_LEVEL="+tt.level, func(t *testing.T) {
			t.Setenv("LOG_LEVEL", tt.level)
			var stdout, stderr bytes.Buffer
			err := Main(context.Background(), []string{"export", "-redis", unreachable}, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
				t.Fatalf("export from an unreachable Redis: %v", err)
			}
			got := stderr.String()
			routed := strings.Contains(got, "component=go-redis") && strings.Contains(got, "failed to dial")
			if routed != tt.want {
				t.Errorf("go-redis's lines on the subcommand's stderr: %v, want %v:\n%s", routed, tt.want, got)
			}
			if strings.Contains(got, "pool.go") {
				t.Errorf("go-redis's own logger wrote:\n%s", got)
			}
		})
	}
}

func TestSubcommandLoggerLevel(t *testing.T) {
	for _, tt := range []struct{ env, want string }{
		{"", "ERROR"}, {"debug", "DEBUG"}, {"WARN", "WARN"}, {"nonsense", "ERROR"},
	} {
		var b bytes.Buffer
		log := subcommandLogger(&b, func(string) string { return tt.env })
		log.Debug("line DEBUG")
		log.Info("line INFO")
		log.Warn("line WARN")
		log.Error("line ERROR")
		if first, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(first, "level="+tt.want) {
			t.Errorf("LOG_LEVEL=%q: first line %q, want level %s", tt.env, first, tt.want)
		}
	}
}
