package redistest_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

func client(t *testing.T, url string, want redisstore.Mode) redis.UniversalClient {
	t.Helper()
	target, err := redisstore.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if target.Mode != want {
		t.Fatalf("%s: mode %v, want %v", url, target.Mode, want)
	}
	c := target.Client()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// countGuildKeys returns, for each master of the cluster, how many keys of
// guild it holds.
func countGuildKeys(t *testing.T, c *redis.ClusterClient, guild uint64) map[string]int {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int{}
	err := c.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
		keys, err := scanAll(ctx, node, redistest.GuildPattern(guild))
		mu.Lock()
		counts[node.Options().Addr] = len(keys)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

func scanAll(ctx context.Context, c *redis.Client, pattern string) ([]string, error) {
	var keys []string
	iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}

// The cluster URL names a real cluster of three masters: the keys of one
// guild, which share its hash tag as the store's do, land on one master,
// and the guilds on all of them.
func TestCluster(t *testing.T) {
	url := redistest.ClusterURL(t)
	c := client(t, url, redisstore.Cluster).(*redis.ClusterClient)
	ctx := context.Background()
	// The layout marker first, as every store writes it before its first
	// key: the stores' tests that open this shared cluster meanwhile would
	// otherwise take these keys for a release before the marker's.
	if err := c.SetNX(ctx, redisstore.LayoutKey, strconv.Itoa(storage.LayoutVersion), 0).Err(); err != nil {
		t.Fatal(err)
	}
	const guilds, players = 40, 5
	perMaster := map[string]int{}
	var first uint64
	for range guilds {
		guild := redistest.UniqueGuild(t)
		redistest.CleanupGuild(t, url, guild)
		if first == 0 {
			first = guild
		}
		for user := range players {
			key := fmt.Sprintf("p:{%d}:%d", guild, user)
			if err := c.HSet(ctx, key, "balance", user).Err(); err != nil {
				t.Fatalf("HSET %s: %v", key, err)
			}
		}
		holders := 0
		for addr, n := range countGuildKeys(t, c, guild) {
			if n > 0 {
				holders++
				perMaster[addr]++
			}
			if n != 0 && n != players {
				t.Errorf("master %s holds %d of guild %d's %d keys", addr, n, guild, players)
			}
		}
		if holders != 1 {
			t.Errorf("guild %d's keys are on %d masters, want 1", guild, holders)
		}
	}
	if len(perMaster) != redistest.ClusterMasters {
		t.Errorf("guilds per master %v: want %d masters holding some", perMaster, redistest.ClusterMasters)
	}
	t.Logf("guilds per master: %v", perMaster)
	// A script on a guild's slot, as the store's steps run.
	incr := redis.NewScript(`return redis.call("HINCRBY", KEYS[1], "balance", ARGV[1])`)
	key := fmt.Sprintf("p:{%d}:%d", first, 3)
	if got, err := incr.Run(ctx, c, []string{key}, 5).Int(); err != nil || got != 8 {
		t.Errorf("script on %s: %d, %v; want 8", key, got, err)
	}

	// CleanupGuild deletes what a (sub)test wrote in its guild, and only
	// that.
	other := redistest.UniqueGuild(t)
	t.Run("cleanup", func(t *testing.T) {
		redistest.CleanupGuild(t, url, other)
		for user := range 20 {
			if err := c.Set(ctx, fmt.Sprintf("h:{%d}:%d", other, user), "x", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Set(ctx, fmt.Sprintf("s:{%d}", other), "{}", 0).Err(); err != nil {
			t.Fatal(err)
		}
	})
	if n := sum(countGuildKeys(t, c, other)); n != 0 {
		t.Errorf("%d keys of guild %d left after CleanupGuild", n, other)
	}
	if n := sum(countGuildKeys(t, c, first)); n != players {
		t.Errorf("CleanupGuild of another guild left %d keys of this one, want %d", n, players)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// The Sentinel URL names a master that the client finds and uses.
func TestSentinel(t *testing.T) {
	url := redistest.SentinelURL(t)
	c := client(t, url, redisstore.Sentinel)
	ctx := context.Background()
	guild := redistest.UniqueGuild(t)
	redistest.CleanupGuild(t, url, guild)
	key := fmt.Sprintf("s:{%d}", guild)
	if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
		t.Fatalf("SET through the sentinel's master: %v", err)
	}
	if got, err := c.Get(ctx, key).Result(); err != nil || got != "v" {
		t.Errorf("GET %s = %q, %v", key, got, err)
	}
	role, err := c.Do(ctx, "ROLE").Slice()
	if err != nil || len(role) == 0 || role[0] != "master" {
		t.Errorf("the client talks to %v (%v), want a master", role, err)
	}
}

// After Failover, the client of the same URL writes to the new master within
// a few seconds, and what the old master had replicated is still there.
// It fails over its own Sentinel set, not the shared one other packages'
// tests are using.
func TestFailover(t *testing.T) {
	url := redistest.StartSentinel(t)
	c := client(t, url, redisstore.Sentinel)
	ctx := context.Background()
	guild := redistest.UniqueGuild(t)
	before, after := fmt.Sprintf("p:{%d:1}", guild), fmt.Sprintf("p:{%d:2}", guild)
	if err := c.Set(ctx, before, "kept", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// Failover is asynchronous: make sure the replica has the write.
	if n, err := c.Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d replicas, %v", n, err)
	}

	start := time.Now()
	newMaster := redistest.Failover(t, url)
	t.Logf("failover to %s took %v", newMaster, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	deadline := start.Add(10 * time.Second)
	for attempt := 1; ; attempt++ {
		err := c.Set(ctx, after, strconv.Itoa(attempt), 0).Err()
		if err == nil {
			t.Logf("first write after the failover: attempt %d, %v", attempt, time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no write succeeded within 10s of the failover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, err := c.Get(ctx, before).Result(); err != nil || got != "kept" {
		t.Errorf("GET %s after the failover = %q, %v; want kept", before, got, err)
	}
	// The write went to the new master.
	direct := redis.NewClient(&redis.Options{Addr: newMaster})
	defer direct.Close()
	if err := direct.Get(ctx, after).Err(); err != nil {
		t.Errorf("the new master %s does not have %s: %v", newMaster, after, err)
	}

	// A second failover (back to the first server) works too: Failover
	// waits until the sentinel has a replica fit to promote.
	if again := redistest.Failover(t, url); again == newMaster {
		t.Errorf("second failover kept %s", again)
	}
	if err := c.Set(ctx, after, "again", 0).Err(); err != nil {
		// The client may need a retry to see the switch; one is enough.
		if err := c.Set(ctx, after, "again", 0).Err(); err != nil {
			t.Errorf("write after the second failover: %v", err)
		}
	}
}

func TestUniqueGuild(t *testing.T) {
	seen := map[uint64]bool{}
	for range 1000 {
		g := redistest.UniqueGuild(t)
		if g == 0 || g >= 1<<63 || seen[g] {
			t.Fatalf("UniqueGuild = %d (seen: %v)", g, seen[g])
		}
		seen[g] = true
	}
}
