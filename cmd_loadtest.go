package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/lesclefsdutresor/clefs/loadtest"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

const loadtestUsage = `Usage: clefs loadtest [flags]

Drives concurrent simulated players through the interaction handlers (the
same path as Discord interactions: gateway frame decoding, handler, store,
rendering, response encoding), without the network to Discord, and prints play cycles
per second, latencies per interaction and the handler overhead. With -ceiling
it measures, in the same run, the store's own ceiling (its steps issued
directly by as many goroutines, and for Redis trivial EVALSHA round trips)
and the ratio between the two.

The store is chosen like the bot's: Redis when -redis (or REDIS_URL) is set,
else the embedded file at -data (or DATA_PATH); with neither, a temporary
file removed at the end. The run creates its own guilds and players (ids
unique to the run): do not point it at a production store.

Flags:
`

func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), loadtestUsage)
		fs.PrintDefaults()
	}
	var (
		storeKind  = fs.String("store", "", `"bolt" or "redis" (default: redis if -redis is set, else bolt)`)
		redisURL   = fs.String("redis", os.Getenv("REDIS_URL"), "Redis URL (redis:// or rediss://); default $REDIS_URL")
		dataPath   = fs.String("data", os.Getenv("DATA_PATH"), "embedded store file; default $DATA_PATH, else a temporary file")
		players    = fs.Int("players", 64, "concurrent simulated players")
		guilds     = fs.Int("guilds", 4, "guilds the players are spread over")
		duration   = fs.Duration("duration", 10*time.Second, "length of the measured phase (and of each ceiling phase)")
		rounds     = fs.Int("rounds", 5, "with -ceiling, interleave the phases in this many rounds (each phase runs -duration/-rounds per round)")
		warmup     = fs.Duration("warmup", 2*time.Second, "unmeasured phase before it")
		cycles     = fs.Int("cycles", 0, "if > 0, each player plays exactly this many cycles instead of -duration")
		calibrate  = fs.Duration("calibrate", 5*time.Second, "single-player phase measuring the handler overhead without contention (0: none)")
		populate   = fs.Int("populate", 0, "create this many extra players first (memory test)")
		ceiling    = fs.Bool("ceiling", true, "measure the store's ceiling in the same run (store steps issued directly; Redis: trivial EVALSHA too)")
		cpuprofile = fs.String("cpuprofile", "", "write a CPU profile of the measured phase to this file")
		memprofile = fs.String("memprofile", "", "write a heap profile at the end to this file")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{"loadtest: " + err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("loadtest: unexpected argument %q", fs.Arg(0))}
	}
	switch {
	case *players < 1 || *players > 100_000:
		return usageError{fmt.Sprintf("loadtest: -players %d: want 1..100000", *players)}
	case *guilds < 1:
		return usageError{fmt.Sprintf("loadtest: -guilds %d: want at least 1", *guilds)}
	case *duration <= 0 && *cycles <= 0:
		return usageError{"loadtest: -duration must be positive (or set -cycles)"}
	case *warmup < 0 || *calibrate < 0:
		return usageError{"loadtest: -warmup and -calibrate must not be negative"}
	case *rounds < 1:
		return usageError{fmt.Sprintf("loadtest: -rounds %d: want at least 1", *rounds)}
	case *cycles < 0 || *populate < 0:
		return usageError{"loadtest: -cycles and -populate must not be negative"}
	}
	kind := *storeKind
	if kind == "" {
		kind = "bolt"
		if *redisURL != "" {
			kind = "redis"
		}
	}
	if kind == "redis" && *redisURL == "" {
		return usageError{"loadtest: -store redis needs -redis URL (or REDIS_URL)"}
	}
	if kind != "bolt" && kind != "redis" {
		return usageError{fmt.Sprintf("loadtest: -store %q: want bolt or redis", kind)}
	}

	cfg := loadtest.Config{
		Players:   *players,
		Guilds:    *guilds,
		Duration:  *duration,
		Warmup:    *warmup,
		Cycles:    *cycles,
		Calibrate: *calibrate,
		Populate:  *populate,
		Direct:    *ceiling,
		Rounds:    *rounds,
		Log:       stderr,
	}
	var desc string
	switch kind {
	case "redis":
		// The bot's own client (redisstore.NewClient), with a hook counting
		// round trips.
		client, err := redisstore.NewClient(*redisURL)
		if err != nil {
			return usageError{fmt.Sprintf("loadtest: -redis: %v", err)}
		}
		defer client.Close()
		var rt loadtest.RoundTripCounter
		client.AddHook(&rt)
		if err := client.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("loadtest: redis: %w", err)
		}
		cfg.Store = redisstore.New(client, storage.Options{})
		cfg.RoundTrips = rt.Load
		cfg.ServerCPU = loadtest.RedisCPU(client)
		if *ceiling {
			cfg.RawRoundTrip = loadtest.TrivialScript(client)
		}
		desc = "redis " + redactURL(*redisURL)
	case "bolt":
		path := *dataPath
		if path == "" {
			dir, err := os.MkdirTemp("", "clefs-loadtest-")
			if err != nil {
				return fmt.Errorf("loadtest: %w", err)
			}
			defer os.RemoveAll(dir)
			path = filepath.Join(dir, "clefs.db")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("loadtest: %w", err)
		}
		s, err := boltstore.Open(path, storage.Options{})
		if err != nil {
			return fmt.Errorf("loadtest: %w", err)
		}
		cfg.Store = s
		desc = fmt.Sprintf("bolt %s (fsync on every commit)", path)
	}
	defer cfg.Store.Close()

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return fmt.Errorf("loadtest: %w", err)
		}
		defer f.Close()
		cfg.CPUProfile = f
	}

	gcPercent, memLimit := tuneGC() // the bot's collector settings: the handlers run as in the bot
	fmt.Fprintf(stdout, "store: %s; GOMAXPROCS %d, %s; GOGC %d, memory limit %d MiB (set GOGC, GOMEMLIMIT to change)\n",
		desc, runtime.GOMAXPROCS(0), runtime.Version(), gcPercent, memLimit>>20)
	rep, err := loadtest.Run(ctx, cfg)
	if rep != nil {
		if werr := rep.WriteText(stdout); werr != nil && err == nil {
			err = werr
		}
	}
	if *memprofile != "" {
		if perr := loadtest.WriteHeapProfile(*memprofile); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

// redactURL hides the password of a Redis URL for printing.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
