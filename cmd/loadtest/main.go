// Command loadtest drives simulated players through the bot's real
// handlers and transports and measures them; see package loadtest and
// `go run ./cmd/loadtest -h`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/loadtest"
)

const usage = `Usage: go run ./cmd/loadtest [flags]

Runs simulated players through the bot's real handlers over a store, via the
gateway (the in-repo fake Discord dispatching to a real bot.Gateway, answers
over REST), the HTTP interactions endpoint (signed POSTs to a real
bot.Endpoint, answers in the reply), or both, and reports play cycles and
interactions per second, latency from receipt to response per kind (p50,
p95, p99), CPU per cycle (this process; and the Redis server's), and the
store's own ceiling measured in the same run. With -rate, interactions are
sent at that pace (open loop) and latency counts from the scheduled send.

Safety: by default the store is a temporary bolt file, removed at the end.
An explicit -data file or -redis database that already holds data is
refused unless -force. On Redis the keys of the run's guilds are deleted at
the end; a -data file the run created is removed. Environment variables
(REDIS_URL, DATA_PATH) are never read.

Examples:
  go run ./cmd/loadtest -transport both -players 64 -duration 5s
  go run ./cmd/loadtest -store redis -redis redis://127.0.0.1:6390/0 -rate 1000 -duration 10s

Flags:
`

// options are the command line's.
type options struct {
	cfg        loadtest.Config
	asJSON     bool
	cpuProfile string
}

// parse reads the flags. It returns flag.ErrHelp for -h.
func parse(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	var (
		o         options
		transport string
		ceiling   bool
	)
	fs.StringVar(&o.cfg.Store, "store", "", `"bolt" or "redis" (default bolt, or redis when -redis is set)`)
	fs.StringVar(&o.cfg.RedisURL, "redis", "", "Redis URL of the store; its database must be empty unless -force")
	fs.StringVar(&o.cfg.DataPath, "data", "", "bolt file of the store (default: a temporary file); must hold no data unless -force")
	fs.BoolVar(&o.cfg.Force, "force", false, "run against a store that already holds data")
	fs.StringVar(&transport, "transport", "both", `"gateway", "http" or "both" (one after the other)`)
	fs.IntVar(&o.cfg.Players, "players", 64, "simulated players")
	fs.IntVar(&o.cfg.Guilds, "guilds", 4, "guilds the players are spread over")
	fs.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "measured phase of each transport, and of the store's ceiling")
	fs.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured phase before each transport's")
	fs.Float64Var(&o.cfg.Rate, "rate", 0, "interactions per second, evenly paced (open loop); 0: each player as fast as answered")
	fs.BoolVar(&ceiling, "ceiling", true, "measure the store's own ceiling (its steps called directly) in the same run")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch transport {
	case "both":
		o.cfg.Transports = []string{loadtest.Gateway, loadtest.HTTP}
	case loadtest.Gateway, loadtest.HTTP:
		o.cfg.Transports = []string{transport}
	default:
		return o, fmt.Errorf("-transport %q: want gateway, http or both", transport)
	}
	switch {
	case o.cfg.Store == "" && o.cfg.RedisURL != "":
		o.cfg.Store = loadtest.StoreRedis
	case o.cfg.Store == loadtest.StoreRedis && o.cfg.RedisURL == "":
		return o, errors.New("-store redis needs -redis URL")
	case o.cfg.Store == loadtest.StoreBolt && o.cfg.RedisURL != "":
		return o, errors.New("-redis is for -store redis")
	}
	if o.cfg.Duration <= 0 {
		return o, errors.New("-duration must be positive")
	}
	o.cfg.SkipCeiling = !ceiling
	return o, nil
}

// run runs the command and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 2
	}
	o.cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	o.cfg.BotLogger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if o.cpuProfile != "" {
		stop, err := startProfile(o.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "loadtest: %v\n", err)
			return 1
		}
		defer stop()
	}
	rep, err := loadtest.Run(ctx, o.cfg)
	if rep != nil && len(rep.Phases) > 0 {
		write := rep.WriteText
		if o.asJSON {
			write = rep.WriteJSON
		}
		if werr := write(stdout); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if err != nil {
		o.cfg.Logger.Error("load test failed", "err", err)
		return 1
	}
	return 0
}

// startProfile starts a CPU profile into path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	bot.RouteDiscordgoLogs(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), bot.DiscordgoLogLevel("error"))
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
