// Command fakediscord runs the fake Discord of internal/fakediscord on its
// own, so that a person can run the real bot against it and play by hand.
//
//	go run ./cmd/fakediscord -addr 127.0.0.1:8089 -token T
//	# in another terminal:
//	DISCORD_TOKEN=T DISCORD_API_BASE=http://127.0.0.1:8089 DISCORD_GUILD_ID=1000 go run .
//	# then play with curl:
//	curl -s localhost:8089/_fake/slash -d '{"guild":"1000","user":"42","name":"play"}'
//	curl -s localhost:8089/_fake/click -d '{"message":"MSG","custom_id":"v1:auto:42:1","user":"42"}'
//
// It prints its base URL on stdout, then logs on stderr what the bot does:
// IDENTIFY, command registration, callbacks, edits, follow-ups and every
// refused call. See fakediscord.Server.ControlHandler for the control API.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakediscord:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakediscord", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free one)")
	token := fs.String("token", "", "the bot token the fake expects (required)")
	app := fs.String("app", "", "application ID (default: generated)")
	guilds := fs.String("guilds", "", "comma-separated guild IDs listed in READY")
	ack := fs.Duration("ack", fakediscord.DefaultAckTimeout, "time the bot has to call back")
	jsonLogs := fs.Bool("json", false, "log JSON instead of text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		fs.Usage()
		return fmt.Errorf("-token is required")
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *jsonLogs {
		h = slog.NewJSONHandler(stderr, nil)
	}
	var gs []string
	for _, g := range strings.Split(*guilds, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gs = append(gs, g)
		}
	}
	srv := fakediscord.New(fakediscord.Options{
		Token: *token, AppID: *app, Guilds: gs, Addr: *addr, AckTimeout: *ack,
		Logger: slog.New(h), Control: true,
	})
	if err := srv.Start(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, srv.URL())
	<-ctx.Done()
	done := make(chan error, 1)
	go func() { done <- srv.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		return fmt.Errorf("close timed out")
	}
}
