// Package loadtest drives simulated players through the bot's real
// interaction handlers (commands.New over a store, with metrics, as the bot
// runs them) and through a real transport, and measures them.
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
//     fake, which dispatches the players' interactions with Slash and Click;
//     the bot decodes them as in production and answers over REST. Latency
//     is the fake's, from its dispatch to the bot's callback.
//   - HTTP: a real bot.Endpoint listens on loopback; each interaction is a
//     discordgo.Interaction encoded with encoding/json and POSTed signed as
//     Discord signs it (Ed25519 over timestamp+body), and the answer is read
//     from the HTTP reply. Latency is from the POST to the reply read. The
//     fake serves the endpoint's REST calls.
//
// In a closed loop (the default) each player sends its next interaction as
// soon as the last is answered. With Config.Rate, interactions leave at that
// pace, evenly spaced, each by a player free at the time, and latency counts
// from the scheduled send, so that a late send counts against the bot
// rather than hiding (no coordinated omission).
//
// The handlers are built by cli.NewHandlers, the constructor the bot's
// composition root uses (settings cache included), on the configuration a
// deployment gets by default. With Config.BotBinary the bot is not in this
// process at all: the real binary runs as its own process per transport,
// pointed at the fake Discord and the run's Redis, and its CPU time is
// read from /proc/PID/stat.
//
// A run reports, per transport, cycles and interactions per second, latency
// per kind (p50, p95, p99), CPU per cycle of this process (which holds the
// fake Discord and the load generator, and the bot unless it runs apart),
// the bot process's own CPU per interaction when it runs apart, and, on
// Redis, the server's CPU per cycle (INFO cpu), the bytes it received and
// sent per cycle (INFO stats) and the ratio of its CPU to a floor measured
// in the same run: `EVAL "return 1" 0` from as many goroutines as players,
// two of them per cycle (a cycle is two round trips). A phase applies the
// game's steps (Buy, Reveal of all rows, OpenChest when due) to the store
// directly with storage.Apply, each under its own operation ID, from as
// many goroutines: the store's own ceiling, so that the report says what
// share of it the handlers reach. Then every player's books are audited:
// game.Player.Check, and balance = start − staked + won.
//
// SoakInteractions checks that the bot's memory stays flat, running it as
// production does: interactions sent by the fake Discord over its gateway
// to a real bot.Gateway in this process, answered over REST, with the fake
// remembering only its last interactions. It fails with ErrGrowth when the
// heap after runtime.GC at the end is over 1.2 times the heap at a tenth
// of the interactions, and reports the heap left per interaction: a bot
// that keeps something per interaction shows there.
//
// Safety: a run uses a temporary bolt file by default, removed at the end.
// An explicit bolt file or a Redis database that already holds data is
// refused (ErrNotEmpty) unless Config.Force; at the end the run deletes the
// Redis keys of its own guilds (IDs unique to the run) or the bolt file it
// created. The store's connection settings are never read from the
// environment.
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
