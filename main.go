// Command clefs runs the Discord bot « Les Clefs du Trésor » and its operator
// subcommands (package cli; clefs help lists them). With no argument it runs
// the bot until SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lesclefsdutresor/clefs/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code := cli.ExitCode(err); code != 0 {
		fmt.Fprintln(os.Stderr, "clefs:", err)
		os.Exit(code)
	}
}
