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
// application's emojis (names of 2–32 of [A-Za-z0-9_], unique, images as
// data URIs of at most 256 KiB that decode; SetRefuseEmojis refuses
// their creation); message
// payloads (content ≤ 2000 characters, ≤ 10 embeds and their limits, ≤ 5
// action rows of ≤ 5 buttons, custom IDs 1..100 characters and unique in a
// message, labels ≤ 80, allowed flags); exactly one callback per interaction,
// within 3 seconds (Options.AckTimeout; later: 404 10062 Unknown
// interaction); webhook calls within the token's life (Options.TokenLife,
// 15 minutes; later: 401 50027 Invalid Webhook Token). A refused call
// answers a Discord-shaped JSON error and is recorded as a Failure.
//
// Activities: with Options.Activities the application starts with the
// entry-point command Discord creates (type 4, handler 2, "launch"); a
// global bulk overwrite must keep it, by ID or by type and name (else 400
// 50240; DELETE removes it), a guild's may hold none, and only it may
// have a handler. LAUNCH_ACTIVITY (callback type 12) answers a command or
// a component and is recorded (Server.Launches); without Activities both
// the handler and type 12 are refused (400 50035). The tests check what
// the bot sends on these routes against an excerpt of Discord's OpenAPI
// specification (testdata/discord-openapi).
//
// Files: the callback, the follow-up, the webhook message edit and the
// interactions endpoint's reply take multipart/form-data as Discord does, the
// JSON in a payload_json part (required, ≤ 1 MiB) and up to 10 files in
// files[0]..files[9] parts (≤ 10 MiB each, 25 MiB in all; beyond: 413 40005,
// other mistakes 400 50035 or 50109). Each file becomes an attachment of the
// message (id, filename, size, content_type, url, proxy_url); an edit adds
// its files to those kept (all, or those its "attachments" field lists). The
// fake serves the bytes at the attachment's url, GET
// /attachments/CHANNEL/ID/FILENAME without authorization, and returns them
// from Server.Attachment. A JSON body stays limited to 1 MiB.
//
// What it does not do: attachments of uploads by reference (cloud uploads),
// modals' submission, guild state beyond
// IDs, zlib compression, message content outside interactions, rate limits
// of its own (it serves only the 429s a test injects).
//
// # Faults
//
// A test makes the fake fail on demand, from Go or from the control API
// (POST /_fake/faults and the others in ControlAPI). A Fault rule hits the
// REST calls it matches (by route template, bucket or interaction; the next
// Count, or a Fraction drawn from Options.Seed):
//
//	srv.InjectFault(fakediscord.Fault{Kind: fakediscord.FaultRateLimit,
//		Route: "POST /interactions/{id}/{token}/callback", RetryAfter: time.Second})
//	srv.InjectFault(fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 502,
//		Route: "PATCH /webhooks/{app}/{token}/messages/@original", After: true})
//	srv.InjectFault(fakediscord.Fault{Kind: fakediscord.FaultSlow, Delay: 2500 * time.Millisecond,
//		Route: "POST /interactions/{id}/{token}/callback", After: true}) // a late, successful callback
//	srv.SetGlobalRateLimit(time.Second)                                   // every call: a global 429
//	srv.SetChaos(fakediscord.Chaos{Fraction: 0.1, Seed: 7, GatewayDrops: 3})
//	srv.Reconnect(); srv.InvalidateSession(false); srv.WithholdHeartbeatAcks(d)
//
// The 429s carry Discord's body and headers (Retry-After, X-RateLimit-Limit,
// -Remaining, -Reset, -Reset-After, -Bucket, -Scope, -Global) and are
// enforced: a call on a bucket before the retry_after it was given is a
// Failure, "retried before retry_after". Malformed 429s (no retry_after,
// negative, 1e9 s, an HTML body, a Reset-After that is not a number) are
// served for bad-input tests and not enforced. A server_error, slow or
// reset fault happens before the call is processed (nothing is done) unless
// After is set (the call takes effect, the client sees the failure).
//
// Injected faults are not Failures: Server.Faults lists them, and also, as
// FaultConsequence, the 40060, 10062 or 50027 refusals of an interaction
// that had an injected fault (e.g. a retried callback after one that took
// effect). The same refusals without an injected fault stay Failures: the
// bot answered twice, too late, or past the token's life.
//
// The gateway supports RESUME: the dispatches the client missed are sent
// again, then RESUMED (Server.Resumes); after op 9 the connection must
// IDENTIFY again (Server.Identifies), or RESUME if it was resumable.
//
// With Options.Control, the server also serves a small control API under
// /_fake/ (see Server.ControlHandler and ControlAPI) so that a person can
// play by hand with curl against the bot; cmd/fakediscord runs it
// standalone.
//
// # HTTP interactions
//
// With Options.InteractionsURL (or SetInteractionsURL at any time) the fake
// delivers interactions as Discord does to an Interactions Endpoint URL: it
// POSTs the same JSON the gateway would dispatch, signed with Ed25519
// (X-Signature-Ed25519, hex, over X-Signature-Timestamp + body), and takes
// the reply's body as the initial response, checked as a callback is and
// within the same deadline. A non-2xx reply, no reply, or a body Discord
// would refuse fails the interaction at once (Pending.Wait returns
// ErrEndpoint) and is a Failure whose Path is the endpoint's URL. The bot
// then edits and follows up over REST as usual. The key is Options.PrivateKey
// or, by default, a fixed test key whose public half is TestPublicKeyHex:
//
//	srv := fakediscord.New(fakediscord.Options{Token: "T", InteractionsURL: botURL + "/interactions"})
//	// run the bot with DISCORD_PUBLIC_KEY=fakediscord.TestPublicKeyHex
//	if err := srv.Ping(ctx); err != nil { ... } // PONG, and 401 to a bad signature
//	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: g, User: u, Name: "play"})
//
// # Shards
//
// Each gateway session gets the events of the guilds its shard owns,
// (guild_id >> 22) % shard_count, DMs on shard 0, on its newest connection;
// sessions with overlapping shards (two processes, or a resharding) all get
// them, as on Discord. READY lists the shard's guilds; GET /gateway/bot
// recommends Options.RecommendedShards.
package fakediscord
