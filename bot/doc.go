// Package bot connects the interaction handlers (package commands) to
// Discord through a discordgo session: it opens the gateway, registers the
// commands by bulk overwrite, runs each interaction in its own goroutine and
// shuts down cleanly, letting the interactions in progress finish.
//
// Bot is the session's lifecycle; Main is the whole process as `go run .`
// runs it (store, metrics, handlers, bot), in this package so that the
// end-to-end tests run exactly the same wiring:
//
//	cfg, err := config.Load(os.Getenv)
//	if err != nil {
//		return err
//	}
//	return bot.Main(ctx, cfg, logger, bot.Hooks{}) // returns when ctx ends
//
// DISCORD_API_BASE (Options.APIBase) is applied by an http.RoundTripper that
// sends every request for https://discord.com to the base instead; the
// gateway URL is then whatever that API's GET /gateway answers.
//
// Interactions are decoded by package wire, not by discordgo: importing
// bot replaces discordgo's INTERACTION_CREATE decoding for the whole
// program (gateway.go), and answers are encoded by wire too. discordgo
// itself is the patched copy in third_party/discordgo, whose gateway reads
// payloads in one pass.
package bot
