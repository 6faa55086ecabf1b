package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Store is the Redis store; the package doc describes its keys and scripts.
type Store struct {
	// replicas is WithReplicaAck's n: negative until Open asks the masters.
	replicas    int
	replicaWait time.Duration
	rdb         redis.UniversalClient
	opts        storage.Options
	cache       *cache
	closed      atomic.Bool
}

var (
	_ storage.Store    = (*Store)(nil)
	_ storage.Dumper   = (*Store)(nil)
	_ storage.Restorer = (*Store)(nil)
)

// DefaultCacheSize is how many players a Store remembers (package doc, "A step").
const DefaultCacheSize = 4096

// Option configures a Store beyond storage.Options.
type Option func(*Store)

// DefaultReplicaWait bounds the wait for replicas (WithReplicaAck). It is
// below DefaultReadTimeout, which must stay above it.
const DefaultReplicaWait = time.Second

// WithReplicaAck makes every write, and every repeat a step answers, wait
// until n replicas hold it (WAIT, at most wait; 0: DefaultReplicaWait;
// docs/operating.md, "Durability"). A write no replica took in time is an
// error, the step's outcome unknown. n < 0 (Open's default): 1 if every
// master has a replica connected at Open, else 0. New's default is 0.
func WithReplicaAck(n int, wait time.Duration) Option {
	return func(s *Store) { s.replicas, s.replicaWait = n, cmp.Or(wait, DefaultReplicaWait) }
}

// MinReplicas is how many replicas hold every write before it is
// acknowledged (WithReplicaAck).
func (s *Store) MinReplicas() int { return s.replicas }

// New returns a store over client, which it owns: Close closes it. It
// checks nothing (Open checks the layout); LoadScripts before the first
// step saves a round trip.
func New(client redis.UniversalClient, opts storage.Options, options ...Option) *Store {
	s := &Store{rdb: client, opts: opts, cache: newCache(DefaultCacheSize)}
	for _, o := range options {
		o(s)
	}
	return s
}

// Open parses url (ParseURL), loads the scripts (which checks that Redis
// answers), checks the database's layout (LayoutKey): one of another
// layout is refused with an error wrapping storage.ErrLayout, and, unless
// told (WithReplicaAck), asks the masters whether they have replicas.
func Open(ctx context.Context, url string, opts storage.Options, options ...Option) (*Store, error) {
	client, err := NewClient(url)
	if err != nil {
		return nil, err
	}
	s := New(client, opts, append([]Option{WithReplicaAck(-1, 0)}, options...)...)
	err = s.LoadScripts(ctx)
	if err == nil {
		err = s.checkLayout(ctx)
	}
	if err == nil && s.replicas < 0 {
		var bare atomic.Bool // a master without a replica
		err = s.wrap("INFO replication", eachMaster(ctx, client, func(ctx context.Context, c redis.Cmdable) error {
			info, err := c.Info(ctx, "replication").Result()
			if !strings.Contains(info, "connected_slaves:") || strings.Contains(info, "connected_slaves:0\r") {
				bare.Store(true)
			}
			return err
		}))
		if s.replicas = 1; bare.Load() {
			s.replicas = 0
		}
	}
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// LoadScripts loads the store's scripts on every master, so that steps run
// with EVALSHA from the start. It is optional: a step falls back to EVAL.
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range []*redis.Script{playerScript, casScript, settleScript} {
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

// The keys, as docs/STORAGE.md §5 lists them.
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

// jobsKey is the set of guilds with a job in progress (Jobs), in a slot of
// its own: never written by a guild's script.
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

// score is a balance's score in the leaderboard, its opposite: ZRANGE
// (lowest score, then lowest member, first) lists the richest first.
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
