package e2e_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/metrics"
)

func httpGet(tb testing.TB, url string) (int, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestHealthAndMetrics checks METRICS_ADDR: /healthz is 200 while the bot
// is connected and 503 once Discord is gone; /metrics counts the stakes.
func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	h := newHarness(t, map[string]string{
		"DATA_PATH":    filepath.Join(t.TempDir(), "clefs.db"),
		"METRICS_ADDR": addr,
	})
	h.start()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := metrics.Probe(ctx, addr); err != nil {
		t.Fatalf("healthz while connected: %v", err)
	}
	h.slash(fakediscord.Slash{User: alice, Name: "play"})
	status, version := httpGet(t, "http://"+addr+"/version")
	if status != 200 || !strings.Contains(version, `"go_version":"`+runtime.Version()+`"`) || !strings.Contains(version, `"modified":`) {
		t.Errorf("GET /version = %d %s", status, version)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "clefs_credits_staked_cents_total 50\n") {
		t.Errorf("/metrics does not count the stake of the /play:\n%s", body)
	}
	// Discord goes away: the gateway is down, /healthz turns 503.
	h.srv.Close()
	deadline := time.Now().Add(8 * time.Second)
	for {
		err := metrics.Probe(ctx, addr)
		if err != nil && strings.Contains(err.Error(), "503") && strings.Contains(err.Error(), "gateway") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz with Discord gone: %v, want 503 naming the gateway", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
