// Package commands defines the bot's slash commands and buttons and handles
// their interactions, whatever transport delivered them: handlers get a
// parsed *discordgo.Interaction and answer through a Responder. The
// Activity plays the buttons' steps through App.Act. The commands are
// docs/commands.md, the files a click crosses docs/architecture.md.
//
// Each feature's handlers are a type of their own (cmd_*.go), sharing the
// steps (app.go) and the cards (render.go); a route table (router.go)
// wraps each handler once in the delivery chain (delivery.go, late.go).
// Every change is a move of package game that the store runs under the
// interaction's ID, so a repeated interaction changes nothing. /play reads
// the guild's settings on every play: wrap the store with
// storage/settingscache.
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
