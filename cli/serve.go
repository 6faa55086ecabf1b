package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/sync/errgroup"

	"github.com/lesclefsdutresor/clefs/activity"
	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/fairpage"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/settingscache"
)

// Hooks change what production fixes, for tests. The zero value is production.
type Hooks struct {
	Drawer game.Drawer      // nil: game.SeededDrawer{}
	Now    func() time.Time // the game's time; nil: time.Now
	Seeds  io.Reader        // new players' seeds; nil: crypto/rand.Reader
	// Started is called once the transport serves, with the HTTP
	// endpoint's address ("" for the gateway).
	Started          func(addr string)
	IdentifyInterval time.Duration     // between batches of gateway shards; 0: Discord's 5 s
	DisconnectGrace  time.Duration     // a shard's downtime before /healthz says so; 0: bot's default
	Public           func(addr string) // called once the public listener listens
}

// The metrics count the transports' REST calls to Discord too, which the
// transports find by a type assertion (as announcer does): the compiler
// checks the handlers' and the transports' observers where Serve passes m.
var _ bot.RESTObserver = (*metrics.Metrics)(nil)

// Serve is the composition root, which `go run .` and the end-to-end tests
// run: until ctx ends, it checks the token, opens the store, serves the
// metrics, /fair and the Activity where configured, and runs the gateway
// or the HTTP endpoint. It returns the first error that stopped it (nil
// after a clean shutdown), without logging it.
func Serve(ctx context.Context, cfg config.Config, log *slog.Logger, hooks Hooks) (err error) {
	log = cmp.Or(log, slog.Default())
	info := buildinfo.Read()
	log.Info("starting", "build", info, "config", cfg, "store", backend.Describe(cfg.RedisURL, cfg.DataPath))
	// The token first, before the store is opened, let alone created.
	s, err := bot.NewSession(cfg.Token, cfg.APIBase, bot.TransportOptions{Logger: log})
	if err != nil {
		return err
	}
	me, err := bot.CheckToken(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting: a clean shutdown
		}
		return err
	}
	log.Info("bot token accepted", "bot_user", me.Username, "bot_id", me.ID, "api_base", cfg.APIBase)
	store, err := backend.Open(ctx, cfg.RedisURL, cfg.DataPath, storage.Options{
		Defaults: game.Settings{
			StartingBalance: cfg.StartingBalance,
			DailyAmount:     cfg.DailyAmount,
			DailyCooldown:   cfg.DailyCooldown,
			PublicPlays:     cfg.PublicPlays,
			House:           game.DefaultHouse,
		},
	}, redisstore.WithReplicaAck(cfg.RedisMinReplicas, cfg.RedisReplicaTimeout))
	if err != nil {
		return err
	}
	if r, ok := store.(*redisstore.Store); ok {
		log.Info("Redis store: each write acknowledged once replicas hold it", "min_replicas", r.MinReplicas(), "timeout", cfg.RedisReplicaTimeout)
	}
	defer func() {
		if cerr := store.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close store: %w", cerr))
		}
	}()
	if r, ok := store.(storage.Restorer); ok {
		if id, err := r.Restoring(ctx); err != nil || id != "" {
			return cmp.Or(err, fmt.Errorf("the store is a copy put back, waiting for its restore %q: stop, run clefs restore with the same store, then start again (docs/operating.md, \"Restoring\")", id))
		}
	}

	reg := metrics.NewRegistry()
	m := metrics.New(reg)
	metrics.BuildInfo(reg, info)
	app := NewHandlers(cfg, store, m, log, hooks)
	defer app.Wait() // the late steps, which end with the transport's handlers, before the store closes
	var (
		name   = "gateway" // in /healthz
		health func(context.Context) error
		run    func(ctx context.Context) error
	)
	opts := bot.Options{ // no Now: signatures and health go by the wall clock, not the game's
		Token: cfg.Token, GuildID: cfg.GuildID, APIBase: cfg.APIBase, ShutdownTimeout: cfg.ShutdownTimeout,
		Logger: log, Observer: m, LogLevel: bot.DiscordgoLogLevel(cfg.DiscordgoLogLevel),
	}
	if cfg.InteractionsAddr != "" {
		e, err := bot.NewEndpoint(bot.EndpointOptions{Options: opts, PublicKey: cfg.PublicKey, Addr: cfg.InteractionsAddr}, app)
		if err != nil {
			return err
		}
		name, health = "interactions endpoint", e.Health
		run = func(ctx context.Context) error {
			return e.Run(ctx, func(addr net.Addr) {
				if hooks.Started != nil {
					hooks.Started(addr.String())
				}
			})
		}
	} else {
		g, err := bot.NewGateway(bot.GatewayOptions{
			Options: opts, ShardCount: cfg.ShardCount, ShardIDs: cfg.ShardIDs,
			IdentifyInterval: hooks.IdentifyInterval, DisconnectGrace: hooks.DisconnectGrace,
		}, app)
		if err != nil {
			return err
		}
		health = g.Health
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
	// The listeners, the snapshots and the transport: the first error
	// stops them all, and Wait lets a snapshot being written finish before
	// the store closes.
	eg, ctx := errgroup.WithContext(ctx)
	if cfg.PublicAddr != "" {
		public := http.NewServeMux()
		public.Handle("GET /fair", fairpage.Handler())
		if cfg.ActivityEnabled() {
			var bus activity.Bus // one process's on the embedded store
			if r, ok := store.(*redisstore.Store); ok {
				bus = r
			}
			act, err := activity.New(activity.Options{
				Game: app, AppID: me.ID, ClientSecret: cfg.ClientSecret, Token: cfg.Token, APIBase: cfg.APIBase, Logger: log, Bus: bus, Done: ctx.Done(),
			})
			if err != nil {
				return err
			}
			public.Handle("/activity", act) // Discord's root mapping, not redirected
			public.Handle("/activity/", act)
		}
		eg.Go(func() error {
			if err := metrics.ServeHTTP(ctx, cfg.PublicAddr, "public listener", public, log, hooks.Public); err != nil {
				return fmt.Errorf("public listener: %w", err)
			}
			return nil
		})
	}
	// Every goroutine starts below the last early return, so that Wait
	// always waits for them.
	eg.Go(func() error { // background jobs (reset-guild), taken up from any process; they stop with ctx, before the store closes
		_ = app.RunJobs(ctx)
		return nil
	})
	if cfg.MetricsAddr != "" {
		health := metrics.Health(
			metrics.Check{Name: name, Run: health},
			metrics.Check{Name: "store", Run: store.Ping},
		)
		eg.Go(func() error { // its error is returned, which main prints: not logged here
			return metrics.Serve(ctx, cfg.MetricsAddr, reg, health, info, log)
		})
	}
	if cfg.BackupDir != "" {
		eg.Go(func() error {
			takeSnapshots(ctx, store, cfg.BackupDir, cfg.BackupInterval, cfg.BackupKeep, time.Now, m.Snapshot, log)
			return nil
		})
	}
	eg.Go(func() error {
		defer cancel() // the transport stopped: so do the others
		return run(ctx)
	})
	return eg.Wait()
}

// NewHandlers builds the handlers as the bot serves them, over store (obs
// may be nil): Serve calls it, and so does the load generator.
func NewHandlers(cfg config.Config, store storage.Store, obs commands.Observer, log *slog.Logger, hooks Hooks) *commands.App {
	// /play reads the guild's settings: a second's cache spares a store
	// round trip (wall clock: caching is not game time).
	cached := settingscache.New(store, time.Second, time.Now)
	return commands.New(commands.Config{
		Emoji: cfg.Emoji, Hidden: cfg.Hidden, Now: hooks.Now, Observer: obs, Logger: log,
		Drawer: hooks.Drawer, Seeds: hooks.Seeds,
		ApplicationEmojis: cfg.AppEmojis, // uploaded by the transport at start (bot.EmojiHandler)
		PublicURL:         cfg.PublicURL,
		Activity:          cfg.ActivityEnabled(), // "Scratch by hand" and the entry point
		Announce:          announcer(cfg, obs, log),
	}, cached)
}

// announcer posts the Activity's finished tickets in their channel, with
// the bot's token (nil when the Activity is off).
func announcer(cfg config.Config, obs commands.Observer, log *slog.Logger) func(context.Context, uint64, *discordgo.MessageSend) error {
	if !cfg.ActivityEnabled() {
		return nil
	}
	ro, _ := obs.(bot.RESTObserver) // *metrics.Metrics is one
	s, err := bot.NewSession(cfg.Token, cfg.APIBase, bot.TransportOptions{Observer: ro, Logger: log})
	if err != nil { // no token: Load refuses that
		log.Error("no session to announce the Activity's tickets", "err", err)
		return nil
	}
	return func(ctx context.Context, channel uint64, m *discordgo.MessageSend) error {
		_, err := s.ChannelMessageSendComplex(strconv.FormatUint(channel, 10), m, discordgo.WithContext(ctx))
		return err
	}
}

// snapshotter is a store that can copy itself while it serves (boltstore).
type snapshotter interface {
	Snapshot(ctx context.Context, dir string, keep int, now time.Time) (string, error)
}

// takeSnapshots snapshots store into dir every interval, the first at
// once, keeping the newest keep, until ctx ends; each result is logged and
// counted (done).
func takeSnapshots(ctx context.Context, store storage.Store, dir string, interval time.Duration, keep int,
	now func() time.Time, done func(ok bool, at time.Time), log *slog.Logger) {
	s, ok := store.(snapshotter)
	if !ok {
		log.Error("BACKUP_DIR is set but this store takes no snapshots", "dir", dir)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		start := now()
		path, err := snapshot(ctx, s, dir, keep, start)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && path == "":
			log.Error("snapshot failed", "dir", dir, "err", err)
			done(false, start)
		case err != nil: // taken, but the oldest ones could not be removed
			log.Warn("snapshot taken, cleanup failed", "path", path, "err", err)
			done(true, start)
		default:
			log.Info("snapshot taken", "path", path, "took", now().Sub(start).Round(time.Millisecond))
			done(true, start)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// snapshot takes one snapshot; a panic is its error: one bad snapshot must
// neither end the process nor stop the next ones.
func snapshot(ctx context.Context, s snapshotter, dir string, keep int, at time.Time) (path string, err error) {
	defer func() {
		if p := recover(); p != nil {
			path, err = "", fmt.Errorf("panic: %v", p)
		}
	}()
	return s.Snapshot(ctx, dir, keep, at)
}
