// Package redisstore is the production storage.Store, on Redis (single
// server, Sentinel or Cluster, through redis.UniversalClient).
//
// # Keys
//
// A player's data share the hash tag {guild:user}, hence one slot:
//
//	p:{g:u}   hash: balance, keys, chest, ticket, last chest, statistics
//	h:{g:u}   list: history, newest first (storage.HistoryLimit kept)
//	pa:{g:u}  list: moderator actions on this player, newest first
//
// A guild's data share the tag {g}:
//
//	s:{g}     string: settings (JSON)
//	a:{g}     list: guild-wide moderator actions (settings, guild reset)
//	m:{g}     set: the guild's players, for the leaderboard and guild reset
//	am:{g}    set: the players a moderator acted on (those with a pa:{g:u} list)
//
// # Steps
//
// Each step is one Lua script (package-level redis.NewScript values) over
// the player's three keys only, so it runs unchanged on Redis Cluster. The
// script is sent with EVALSHA in a pipeline, together with a read of the
// guild's settings; if the player does not exist yet, the script changes
// nothing and answers so, and a second round trip creates the player with
// the settings just read and adds it to m:{g}. Steps that need the settings
// (daily claim, reset) read them first. So a step takes at most two round
// trips (plus one, once, if Redis lost its script cache), and a full play —
// Buy, then Reveal of all rows — takes two.
//
// Draws happen in Go, before the script runs, because the keys held live in
// Redis: Reveal draws three independent candidate outcomes, for 0, 1 and 2
// keys held, and the script keeps the one matching the keys it finds. The
// candidate kept is independent of the others, so its distribution is
// exactly that of a draw made with the right keys; the other two are
// discarded. A drawn ticket ignores new candidates, so a second click never
// draws again. The chest needs a single candidate.
//
// # Trade-offs
//
// Moderator actions on one player are logged in that player's slot,
// atomically with the action; Audit merges those lists with the guild's.
// It reads only the lists of the players in am:{g}, a set added to in the
// same pipeline as the moderator's script (idempotent, so a refused action
// leaves at worst an empty list to read), so the audit log of a guild of
// 100,000 players reads a few lists, not 100,000.
// Two actions in the same millisecond on different lists may be listed in
// either order. The member set m:{g} is written in the same pipeline as the
// creating script, not inside it (another slot): it could in theory miss a
// player if that pipeline were cut between the two commands; export scans
// the keyspace instead and does not depend on it. Leaderboard reads the
// balance of every member (two round trips), fine for guilds of thousands.
// ResetGuild resets each player atomically but the guild as a sequence, and
// Import checks before writing and deletes what it wrote on failure: both
// are operator actions, run when the bot is stopped or quiet.
//
//	st, err := redisstore.Open(ctx, "redis://localhost:6379/0", storage.Options{})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
package redisstore
