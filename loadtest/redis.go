package loadtest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

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

// RedisCPU returns a function that reads the Redis server's CPU time so far
// (used_cpu_user + used_cpu_sys of INFO cpu).
func RedisCPU(c redis.UniversalClient) func(ctx context.Context) (time.Duration, error) {
	return func(ctx context.Context) (time.Duration, error) {
		info, err := c.Info(ctx, "cpu").Result()
		if err != nil {
			return 0, fmt.Errorf("redis INFO cpu: %w", err)
		}
		var total float64
		found := 0
		for _, line := range strings.Split(info, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || k != "used_cpu_user" && k != "used_cpu_sys" {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("redis INFO cpu: %s: %w", k, err)
			}
			total += f
			found++
		}
		if found != 2 {
			return 0, fmt.Errorf("redis INFO cpu: used_cpu_user or used_cpu_sys missing")
		}
		return time.Duration(total * float64(time.Second)), nil
	}
}
