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

// RedisCPU returns a function that reads the Redis server's CPU time so far
// (used_cpu_user + used_cpu_sys of INFO cpu). On a cluster it reads the
// node the client picks, which is only meaningful for a single server.
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

// guildPatterns are the SCAN patterns of every key of a guild, as package
// redisstore names them: the players' keys carry the hash tag
// {guild:user} (p:, h:, pa:), the guild's own keys {guild} (s:, a:, m:, am:).
func guildPatterns(guild uint64) []string {
	g := strconv.FormatUint(guild, 10)
	return []string{"*{" + g + ":*}", "*{" + g + "}"}
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
