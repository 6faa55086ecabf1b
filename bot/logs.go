package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bwmarrin/discordgo"
)

// GatewayLogLevel maps the process's log level to discordgo's: its
// informational messages are debug-level for us.
func GatewayLogLevel(l slog.Level) int {
	switch {
	case l <= slog.LevelDebug:
		return discordgo.LogInformational
	case l <= slog.LevelWarn:
		return discordgo.LogWarning
	}
	return discordgo.LogError
}

// RouteDiscordgoLogs sends discordgo's log output to log. discordgo.Logger
// is a package-level variable: call this once, from main, never from
// parallel tests.
func RouteDiscordgoLogs(log *slog.Logger) {
	discordgo.Logger = func(msgL, caller int, format string, a ...any) {
		level := slog.LevelDebug
		switch msgL {
		case discordgo.LogError:
			level = slog.LevelError
		case discordgo.LogWarning:
			level = slog.LevelWarn
		}
		log.Log(context.Background(), level, fmt.Sprintf(format, a...), "source", "discordgo")
	}
}
