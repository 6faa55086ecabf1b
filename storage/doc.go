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
// What a step writes (docs/STORAGE.md §5) lands whole or not at all in
// every store. The audit subcommand checks that the leaderboard agrees with
// the players: a disagreement is a bug, not something to repair. A damaged
// record (DamagedError) takes down nothing but itself.
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
