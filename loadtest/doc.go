// Package loadtest drives simulated players through the bot's real
// interaction handlers (cli.NewHandlers over a store, with metrics, as the
// bot's composition root builds them, on a deployment's default
// configuration) and through a real transport, and measures them.
//
// A play cycle is the slash command /play (buy a ticket, show the hidden
// grid), then a click on the Auto button of that card (draw and reveal all),
// then, when a chest is due, a click on its button. Players are their own
// users, spread over a few guilds; the buttons are found by their custom IDs
// in the message each answer shows.
//
// Each transport runs in a phase of its own, against the in-repo fake
// Discord (internal/fakediscord) on loopback:
//
//   - Gateway: a real bot.Gateway (one discordgo session) connects to the
//     fake, which dispatches the players' interactions; the bot answers
//     over REST. Latency is the fake's, from its dispatch to the callback.
//   - HTTP: a real bot.Endpoint listens on loopback; each interaction is
//     POSTed signed as Discord signs it (Ed25519 over timestamp+body), and
//     the answer read from the HTTP reply. Latency is from the POST to the
//     reply read.
//
// In a closed loop (the default) each player sends its next interaction as
// soon as the last is answered. With Config.Rate, interactions leave at that
// pace, and latency counts from the scheduled send (no coordinated
// omission). With Config.BotBinary the bot runs as its own process, and its
// CPU time is read from /proc/PID/stat. Phase lists what a run reports: on
// Redis, the server's CPU, bytes and commands per cycle beside a floor
// measured in the same run (Floor), and the store's own ceiling (its steps
// applied directly). Then every player's books are audited.
//
// SoakInteractions instead checks that the bot's memory stays flat, running
// it as production does, through the gateway.
//
// Safety: a run uses a temporary bolt file by default, removed at the end.
// A store that already holds data is refused (ErrNotEmpty) unless
// Config.Force; at the end the run deletes what it wrote. The store's
// connection settings are never read from the environment.
//
// Usage, from the command line (`go run ./cmd/loadtest -h` lists the flags):
//
//	go run ./cmd/loadtest -transport both -players 64 -duration 5s
//	go run ./cmd/loadtest -store redis -redis redis://127.0.0.1:6390/0 -rate 1000 -duration 10s -json
//	go run ./cmd/loadtest -soak-interactions 1000000 -redis redis://127.0.0.1:6390/0
//
// or from Go:
//
//	rep, err := loadtest.Run(ctx, loadtest.Config{Transports: []string{loadtest.HTTP}, Rate: 1000})
//	if rep != nil {
//		rep.WriteText(os.Stdout)
//	}
package loadtest
