// Package loadtest drives simulated players through the bot and measures
// what it costs: the bot's own CPU, the store's, latency.
//
// The bot is the real one: the handlers cli.NewHandlers builds behind a
// real transport, or with Config.BotBinary the bot's binary as its own
// process (its CPU read from /proc/PID/stat). The in-repo fake Discord
// (internal/fakediscord) plays the players' Discord clients: it sends
// their interactions over its gateway to a bot.Gateway, or signed to the
// bot's HTTP endpoint, and serves the bot's REST calls and the Activity's
// OAuth2.
//
// Each player plays Mix, a round of every command and button, again and
// again; then, per transport, the players play the Activity's page
// (activity.go) within its per-user rate. A run also measures, on Redis, a
// floor (Floor) and the store's own ceiling, then audits every player's
// books and deletes what it wrote. SoakInteractions instead checks that
// the bot's memory stays flat over play cycles through the gateway.
//
// A run uses a temporary bolt file, or an empty Redis database on
// loopback. `go run ./cmd/loadtest -h` lists the flags; from Go:
//
//	rep, err := loadtest.Run(ctx, loadtest.Config{Transports: []string{loadtest.HTTP}})
//	if rep != nil {
//		rep.WriteText(os.Stdout)
//	}
package loadtest
