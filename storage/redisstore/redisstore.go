package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Store is the Redis store. See the package documentation for its keys
// and its scripts.
type Store struct {
	// replicas is how many replicas must hold a write before it is
	// acknowledged (WAIT, in the write's pipeline): 1 on Sentinel, whose
	// failover promotes a replica, else 0.
	replicas int
	rdb      redis.UniversalClient
	opts     storage.Options
	cache    *cache
	closed   atomic.Bool
}

var (
	_ storage.Store  = (*Store)(nil)
	_ storage.Dumper = (*Store)(nil)
)

// DefaultCacheSize is how many players a Store remembers by default.
const DefaultCacheSize = 4096

// Option configures a Store beyond storage.Options.
type Option func(*Store)

// WithCacheSize sets how many players the store remembers as it last wrote
// or read them, so that the usual step is one round trip (0: none, each
// step reads the player first).
func WithCacheSize(n int) Option {
	return func(s *Store) { s.cache = newCache(n) }
}

// WithReplicaAck makes every write wait, in its own pipeline, until n
// replicas hold it (Redis's WAIT, at most a second), so that a failover
// that promotes a replica keeps every write a player was shown. Open sets
// it to 1 for a Sentinel URL.
func WithReplicaAck(n int) Option { return func(s *Store) { s.replicas = n } }

// New returns a store over client, which it owns: Close closes it. The
// client's options are the caller's: tests pass a client with short
// timeouts. It checks nothing: Open checks the layout. Call LoadScripts
// before the first step to save a round trip.
func New(client redis.UniversalClient, opts storage.Options, options ...Option) *Store {
	s := &Store{rdb: client, opts: opts, cache: newCache(DefaultCacheSize)}
	for _, o := range options {
		o(s)
	}
	return s
}

// Open parses url (ParseURL), loads the scripts (which checks that Redis
// answers) and checks the database's layout (LayoutKey): one of another
// layout is refused with an error wrapping storage.ErrLayout.
func Open(ctx context.Context, url string, opts storage.Options, options ...Option) (*Store, error) {
	target, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	client := target.Client()
	if target.Mode == Sentinel {
		options = append([]Option{WithReplicaAck(1)}, options...)
	}
	s := New(client, opts, options...)
	if err := s.LoadScripts(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	if err := s.checkLayout(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// LoadScripts loads the store's scripts on every master, so that steps run
// with EVALSHA from the start. It is optional: a step falls back to EVAL.
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range []*redis.Script{playerScript, casScript} {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return s.wrap("load scripts", err)
		}
	}
	return nil
}

// Client returns the underlying client.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Close closes the client; later calls return storage.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.rdb.Close(); err != nil {
		return fmt.Errorf("redisstore: close: %w", err)
	}
	return nil
}

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.wrap("ping", s.rdb.Ping(ctx).Err())
}

// wrap turns a Redis error into the package's own: storage.ErrClosed once
// closed, else the error with the operation's name. Callers translate
// redis.Nil themselves.
func (s *Store) wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case s.closed.Load() || errors.Is(err, redis.ErrClosed):
		return storage.ErrClosed
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}

// Keys. Every key of a guild carries the hash tag {guild}, so that they
// share one hash slot (one node of a cluster) and one script writes a step
// whole: the player's keys p:{g}:u…, the guild's s:{g}, a:{g}, lb:{g}.
func guildTag(guild uint64) string { return "{" + u64(guild) + "}" }
func playerKey(prefix string, id storage.PlayerID) string {
	return prefix + guildTag(id.Guild) + ":" + u64(id.User)
}
func recordKey(id storage.PlayerID) string  { return playerKey("p:", id) }
func historyKey(id storage.PlayerID) string { return playerKey("h:", id) }
func othersKey(id storage.PlayerID) string  { return playerKey("o:", id) }
func opsKey(id storage.PlayerID) string     { return playerKey("q:", id) }
func revealsKey(id storage.PlayerID) string { return playerKey("r:", id) }
func settingsKey(guild uint64) string       { return "s:" + guildTag(guild) }
func auditKey(guild uint64) string          { return "a:" + guildTag(guild) }
func boardKey(guild uint64) string          { return "lb:" + guildTag(guild) }

// jobsKey is the set of guilds with a job in progress (Jobs): one key of
// its own hash tag, written beside the guilds (never in a guild's script),
// so that it works unchanged on Redis Cluster.
const jobsKey = "jobs:{jobs}"

// member is a user's member in the leaderboard: 20 digits, so that the
// lexicographic order of equal scores is the numeric order of user IDs.
func member(user uint64) string { return fmt.Sprintf("%020d", user) }

func parseMember(m string) (uint64, error) {
	u, err := strconv.ParseUint(m, 10, 64)
	if err != nil || len(m) != 20 {
		return 0, fmt.Errorf("leaderboard member %q is not a 20-digit user ID", m)
	}
	return u, nil
}

// score is a balance's score in the leaderboard, as the script passes it
// to ZADD: its opposite, so that ZRANGE (lowest score first, then lowest
// member) lists the richest first and, among equal balances, the lowest
// user ID first.
func score(balance int64) string { return strconv.FormatInt(-balance, 10) }

func u64(x uint64) string { return strconv.FormatUint(x, 10) }

// parseKey reads the IDs of a key "x:{guild}:user" or "x:{guild}" (user 0).
func parseKey(key string) (guild, user uint64, ok bool) {
	_, rest, _ := strings.Cut(key, "{")
	g, u, _ := strings.Cut(rest, "}")
	guild, err := strconv.ParseUint(g, 10, 64)
	if err != nil || guild == 0 {
		return 0, 0, false
	}
	if u == "" {
		return guild, 0, true
	}
	u, found := strings.CutPrefix(u, ":")
	if user, err = strconv.ParseUint(u, 10, 64); !found || err != nil || user == 0 {
		return 0, 0, false
	}
	return guild, user, true
}
