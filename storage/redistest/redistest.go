// Package redistest gives tests a real Redis: an empty database on a single
// server, a Redis Cluster of three masters, or a Sentinel set.
//
// URL returns a fresh database. With CLEFS_TEST_REDIS_URL set (CI starts one
// server with many databases), each call takes a database of its own on
// that server; otherwise it starts a private redis-server on a free loopback
// port.
//
// ClusterURL and SentinelURL return the URL (redis+cluster://…,
// redis+sentinel://…?master_name=mymaster) of the cluster or Sentinel set
// named by CLEFS_TEST_REDIS_CLUSTER_URL or CLEFS_TEST_REDIS_SENTINEL_URL
// (.ci/run starts both), or else of a private one started for the test
// (StartCluster, StartSentinel: about a second). A cluster has only
// database 0, and the shared ones are shared by every test of every
// package: a test on them works in guilds of its own (UniqueGuild) and
// deletes their keys at the end (CleanupGuild). Failover makes the
// sentinel promote the replica.
//
// When Redis cannot be had the test is skipped with a clear message, or
// fails when CI=true.
//
//	func TestSomething(t *testing.T) {
//		url := redistest.URL(t)
//		st, err := redisstore.Open(ctx, url, storage.Options{})
//		…
//	}
//
//	func TestOnCluster(t *testing.T) {
//		url := redistest.ClusterURL(t)
//		guild := redistest.UniqueGuild(t)
//		redistest.CleanupGuild(t, url, guild)
//		st, err := redisstore.Open(ctx, url, storage.Options{})
//		… players of guild only …
//	}
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// EnvURL names the environment variable of a shared test server.
const EnvURL = "CLEFS_TEST_REDIS_URL"

const counterKey = "clefs:redistest:next-db"

// URL returns the URL of a fresh, empty Redis database for this test,
// flushed again at cleanup.
func URL(tb testing.TB) string {
	tb.Helper()
	if shared := os.Getenv(EnvURL); shared != "" {
		return sharedDB(tb, shared)
	}
	addr, _ := StartServer(tb)
	return "redis://" + addr + "/0"
}

// unavailableEnv skips the test, or fails it under CI, suggesting the
// variable env.
func unavailableEnv(tb testing.TB, env, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		tb.Fatalf("redistest: %s (CI=true: Redis tests must run)", msg)
	}
	tb.Skipf("redistest: %s; install redis-server or set %s", msg, env)
}

func sharedDB(tb testing.TB, shared string) string {
	tb.Helper()
	o, err := redis.ParseURL(shared)
	if err != nil {
		tb.Fatalf("redistest: %s=%q: %v", EnvURL, shared, err)
	}
	ctx := context.Background()
	o.DB = 0
	admin := redis.NewClient(o)
	defer admin.Close()
	n, err := admin.Incr(ctx, counterKey).Result()
	if err != nil {
		unavailableEnv(tb, EnvURL, "shared Redis %s unreachable: %v", o.Addr, err)
	}
	dbs := 16
	if v, err := admin.ConfigGet(ctx, "databases").Result(); err == nil {
		if x, err := strconv.Atoi(v["databases"]); err == nil {
			dbs = x
		}
	}
	db := 1 + int(n-1)%(dbs-1) // database 0 holds the counter
	o.DB = db
	c := redis.NewClient(o)
	if err := c.FlushDB(ctx).Err(); err != nil {
		c.Close()
		tb.Fatalf("redistest: flush db %d: %v", db, err)
	}
	tb.Cleanup(func() {
		_ = c.FlushDB(context.Background()).Err()
		_ = c.Close()
	})
	return fmt.Sprintf("redis://%s/%d", o.Addr, db)
}

// StartServer starts a private redis-server on a free loopback port, with
// no persistence, and returns its address and a stop function (also run at
// cleanup; calling it twice is fine). Tests that need to stop Redis use it.
func StartServer(tb testing.TB) (addr string, stop func()) {
	tb.Helper()
	return startRedis(tb, EnvURL, "", nil)
}

// startRedis starts redis-server like StartServer, with the config file
// conf first if not empty (Sentinel needs one), then the common options and
// the options extra returns (called again for each port tried). env names
// the variable the skip message suggests.
func startRedis(tb testing.TB, env, conf string, extra func() []string) (addr string, stop func()) {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		unavailableEnv(tb, env, "redis-server not found")
	}
	dir := tb.TempDir()
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("redistest: free port: %v", err)
		}
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		var args []string
		if conf != "" {
			args = append(args, conf)
		}
		args = append(args,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir,
			"--databases", "16", "--loglevel", "warning",
		)
		if extra != nil {
			args = append(args, extra()...)
		}
		cmd := exec.Command(bin, args...)
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("redis-%d.log", port)))
		if err != nil {
			tb.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			logf.Close()
			unavailableEnv(tb, env, "start redis-server: %v", err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		stopped := false
		stop = func() {
			if stopped {
				return
			}
			stopped = true
			_ = cmd.Process.Kill()
			<-done
			logf.Close()
		}
		if lastErr = waitReady(addr, done); lastErr == nil {
			tb.Cleanup(stop)
			return addr, stop
		}
		stop()
		lastErr = fmt.Errorf("%w; log: %s", lastErr, tail(logf.Name()))
	}
	unavailableEnv(tb, env, "redis-server did not start: %v", lastErr)
	return "", func() {}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitReady(addr string, done <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("redis-server on %s exited", addr)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, _ = c.Write([]byte("PING\r\n"))
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && strings.HasPrefix(line, "+PONG") {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on %s not ready after 10s", addr)
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 500 {
		b = b[len(b)-500:]
	}
	return strings.TrimSpace(string(b))
}
