// Package activity serves the game as a Discord Activity: the bot's own
// page inside the Discord client, where a player scratches the card by
// hand, mounted at /activity/ on the public listener (PUBLIC_ADDR).
//
// It serves the page (static/, built from web/ and embedded), the symbols'
// pictures (package art) and a small JSON API under api/. Who plays is
// proven by Discord, never by the page: api/session reads the instance (in
// a guild's channel), exchanges the SDK's code and checks that the user is
// in the instance, each call to Discord bounded so that bad logins cannot
// crowd out good ones; the answer is a session signed under a key derived
// from the client secret. The game routes run commands.App.Act for the
// session's user, and send the revealed rows only. The table (table.go)
// shows everyone in an instance the others' revealed rows and results,
// over one stream of server-sent events per page, fed by a Bus (LocalBus,
// or the Redis store's sharded pub/sub). Every answer carries a strict
// CSP; bodies, rates and errors are as docs/activity.md says.
//
// Usage:
//
//	h, err := activity.New(activity.Options{Game: app, AppID: botID,
//		ClientSecret: cfg.ClientSecret, Token: cfg.Token, APIBase: cfg.APIBase})
//	mux.Handle("/activity/", h)
package activity
