// Package cli is the clefs binary's command line: with no argument it runs
// the bot, otherwise an operator subcommand (odds, simulate, verify, export,
// import, restore, audit, healthcheck, register, version, try). main calls
// Main until SIGINT or SIGTERM, prints the error it returns, and exits with
// ExitCode's status.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

const usage = `Usage: clefs [command] [flags]

With no command, runs the bot (configuration from .env and the environment).

Commands:
  odds         print the exact odds and return to player from the game's tables
  simulate     simulate many plays and compare them with the exact odds
  verify       recompute tickets from revealed seeds, one or every one of a dump
  export       write every player and guild as JSON to stdout (or -o FILE)
  export -public -guild ID -user ID
               write one player's public export: history and revealed seeds, no secret
  import       add the players of a dump (all or nothing; -force into a store with players)
  restore      reveal and replace every player's server seeds after a store was put
               back from a copy (a snapshot: -from FILE; Redis: after its RDB or AOF)
  audit        check balance = start + granted + won + daily − staked for every player,
               and each guild's leaderboard against the players' records
  healthcheck  ask the running bot's /healthz (exit 0 healthy, 1 not)
  register     register the slash commands with Discord and exit
  version      print the release (CHANGELOG.md), VCS revision and Go version
  try          play locally without a Discord account (a fake Discord, the real bot)
  help         show this help

export, import, restore and audit act on -redis URL, else -data FILE, else REDIS_URL,
else DATA_PATH, else ./data/clefs.db, and print the store on stderr first.
Run "clefs COMMAND -h" for a command's flags.
`

// usageError marks a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// ExitCode maps an error of Main to the process's exit status: 0 for nil
// and flag.ErrHelp, 2 for a command-line mistake, 1 otherwise. The caller
// prints an error whose code is not 0.
func ExitCode(err error) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// Main runs the command named by args (os.Args[1:]): the bot when args is
// empty, until ctx ends; else the subcommand, output on stdout, usage and
// progress on stderr. It does not print the error it returns (ExitCode).
// It routes go-redis's process-wide logs once, before any store opens: to
// the bot's logger, or for a subcommand to stderr at LOG_LEVEL ("error").
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runBot(ctx, stderr)
	}
	redisstore.RouteLogs(subcommandLogger(stderr, os.Getenv))
	cmd, rest := args[0], args[1:]
	if c, ok := subcommands[cmd]; ok {
		if c.dotenv {
			warnDotenv(slog.New(slog.NewTextHandler(stderr, nil)))
		}
		return c.run(ctx, rest, stdout, stderr)
	}
	if cmd == "help" || cmd == "-h" || cmd == "-help" || cmd == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// subcommands are Main's subcommands; dotenv marks those that read .env
// (storeFlags, loadConfig).
var subcommands = map[string]struct {
	run    func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	dotenv bool
}{
	"odds": {runOdds, false}, "simulate": {runSimulate, false}, "verify": {runVerify, false},
	"export": {runExport, true}, "import": {runImport, true}, "audit": {runAudit, true},
	"restore": {runRestore, true}, "register": {runRegister, true}, "healthcheck": {runHealthcheck, true},
	"version": {runVersion, false}, "try": {runTry, false},
}

// newFlags returns the flag set of a subcommand whose usage is text, then
// the flags.
func newFlags(name string, stderr io.Writer, text string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, text)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs: -h gives flag.ErrHelp, any other mistake
// (an argument past the first maxArgs too) a usageError naming the command.
func parseFlags(fs *flag.FlagSet, name string, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{fmt.Sprintf("%s: %v", name, err)}
	}
	if fs.NArg() > maxArgs {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", name, fs.Arg(maxArgs))}
	}
	return nil
}

// subcommandLogger is the logger of a subcommand's libraries.
func subcommandLogger(stderr io.Writer, getenv func(string) string) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.TrimSpace(getenv("LOG_LEVEL")))); err != nil {
		level = slog.LevelError // unset, or not a level
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// runVersion prints which build this is on one line (buildinfo.Info.String).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr, "Usage: clefs version\n\nPrints the release (the latest version in CHANGELOG.md), the VCS revision\n(-dirty when the tree was modified) and commit time, and the Go version\nthat built the binary. go build stamps the revision from the git clone;\ngo run does not.\n")
	if err := parseFlags(fs, "version", args, 0); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "clefs", buildinfo.Read())
	return nil
}
