package redistest

import (
	"cmp"
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// EnvClusterURL names the environment variable of a shared Redis Cluster
// (redis+cluster://host:port,…), which .ci/run sets.
const EnvClusterURL = "CLEFS_TEST_REDIS_CLUSTER_URL"

// ClusterMasters is the number of masters of the cluster StartCluster starts.
const ClusterMasters = 3

// ClusterURL returns the URL of a Redis Cluster for this test: the shared
// one of CLEFS_TEST_REDIS_CLUSTER_URL, checked to answer, or else a private
// one (StartCluster). The shared cluster is not emptied: work in guilds of
// your own (UniqueGuild, CleanupGuild). It skips the test when no cluster
// can be had, or fails it under CI=true.
func ClusterURL(tb testing.TB) string {
	tb.Helper()
	return sharedOr(tb, EnvClusterURL, redisstore.Cluster, StartCluster)
}

// StartCluster starts a private Redis Cluster of ClusterMasters masters
// without replicas, on free loopback ports, stopped at cleanup, and returns
// its URL once every node says cluster_state:ok. It needs only
// redis-server (not redis-cli), and takes about a second.
func StartCluster(tb testing.TB) string { return startCluster(tb, 0) }

// StartClusterWithReplica is StartCluster with one replica, of the URL's
// first master (slot 0 to 5460), in sync with it.
func StartClusterWithReplica(tb testing.TB) string { return startCluster(tb, 1) }

func startCluster(tb testing.TB, replicas int) string {
	tb.Helper()
	n := ClusterMasters + replicas
	addrs := make([]string, n)
	buses := make([]int, n)
	for i := range addrs {
		// The bus port is given explicitly: the default, port+10000, may be
		// taken, or above 65535 for an ephemeral port.
		addrs[i], _ = startRedis(tb, EnvClusterURL, "", func() []string {
			bus, err := freePort()
			if err != nil {
				tb.Fatalf("redistest: free port: %v", err)
			}
			buses[i] = bus
			return []string{
				"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
				"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000",
				"--repl-diskless-sync-delay", "0", // a replica syncs at once
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	nodes := make([]*redis.Client, len(addrs))
	for i, addr := range addrs {
		nodes[i] = redis.NewClient(&redis.Options{Addr: addr})
		defer nodes[i].Close()
	}
	// What redis-cli --cluster create does: distinct config epochs, the
	// slots split in equal ranges, then the nodes meet.
	for i, c := range nodes[:ClusterMasters] {
		lo, hi := i*16384/ClusterMasters, (i+1)*16384/ClusterMasters-1
		if err := c.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			tb.Fatalf("redistest: cluster node %s: set-config-epoch: %v", addrs[i], err)
		}
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			tb.Fatalf("redistest: cluster node %s: addslotsrange %d %d: %v", addrs[i], lo, hi, err)
		}
	}
	// Every node meets every other: no wait for gossip to spread the news.
	for i, c := range nodes {
		for j, addr := range addrs {
			if i == j {
				continue
			}
			host, port, _ := net.SplitHostPort(addr)
			if err := c.Do(ctx, "CLUSTER", "MEET", host, port, buses[j]).Err(); err != nil {
				tb.Fatalf("redistest: cluster node %s: meet %s: %v", addrs[i], addr, err)
			}
		}
	}
	for i, c := range nodes {
		waitFor(ctx, tb, "cluster_state:ok on "+addrs[i], func() (bool, error) {
			info, err := c.ClusterInfo(ctx).Result()
			return strings.Contains(info, "cluster_state:ok"), err
		})
	}
	if replicas > 0 {
		id, err := nodes[0].Do(ctx, "CLUSTER", "MYID").Text()
		waitFor(ctx, tb, addrs[n-1]+" to replicate "+addrs[0], func() (bool, error) {
			err := cmp.Or(err, nodes[n-1].Do(ctx, "CLUSTER", "REPLICATE", id).Err())
			return err == nil, err
		})
		waitFor(ctx, tb, addrs[0]+" to count its replica", func() (bool, error) {
			info, err := nodes[0].Info(ctx, "replication").Result()
			return strings.Contains(info, ",state=online,"), err
		})
	}
	return "redis+cluster://" + strings.Join(addrs[:ClusterMasters], ",")
}

// sharedOr returns the URL of the variable env if set, after checking it:
// the test fails if it is not a valid URL of mode, and skips (fails under
// CI) if Redis does not answer. Unset, it returns start(tb).
func sharedOr(tb testing.TB, env string, mode redisstore.Mode, start func(testing.TB) string) string {
	tb.Helper()
	url := os.Getenv(env)
	if url == "" {
		return start(tb)
	}
	t, err := redisstore.ParseURL(url)
	if err != nil {
		tb.Fatalf("redistest: %s: %v", env, err)
	}
	if t.Mode != mode {
		tb.Fatalf("redistest: %s=%s: a %v URL, want %v", env, redisstore.RedactURL(url), t.Mode, mode)
	}
	c := t.Client()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		unavailableEnv(tb, env, "%s=%s does not answer: %v", env, redisstore.RedactURL(url), err)
	}
	return url
}

// waitFor calls ready every 20ms until it says true, and fails the test if
// ctx ends first, with what and ready's last error.
func waitFor(ctx context.Context, tb testing.TB, what string, ready func() (bool, error)) {
	tb.Helper()
	for {
		ok, err := ready()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			tb.Fatalf("redistest: timed out waiting for %s: %v", what, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
