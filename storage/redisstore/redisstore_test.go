package redisstore_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func open(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	st, err := redisstore.Open(context.Background(), redistest.URL(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestConformance(t *testing.T) { storetest.Run(t, open) }

// roundTrips counts network round trips: a command or a whole pipeline is one.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}
func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

func TestRoundTrips(t *testing.T) {
	url := redistest.URL(t)
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(o)
	rt := &roundTrips{}
	client.AddHook(rt)
	st := redisstore.New(client, storage.Options{Defaults: storage.Settings{StartingBalance: 10_000, DailyAmount: 10}, Drawer: storetest.RandomDrawer(5)})
	defer st.Close()
	ctx := context.Background()
	// Warm up: connect, load the scripts, run every step once on another player.
	if err := st.LoadScripts(ctx); err != nil {
		t.Fatal(err)
	}
	warm := storage.PlayerID{Guild: 1, User: 99}
	if _, err := st.ClaimDaily(ctx, warm); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ResetPlayer(ctx, 7, warm, ""); err != nil {
		t.Fatal(err)
	}
	id := storage.PlayerID{Guild: 1, User: 2}
	measure := func(name string, max int64, fn func() error) {
		t.Helper()
		before := rt.n.Load()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := rt.n.Load() - before; n > max {
			t.Errorf("%s took %d round trips, want at most %d", name, n, max)
		} else {
			t.Logf("%s: %d round trips", name, n)
		}
	}
	// The first step of a new player creates it: two round trips.
	measure("first Player", 2, func() error { _, err := st.Player(ctx, id); return err })
	// Warm: the scripts are cached by Redis after the first EVAL fallback.
	for range 3 {
		p, tk, _, err := st.Buy(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Reveal(ctx, id, tk.ID, storage.AllRows); err != nil {
			t.Fatal(err)
		}
		if p.ChestPending {
			if _, _, _, err := st.OpenChest(ctx, id, p.ChestSeq+1); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 20 {
		p, _ := st.Player(ctx, id)
		if p.ChestPending {
			measure("open chest", 2, func() error { _, _, _, err := st.OpenChest(ctx, id, p.ChestSeq+1); return err })
		}
		measure("full cycle (buy, reveal all)", 3, func() error {
			_, tk, _, err := st.Buy(ctx, id)
			if err != nil {
				return err
			}
			_, _, err = st.Reveal(ctx, id, tk.ID, storage.AllRows)
			return err
		})
		if i == 0 {
			measure("row by row (buy, 3 reveals)", 4, func() error {
				_, tk, _, err := st.Buy(ctx, id)
				if err != nil {
					return err
				}
				for r := range 3 {
					if _, _, err := st.Reveal(ctx, id, tk.ID, 1<<r); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	measure("daily", 2, func() error { _, err := st.ClaimDaily(ctx, id); return err })
	measure("grant", 2, func() error { _, err := st.Grant(ctx, 7, id, 100, "x"); return err })
	measure("reset", 2, func() error { _, err := st.ResetPlayer(ctx, 7, id, "x"); return err })
	measure("new player's buy", 2, func() error { _, _, _, err := st.Buy(ctx, storage.PlayerID{Guild: 1, User: 3}); return err })
}

// TestScriptCacheFlushed checks the EVAL fallback after Redis forgets its scripts.
func TestScriptCacheFlushed(t *testing.T) {
	url := redistest.URL(t)
	st, err := redisstore.Open(context.Background(), url, storage.Options{Defaults: storage.Settings{StartingBalance: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	if _, _, _, err := st.Buy(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := st.Client().ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	p, tk, err := st.Reveal(ctx, id, 1, storage.AllRows)
	if err != nil || !tk.Drawn || p.Balance < 50 {
		t.Fatalf("Reveal after SCRIPT FLUSH: %+v, %v", tk, err)
	}
}

func TestRedisDown(t *testing.T) {
	addr, stop := redistest.StartServer(t)
	ctx := context.Background()
	st, err := redisstore.Open(ctx, "redis://"+addr+"/0?max_retries=-1&dial_timeout=1s", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := st.Ping(ctx); err == nil {
		t.Fatal("Ping succeeded with Redis stopped")
	}
	_, _, _, err = st.Buy(ctx, storage.PlayerID{Guild: 1, User: 1})
	if err == nil || !strings.Contains(err.Error(), "redisstore: buy:") {
		t.Fatalf("Buy with Redis stopped: %v, want a wrapped error", err)
	}
}

func TestNewClientURLs(t *testing.T) {
	cases := []struct {
		url  string
		ok   bool
		kind string
	}{
		{"redis://localhost:6379/0", true, "*redis.Client"},
		{"rediss://user:pw@example.com:6380/2", true, "*redis.Client"},
		{"redis+cluster://localhost:7000?addr=localhost:7001", true, "*redis.ClusterClient"},
		{"redis+sentinel://localhost:26379?master_name=mymaster", true, "*redis.Client"},
		{"localhost:6379", false, ""},
		{"http://localhost", false, ""},
		{"redis+ring://localhost", false, ""},
		{"redis://localhost:6379/notadb", false, ""},
	}
	for _, c := range cases {
		cl, err := redisstore.NewClient(c.url)
		if (err == nil) != c.ok {
			t.Errorf("NewClient(%q) error %v, want ok=%v", c.url, err, c.ok)
			continue
		}
		if err != nil {
			continue
		}
		if got := typeName(cl); got != c.kind {
			t.Errorf("NewClient(%q) is %s, want %s", c.url, got, c.kind)
		}
		cl.Close()
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *redis.Client:
		return "*redis.Client"
	case *redis.ClusterClient:
		return "*redis.ClusterClient"
	}
	return "?"
}

func TestKillBetweenBuyAndDraw(t *testing.T) {
	target := os.Getenv("STORETEST_CRASH_TARGET")
	if target == "" {
		target = redistest.URL(t)
	}
	storetest.KillBetweenBuyAndDraw(t, "TestKillBetweenBuyAndDraw", target, func(url string, opts storage.Options) (storage.Store, error) {
		return redisstore.Open(context.Background(), url, opts)
	})
}

func BenchmarkSteps(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, opts storage.Options) storage.Store {
		st, err := redisstore.Open(context.Background(), redistest.URL(b), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		return st
	})
}

// lranges counts the LRANGE commands the store sends.
type lranges struct{ n atomic.Int64 }

func (l *lranges) DialHook(next redis.DialHook) redis.DialHook { return next }
func (l *lranges) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		l.count(cmd)
		return next(ctx, cmd)
	}
}
func (l *lranges) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			l.count(c)
		}
		return next(ctx, cmds)
	}
}
func (l *lranges) count(c redis.Cmder) {
	if c.Name() == "lrange" {
		l.n.Add(1)
	}
}

// TestAuditReadsOnlyModeratedPlayers: the audit log of a guild with many
// players reads the guild's list and the lists of the players a moderator
// acted on, not one list per member.
func TestAuditReadsOnlyModeratedPlayers(t *testing.T) {
	o, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(o)
	lr := &lranges{}
	client.AddHook(lr)
	st := redisstore.New(client, storage.Options{Defaults: storage.Settings{StartingBalance: 1000}})
	defer st.Close()
	ctx := context.Background()
	for u := uint64(1); u <= 200; u++ {
		if _, err := st.Player(ctx, storage.PlayerID{Guild: 7, User: u}); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []uint64{3, 5} {
		if _, err := st.Grant(ctx, 99, storage.PlayerID{Guild: 7, User: u}, 100, "prize"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetSettings(ctx, 99, 7, storage.Settings{StartingBalance: 500}, ""); err != nil {
		t.Fatal(err)
	}
	lr.n.Store(0)
	es, err := st.Audit(ctx, 7, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || es[0].Action != "settings" {
		t.Fatalf("audit: %+v", es)
	}
	if n := lr.n.Load(); n != 3 {
		t.Fatalf("audit of a guild of 200 players, 2 of them moderated, read %d lists; want 3", n)
	}
}
