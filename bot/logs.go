package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bwmarrin/discordgo"
)

// LogOff is the discordgo log level that logs nothing, not even errors
// (discordgo's levels start at discordgo.LogError, 0).
const LogOff = -1

// DiscordgoLogLevel maps a name of DISCORDGO_LOG_LEVEL ("off", "error",
// "warn", "info", "debug") to discordgo's level, for GatewayOptions.LogLevel,
// EndpointOptions.LogLevel and RouteDiscordgoLogs. Any other name is "error".
// It is kept apart from the process's LOG_LEVEL: discordgo's informational
// and debug lines are its internals (each call entered and left, every
// gateway packet dumped), noise at the bot's debug level.
func DiscordgoLogLevel(name string) int {
	levels := map[string]int{
		"off": LogOff, "warn": discordgo.LogWarning,
		"info": discordgo.LogInformational, "debug": discordgo.LogDebug,
	}
	if l, ok := levels[name]; ok {
		return l
	}
	return discordgo.LogError
}

// RouteDiscordgoLogs sends discordgo's log output up to level (see
// DiscordgoLogLevel) to log, with source=discordgo, at the slog level of
// the same name (discordgo's informational lines at info). Lines above
// level are dropped here too, since some of discordgo's lines are not
// filtered by a session's LogLevel. discordgo.Logger is a package-level
// variable: call this once, from the composition root, never from parallel
// tests.
func RouteDiscordgoLogs(log *slog.Logger, level int) {
	discordgo.Logger = discordgoLogger(log, level)
}

// discordgoLogger is the discordgo.Logger of RouteDiscordgoLogs.
func discordgoLogger(log *slog.Logger, level int) func(msgL, caller int, format string, a ...any) {
	return func(msgL, _ int, format string, a ...any) {
		if msgL > level {
			return
		}
		log.Log(context.Background(), discordgoSlogLevel(msgL), fmt.Sprintf(format, a...), "source", "discordgo")
	}
}

// discordgoSlogLevel is the slog level of a discordgo message level.
func discordgoSlogLevel(msgL int) slog.Level {
	switch msgL {
	case discordgo.LogError:
		return slog.LevelError
	case discordgo.LogWarning:
		return slog.LevelWarn
	case discordgo.LogInformational:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}
