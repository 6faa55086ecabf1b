package metrics

import (
	"context"
	"net"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestHealthzFollowsRealRedis checks /healthz against the Redis store on a
// real redis-server: 200 while it runs, 503 naming the store once it is
// stopped, 200 again once a new server listens on the same port.
func TestHealthzFollowsRealRedis(t *testing.T) {
	addr, stop := redistest.StartServer(t)
	defer stop()
	store, err := redisstore.Open(context.Background(), "redis://"+addr+"/0", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	health := Health(
		Check{Name: "shard 0", Run: ok},
		Check{Name: "store", Run: store.Ping},
	)
	srv := httptest.NewServer(Handler(NewRegistry(), health, buildinfo.Info{}, discard()))
	defer srv.Close()

	if status, body := get(t, srv.URL+"/healthz"); status != 200 || body != "ok\n" {
		t.Fatalf("Redis running: GET /healthz = %d %q, want 200 ok", status, body)
	}
	stop()
	status, body := get(t, srv.URL+"/healthz")
	if status != 503 || !strings.Contains(body, "store: ") || strings.Contains(body, "shard") {
		t.Errorf("Redis stopped: GET /healthz = %d %q, want 503 naming the store only", status, body)
	}

	// Redis comes back on the same address: the store reconnects by itself.
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("restart redis-server: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, body = get(t, srv.URL+"/healthz")
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Redis back: GET /healthz still %d %q after 10s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
