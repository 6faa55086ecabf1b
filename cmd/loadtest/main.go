// Command loadtest drives simulated players through the bot and measures
// what it costs; see package loadtest and `go run ./cmd/loadtest -h`.
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

Runs simulated players through the bot against the in-repo fake Discord:
per transport, a phase of every command, one of play cycles only (/play,
Auto, the chest) and one of the Activity's page. It reports rates, latency
per kind, and on Redis (-redis) the bot's own CPU per interaction and per
Activity reveal (the bot built with go build, run as its own process, its
CPU read from /proc/PID/stat), Redis's CPU and bytes per cycle beside a
floor measured in the same run; then the store's own ceiling. Without
-redis the store is a temporary bolt file and the bot runs in this process.

-soak-interactions N instead sends N play cycles' interactions through the
bot's gateway in this process and exits 1 if the heap after runtime.GC at
the end is over -max-growth times the heap at a tenth of them.

A -redis database must be empty and on loopback; the run deletes its keys.
No environment variable is read, and the bot process gets none.

Examples:
  go run ./cmd/loadtest -players 64 -duration 5s
  go run ./cmd/loadtest -redis redis://127.0.0.1:6390/0 -duration 8s -warmup 2s
  go run ./cmd/loadtest -redis redis://127.0.0.1:6390/0 -rate 1000 -activity=false -ceiling=false
  go run ./cmd/loadtest -soak-interactions 1000000 -redis redis://127.0.0.1:6390/0

Flags:
`

// options are the command line's; soak, when its Interactions > 0, runs
// loadtest.SoakInteractions instead of loadtest.Run.
type options struct {
	cfg                loadtest.Config
	asJSON, botProcess bool
	cpuProfile         string
	soak               loadtest.InteractionSoakConfig
}

// parse reads the flags. It returns flag.ErrHelp for -h.
func parse(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	var o options
	transport := fs.String("transport", "both", `"gateway", "http" or "both" (one after the other)`)
	fs.StringVar(&o.cfg.RedisURL, "redis", "", "Redis URL of the store, an empty database on loopback (default: a temporary bolt file)")
	fs.IntVar(&o.cfg.Players, "players", 64, "simulated players")
	fs.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "each measured phase")
	fs.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured, before each measured phase")
	fs.Float64Var(&o.cfg.Rate, "rate", 0, "interactions per second, evenly paced (open loop); 0: each player as fast as answered")
	plays := fs.Bool("plays", true, "measure a phase of play cycles only (/play, Auto, the chest) per transport")
	activity := fs.Bool("activity", true, "measure the Activity's phase of each transport")
	ceiling := fs.Bool("ceiling", true, "measure the store's own ceiling (its steps called directly)")
	floor := fs.Bool("floor", true, "measure the Redis floor (EVAL \"return 1\" 0 from as many goroutines as players)")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process to this file")
	fs.BoolVar(&o.botProcess, "bot-process", false, "run the bot as its own process (default with -redis, which it needs)")
	fs.StringVar(&o.cfg.BotBinary, "bot", "", "with -bot-process: run this bot binary instead of building this tree's (to compare two builds)")
	fs.IntVar(&o.soak.Interactions, "soak-interactions", 0, "instead: soak the bot's gateway with this many interactions")
	fs.Float64Var(&o.soak.MaxGrowth, "max-growth", loadtest.DefaultMaxGrowth, "with -soak-interactions: the end heap's limit, as a multiple of the early heap")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	botSet := false
	fs.Visit(func(f *flag.Flag) { botSet = botSet || f.Name == "bot-process" })
	if !botSet {
		o.botProcess = o.cfg.RedisURL != "" && o.soak.Interactions == 0
	}
	o.cfg.SkipPlays, o.cfg.SkipActivity, o.cfg.SkipCeiling, o.cfg.SkipFloor = !*plays, !*activity, !*ceiling, !*floor
	switch *transport {
	case "both":
		o.cfg.Transports = []string{loadtest.Gateway, loadtest.HTTP}
	case loadtest.Gateway, loadtest.HTTP:
		o.cfg.Transports = []string{*transport}
	default:
		return o, fmt.Errorf("-transport %q: want gateway, http or both", *transport)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.cfg.Duration <= 0:
		return o, errors.New("-duration must be positive")
	case o.botProcess && o.cfg.RedisURL == "":
		return o, errors.New("-bot-process needs -redis: a bolt file is locked by the one process that opens it")
	case o.soak.Interactions < 0:
		return o, errors.New("-soak-interactions must be positive")
	case o.soak.Interactions > 0 && o.botProcess:
		return o, errors.New("-soak-interactions runs the bot in this process (it reads its heap): drop -bot-process")
	case o.soak.Interactions > 0 && *transport == loadtest.HTTP:
		return o, errors.New("-soak-interactions soaks the gateway: the HTTP endpoint's replay protection keeps each interaction's ID for up to 11 minutes by design")
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
	log := slog.New(slog.NewTextHandler(stderr, nil))
	o.cfg.Logger = log
	o.cfg.BotLogger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := execute(ctx, o, stdout, stderr); err != nil {
		log.Error("load test failed", "err", err)
		return 1
	}
	return 0
}

// execute runs the load test or the soak, prints its report, and returns
// what failed: the run, its audit, a heap that grew.
func execute(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if o.soak.Interactions > 0 {
		o.soak.Config = o.cfg
		rep, err := loadtest.SoakInteractions(ctx, o.soak)
		if rep != nil {
			err = errors.Join(err, o.write(stdout, rep.WriteText, rep.WriteJSON))
		}
		return err
	}
	if o.botProcess {
		o.cfg.BotOutput = stderr
	}
	if o.botProcess && o.cfg.BotBinary == "" {
		dir, err := os.MkdirTemp("", "clefs-loadtest-build-")
		if err != nil {
			return fmt.Errorf("build the bot: %w", err)
		}
		defer os.RemoveAll(dir)
		o.cfg.BotBinary = filepath.Join(dir, "clefs")
		o.cfg.Logger.Info("building the bot", "package", mainPackage, "binary", o.cfg.BotBinary)
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", o.cfg.BotBinary, mainPackage).CombinedOutput(); err != nil {
			return fmt.Errorf("build the bot (go build %s): %w\n%s", mainPackage, err, out)
		}
	}
	rep, err := loadtest.Run(ctx, o.cfg)
	if rep != nil && len(rep.Phases) > 0 {
		err = errors.Join(err, o.write(stdout, rep.WriteText, rep.WriteJSON))
	}
	return err
}

// write prints a report as text, or as JSON with -json.
func (o options) write(w io.Writer, text, json func(io.Writer) error) error {
	if o.asJSON {
		return json(w)
	}
	return text(w)
}

// mainPackage is the bot's main package, built for -bot-process.
const mainPackage = "github.com/lesclefsdutresor/clefs"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	bot.RouteDiscordgoLogs(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), bot.DiscordgoLogLevel("error"))
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
