// Package storage persists players and guilds in the documented schema of
// package storage/schema (docs/STORAGE.md). It decides nothing: every rule
// of the game is in package game. A store runs a Step (Store.Run): load,
// apply the game.Move (game.Apply), write with compare-and-set, the
// operation ID looked up in the same atomic step. What every store's Run
// shares is Start and Run.Next; a guild goes the same way through
// Store.RunGuild (GuildStep.Next, game.ApplyGuild).
//
// Two implementations satisfy Store: storage/redisstore (production, Redis
// single, Sentinel or Cluster) and storage/boltstore (an embedded file, the
// default). One conformance suite, storage/storetest, runs against both;
// storage/backend opens the configured one.
//
// Run is one atomic step in every store: the player's state, its history
// lines, its revealed seed, its leaderboard entry and the moderator's audit
// line are written together, or not at all (bbolt: one transaction; Redis:
// one script, every key of a guild sharing its hash slot). The audit
// subcommand checks that the leaderboard agrees with the players; a
// disagreement is a bug, not something to repair. A damaged record
// (DamagedError) takes down nothing but itself.
//
// # Usage
//
//	st, err := backend.Open(ctx, os.Getenv("REDIS_URL"), "./data/clefs.db", storage.Options{})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	now := storage.Timestamp(time.Now())
//	a, err := st.Run(ctx, storage.Step{
//		ID: storage.PlayerID{Guild: guildID, User: userID}, Op: interactionID,
//		Create: true, Start: 2000, Seeds: rand.Reader, Now: now,
//		Move: game.Buy{},
//	})
//	switch {
//	case errors.Is(err, game.ErrInsufficientFunds):
//		// tell the player; a.Player is their state
//	case err != nil:
//		return err
//	}
package storage
