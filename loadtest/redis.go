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

// redisInfo reads the fields of INFO section from the server the client
// picks (on a cluster, one node: only meaningful for a single server).
func redisInfo(ctx context.Context, c redis.UniversalClient, section string) (map[string]string, error) {
	info, err := c.Info(ctx, section).Result()
	if err != nil {
		return nil, fmt.Errorf("redis INFO %s: %w", section, err)
	}
	m := make(map[string]string)
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// RedisStats returns a function that reads the Redis server's counters
// (see ServerStats).
func RedisStats(c redis.UniversalClient) func(ctx context.Context) (ServerStats, error) {
	return func(ctx context.Context) (ServerStats, error) {
		var s ServerStats
		info, err := redisInfo(ctx, c, "cpu")
		if err != nil {
			return s, err
		}
		stats, err := redisInfo(ctx, c, "stats")
		if err != nil {
			return s, err
		}
		var cpu float64
		for _, f := range []struct {
			m    map[string]string
			name string
		}{{info, "used_cpu_user"}, {info, "used_cpu_sys"}, {stats, "total_net_input_bytes"}, {stats, "total_net_output_bytes"}, {stats, "total_commands_processed"}} {
			v, ok := f.m[f.name]
			if !ok {
				return s, fmt.Errorf("redis INFO: %s missing", f.name)
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return s, fmt.Errorf("redis INFO: %s: %w", f.name, err)
			}
			switch f.name {
			case "used_cpu_user", "used_cpu_sys":
				cpu += x
			case "total_net_input_bytes":
				s.NetIn = int64(x)
			case "total_net_output_bytes":
				s.NetOut = int64(x)
			case "total_commands_processed":
				s.Commands = int64(x)
			}
		}
		s.CPU = time.Duration(cpu * float64(time.Second))
		return s, nil
	}
}

// guildPatterns are the SCAN patterns of every key of a guild, as package
// redisstore names them: all of them carry the guild's hash tag {guild}
// (p:{g}:u, h:{g}:u…, s:{g}, a:{g}, lb:{g}).
func guildPatterns(guild uint64) []string {
	return []string{"*{" + strconv.FormatUint(guild, 10) + "}*"}
}

// deleteGuilds deletes every key of the guilds, on every master of a
// cluster, and returns how many it deleted.
func deleteGuilds(ctx context.Context, c redis.UniversalClient, guilds []uint64) (int, error) {
	var (
		mu   sync.Mutex
		keys []string
	)
	scan := func(ctx context.Context, node redis.Cmdable) error {
		for _, g := range guilds {
			for _, pat := range guildPatterns(g) {
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
