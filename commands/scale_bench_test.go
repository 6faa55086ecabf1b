package commands

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/settingscache"
)

// The scale benchmark: a guild of -scale-players players (100,000), on
// bbolt and Redis. Run it alone, once:
//
//	CLEFS_TEST_REDIS_URL=redis://127.0.0.1:6379 go test ./commands/ -run '^$' \
//	  -bench BenchmarkScale -benchtime 1x -timeout 30m [-scale-players 100000] \
//	  [-scale-keep-bolt /tmp/clefs-100k.db] [-scale-keep-redis redis://127.0.0.1:6379/9]
//
// It fills the guild through the store's import, measures /leaderboard
// through the handlers (p50, p99 of 2,000 calls by random players), then
// confirms nothing by hand: it starts a reset-guild as the confirmation
// does and runs it to the end through the job runner, reporting its time.
// With -scale-keep-*, the store (its players reset) is left for
// `clefs audit` to be timed on it.
var (
	scalePlayers   = flag.Int("scale-players", 100_000, "players of the scale benchmark's guild")
	scaleKeepBolt  = flag.String("scale-keep-bolt", "", "bbolt file the scale benchmark fills and leaves (default: a temporary one)")
	scaleKeepRedis = flag.String("scale-keep-redis", "", "Redis URL whose database the scale benchmark fills and leaves (default: a fresh test database)")
	scaleReuse     = flag.Bool("scale-reuse", false, "with -scale-keep-*: measure /leaderboard on the store left by an earlier run (its guild already filled), without filling or resetting")
)

func BenchmarkScale(b *testing.B) {
	opts := storage.Options{Defaults: testDefaults}
	stores := map[string]func(b *testing.B) storage.Store{
		"bolt": func(b *testing.B) storage.Store {
			path := *scaleKeepBolt
			if path == "" {
				path = filepath.Join(b.TempDir(), "clefs.db")
			} else if !*scaleReuse {
				_ = os.Remove(path)
			}
			st, err := boltstore.Open(path, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		},
		"redis": func(b *testing.B) storage.Store {
			url := *scaleKeepRedis
			if url == "" {
				url = redistest.URL(b)
			}
			st, err := redisstore.Open(context.Background(), url, opts)
			if err != nil {
				b.Fatal(err)
			}
			if *scaleKeepRedis != "" && !*scaleReuse {
				if err := st.Client().FlushDB(context.Background()).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.Cleanup(func() { st.Close() })
			return st
		},
	}
	for _, name := range []string{"bolt", "redis"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				scaleOnce(b, stores[name](b))
			}
		})
	}
}

func scaleOnce(b *testing.B, st storage.Store) {
	ctx := context.Background()
	n := *scalePlayers
	clk := &clock{t: time.Now().UTC()}
	t0 := time.Now()
	var users []uint64
	if *scaleReuse {
		for k := range n {
			users = append(users, uint64(1000+k))
		}
	} else {
		users = fillGuild(b, st, testGuild, n, storage.Timestamp(clk.Now()))
		b.Logf("filled %d players in %v", n, time.Since(t0).Round(time.Millisecond))
	}

	// /leaderboard through the handlers, as a player runs it.
	e := &env{t: b, clock: clk}
	// The handlers as the bot builds them (cli.NewHandlers): the guild's
	// settings cached for a second in front of the store.
	a := New(Config{Now: time.Now, Logger: discardLogger(), Seeds: &seeds{}}, settingscache.New(st, time.Second, time.Now))
	const calls = 2000
	is := make([]*discordgo.Interaction, calls)
	for k := range is {
		is[k] = e.slashPayload(users[(k*7919)%n], memberPerms, "en-US", "leaderboard", "")
	}
	lat := make([]time.Duration, calls)
	for k, i := range is {
		s := time.Now()
		a.Handle(ctx, nopResponder{}, i)
		lat[k] = time.Since(s)
	}
	slices.Sort(lat)
	p50, p99 := lat[calls/2], lat[calls*99/100]
	b.ReportMetric(float64(p50.Microseconds())/1000, "leaderboard-p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "leaderboard-p99-ms")
	if *scaleReuse {
		return
	}

	// The reset, from its start to its end, through the job runner.
	const op = "rg:scale"
	if _, err := st.RunGuild(ctx, storage.GuildStep{Guild: testGuild, Op: op, Move: game.BeginReset{Actor: moderator, Reason: "scale"}, Now: storage.Timestamp(time.Now())}); err != nil {
		b.Fatal(err)
	}
	s := time.Now()
	runner, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.RunJobs(runner) }()
	last := int64(-1)
	for {
		g, err := st.Guild(ctx, testGuild)
		if err != nil {
			b.Fatal(err)
		}
		if g.Reset.Count != last && g.Reset.Count%10_000 < resetBatch {
			b.Logf("%v: %d players reset", time.Since(s).Round(time.Millisecond), g.Reset.Count)
			last = g.Reset.Count
		}
		if g.Reset.Finished() {
			if g.Reset.Count != int64(n) {
				b.Fatalf("reset %d players of %d", g.Reset.Count, n)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	d := time.Since(s)
	cancel()
	<-done
	b.ReportMetric(d.Seconds(), "reset-s")
	b.ReportMetric(float64(n)/d.Seconds(), "players/s")
}
