// Package storage keeps each player's state — credits, keys, open ticket,
// statistics — per (guild, user), and changes it only in atomic steps, so that
// no credit is ever lost or created by a crash, a retry, a double click or two
// processes at once.
//
// Two implementations satisfy Store: storage/redisstore (production, Redis
// single, Sentinel or Cluster) and storage/boltstore (embedded file, the
// default). One conformance suite, storage/storetest, runs against both;
// storage/backend opens the configured one.
//
// # Rules every store keeps
//
//   - A player is created on first use with the guild's starting balance
//     (Settings.StartingBalance, else Options.Defaults).
//   - Buy, Reveal, OpenChest, ClaimDaily, Grant, SetBalance and ResetPlayer are
//     each one atomic step that returns the player's whole state afterwards,
//     so a caller never needs another read to render it. A step that returns
//     an error has changed nothing.
//   - The outcome of a ticket is drawn once, at the first Reveal, with the
//     keys held at that moment; every later Reveal returns the stored outcome.
//   - For every player at every moment
//     Balance = StartingBalance + GrantedCents + WonCents + DailyCents − StakedCents
//     (CheckInvariant); the audit subcommand checks it over a whole store.
//   - Amounts are bounded (MaxGrant, MaxBalance) and reasons short
//     (MaxReason); anything out of bounds is ErrInvalid.
//   - Stores that can be dumped implement Dumper; WriteDump and ReadDump give
//     the JSON form used by the export and import subcommands.
//
// # Usage
//
//	st, err := backend.Open(ctx, os.Getenv("REDIS_URL"), "./data/clefs.db", storage.Options{
//		Defaults: storage.Settings{StartingBalance: 10_000},
//	})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	id := storage.PlayerID{Guild: guildID, User: userID}
//	p, t, resumed, err := st.Buy(ctx, id)
//	switch {
//	case errors.Is(err, storage.ErrInsufficientFunds):
//		// tell the player
//	case err != nil:
//		return err
//	}
//	p, t, err = st.Reveal(ctx, id, t.ID, storage.AllRows) // draws once, shows all
package storage
