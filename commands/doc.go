// Package commands defines the bot's slash commands and buttons and handles
// their interactions, whatever transport delivered them: handlers get a
// parsed *discordgo.Interaction and answer through a Responder.
//
// Each command (/play, /balance, /rules, /leaderboard, /daily, /history,
// /fairness, /limits, /pause, /admin) is defined beside its handler in
// cmd_*.go, with French localizations. Buttons carry what they need in
// versioned custom IDs (customid.go), valid across restarts, for their
// owner only and on their own message.
//
// Every change is a move of package game run by the store (Store.Run)
// under the interaction's ID: a repeated interaction changes nothing and
// is answered from what the first one recorded. Each feature's handlers are
// a type of their own, sharing the steps (app.go) and the cards
// (render.go). A route table (router.go) wraps each handler once in the
// delivery chain (delivery.go, late.go), which answers within Discord's 3
// seconds and renders errors in one place: user errors in the user's
// language, internal errors logged and answered with an apology.
//
// /play reads the guild's settings on every play: wrap the store with
// storage/settingscache. The Activity plays through App.Act.
//
// Usage with a plain discordgo session:
//
//	app := commands.New(commands.Config{Observer: metrics, Logger: log}, store)
//	_, err := session.ApplicationCommandBulkOverwrite(appID, guildID, app.Definitions())
//	go app.RunJobs(ctx) // reset-guild runs in the background (jobs.go)
//	session.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
//		go app.Handle(ctx, responder{s}, ic.Interaction)
//	})
package commands
