package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ServerStats are the Redis server's counters that a phase reads before
// and after itself: INFO cpu's used_cpu_user + used_cpu_sys, and INFO
// stats' total_net_input_bytes (received from clients) and
// total_net_output_bytes (sent to them).
type ServerStats struct {
	CPU      time.Duration
	NetIn    int64
	NetOut   int64
	Commands int64 // total_commands_processed
}

// sub returns the counters' growth from before to s.
func (s ServerStats) sub(before ServerStats) ServerStats {
	return ServerStats{CPU: s.CPU - before.CPU, NetIn: s.NetIn - before.NetIn,
		NetOut: s.NetOut - before.NetOut, Commands: s.Commands - before.Commands}
}

// RedisStats returns a function that reads the Redis server's counters
// (see ServerStats) from the server the client picks (on a cluster, one
// node: only meaningful for a single server).
func RedisStats(c redis.UniversalClient) func(ctx context.Context) (ServerStats, error) {
	return func(ctx context.Context) (ServerStats, error) {
		fields := make(map[string]string)
		for _, section := range []string{"cpu", "stats"} { // one at a time, as Redis before 7 reads them
			info, err := c.Info(ctx, section).Result()
			if err != nil {
				return ServerStats{}, fmt.Errorf("redis INFO %s: %w", section, err)
			}
			for _, line := range strings.Split(info, "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
					fields[k] = v
				}
			}
		}
		var x [5]float64
		for i, name := range []string{"used_cpu_user", "used_cpu_sys", "total_net_input_bytes", "total_net_output_bytes", "total_commands_processed"} {
			v, ok := fields[name]
			if !ok {
				return ServerStats{}, fmt.Errorf("redis INFO: %s missing", name)
			}
			var err error
			if x[i], err = strconv.ParseFloat(v, 64); err != nil {
				return ServerStats{}, fmt.Errorf("redis INFO: %s: %w", name, err)
			}
		}
		return ServerStats{CPU: time.Duration((x[0] + x[1]) * float64(time.Second)), NetIn: int64(x[2]), NetOut: int64(x[3]), Commands: int64(x[4])}, nil
	}
}

// deleteGuilds deletes every key of the guilds, on every master of a
// cluster, and returns how many it deleted. Every key of a guild carries
// its hash tag {guild}, as package redisstore names them (p:{g}:u,
// h:{g}:u…, s:{g}, a:{g}, lb:{g}).
func deleteGuilds(ctx context.Context, c redis.UniversalClient, guilds []uint64) (int, error) {
	var (
		mu   sync.Mutex
		keys []string
	)
	scan := func(ctx context.Context, node redis.Cmdable) error {
		for _, g := range guilds {
			pat := "*{" + strconv.FormatUint(g, 10) + "}*"
			it := node.Scan(ctx, 0, pat, 1000).Iterator()
			for it.Next(ctx) {
				mu.Lock()
				keys = append(keys, it.Val())
				mu.Unlock()
			}
			if err := it.Err(); err != nil {
				return fmt.Errorf("scan %s: %w", pat, err)
			}
		}
		return nil
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	} else {
		err = scan(ctx, c)
	}
	if err != nil {
		return 0, fmt.Errorf("loadtest: find the run's Redis keys: %w", err)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	// One DEL per key: the keys live in different slots of a cluster, and a
	// pipeline sends each to its node.
	pipe := c.Pipeline()
	for _, k := range keys {
		pipe.Del(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("loadtest: delete the run's %d Redis keys: %w", len(keys), err)
	}
	return len(keys), nil
}
