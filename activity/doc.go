// Package activity serves the game as a Discord Activity, the bot's own page
// inside the Discord client where a player scratches the card by hand,
// mounted at /activity/ on the public listener: the page (static/, built
// from web/), the symbols' pictures (package art), the sessions that
// Discord proves (never the page), the game routes, which run
// commands.App.Act, and the table's event streams (table.go). What it
// answers, and why, is docs/activity.md.
//
// Usage:
//
//	h, err := activity.New(activity.Options{Game: app, AppID: botID,
//		ClientSecret: cfg.ClientSecret, Token: cfg.Token, APIBase: cfg.APIBase})
//	mux.Handle("/activity/", h)
package activity
