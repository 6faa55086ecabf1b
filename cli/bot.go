package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/joho/godotenv"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// runBot runs the bot (loadConfig, logs on stderr per LOG_LEVEL and
// LOG_FORMAT) until ctx ends.
func runBot(ctx context.Context, stderr io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler = slog.NewTextHandler(stderr, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(stderr, opts)
	}
	log := slog.New(h)
	warnDotenv(log)
	// discordgo and go-redis each keep one logger for the whole process:
	// set them once, before Serve opens anything.
	slog.SetDefault(log)
	bot.RouteDiscordgoLogs(log, bot.DiscordgoLogLevel(cfg.DiscordgoLogLevel))
	redisstore.RouteLogs(log)
	return Serve(ctx, cfg, log, Hooks{}) // main prints the error, once
}

// warnDotenv warns on log of each key of ./.env that the bot does not read
// (config.UnknownKeys): a typo, REDIS_ULR, would otherwise leave its
// setting at the default unnoticed. The bot and the subcommands that read
// .env call it; a missing .env is fine.
func warnDotenv(log *slog.Logger) {
	if env, err := godotenv.Read(); err == nil {
		for _, u := range config.UnknownKeys(env) {
			log.Warn("config: .env key not read by the bot, ignored", "key", u.Key, "did_you_mean", u.Closest)
		}
	}
}

// loadConfig loads the configuration as the bot does: from .env and the
// environment (the environment wins; a missing .env is fine).
func loadConfig() (config.Config, error) {
	if err := godotenv.Load(); err != nil && !errors.Is(err, os.ErrNotExist) {
		return config.Config{}, fmt.Errorf("read .env: %w", err)
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return config.Config{}, fmt.Errorf("bad configuration (see .env.example):\n%w", err)
	}
	return cfg, nil
}
