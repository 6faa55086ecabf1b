// Package loadtest drives simulated players through the bot and measures
// what it costs: the bot's own CPU, the store's, latency.
//
// The bot is the real one: the handlers cli.NewHandlers builds, behind a
// real transport, or with Config.BotBinary the bot's binary as its own
// process (its CPU read from /proc/PID/stat). It talks to the in-repo fake
// Discord (internal/fakediscord) on loopback, which plays the players'
// Discord clients: it sends their interactions over its gateway to a
// bot.Gateway, or signed to the bot's HTTP interactions endpoint, and
// serves the bot's REST calls and the Activity's OAuth2.
//
// Each player plays a round of every command again and again (mix.go):
// /play and its buttons (a row, Auto, Again, the chest, Scratch by hand),
// /balance, /rules, /leaderboard, /daily, /history, every /fairness and
// /limits subcommand, /pause and its Cancel; one player per guild is its
// moderator and adds every /admin subcommand. Then, per transport, the
// players play in the Activity (activity.go): a session, the chest when
// due, a ticket bought and revealed row by row, the daily bonus, the state,
// each player within the Activity's per-user rate. A run also measures, on
// Redis, a floor (Floor) and the store's own ceiling, then audits every
// player's books and deletes what it wrote.
//
// SoakInteractions instead checks that the bot's memory stays flat over
// play cycles through the gateway.
//
// Safety: a run uses a temporary bolt file by default, removed at the end;
// a Redis database must be empty and on loopback, and the run deletes the
// keys of its guilds. `go run ./cmd/loadtest -h` lists the flags; from Go:
//
//	rep, err := loadtest.Run(ctx, loadtest.Config{Transports: []string{loadtest.HTTP}})
//	if rep != nil {
//		rep.WriteText(os.Stdout)
//	}
package loadtest
