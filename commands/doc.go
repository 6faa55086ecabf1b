// Package commands defines the bot's slash commands and buttons and handles
// their interactions. It is independent of the transport that delivered the
// interaction (gateway or HTTP endpoint): handlers get a parsed
// *discordgo.Interaction and answer through a Responder.
//
// Commands: /play (/jouer), /balance (/solde), /rules (/regles),
// /leaderboard (/classement), /daily (/bonus), /history (/historique) and
// /admin (grant, set-balance, reset, reset-guild, settings, audit; Manage
// Server by default and checked again here). Each command's definition sits
// beside its handler, in cmd_*.go.
//
// Buttons carry what they need in their custom IDs (v1:row:<user>:<ticket>:<row>,
// v1:auto:…, v1:again:…, v1:chest:<user>:<seq>, v1:rg:<moderator>:<unix>,
// v1:rgx:…, v1:act:<user>): one typed value, formatted and parsed strictly
// from one table (customid.go), so a button from before a restart still
// works; only the owner may press them.
//
// With Config.Activity, ticket cards get "Scratch by hand" (v1:act),
// answered with LAUNCH_ACTIVITY (type 12): Discord opens the Activity, the
// card scratched by hand (package activity). EntryPoint is then the
// entry-point command the transports register when the application has
// none (launch.go).
//
// Every change is one value, a move of package game (game.Buy, Reveal,
// OpenChest, ClaimDaily, Grant, Reset…) in a storage.Step under an
// operation ID, the interaction's ID, that the store runs (Store.Run): a
// repeated interaction changes nothing and is answered from the result the
// first one recorded; what the step did comes back as data
// (storage.Applied). The
// transitions themselves make a double click harmless (an open ticket is
// resumed, a ticket drawn once, a chest paid once). /play, "Play again" and
// /daily create a player at the first step, with the guild's starting
// balance; /balance, /history and /leaderboard read without creating, and
// /admin reset of someone who never played creates nobody. Draws go through
// Config.Drawer (verifiable seeded draws by default) and new players' seeds
// come from Config.Seeds (crypto/rand by default). A button is checked against the card it
// sits on: a click is handled only if its message carries a button with
// exactly the clicked custom ID (Discord always sends the message with a
// component interaction).
//
// Each feature's handlers are methods of a type of their own that sees only
// what they use (plays in cmd_play.go, account, care, fairness, admin,
// rules, the Activity's desk, the jobs); they share the store's steps
// (steps in app.go) and the cards (render.go).
//
// Handlers return errors; Handle renders them in one place: user errors as
// an ephemeral reply in the user's language (French for a "fr" locale,
// English otherwise, via go-i18n with CLDR plurals), internal errors logged
// with context and answered with a short apology. A route table
// (router.go) holds each handler wrapped once in the delivery chain
// (delivery.go), which answers within Discord's 3 seconds, deferring when
// a handler is slow. Recover a Responder's panics at the caller (package bot).
//
// /play and "Play again" read a guild's settings (allowed channel, public
// plays, starting balance) with Store.Guild on every play; wrap the store
// with storage/settingscache to cache them. /admin settings changes them,
// and /admin reset-guild records its progress, with game's guild moves
// (game.ChangeSettings, BeginReset…) run by Store.RunGuild.
//
// The Activity (package activity, the card scratched by hand) plays
// through App.Act: the buttons' own steps (plays' buyStep, revealStep,
// chestStep, account's dailyStep) under the page's operation
// IDs ("a:" + the page's), counted and logged as the buttons are; its
// state (ActState) holds the revealed rows only (activity.go).
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
