package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
)

// Hooks change what production fixes, for tests. The zero value is production.
type Hooks struct {
	// Drawer draws plays and chests; nil means secure random draws.
	Drawer storage.Drawer
	// Now gives the time to the store and the handlers; nil means time.Now.
	Now func() time.Time
	// Started is called once the bot is connected and its commands registered.
	Started func(*Bot)
	// Registry receives the metrics; nil means a new metrics.NewRegistry().
	Registry *prometheus.Registry
}

// Main runs the bot process with cfg until ctx ends: it opens the store,
// serves /metrics and /healthz when cfg.MetricsAddr is set, builds the
// handlers, runs the Bot and, at the end, closes everything. It returns the
// first error that stopped it (nil after a clean shutdown).
func Main(ctx context.Context, cfg config.Config, log *slog.Logger, hooks Hooks) (err error) {
	if log == nil {
		log = slog.Default()
	}
	log.Info("starting", "config", cfg, "store", backend.Describe(cfg.RedisURL, cfg.DataPath))
	store, err := backend.Open(ctx, cfg.RedisURL, cfg.DataPath, storage.Options{
		Now:    hooks.Now,
		Drawer: hooks.Drawer,
		Defaults: storage.Settings{
			StartingBalance: cfg.StartingBalance,
			DailyAmount:     cfg.DailyAmount,
			DailyCooldown:   cfg.DailyCooldown,
			PublicPlays:     cfg.PublicPlays,
		},
	})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := store.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close store: %w", cerr))
		}
	}()

	reg := hooks.Registry
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	m := metrics.New(reg)
	app := commands.New(commands.Config{
		Emoji: cfg.Emoji, Hidden: cfg.Hidden, Now: hooks.Now, Observer: m, Logger: log,
	}, store)
	b, err := New(Options{
		Token: cfg.Token, GuildID: cfg.GuildID, APIBase: cfg.APIBase,
		ShardID: cfg.ShardID, ShardCount: cfg.ShardCount,
		ShutdownTimeout: cfg.ShutdownTimeout, Logger: log,
		GatewayLogLevel: GatewayLogLevel(cfg.LogLevel),
	}, app)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	metricsDone := make(chan error, 1)
	if cfg.MetricsAddr != "" {
		health := metrics.Health(
			metrics.Check{Name: "gateway", Run: b.Health},
			metrics.Check{Name: "store", Run: store.Ping},
		)
		go func() {
			err := metrics.Serve(ctx, cfg.MetricsAddr, reg, health, log)
			if err != nil {
				log.Error("metrics listener failed; stopping", "addr", cfg.MetricsAddr, "err", err)
				cancel()
			}
			metricsDone <- err
		}()
	} else {
		metricsDone <- nil
	}
	if hooks.Started != nil {
		go func() {
			select {
			case <-b.Ready():
				hooks.Started(b)
			case <-ctx.Done():
			}
		}()
	}
	err = b.Run(ctx)
	cancel()
	return errors.Join(err, <-metricsDone)
}

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
