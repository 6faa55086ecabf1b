package bot

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// DiscordgoLogLevel maps a name of DISCORDGO_LOG_LEVEL (docs/configuration.md;
// any other is "error") to discordgo's level.
func DiscordgoLogLevel(name string) int {
	levels := map[string]int{
		"off": discordgo.LogError - 1, "warn": discordgo.LogWarning, // off: not even errors
		"info": discordgo.LogInformational, "debug": discordgo.LogDebug,
	}
	if l, ok := levels[name]; ok {
		return l
	}
	return discordgo.LogError
}

// RouteDiscordgoLogs sends discordgo's lines up to level to log, with
// source=discordgo, at the slog level of the same name; it filters them
// too, since a session's LogLevel misses some. It returns a func that
// routes them back where they went before (nowhere, before the first
// call). discordgo.Logger is process-wide and read without a lock by
// goroutines that may outlive their session: it is set once, and a later
// call only swaps the route behind it, so that two bots in one process
// (tests, clefs try) do not race.
func RouteDiscordgoLogs(log *slog.Logger, level int) (restore func()) {
	route := discordgoLogger(log, level)
	prev := discordgoRoute.Swap(&route)
	discordgoOnce.Do(func() {
		discordgo.Logger = func(msgL, caller int, format string, a ...any) {
			if r := discordgoRoute.Load(); r != nil {
				(*r)(msgL, caller, format, a...)
			}
		}
	})
	return func() { discordgoRoute.Store(prev) }
}

var (
	discordgoRoute atomic.Pointer[func(msgL, caller int, format string, a ...any)]
	discordgoOnce  sync.Once
)

func discordgoLogger(log *slog.Logger, level int) func(msgL, caller int, format string, a ...any) {
	return func(msgL, _ int, format string, a ...any) {
		if msgL > level {
			return
		}
		l := slog.LevelDebug
		switch msgL {
		case discordgo.LogError:
			l = slog.LevelError
		case discordgo.LogWarning:
			l = slog.LevelWarn
		case discordgo.LogInformational:
			l = slog.LevelInfo
		}
		log.Log(context.Background(), l, fmt.Sprintf(format, a...), "source", "discordgo")
	}
}
