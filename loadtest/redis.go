package loadtest

import (
	"context"
	"fmt"
	"strconv"
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
		info, err := c.InfoMap(ctx).Result() // the default sections hold CPU and Stats
		if err != nil {
			return ServerStats{}, fmt.Errorf("redis INFO: %w", err)
		}
		var x [5]float64
		for i, f := range [][2]string{{"CPU", "used_cpu_user"}, {"CPU", "used_cpu_sys"},
			{"Stats", "total_net_input_bytes"}, {"Stats", "total_net_output_bytes"}, {"Stats", "total_commands_processed"}} {
			if x[i], err = strconv.ParseFloat(info[f[0]][f[1]], 64); err != nil {
				return ServerStats{}, fmt.Errorf("redis INFO %s: %w", f[1], err)
			}
		}
		return ServerStats{CPU: time.Duration((x[0] + x[1]) * float64(time.Second)), NetIn: int64(x[2]), NetOut: int64(x[3]), Commands: int64(x[4])}, nil
	}
}
