// Package bot carries interactions between Discord and the handlers of
// package commands, over either of Discord's two transports:
//
//   - Gateway: one discordgo session per shard this process runs
//     (SHARD_IDS of SHARD_COUNT, which may be "auto"), each interaction
//     handled in its own goroutine and answered over REST.
//   - Endpoint: an HTTP "Interactions Endpoint URL", POST /interactions,
//     each request checked against the application's Ed25519 public key
//     (discordgo.VerifyInteraction) and answered in the HTTP reply; edits
//     after a deferred reply go over REST. Any number of processes may
//     serve one application behind a load balancer.
//
// Both register the commands by bulk overwrite at start-up (the gateway
// only in the process that runs shard 0), upload the handler's pictures as
// the application's own emojis when it is an EmojiHandler (every process,
// idempotently by name; a failure only logs a warning and the cards keep
// Unicode), hand each interaction to the
// Handler with a commands.Responder, and shut down cleanly, letting the
// interactions in progress finish.
//
// The package builds no process: the composition root, cli.Serve, opens
// the store, builds the handlers (cli.NewHandlers) and runs one transport,
// and `go run .` and the end-to-end tests run exactly that:
//
//	h := cli.NewHandlers(cfg, store, m, log, cli.Hooks{})
//	g, err := bot.NewGateway(bot.GatewayOptions{Token: cfg.Token, APIBase: cfg.APIBase, Logger: log}, h)
//	if err != nil {
//		return err
//	}
//	return g.Run(ctx) // returns when ctx ends, after a clean shutdown
//
// DISCORD_API_BASE (the APIBase options) is applied by an http.RoundTripper
// that sends every request for https://discord.com to the base instead; the
// gateway URL is then whatever that API's GET /gateway answers.
package bot
