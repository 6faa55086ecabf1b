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
	"os/exec"
	"os/signal"
	"path/filepath"
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
bot.Endpoint, answers in the reply), or both, and reports per phase: play
cycles and interactions per second, latency from receipt to response per
kind (p50, p95, p99), CPU per cycle of this process, and on Redis the
server's CPU per cycle beside a floor measured in the same run (EVAL
"return 1" 0 from as many goroutines as players; a cycle is two round
trips, so two EVALs), and the bytes sent to and received from Redis per
cycle (INFO cpu and INFO stats, before and after). Then the store's own
ceiling (its steps called directly) in the same run. With -rate,
interactions are sent at that pace (open loop) and latency counts from the
scheduled send.

On Redis the bot runs as its own process by default (-bot-process): the
module's main package, built with go build, started per transport with
DISCORD_API_BASE (the fake Discord), REDIS_URL, and for HTTP
INTERACTIONS_ADDR and DISCORD_PUBLIC_KEY; its own CPU per interaction is
read from /proc/PID/stat, apart from the load generator and the fake.
On bolt (one process per file) it runs in this process.

-soak-interactions N instead checks that the bot's memory stays flat: it
sends N interactions (play cycles: /play, Auto, the chest when due) through
the bot as production runs it: the fake Discord dispatches them over its
gateway to a real bot.Gateway in this process, which answers over REST.
Each of -players sends its next one as soon as its last was answered; the
fake remembers only its last 16 per player (at least 256). The heap after
runtime.GC is read at a tenth of them and at the end; it exits 1 if the
end heap is over -max-growth (1.2) times the early one, or if an
interaction failed.

Safety: by default the store is a temporary bolt file, removed at the end.
An explicit -data file or -redis database that already holds data is
refused unless -force. On Redis the keys of the run's guilds are deleted at
the end; a -data file the run created is removed. Environment variables
(REDIS_URL, DATA_PATH) are never read, and the bot process gets none of
this process's environment. Every address is loopback.

Examples:
  go run ./cmd/loadtest -transport both -players 64 -duration 5s
  go run ./cmd/loadtest -redis redis://127.0.0.1:6390/0 -transport both -players 64
  go run ./cmd/loadtest -redis redis://127.0.0.1:6390/0 -rate 1000 -ceiling=false
  go run ./cmd/loadtest -soak-interactions 1000000 [-redis redis://127.0.0.1:6390/0]

Flags:
`

// options are the command line's.
type options struct {
	cfg        loadtest.Config
	asJSON     bool
	cpuProfile string
	// botProcess runs the bot as its own process; botBinary is the
	// binary ("": go build the module's main package).
	botProcess bool
	botBinary  string
	// soak, when Interactions > 0, runs a soak of that many interactions
	// through the bot instead of the transports (loadtest.SoakInteractions).
	soak      loadtest.InteractionSoakConfig
	botSetExp bool // -bot-process was given explicitly
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
	fs.BoolVar(&o.botProcess, "bot-process", false, "run the bot as its own process (the module's main package, built with go build, or -bot), to read its own CPU per interaction from /proc; needs -redis, where it is the default")
	fs.StringVar(&o.botBinary, "bot", "", "the bot's binary for -bot-process (default: go build the module's main package into a temporary folder)")
	floor := fs.Bool("floor", true, "measure the Redis floor (EVAL \"return 1\" 0 from as many goroutines as players) in the same run")
	fs.IntVar(&o.soak.Interactions, "soak-interactions", 0, "instead of the transports: send this many interactions through the bot's gateway (in this process, against the fake Discord), each of -players as soon as answered, and fail if the heap after GC at the end is over -max-growth times the heap at a tenth of them")
	fs.Float64Var(&o.soak.MaxGrowth, "max-growth", loadtest.DefaultMaxGrowth, "with -soak-interactions: the end heap's limit, as a multiple of the early heap")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "bot-process" {
			o.botSetExp = true
		}
	})
	o.cfg.SkipFloor = !*floor
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
	if !o.botSetExp {
		o.botProcess = o.cfg.Store == loadtest.StoreRedis
	}
	if o.botProcess && o.cfg.Store != loadtest.StoreRedis {
		return o, errors.New("-bot-process needs -redis: a bolt file is locked by the one process that opens it")
	}
	if o.botBinary != "" && !o.botProcess {
		return o, errors.New("-bot is for -bot-process")
	}
	switch {
	case o.soak.Interactions < 0:
		return o, errors.New("-soak-interactions must be positive")
	case o.soak.Interactions > 0 && (o.botProcess && o.botSetExp || o.botBinary != ""):
		return o, errors.New("-soak-interactions runs the bot in this process (it reads its heap): drop -bot-process")
	case o.soak.Interactions > 0 && transport == loadtest.HTTP:
		return o, errors.New("-soak-interactions soaks the gateway: the HTTP endpoint's replay protection keeps each interaction's ID for up to 11 minutes by design, so its heap grows with the rate")
	}
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
	if o.soak.Interactions > 0 {
		return soak(ctx, o, stdout)
	}
	if o.botProcess {
		bin, cleanup, err := botBinary(ctx, o.botBinary, o.cfg.Logger)
		if err != nil {
			o.cfg.Logger.Error("load test failed", "err", err)
			return 1
		}
		defer cleanup()
		o.cfg.BotBinary, o.cfg.BotOutput = bin, stderr
	}
	rep, err := loadtest.Run(ctx, o.cfg)
	if rep != nil && len(rep.Phases) > 0 {
		err = errors.Join(err, o.write(stdout, rep.WriteText, rep.WriteJSON))
	}
	return o.exit("load test failed", err)
}

// write prints a report as text, or as JSON with -json.
func (o options) write(w io.Writer, text, json func(io.Writer) error) error {
	if o.asJSON {
		return json(w)
	}
	return text(w)
}

// exit logs err, if any, and returns the exit status: 1 for an error.
func (o options) exit(what string, err error) int {
	if err != nil {
		o.cfg.Logger.Error(what, "err", err)
		return 1
	}
	return 0
}

// soak runs loadtest.SoakInteractions and prints its report; a heap that
// grew, an interaction that failed, an audit that failed or a run that
// could not be made exits 1.
func soak(ctx context.Context, o options, stdout io.Writer) int {
	o.soak.Config = o.cfg
	rep, err := loadtest.SoakInteractions(ctx, o.soak)
	if rep != nil {
		err = errors.Join(err, o.write(stdout, rep.WriteText, rep.WriteJSON))
	}
	return o.exit("soak failed", err)
}

// botBinary returns the bot's binary: path if given, otherwise the
// module's main package built with go build into a temporary folder
// (removed by cleanup).
func botBinary(ctx context.Context, path string, log *slog.Logger) (bin string, cleanup func(), err error) {
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", nil, fmt.Errorf("-bot %s: %w", path, err)
		}
		return abs, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "clefs-loadtest-build-")
	if err != nil {
		return "", nil, fmt.Errorf("build the bot: %w", err)
	}
	bin = filepath.Join(dir, "clefs")
	log.Info("building the bot", "package", mainPackage, "binary", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, mainPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build the bot (go build %s): %w\n%s", mainPackage, err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// mainPackage is the bot's main package, built for -bot-process.
const mainPackage = "github.com/lesclefsdutresor/clefs"

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
