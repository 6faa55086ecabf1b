// Package bot carries interactions between Discord and the handlers of
// package commands, over either of Discord's two transports:
//
//   - Gateway: one discordgo session per shard this process runs
//     (SHARD_IDS of SHARD_COUNT, which may be "auto"), answers over REST.
//   - Endpoint: POST /interactions, each request checked against the
//     application's Ed25519 public key and answered in the HTTP reply,
//     later edits over REST; any number of processes behind a balancer.
//
// Both register the commands at start-up (the gateway only in the process
// that runs shard 0), upload the handler's emojis (EmojiHandler), hand
// each interaction to the Handler with a commands.Responder, and shut down
// letting the interactions in progress finish. The composition root,
// cli.Serve, builds the handlers and runs one transport:
//
//	h := cli.NewHandlers(cfg, store, m, log, cli.Hooks{})
//	g, err := bot.NewGateway(bot.GatewayOptions{Options: bot.Options{Token: cfg.Token, APIBase: cfg.APIBase, Logger: log}}, h)
//	if err != nil {
//		return err
//	}
//	return g.Run(ctx) // returns when ctx ends, after a clean shutdown
package bot
