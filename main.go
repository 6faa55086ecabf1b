// Command clefs runs the Discord bot « Les Clefs du Trésor » and its operator
// subcommands (package cli; clefs help lists them). With no argument it runs
// the bot until SIGINT or SIGTERM.
package main

import (
	"context"
	_ "embed" // the changelog, for the version subcommand
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// changelog is CHANGELOG.md, embedded here because go:embed cannot reach
// a parent directory: the build's release is its latest version.
//
//go:embed CHANGELOG.md
var changelog string

func main() {
	buildinfo.Changelog = changelog
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code := cli.ExitCode(err); code != 0 {
		fmt.Fprintln(os.Stderr, "clefs:", err)
		os.Exit(code)
	}
}
