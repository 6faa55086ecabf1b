package redisstore

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Mode is the kind of Redis deployment a URL names.
type Mode int

// The modes of ParseURL.
const (
	Single   Mode = iota + 1 // one server: redis://, rediss://, unix://
	Cluster                  // Redis Cluster: redis+cluster://, rediss+cluster://
	Sentinel                 // a master found through Sentinel: redis+sentinel://, rediss+sentinel://
)

func (m Mode) String() string {
	if names := [...]string{Single: "single", Cluster: "cluster", Sentinel: "sentinel"}; m > 0 && int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// URLForms lists the accepted URL forms, for error messages and help.
const URLForms = "redis://[[user]:pass@]host:port[/db], rediss://… (TLS), unix://[[user]:pass@]/path/to/redis.sock[?db=N], " +
	"redis+cluster://[[user]:pass@]host:port,host:port,… (rediss+cluster:// for TLS), " +
	"redis+sentinel://[[user]:pass@]host:port,host:port,…[/db]?master_name=NAME (rediss+sentinel:// for TLS)"

// The client settings ParseURL applies where the URL does not set them; the
// caller's context deadline bounds them all.
const (
	// DefaultDialTimeout bounds a connection attempt (go-redis: 5s). Redis
	// answers a connect in microseconds on a LAN; 2s is a dead host.
	DefaultDialTimeout = 2 * time.Second
	// DefaultDialerRetries is how many times a connection is attempted per
	// command attempt (go-redis: 5): command retries already re-dial.
	DefaultDialerRetries = 1
	// DefaultReadTimeout bounds the wait for a reply (go-redis: 5s). Every
	// step is one short script; 3s without a reply is a stalled server.
	DefaultReadTimeout = 3 * time.Second
	// DefaultWriteTimeout bounds writing a command (go-redis: ReadTimeout).
	DefaultWriteTimeout = 3 * time.Second
	// DefaultPoolTimeout bounds the wait for a free connection: ReadTimeout
	// plus 1s (go-redis's own rule, written out).
	DefaultPoolTimeout = DefaultReadTimeout + time.Second
	// DefaultMaxRetries is how many times a single or Sentinel client retries
	// a command that failed in a way that may pass (go-redis: 3): one retry
	// rides over a dropped connection, the second over a Sentinel failover;
	// a longer stall fails in about 10s, inside SHUTDOWN_TIMEOUT. A retried
	// command may run twice: every change carries an operation ID.
	DefaultMaxRetries = 2
	// DefaultMaxRedirects is a cluster client's budget of attempts beyond the
	// first, redirections and retries together (go-redis: 3); its node
	// clients do not retry by themselves, or the budgets would multiply.
	DefaultMaxRedirects = 3
)

// Target is a parsed Redis URL: its Mode and the go-redis options of that
// mode (the others are nil), the defaults applied.
type Target struct {
	Mode     Mode
	Single   *redis.Options
	Cluster  *redis.ClusterOptions
	Sentinel *redis.FailoverOptions
}

// ParseURL parses a Redis URL (REDIS_URL), the one place that decides which
// forms are accepted: those of URLForms, with go-redis's query parameters,
// as docs/scaling.md explains them (Sentinel credentials, the options
// refused). Parameters override the defaults above, except that
// ContextTimeoutEnabled is always on; go-redis's repeated addr=host:port is
// accepted besides comma-separated hosts. Its errors are *URLError.
func ParseURL(rawURL string) (Target, error) {
	bad := func(format string, args ...any) error {
		return &URLError{URL: RedactURL(rawURL), Reason: fmt.Sprintf(format, args...)}
	}
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return Target{}, bad("no scheme; want one of %s", URLForms)
	}
	var mode Mode
	base := strings.ToLower(scheme)
	switch base {
	case "redis", "rediss", "unix":
		mode = Single
	case "redis+cluster", "rediss+cluster":
		mode, base = Cluster, strings.TrimSuffix(base, "+cluster")
	case "redis+sentinel", "rediss+sentinel":
		mode, base = Sentinel, strings.TrimSuffix(base, "+sentinel")
	default:
		return Target{}, bad("scheme %q; want one of %s", scheme, URLForms)
	}

	// The authority may list several hosts, which net/url does not parse:
	// keep the first as the URL's host, pass the others as addr=.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo, hostList := "", authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo, hostList = authority[:at+1], authority[at+1:]
	}
	hosts := strings.Split(hostList, ",")
	if mode == Single && len(hosts) > 1 {
		return Target{}, bad("several hosts for a single server; use redis+cluster:// or redis+sentinel://")
	}
	if mode != Single {
		for _, h := range hosts {
			host, port, err := net.SplitHostPort(h)
			if err != nil || host == "" || port == "" {
				return Target{}, bad("host %q: want host:port, every host with its port", h)
			}
		}
	}
	u, err := url.Parse(base + "://" + userinfo + hosts[0] + tail)
	if err != nil {
		return Target{}, bad("%v", urlError(err))
	}
	if len(hosts) > 1 {
		q := u.Query()
		for _, h := range hosts[1:] {
			q.Add("addr", h)
		}
		u.RawQuery = q.Encode()
	}
	plain := u.String()

	t := Target{Mode: mode}
	switch mode {
	case Single:
		t.Single, err = redis.ParseURL(plain)
		if o := t.Single; err == nil {
			setDefaults(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.DialerRetries, &o.MaxRetries, DefaultMaxRetries)
			o.ContextTimeoutEnabled = true
		}
	case Cluster:
		if p := u.Path; p != "" && p != "/" && p != "/0" {
			return Target{}, bad("path %q: a Redis Cluster has only database 0; remove the path", p)
		}
		t.Cluster, err = redis.ParseClusterURL(plain)
		if o := t.Cluster; err == nil {
			if o.ReadOnly || o.RouteByLatency || o.RouteRandomly {
				return Target{}, bad("read_only, route_by_latency and route_randomly are not supported: the store reads its own writes, from the masters")
			}
			setDefaults(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.DialerRetries, &o.MaxRetries, -1)
			o.MaxRedirects = cmp.Or(o.MaxRedirects, DefaultMaxRedirects)
			o.ContextTimeoutEnabled = true
		}
	case Sentinel:
		t.Sentinel, err = redis.ParseFailoverURL(plain)
		if o := t.Sentinel; err == nil {
			if o.MasterName == "" {
				return Target{}, bad("master_name=NAME is required (the name of the sentinels' \"sentinel monitor\" line)")
			}
			if o.RouteByLatency || o.RouteRandomly || o.ReplicaOnly {
				return Target{}, bad("route_by_latency, route_randomly and replica_only are not supported: the store reads its own writes, from the master")
			}
			setDefaults(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.DialerRetries, &o.MaxRetries, DefaultMaxRetries)
			o.ContextTimeoutEnabled = true
		}
	}
	if err != nil {
		return Target{}, bad("%v", urlError(err))
	}
	return t, nil
}

// URLError is ParseURL's error: what is wrong with a Redis URL. It wraps
// storage.ErrInvalid.
type URLError struct {
	URL    string // the URL, its passwords hidden (RedactURL)
	Reason string // what is wrong, e.g. `scheme "http"; want one of …`
}

func (e *URLError) Error() string {
	return fmt.Sprintf("redisstore: invalid Redis URL %q: %s", e.URL, e.Reason)
}

// Unwrap returns storage.ErrInvalid.
func (e *URLError) Unwrap() error { return storage.ErrInvalid }

// setDefaults gives the options of every mode the Default… timeouts and
// dialer retries, and retries, where the URL left them zero (go-redis's
// "unset"; its -1, "none", keeps its meaning).
func setDefaults(dial, read, write, pool *time.Duration, dialerRetries, maxRetries *int, retries int) {
	*dial = cmp.Or(*dial, DefaultDialTimeout)
	*read = cmp.Or(*read, DefaultReadTimeout)
	*write = cmp.Or(*write, DefaultWriteTimeout)
	*pool = cmp.Or(*pool, DefaultPoolTimeout)
	*dialerRetries = cmp.Or(*dialerRetries, DefaultDialerRetries)
	*maxRetries = cmp.Or(*maxRetries, retries)
}

// Client returns a new client for t, without connecting: a *redis.Client
// (Single and Sentinel modes) or a *redis.ClusterClient.
func (t Target) Client() redis.UniversalClient {
	switch t.Mode {
	case Cluster:
		return redis.NewClusterClient(t.Cluster)
	case Sentinel:
		return redis.NewFailoverClient(t.Sentinel)
	}
	return redis.NewClient(t.Single)
}

// NewClient returns the client for url (ParseURL), without connecting.
func NewClient(url string) (redis.UniversalClient, error) {
	t, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	return t.Client(), nil
}

// RedactURL returns rawURL, any string, fit for logs and error messages:
// its passwords become "xxxxx".
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Opaque != "" {
		s := rawURL
		if q := strings.IndexByte(s, '?'); q >= 0 {
			s = s[:q] + "?xxxxx"
		}
		if at := strings.LastIndexByte(s, '@'); at >= 0 {
			scheme := ""
			if i := strings.Index(s[:at], "://"); i >= 0 {
				scheme = s[:i+3]
			}
			s = scheme + "xxxxx" + s[at:]
		}
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// urlError is err without the URL that a *url.Error repeats in full,
// password included.
func urlError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
