package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// ErrNotEmpty is returned by Run when the store it is pointed at already
// holds data and Config.Force is not set: a load test writes thousands of
// plays and must not be run against a production store by mistake.
var ErrNotEmpty = errors.New("loadtest: the store already holds data (use -force to run against it anyway)")

// Store kinds.
const (
	StoreBolt  = "bolt"
	StoreRedis = "redis"
)

// backend is the store of a run, with what it takes to measure it and to
// remove what the run wrote.
type backend struct {
	store storage.Store
	desc  string
	path  string // the bolt file; "" on Redis
	// server reads the store server's counters (Redis); nil for bolt.
	server func(ctx context.Context) (ServerStats, error)
	// redis is the Redis store's client, for the floor; nil for bolt.
	redis redis.UniversalClient
	// cleanup removes what the run wrote in guilds and closes the store; it
	// returns a line for the report.
	cleanup func(ctx context.Context, guilds []uint64) (string, error)
}

// openBackend opens the store cfg names, refusing one that holds data
// unless cfg.Force.
func openBackend(ctx context.Context, cfg Config, log *slog.Logger) (*backend, error) {
	var opts storage.Options // the stores neither draw nor read the clock
	switch cfg.Store {
	case StoreRedis:
		return openRedis(ctx, cfg, opts)
	case StoreBolt, "":
		return openBolt(ctx, cfg, opts, log)
	}
	return nil, fmt.Errorf("loadtest: store %q: want %s or %s", cfg.Store, StoreBolt, StoreRedis)
}

// openBolt opens the bolt file cfg.DataPath, or one in a new temporary
// folder, removed with it at the end. A file the run creates is deleted
// at the end; an existing one must hold no player nor guild unless
// cfg.Force, and is left in place (the Store contract has no way to
// delete a guild).
func openBolt(ctx context.Context, cfg Config, opts storage.Options, log *slog.Logger) (*backend, error) {
	path, desc, tmp := cfg.DataPath, "bolt, file ", ""
	if path == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "clefs-loadtest-"); err != nil {
			return nil, fmt.Errorf("loadtest: temporary store: %w", err)
		}
		path, desc = filepath.Join(tmp, "clefs.db"), "bolt, temporary file "
	}
	_, err := os.Stat(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return nil, fmt.Errorf("loadtest: store %s: %w", path, err)
	}
	st, err := boltstore.Open(path, opts)
	if err != nil {
		err = fmt.Errorf("loadtest: store %s: %w", path, err)
	} else if !created {
		var empty bool
		empty, err = storeEmpty(ctx, st)
		if err == nil && !empty && !cfg.Force {
			err = fmt.Errorf("%w: %s has players or guilds", ErrNotEmpty, path)
		}
		if err != nil {
			st.Close()
		}
	}
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, err
	}
	return &backend{
		store: st,
		desc:  desc + path,
		path:  path,
		cleanup: func(_ context.Context, guilds []uint64) (string, error) {
			err := st.Close()
			switch {
			case tmp != "":
				if rerr := os.RemoveAll(tmp); rerr != nil {
					err = errors.Join(err, fmt.Errorf("loadtest: remove the temporary store: %w", rerr))
				}
				return "temporary file " + path + " removed", err
			case !created:
				log.Warn("the run's guilds stay in the existing store", "path", path, "guilds", guilds)
				return fmt.Sprintf("existing file %s kept, with the run's guilds %v", path, guilds), err
			}
			if rerr := os.Remove(path); rerr != nil {
				err = errors.Join(err, fmt.Errorf("loadtest: remove the store the run created: %w", rerr))
			}
			return "file " + path + " (created by the run) removed", err
		},
	}, nil
}

// errFound stops an export at the first record.
var errFound = errors.New("found")

// storeEmpty reports whether the store holds no player and no guild.
func storeEmpty(ctx context.Context, st storage.Store) (bool, error) {
	d, ok := st.(storage.Dumper)
	if !ok {
		return false, fmt.Errorf("loadtest: store %T cannot be listed", st)
	}
	err := d.ExportPlayers(ctx, func(storage.DecodedPlayer) error { return errFound })
	if err == nil {
		err = d.ExportGuilds(ctx, func(storage.DecodedGuild) error { return errFound })
	}
	if errors.Is(err, errFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("loadtest: read the store: %w", err)
	}
	return true, nil
}

// openRedis connects to cfg.RedisURL, refusing a database with any key
// unless cfg.Force, and opens the store as the bot does (redisstore.Open:
// the layout checked, and marked in a database without it). At the end it
// deletes every key of the run's guilds, and the layout marker if the run
// wrote it.
func openRedis(ctx context.Context, cfg Config, opts storage.Options) (*backend, error) {
	if cfg.RedisURL == "" {
		return nil, errors.New("loadtest: the Redis store needs a URL (-redis)")
	}
	if err := loopbackOnly(cfg.RedisURL); err != nil {
		return nil, err
	}
	client, err := redisstore.NewClient(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	n, err := client.DBSize(ctx).Result()
	if err == nil && n > 0 && !cfg.Force {
		err = fmt.Errorf("%w: the Redis database has %d keys", ErrNotEmpty, n)
	}
	var marked int64
	if err == nil {
		marked, err = client.Exists(ctx, redisstore.LayoutKey).Result()
	}
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("loadtest: redis: %w", err)
	}
	st, err := redisstore.Open(ctx, cfg.RedisURL, opts)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	return &backend{
		store:  st,
		desc:   "redis " + redactURL(cfg.RedisURL),
		server: RedisStats(client),
		redis:  client,
		cleanup: func(ctx context.Context, guilds []uint64) (string, error) {
			n := 0
			var err error
			for _, g := range guilds {
				var deleted int
				deleted, err = redisstore.DeleteGuild(ctx, client, g)
				n += deleted
				if err != nil {
					break
				}
			}
			if err == nil && marked == 0 {
				err = client.Del(ctx, redisstore.LayoutKey).Err()
			}
			line := fmt.Sprintf("%d Redis keys of the run's %d guilds deleted", n, len(guilds))
			if err == nil {
				line += remainingKeys(ctx, client)
			}
			return line, errors.Join(err, st.Close(), client.Close())
		},
	}, nil
}

// runGuilds returns the n guilds of a run, numbered from base.
func runGuilds(base uint64, n int) []uint64 {
	guilds := make([]uint64, n)
	for g := range guilds {
		guilds[g] = base + uint64(g)
	}
	return guilds
}

// finish removes what the run wrote in guilds and closes the store, even
// when ctx was cancelled (Ctrl-C), and logs it: the line says what was
// removed.
func (b *backend) finish(ctx context.Context, guilds []uint64, log *slog.Logger) (line string, err error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	line, err = b.cleanup(cctx, guilds)
	log.Info("cleaned up", "what", line)
	return line, err
}

// loopbackOnly refuses a Redis URL with a host that is not a loopback
// address: a load test loads only this machine.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("loadtest: Redis URL %s: %w", redactURL(raw), err)
	}
	if u.Scheme == "unix" {
		return nil
	}
	for _, hp := range strings.Split(u.Host, ",") {
		host := hp
		if h, _, err := net.SplitHostPort(hp); err == nil {
			host = h
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("loadtest: Redis host %q is not a loopback address: a load test only loads this machine", host)
		}
	}
	return nil
}

// remainingKeys tells how many keys the database still has, for the report.
func remainingKeys(ctx context.Context, c redis.UniversalClient) string {
	n, err := c.DBSize(ctx).Result()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("; %d keys left in the database", n)
}

// redactURL hides a Redis URL's password (as redisstore does in its errors).
func redactURL(u string) string {
	if at := strings.LastIndex(u, "@"); at >= 0 {
		if s := strings.Index(u, "://"); s >= 0 && s < at {
			return u[:s+3] + "…" + u[at:]
		}
	}
	return u
}
