package redisstore

import "context"

// busKey is the channel of a guild's messages: it carries the guild's hash
// tag, so that on Cluster the sharded pub/sub keeps it on the node of the
// guild's keys.
func busKey(guild uint64) string { return "t:" + guildTag(guild) }

// Publish sends msg to the subscribers of guild (SPUBLISH) and returns how
// many it reached: with Subscribe, the store is the bus of the Activity's
// tables (activity.Bus) across the bot's processes.
func (s *Store) Publish(ctx context.Context, guild uint64, msg []byte) (int, error) {
	n, err := s.rdb.SPublish(ctx, busKey(guild), msg).Result()
	return int(n), s.wrap("publish", err)
}

// Subscribe calls fn with each message published for guild from its
// return on (SSUBSCRIBE), in order, until stop. Messages sent while the
// connection is down are lost; the client subscribes again as it reconnects.
func (s *Store) Subscribe(ctx context.Context, guild uint64, fn func(msg []byte)) (stop func(), err error) {
	ps := s.rdb.SSubscribe(ctx, busKey(guild))
	if _, err := ps.Receive(ctx); err != nil { // the confirmation
		_ = ps.Close()
		return nil, s.wrap("subscribe", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ps.Channel() {
			fn([]byte(m.Payload))
		}
	}()
	return func() { _ = ps.Close(); <-done }, nil
}
