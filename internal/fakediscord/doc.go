// Package fakediscord is a fake Discord on loopback that the real discordgo
// client talks to: the REST API (under /api/v9 and /api/v10), the gateway
// (a websocket), command registration, interaction callbacks, webhook edits
// and follow-ups, with Discord's validation and its error shapes. It lets the
// end-to-end tests run the real bot, unmodified, with DISCORD_API_BASE set to
// the fake's URL.
//
// A test drives users' actions and reads what the bot answered:
//
//	srv := fakediscord.New(fakediscord.Options{Token: "T"})
//	if err := srv.Start(); err != nil { ... }
//	defer srv.Close()
//	// run the bot with DISCORD_TOKEN=T DISCORD_API_BASE=srv.URL()
//	srv.WaitIdentified(ctx)
//	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: g, Channel: c, User: u, Name: "play"})
//	r, err := p.Wait(ctx)        // the callback, the message it made, the latency
//	p, err = srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: id, User: u})
//	...
//	if f := srv.Failures(); len(f) > 0 { t.Fatal(f) } // every 4xx and every missed 3-second deadline
//
// What it checks like Discord: the bot token on every authenticated call; the
// commands' names, descriptions, localizations and option limits; the
// application's emojis (names, images of at most 256 KiB that decode); message
// payloads (content ≤ 2000 characters, ≤ 10 embeds and their limits, ≤ 5
// action rows of ≤ 5 buttons, custom IDs 1..100 characters and unique in a
// message, labels ≤ 80, allowed flags); exactly one callback per interaction,
// within Options.AckTimeout (later: 404 10062 Unknown interaction); webhook
// calls within Options.TokenLife (later: 401 50027 Invalid Webhook Token). A
// refused call answers a Discord-shaped JSON error and is recorded as a
// Failure.
//
// Activities (Options.Activities): the entry-point command, LAUNCH_ACTIVITY
// callbacks (Server.Launches), and what the Activity asks of Discord (OAuth2,
// instances: StartActivity, Authorize); ActivityClient serves the Activity
// as Discord does, in a page that plays Discord's client (clefs try, the
// browser test). The tests check what the bot sends on these routes against
// an excerpt of Discord's OpenAPI specification (testdata/discord-openapi).
//
// Files: the callback, the follow-up, the webhook message edit and the
// interactions endpoint's reply take multipart/form-data as Discord does, the
// JSON in a payload_json part (≤ 1 MiB) and up to 10 files in
// files[0]..files[9] parts (≤ 10 MiB each, 25 MiB in all). Each file becomes
// an attachment of the message, served without authorization at its url and
// returned by Server.Attachment.
//
// What it does not do: uploads by reference (cloud uploads), modals'
// submission, guild state beyond IDs, zlib compression, message content
// outside interactions, rate limits of its own (it serves only the 429s a
// test injects).
//
// # Faults
//
// A test makes the fake fail on demand, from Go or from the control API (see
// ControlAPI): a Fault rule hits the REST calls it matches; SetChaos draws
// faults at random; the gateway is dropped, told to reconnect or invalidated:
//
//	srv.InjectFault(fakediscord.Fault{Kind: fakediscord.FaultRateLimit,
//		Route: "POST /interactions/{id}/{token}/callback", RetryAfter: time.Second})
//	srv.SetChaos(fakediscord.Chaos{Fraction: 0.1, Seed: 7, GatewayDrops: 3})
//	srv.Reconnect(); srv.InvalidateSession(false); srv.WithholdHeartbeatAcks(d)
//
// Injected faults are not Failures: Server.Faults lists them, and their
// consequences (FaultConsequence). The gateway supports RESUME: the
// dispatches the client missed are sent again (Server.Resumes).
//
// # HTTP interactions
//
// With Options.InteractionsURL (or SetInteractionsURL) the fake POSTs
// interactions to the bot's endpoint, signed with Ed25519, and takes the
// reply's body as the initial response, checked as a callback is. The key's
// public half is TestPublicKeyHex unless Options.PrivateKey is set; Ping
// checks the endpoint as the Developer Portal does.
//
// # Shards
//
// Each gateway session gets the events of the guilds its shard owns,
// (guild_id >> 22) % shard_count, DMs on shard 0, on its newest connection;
// sessions with overlapping shards all get them, as on Discord.
package fakediscord
