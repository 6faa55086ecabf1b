package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// ErrNotEmpty is returned by Run when the Redis database it is pointed at
// holds keys: a load test writes thousands of plays and must not be run
// against a production store by mistake.
var ErrNotEmpty = errors.New("loadtest: the Redis database already holds keys")

// backend is the store of a run, with what it takes to measure it and to
// remove what the run wrote.
type backend struct {
	store storage.Store
	desc  string
	url   string // the Redis URL; "" for bolt
	// server reads the store server's counters (Redis); nil for bolt.
	server func(context.Context) (ServerStats, error)
	redis  redis.UniversalClient
	// cleanup removes what the run wrote in guilds and closes the store; it
	// returns a line for the report.
	cleanup func(ctx context.Context, guilds []uint64) (string, error)
}

// openBackend opens the store cfg names, with the settings of a new
// guild: Redis at cfg.RedisURL, or a bolt file in a new temporary folder,
// removed with it at the end.
func openBackend(ctx context.Context, cfg Config, defaults game.Settings) (*backend, error) {
	opts := storage.Options{Defaults: defaults} // the stores neither draw nor read the clock
	if cfg.RedisURL != "" {
		return openRedis(ctx, cfg.RedisURL, opts)
	}
	tmp, err := os.MkdirTemp("", "clefs-loadtest-")
	if err != nil {
		return nil, fmt.Errorf("loadtest: temporary store: %w", err)
	}
	path := filepath.Join(tmp, "clefs.db")
	st, err := boltstore.Open(path, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("loadtest: store %s: %w", path, err)
	}
	return &backend{store: st, desc: "bolt, temporary file " + path,
		cleanup: func(context.Context, []uint64) (string, error) {
			return "temporary file " + path + " removed", errors.Join(st.Close(), os.RemoveAll(tmp))
		},
	}, nil
}

// openRedis connects to the database at u, refusing one with any key, and
// opens the store as the bot does (redisstore.Open: the layout checked, and
// marked). At the end it deletes every key of the run's guilds and the
// layout marker.
func openRedis(ctx context.Context, u string, opts storage.Options) (*backend, error) {
	if err := loopbackOnly(u); err != nil {
		return nil, err
	}
	client, err := redisstore.NewClient(u)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	n, err := client.DBSize(ctx).Result()
	if err == nil && n > 0 {
		err = fmt.Errorf("%w: %d keys", ErrNotEmpty, n)
	}
	var st storage.Store
	if err == nil {
		st, err = redisstore.Open(ctx, u, opts)
	}
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("loadtest: redis: %w", err)
	}
	return &backend{
		store:  st,
		desc:   "redis " + redisstore.RedactURL(u),
		url:    u,
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
			if err == nil {
				err = client.Del(ctx, redisstore.LayoutKey).Err()
			}
			line := fmt.Sprintf("%d Redis keys of the run's %d guilds deleted", n, len(guilds))
			if left, err := client.DBSize(ctx).Result(); err == nil {
				line += fmt.Sprintf("; %d keys left in the database", left)
			}
			return line, errors.Join(err, st.Close(), client.Close())
		},
	}, nil
}

// loopbackOnly refuses a Redis URL with a host that is not a loopback
// address: a load test loads only this machine.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("loadtest: Redis URL %s: %w", redisstore.RedactURL(raw), err)
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
