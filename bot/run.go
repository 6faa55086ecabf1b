package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
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
	// Started is called once the transport serves and the commands are
	// registered, with the HTTP endpoint's address ("" for the gateway).
	Started func(addr string)
	// Registry receives the metrics; nil means a new metrics.NewRegistry().
	Registry *prometheus.Registry
	// IdentifyInterval is the wait between batches of gateway shards
	// opening; 0 means Discord's 5 s.
	IdentifyInterval time.Duration
}

// transport is what Main runs: the gateway or the HTTP endpoint.
type transport interface {
	Health(context.Context) error
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
	var (
		tr  transport
		run func(ctx context.Context) error
	)
	if cfg.InteractionsAddr != "" {
		e, err := NewEndpoint(EndpointOptions{
			Token: cfg.Token, PublicKey: cfg.PublicKey, Addr: cfg.InteractionsAddr,
			GuildID: cfg.GuildID, APIBase: cfg.APIBase, ShutdownTimeout: cfg.ShutdownTimeout,
			Logger: log, Observer: m, Now: hooks.Now,
		}, app)
		if err != nil {
			return err
		}
		tr = e
		run = func(ctx context.Context) error {
			return e.Run(ctx, func(addr net.Addr) {
				if hooks.Started != nil {
					hooks.Started(addr.String())
				}
			})
		}
	} else {
		g, err := NewGateway(GatewayOptions{
			Token: cfg.Token, GuildID: cfg.GuildID, APIBase: cfg.APIBase,
			ShardCount: cfg.ShardCount, ShardIDs: cfg.ShardIDs, IdentifyInterval: hooks.IdentifyInterval,
			ShutdownTimeout: cfg.ShutdownTimeout, Logger: log, Observer: m,
			LogLevel: GatewayLogLevel(cfg.LogLevel),
		}, app)
		if err != nil {
			return err
		}
		tr = g
		run = func(ctx context.Context) error {
			if hooks.Started != nil {
				go func() {
					select {
					case <-g.Ready():
						hooks.Started("")
					case <-ctx.Done():
					}
				}()
			}
			return g.Run(ctx)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	metricsDone := make(chan error, 1)
	if cfg.MetricsAddr != "" {
		health := metrics.Health(
			metrics.Check{Name: transportName(cfg), Run: tr.Health},
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
	err = run(ctx)
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

// transportName names the transport in /healthz.
func transportName(cfg config.Config) string {
	if cfg.InteractionsAddr != "" {
		return "interactions endpoint"
	}
	return "gateway"
}
