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
// The control API also makes the fake fail on demand (429s, 5xx, slow
// answers, resets, expired tokens, gateway op 7 and op 9, chaos):
//
//	curl -s localhost:8089/_fake/faults -d '{"kind":"rate_limit","route":"POST /interactions/{id}/{token}/callback"}'
//
// With -interactions URL the fake POSTs interactions, signed, to the bot's
// interactions endpoint instead of the gateway, and prints the public key
// to give the bot (DISCORD_PUBLIC_KEY) on the line after its URL.
//
// With -activities the application's Activities are on, and the fake
// prints DISCORD_CLIENT_SECRET=… for the bot's .env (with PUBLIC_ADDR);
// `clefs try` shows the Activity in a browser (docs/activity.md).
//
// It prints its base URL on stdout, then logs on stderr what the bot does:
// IDENTIFY, command registration, callbacks, edits, follow-ups and every
// refused call. fakediscord -h prints the flags and the control API
// (fakediscord.ControlAPI).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
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

// usage is the head of -h, before the flags.
const usage = `fakediscord runs a fake Discord on loopback for the bot to talk to, and a
control API to play as users with curl. It prints its URL on stdout (then, with
-interactions, the public key to give the bot; with -activities, the bot's
DISCORD_CLIENT_SECRET line), and logs on stderr what the bot
does. Its control API (below) also makes it fail on demand: 429s, 5xx, slow
answers, resets, expired tokens, gateway op 7 and op 9, withheld heartbeat
ACKs, and seeded chaos.

  fakediscord -token T [-addr 127.0.0.1:8089] [-guilds 1000,2000] [-shards 2]
              [-interactions http://127.0.0.1:8080/interactions]
              [-ack 3s] [-token-life 15m] [-heartbeat 41.25s] [-seed 1] [-activities]
  DISCORD_TOKEN=T DISCORD_API_BASE=http://127.0.0.1:8089 go run .   # the bot

Flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakediscord", flag.ContinueOnError)
	// Parse errors come back to main, -h prints to stdout: the flag
	// package's own printing would say everything twice.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free one)")
	token := fs.String("token", "", "the bot token the fake expects (required)")
	app := fs.String("app", "", "application ID (default: generated)")
	guilds := fs.String("guilds", "", "comma-separated guild IDs listed in READY")
	ack := fs.Duration("ack", fakediscord.DefaultAckTimeout, "time the bot has to call back")
	interactions := fs.String("interactions", "", "the bot's interactions endpoint URL: POST interactions there, signed, instead of the gateway")
	shards := fs.Int("shards", 1, "the shard count GET /gateway/bot recommends")
	tokenLife := fs.Duration("token-life", fakediscord.DefaultTokenLife, "an interaction token's life: later edits and follow-ups get 401 Invalid Webhook Token (50027)")
	heartbeat := fs.Duration("heartbeat", fakediscord.DefaultHeartbeatInterval, "the heartbeat interval sent in HELLO")
	seed := fs.Uint64("seed", 1, "seed of the faults with a fraction (the chaos has its own)")
	jsonLogs := fs.Bool("json", false, "log JSON instead of text")
	activities := fs.Bool("activities", false, "turn the application's Activities on; print the client secret the fake expects, for the bot's DISCORD_CLIENT_SECRET")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fmt.Fprint(stdout, "\n"+fakediscord.ControlAPI)
			return nil
		}
		return fmt.Errorf("%w (fakediscord -h for help)", err)
	}
	if *token == "" {
		return errors.New("-token is required (fakediscord -h for help)")
	}
	if *tokenLife <= 0 || *heartbeat <= 0 || *ack <= 0 {
		return fmt.Errorf("-ack, -token-life and -heartbeat must be positive")
	}
	if *shards < 1 {
		return fmt.Errorf("-shards %d: must be at least 1", *shards)
	}
	if *interactions != "" {
		u, err := url.Parse(*interactions)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("-interactions %q: want an http(s) URL", *interactions)
		}
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *jsonLogs {
		h = slog.NewJSONHandler(stderr, nil)
	}
	srv := fakediscord.New(fakediscord.Options{
		Token: *token, AppID: *app, Guilds: strings.FieldsFunc(*guilds, func(r rune) bool { return r == ',' || r == ' ' }), Addr: *addr, AckTimeout: *ack,
		Logger: slog.New(h), Control: true, InteractionsURL: *interactions, RecommendedShards: *shards,
		TokenLife: *tokenLife, HeartbeatInterval: *heartbeat, Seed: *seed, Activities: *activities,
	})
	if err := srv.Start(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, srv.URL())
	if *interactions != "" {
		fmt.Fprintln(stdout, srv.PublicKeyHex())
	}
	if *activities {
		fmt.Fprintln(stdout, "DISCORD_CLIENT_SECRET="+fakediscord.TestClientSecret)
	}
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
