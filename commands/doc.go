// Package commands defines the bot's slash commands and buttons and handles
// their interactions, whatever transport delivered them (gateway or HTTP
// endpoint): handlers get a parsed *discordgo.Interaction and answer
// through a Responder.
//
// Commands: /play, /balance, /rules, /leaderboard, /daily, /history,
// /fairness, /limits, /pause and /admin (Manage Server by default, and
// checked again here), each defined beside its handler in cmd_*.go, with
// French localizations. Buttons carry what they need in versioned custom
// IDs (customid.go), so that a button from before a restart still works;
// only its owner may press it, and only on the message that carries it.
//
// Every change is a move of package game run by the store (Store.Run)
// under the interaction's ID: a repeated interaction changes nothing and
// is answered from what the first one recorded (steps in app.go). Each
// feature's handlers are a type of their own (plays, account, care,
// fairness, admin, rules, the Activity's desk, the jobs), sharing the
// steps and the cards (render.go). A route table (router.go) wraps each
// handler once in the delivery chain (delivery.go, late.go), which answers
// within Discord's 3 seconds and renders errors in one place: user errors
// as an ephemeral reply in the user's language (French for a "fr" locale,
// English otherwise), internal errors logged and answered with an apology.
//
// /play reads the guild's settings on every play (Store.Guild): wrap the
// store with storage/settingscache to cache them. The Activity (package
// activity) plays through App.Act with the buttons' own steps.
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
