package bot

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestDiscordgoLogger: discordgo's lines up to DISCORDGO_LOG_LEVEL reach
// slog at the level of the same name, with source=discordgo; the rest,
// and everything when off, is dropped.
func TestDiscordgoLogger(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string // the lines logged, of error, warning, informational, debug
	}{
		{"off", nil},
		{"error", []string{"level=ERROR msg=e0 source=discordgo"}},
		{"", []string{"level=ERROR msg=e0 source=discordgo"}},
		{"warn", []string{"level=ERROR msg=e0", "level=WARN msg=w1"}},
		{"info", []string{"level=ERROR msg=e0", "level=WARN msg=w1", "level=INFO msg=i2"}},
		{"debug", []string{"level=ERROR msg=e0", "level=WARN msg=w1", "level=INFO msg=i2", "level=DEBUG msg=d3"}},
	} {
		var b bytes.Buffer
		log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
		f := discordgoLogger(log, DiscordgoLogLevel(tt.name))
		f(discordgo.LogError, 2, "e%d", 0)
		f(discordgo.LogWarning, 2, "w%d", 1)
		f(discordgo.LogInformational, 2, "i%d", 2)
		f(discordgo.LogDebug, 2, "d%d", 3)
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if b.Len() == 0 {
			lines = nil
		}
		if len(lines) != len(tt.want) {
			t.Errorf("DISCORDGO_LOG_LEVEL=%q: %d lines, want %d:\n%s", tt.name, len(lines), len(tt.want), b.String())
			continue
		}
		for k, w := range tt.want {
			if !strings.HasPrefix(lines[k], w) || !strings.HasSuffix(lines[k], "source=discordgo") {
				t.Errorf("DISCORDGO_LOG_LEVEL=%q: line %q, want %q… source=discordgo", tt.name, lines[k], w)
			}
		}
	}
}

// discordgo's lines go to the route set last; restoring puts back the one
// before it.
func TestRouteDiscordgoLogsSwapsAndRestores(t *testing.T) {
	var first, second bytes.Buffer
	restoreFirst := RouteDiscordgoLogs(slog.New(slog.NewTextHandler(&first, nil)), discordgo.LogError)
	defer restoreFirst()
	restore := RouteDiscordgoLogs(slog.New(slog.NewTextHandler(&second, nil)), discordgo.LogError)
	discordgo.Logger(discordgo.LogError, 0, "to the %s", "second")
	restore()
	discordgo.Logger(discordgo.LogError, 0, "to the %s", "first")
	if !strings.Contains(second.String(), "to the second") || strings.Contains(second.String(), "to the first") ||
		!strings.Contains(first.String(), "to the first") || strings.Contains(first.String(), "to the second") {
		t.Fatalf("first route got %q, second %q", first.String(), second.String())
	}
}
