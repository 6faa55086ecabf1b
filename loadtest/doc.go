// Package loadtest drives simulated players through the bot's interaction
// handlers, the same path a Discord interaction takes (the gateway frame of
// INTERACTION_CREATE decoded as the bot's discordgo session decodes it,
// commands.App.Handle, the store, the rendering, the response encoded as the
// bot's REST calls encode it), but without the network to Discord, and
// measures it.
//
// A play cycle is the slash command /play (buy a ticket, show the hidden
// grid), then a click on the Auto button read from that response (draw and
// reveal all), then, when the chest is due, a click on its button. Each
// simulated player is its own user (players are spread over a few guilds)
// and plays cycles in a loop for a duration or a number of cycles.
//
// Run reports cycles and interactions per second, latencies per kind of
// interaction (p50, p95, p99) split between the store's part (measured by
// TimedStore, a storage.Store decorator) and the rest, the handler overhead.
// In the same run it can measure the store's own ceiling: the store's steps
// issued directly by as many goroutines (Direct), and a trivial round trip
// such as TrivialScript on Redis (RawRoundTrip); with RoundTripCounter as a
// go-redis hook it reports round trips per cycle and the ratio of the
// handlers' throughput to the ceiling.
//
// Usage, from the command line (see "clefs loadtest -h"):
//
//	clefs loadtest -store redis -redis redis://127.0.0.1:6380/0 -players 64 -duration 10s
//
// or from Go:
//
//	s, _ := boltstore.Open("/tmp/lt.db", storage.Options{})
//	defer s.Close()
//	rep, err := loadtest.Run(ctx, loadtest.Config{Store: s, Players: 64, Duration: 10 * time.Second})
//	if err != nil {
//		return err
//	}
//	rep.WriteText(os.Stdout)
package loadtest
