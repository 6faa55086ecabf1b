// Package activity serves the game as a Discord Activity: the bot's own
// page inside the Discord client (the Embedded App SDK), where a player
// scratches the card by hand. It is mounted at /activity/ on the public
// listener (config PUBLIC_ADDR); Discord proxies the Activity's origin,
// https://<application id>.discordsays.com/, to it.
//
// It serves the page (static/, built from web/ and embedded), the
// symbols' pictures (package art) under art/, and a small JSON API under
// api/. Who plays is proven by Discord, never by the page: POST
// api/session exchanges the SDK's authorization code for the user's token
// (POST /oauth2/token, with the client secret), reads the user (GET
// /users/@me) and the Activity instance (GET
// /applications/{app}/activity-instances/{id}, with the bot token), which
// must hold the user and sit in a guild's channel. The answer is a
// session: user, guild, channel and instance, signed with HMAC-SHA256 under
// a key derived from the client secret, valid 15 minutes, sent back as a
// bearer header. The game routes (api/state, buy, reveal, chest, daily)
// run commands.App.Act for the session's user, in its guild and channel:
// the buttons' own steps, under the page's operation IDs. The page is
// sent the revealed rows only.
//
// Every answer carries a strict CSP (CSP). Bodies are at most 1 KiB of
// JSON without unknown fields; each user has a token bucket
// (DefaultRate, DefaultBurst). Errors are {"error": code, "message"}: 400
// bad input, 401 session, 403 not in the instance or not in a guild, 409 a
// refusal by the rules (with "state"), 413, 429 with Retry-After, 503
// Discord or the store unavailable. docs/activity.md has the setup.
//
// Usage:
//
//	h, err := activity.New(activity.Options{Game: app, AppID: botID,
//		ClientSecret: cfg.ClientSecret, Token: cfg.Token, APIBase: cfg.APIBase})
//	mux.Handle("/activity/", h)
package activity
