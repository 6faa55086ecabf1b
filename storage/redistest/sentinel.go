package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// EnvSentinelURL names the environment variable of a shared Sentinel set
// (redis+sentinel://host:port?master_name=mymaster), which .ci/run sets.
const EnvSentinelURL = "CLEFS_TEST_REDIS_SENTINEL_URL"

// SentinelMaster is the master name of the Sentinel sets StartSentinel and
// .ci/run start.
const SentinelMaster = "mymaster"

// SentinelURL returns the URL of a Sentinel set for this test: the shared
// one of CLEFS_TEST_REDIS_SENTINEL_URL, checked to answer, or else a
// private one (StartSentinel). The shared set is not emptied: work in
// guilds of your own (UniqueGuild, CleanupGuild). It skips the test when no
// Sentinel set can be had, or fails it under CI=true.
func SentinelURL(tb testing.TB) string {
	tb.Helper()
	return sharedOr(tb, EnvSentinelURL, redisstore.Sentinel, StartSentinel)
}

// StartSentinel starts a private Sentinel set on free loopback ports,
// stopped at cleanup: a master, one replica in sync with it, and one
// sentinel watching them as SentinelMaster with a quorum of 1, a
// down-after of 1s and a failover timeout of 5s. It returns its URL,
// redis+sentinel://127.0.0.1:PORT?master_name=mymaster, once the sentinel
// knows the master and the replica. It takes a fraction of a second.
//
// A test that fails over (Failover) should use its own set, from
// StartSentinel: on the shared one, the failover would disturb the tests
// of other packages running at the same time.
func StartSentinel(tb testing.TB) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Diskless sync without delay: the replica syncs at once (Redis 7
	// waits 5s for more replicas by default). The replica may become the
	// master, hence the same options.
	noDelay := func() []string { return []string{"--repl-diskless-sync-delay", "0"} }
	master, _ := startRedis(tb, EnvSentinelURL, "", noDelay)
	host, port, _ := net.SplitHostPort(master)
	replica, _ := startRedis(tb, EnvSentinelURL, "", func() []string {
		return append(noDelay(), "--replicaof", host, port)
	})
	// Synced as the master sees it: until the replica's first ACK, the
	// master does not count it (WAIT), however up its link.
	mc := redis.NewClient(&redis.Options{Addr: master})
	defer mc.Close()
	waitFor(ctx, tb, "the replica "+replica+" to sync", func() (bool, error) {
		info, err := mc.Info(ctx, "replication").Result()
		return strings.Contains(info, ",state=online,"), err
	})

	// The sentinel's configuration file: it rewrites it, so it is its own.
	conf := filepath.Join(tb.TempDir(), "sentinel.conf")
	text := fmt.Sprintf("sentinel monitor %s %s %s 1\n"+
		"sentinel down-after-milliseconds %[1]s 1000\n"+
		"sentinel failover-timeout %[1]s 5000\n", SentinelMaster, host, port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	sentinel, _ := startRedis(tb, EnvSentinelURL, conf, func() []string { return []string{"--sentinel"} })
	sc := redis.NewSentinelClient(&redis.Options{Addr: sentinel})
	defer sc.Close()
	waitFor(ctx, tb, "the sentinel to know the master and its replica", func() (bool, error) {
		return knowsReplica(ctx, sc, replica)
	})
	return fmt.Sprintf("redis+sentinel://%s?master_name=%s", sentinel, SentinelMaster)
}

// knowsReplica reports whether the sentinel sc knows addr as a healthy
// replica of SentinelMaster.
func knowsReplica(ctx context.Context, sc *redis.SentinelClient, addr string) (bool, error) {
	replicas, err := sc.Replicas(ctx, SentinelMaster).Result()
	for _, r := range replicas {
		if net.JoinHostPort(r["ip"], r["port"]) == addr && r["flags"] == "slave" && r["master-link-status"] == "ok" {
			return true, nil
		}
	}
	return false, err
}

// Failover makes the first sentinel of sentinelURL fail its master over
// (SENTINEL FAILOVER, retried while the sentinel has no replica fit to
// promote yet, as just after a previous failover), waits until the
// sentinel reports the new master's address, then makes the old master,
// if it still runs, a replica of the new one (REPLICAOF, which the sentinel
// would do 8 to 10s later) and waits until it is in sync. It returns the
// new master's address; a failover takes about 2s. Clients of sentinelURL follow the new
// master by themselves; commands in flight during the switch may fail and
// be retried (redisstore.DefaultMaxRetries).
//
// Sentinel failover is asynchronous: writes acknowledged by the old master
// but not yet copied to the replica are lost. A test that must not lose a
// write makes sure the replica has it first (WAIT 1 <ms> on the master).
// It fails the test if the failover does not complete within 30s.
func Failover(tb testing.TB, sentinelURL string) (newMaster string) {
	tb.Helper()
	t, err := redisstore.ParseURL(sentinelURL)
	if err != nil {
		tb.Fatalf("redistest: Failover: %v", err)
	}
	if t.Mode != redisstore.Sentinel {
		tb.Fatalf("redistest: Failover: %s is a %v URL, want a Sentinel one", redisstore.RedactURL(sentinelURL), t.Mode)
	}
	o := t.Sentinel
	sc := redis.NewSentinelClient(&redis.Options{
		Addr: o.SentinelAddrs[0], Username: o.SentinelUsername, Password: o.SentinelPassword, TLSConfig: o.TLSConfig,
	})
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := o.MasterName
	masterAddr := func() (string, error) {
		hp, err := sc.GetMasterAddrByName(ctx, name).Result()
		if err != nil {
			return "", err
		}
		return net.JoinHostPort(hp[0], hp[1]), nil
	}
	old, err := masterAddr()
	if err != nil {
		tb.Fatalf("redistest: Failover: master %q: %v", name, err)
	}
	waitFor(ctx, tb, "SENTINEL FAILOVER "+name+" to be accepted", func() (bool, error) {
		err := sc.Failover(ctx, name).Err()
		if err != nil && !strings.Contains(err.Error(), "NOGOODSLAVE") && !strings.Contains(err.Error(), "INPROG") {
			tb.Fatalf("redistest: SENTINEL FAILOVER %s: %v", name, err)
		}
		return err == nil, err
	})
	waitFor(ctx, tb, "the sentinel to report a master other than "+old, func() (bool, error) {
		addr, err := masterAddr()
		newMaster = addr
		return err == nil && addr != old, err
	})
	// The sentinel demotes the old master only once it has seen it claim to
	// be one for 8s; until then it accepts writes that will be lost, and a
	// second failover could promote it with its stale data. Demote it now,
	// as the sentinel would, and wait until it has copied the new master.
	oc := redis.NewClient(&redis.Options{
		Addr: old, Username: o.Username, Password: o.Password, TLSConfig: o.TLSConfig,
		DialTimeout: time.Second, MaxRetries: -1,
	})
	defer oc.Close()
	host, port, _ := net.SplitHostPort(newMaster)
	if err := oc.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		tb.Logf("redistest: Failover: old master %s: REPLICAOF: %v (stopped?)", old, err)
		return newMaster
	}
	waitFor(ctx, tb, "the old master "+old+" to sync with "+newMaster, func() (bool, error) {
		info, err := oc.Info(ctx, "replication").Result()
		return strings.Contains(info, "master_port:"+port+"\r\n") && strings.Contains(info, "master_link_status:up"), err
	})
	return newMaster
}
