package redisstore_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"redis://u:hunter2@h:6379", "redis://u:xxxxx@h:6379"},
		{"rediss://:hunter2@h:6380/2", "rediss://:xxxxx@h:6380/2"},
		{"redis://user@h:6379", "redis://user@h:6379"},
		{"redis+cluster://u:hunter2@h:7000?addr=h2:7001", "redis+cluster://u:xxxxx@h:7000?addr=h2:7001"},
		{"redis+sentinel://h:26379?master_name=m&password=hunter2", "redis+sentinel://h:26379?master_name=m&password=xxxxx"},
		// Not URLs with a host: what could hold a secret goes.
		{"localhost:6379", "localhost:6379"},
		{"u:hunter2@h:6379", "xxxxx@h:6379"},
		{"redis://u:hunter2@h:bad/0", "redis://xxxxx@h:bad/0"},
		{"redis://h:bad?password=hunter2", "redis://h:bad?xxxxx"},
		{"redis://u:hunter2@h:bad?password=hunter2", "redis://xxxxx@h:bad?xxxxx"},
	}
	for _, tt := range tests {
		got := redisstore.RedactURL(tt.in)
		if got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("RedactURL(%q) = %q shows the password", tt.in, got)
		}
	}
}

// A REDIS_URL that go-redis refuses must not come back whole in the error:
// url.Parse's errors quote their input.
func TestNewClientErrorHidesPassword(t *testing.T) {
	for _, u := range []string{
		"redis://u:hunter2@h:bad/0",
		"redis+cluster://u:hunter2@h:bad",
		"redis+sentinel://:hunter2@h:bad?master_name=m",
		"u:hunter2@h:6379",
	} {
		cl, err := redisstore.NewClient(u)
		if err == nil {
			cl.Close()
			t.Errorf("NewClient(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewClient(%q): %v", u, err)
		}
	}
}

func TestParseURLAccepts(t *testing.T) {
	tests := []struct {
		url  string
		mode redisstore.Mode
		// what the go-redis options must say
		addrs      []string // Addr (single) or Addrs / SentinelAddrs
		db         int
		password   string // the data password (master's, for Sentinel)
		master     string
		tls        bool
		network    string        // single only; "" = tcp
		readTO     time.Duration // 0 = DefaultReadTimeout
		maxRetries int           // 0 = the mode's default
	}{
		{url: "redis://localhost:6379/0", mode: redisstore.Single, addrs: []string{"localhost:6379"}},
		{url: "redis://h", mode: redisstore.Single, addrs: []string{"h:6379"}},
		{url: "redis://:hunter2@h:6380/3", mode: redisstore.Single, addrs: []string{"h:6380"}, db: 3, password: "hunter2"},
		{url: "REDIS://h:1/2", mode: redisstore.Single, addrs: []string{"h:1"}, db: 2},
		{url: "rediss://u:hunter2@h:6380", mode: redisstore.Single, addrs: []string{"h:6380"}, password: "hunter2", tls: true},
		{url: "redis://h:1/0?read_timeout=500ms&max_retries=-1", mode: redisstore.Single, addrs: []string{"h:1"}, readTO: 500 * time.Millisecond, maxRetries: -1},
		{url: "unix:///run/redis/redis.sock", mode: redisstore.Single, addrs: []string{"/run/redis/redis.sock"}, network: "unix"},
		{url: "unix://:hunter2@/tmp/r.sock?db=4", mode: redisstore.Single, addrs: []string{"/tmp/r.sock"}, network: "unix", db: 4, password: "hunter2"},
		{url: "redis+cluster://127.0.0.1:7000", mode: redisstore.Cluster, addrs: []string{"127.0.0.1:7000"}},
		{url: "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002", mode: redisstore.Cluster, addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"}},
		{url: "redis+cluster://:hunter2@a:1,b:2/", mode: redisstore.Cluster, addrs: []string{"a:1", "b:2"}, password: "hunter2"},
		{url: "redis+cluster://a:1/0?addr=b:2&read_timeout=1s", mode: redisstore.Cluster, addrs: []string{"a:1", "b:2"}, readTO: time.Second},
		{url: "redis+cluster://[::1]:7000,[::1]:7001", mode: redisstore.Cluster, addrs: []string{"[::1]:7000", "[::1]:7001"}},
		{url: "rediss+cluster://u:hunter2@a:1,b:2", mode: redisstore.Cluster, addrs: []string{"a:1", "b:2"}, password: "hunter2", tls: true},
		{url: "redis+sentinel://127.0.0.1:26379/?master_name=mymaster", mode: redisstore.Sentinel, addrs: []string{"127.0.0.1:26379"}, master: "mymaster"},
		{url: "redis+sentinel://s1:26379,s2:26379,s3:26379/2?master_name=m&password=hunter2", mode: redisstore.Sentinel, addrs: []string{"s1:26379", "s2:26379", "s3:26379"}, db: 2, master: "m", password: "hunter2"},
		{url: "rediss+sentinel://:sentinelpw@s1:26379?master_name=m&max_retries=5", mode: redisstore.Sentinel, addrs: []string{"s1:26379"}, master: "m", tls: true, maxRetries: 5},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			target, err := redisstore.ParseURL(tt.url)
			if err != nil {
				t.Fatalf("ParseURL: %v", err)
			}
			if target.Mode != tt.mode {
				t.Fatalf("mode %v, want %v", target.Mode, tt.mode)
			}
			readTO := cmp.Or(tt.readTO, redisstore.DefaultReadTimeout)
			var got struct {
				addrs                          []string
				db                             int
				password, master, network      string
				tls, ctxTimeout                bool
				dial, read, write, pool        time.Duration
				retries, dialerRetries, redirs int
			}
			wantRetries, wantRedirs := cmp.Or(tt.maxRetries, redisstore.DefaultMaxRetries), 0
			switch tt.mode {
			case redisstore.Single:
				o := target.Single
				if target.Cluster != nil || target.Sentinel != nil {
					t.Fatal("more than one options set")
				}
				got.addrs, got.db, got.password, got.network, got.tls = []string{o.Addr}, o.DB, o.Password, o.Network, o.TLSConfig != nil
				got.dial, got.read, got.write, got.pool, got.ctxTimeout = o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.ContextTimeoutEnabled
				got.retries, got.dialerRetries = o.MaxRetries, o.DialerRetries
			case redisstore.Cluster:
				o := target.Cluster
				if target.Single != nil || target.Sentinel != nil {
					t.Fatal("more than one options set")
				}
				got.addrs, got.password, got.network, got.tls = o.Addrs, o.Password, "tcp", o.TLSConfig != nil
				got.dial, got.read, got.write, got.pool, got.ctxTimeout = o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.ContextTimeoutEnabled
				got.retries, got.dialerRetries, got.redirs = o.MaxRetries, o.DialerRetries, o.MaxRedirects
				wantRetries, wantRedirs = cmp.Or(tt.maxRetries, -1), redisstore.DefaultMaxRedirects
			case redisstore.Sentinel:
				o := target.Sentinel
				if target.Single != nil || target.Cluster != nil {
					t.Fatal("more than one options set")
				}
				got.addrs, got.db, got.password, got.master, got.network, got.tls = o.SentinelAddrs, o.DB, o.Password, o.MasterName, "tcp", o.TLSConfig != nil
				got.dial, got.read, got.write, got.pool, got.ctxTimeout = o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.ContextTimeoutEnabled
				got.retries, got.dialerRetries = o.MaxRetries, o.DialerRetries
			}
			if !slices.Equal(got.addrs, tt.addrs) || got.db != tt.db || got.password != tt.password || got.master != tt.master || got.tls != tt.tls {
				t.Errorf("addrs %v db %d password %q master %q tls %v; want %v %d %q %q %v",
					got.addrs, got.db, got.password, got.master, got.tls, tt.addrs, tt.db, tt.password, tt.master, tt.tls)
			}
			if want := cmp.Or(tt.network, "tcp"); got.network != want {
				t.Errorf("network %q, want %q", got.network, want)
			}
			if got.dial != redisstore.DefaultDialTimeout || got.read != readTO || got.write != redisstore.DefaultWriteTimeout ||
				got.pool != redisstore.DefaultPoolTimeout || !got.ctxTimeout {
				t.Errorf("timeouts dial %v read %v write %v pool %v context %v", got.dial, got.read, got.write, got.pool, got.ctxTimeout)
			}
			if got.retries != wantRetries || got.redirs != wantRedirs || got.dialerRetries != redisstore.DefaultDialerRetries {
				t.Errorf("max retries %d, redirects %d, dialer retries %d; want %d, %d, %d",
					got.retries, got.redirs, got.dialerRetries, wantRetries, wantRedirs, redisstore.DefaultDialerRetries)
			}
			c := target.Client()
			defer c.Close()
			wantType := map[redisstore.Mode]string{redisstore.Single: "*redis.Client", redisstore.Sentinel: "*redis.Client", redisstore.Cluster: "*redis.ClusterClient"}[tt.mode]
			if typ := fmt.Sprintf("%T", c); typ != wantType {
				t.Errorf("client %s, want %s", typ, wantType)
			}
		})
	}
}

func TestParseURLRefuses(t *testing.T) {
	tests := []struct{ url, why string }{
		{"", "no scheme"},
		{"localhost:6379", "no scheme"},
		{"u:hunter2@h:6379", "no scheme"},
		{"http://h:6379", `scheme "http"`},
		{"redis-cluster://h:7000", `scheme "redis-cluster"`},
		{"redis-sentinel://h:26379?master_name=m", `scheme "redis-sentinel"`},
		{"unix+cluster:///tmp/r.sock", `scheme "unix+cluster"`},
		{"redis+replica://h:1", `scheme "redis+replica"`},
		{"redis://:hunter2@a:1,b:2", "several hosts"},
		{"redis://h:1/0/1", "invalid URL path"},
		{"redis://h:1/x", "invalid database number"},
		{"redis://h:1?master_name=m", "unexpected option: master_name"},
		{"redis://:hunter2@h:bad/0", "invalid port"},
		{"redis://h:1?read_timeout=soon", "invalid read_timeout duration"},
		{"redis+cluster://", `host "": want host:port`},
		{"redis+cluster://h", `host "h": want host:port`},
		{"redis+cluster://u:hunter2@a:1,,b:2", `host "": want host:port`},
		{"redis+cluster://a:1,b", `host "b": want host:port`},
		{"redis+cluster://a:1/2", "only database 0"},
		{"redis+cluster://a:1?db=0", "unexpected option: db"},
		{"redis+cluster://a:1?read_only=true", "read_only"},
		{"redis+cluster://a:1?route_randomly=true", "route_randomly"},
		{"redis+cluster://a:1?addr=nope", "unable to parse addr param"},
		{"redis+sentinel://:hunter2@s:26379", "master_name=NAME is required"},
		{"redis+sentinel://s:26379?master_name=", "master_name=NAME is required"},
		{"redis+sentinel://s:26379?master_name=m&route_by_latency=true", "route_by_latency"},
		{"redis+sentinel://s:26379?master_name=m&replica_only=true", "replica_only"},
		{"redis+sentinel://s:26379?master_name=m&password=hunter2&bogus=1", "unexpected option: bogus"},
		{"redis+sentinel://s?master_name=m", `host "s": want host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			target, err := redisstore.ParseURL(tt.url)
			if err == nil {
				t.Fatalf("accepted: %+v", target)
			}
			msg := err.Error()
			var ue *redisstore.URLError
			if !errors.Is(err, storage.ErrInvalid) || !errors.As(err, &ue) {
				t.Errorf("%v: not a *URLError wrapping storage.ErrInvalid", err)
			}
			if !strings.Contains(msg, tt.why) {
				t.Errorf("error %q does not say %q", msg, tt.why)
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("error shows the password: %s", msg)
			}
			if strings.HasPrefix(tt.why, "scheme") || tt.why == "no scheme" {
				if !strings.Contains(msg, redisstore.URLForms) {
					t.Errorf("error %q does not list the accepted forms", msg)
				}
			}
		})
	}
}

// ParseURL never panics, and what it accepts makes a client without
// panicking (go-redis panics on some option combinations).
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://h:1/0", "unix:///tmp/r.sock", "redis+cluster://a:1,b:2",
		"redis+sentinel://s:1?master_name=m&route_randomly=true",
		"rediss+sentinel://u:p@s:1,t:2/3?master_name=m&password=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		target, err := redisstore.ParseURL(s)
		if err != nil {
			return
		}
		if err := target.Client().Close(); err != nil {
			t.Logf("close: %v", err)
		}
	})
}

func ExampleParseURL() {
	t, err := redisstore.ParseURL("redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/?master_name=mymaster")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Mode, t.Sentinel.MasterName, t.Sentinel.SentinelAddrs, t.Sentinel.ReadTimeout)

	_, err = redisstore.ParseURL("redis-cluster://u:hunter2@127.0.0.1:7000")
	fmt.Println(err != nil, strings.Contains(err.Error(), "hunter2"))
	// Output:
	// sentinel mymaster [127.0.0.1:26379 127.0.0.1:26380] 3s
	// true false
}
