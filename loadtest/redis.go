package loadtest

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTripCounter is a go-redis hook that counts network round trips: one
// per command, one per pipeline or transaction (however many commands it
// holds). A script run by Script.Run costs one (EVALSHA), or two the first
// time (EVALSHA answered NOSCRIPT, then EVAL). Add it with client.AddHook.
type RoundTripCounter struct {
	n atomic.Int64
}

var _ redis.Hook = (*RoundTripCounter)(nil)

// Load returns the round trips counted so far.
func (c *RoundTripCounter) Load() int64 { return c.n.Load() }

// DialHook implements redis.Hook; dialling is not counted.
func (c *RoundTripCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return next(ctx, network, addr)
	}
}

// ProcessHook implements redis.Hook.
func (c *RoundTripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (c *RoundTripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// trivial is the smallest script: one EVALSHA round trip that does nothing.
var trivial = redis.NewScript(`return 1`)

// TrivialScript returns a function that runs a trivial Lua script (EVALSHA
// of "return 1") on c: one round trip of the same kind as the store's
// steps, with no work on the server. It measures the round-trip capacity.
func TrivialScript(c redis.Scripter) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := trivial.Run(ctx, c, []string{"{loadtest}"}).Err(); err != nil {
			return fmt.Errorf("trivial script: %w", err)
		}
		return nil
	}
}
