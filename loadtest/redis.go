package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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
