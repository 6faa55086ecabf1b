package e2e_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/cli"
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

// gatedAPI is a proxy in front of the fake Discord's REST API that holds
// GET /gateway/bot until the test opens the gate: the bot is then known to
// be starting, its gateway not yet asked for, let alone connected.
func gatedAPI(tb testing.TB, srv *fakediscord.Server) (base string, open func()) {
	tb.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		tb.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // Discord gone at the end is expected
	gate := make(chan struct{})
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/gateway/bot") {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	tb.Cleanup(ps.Close)
	opened := false
	return ps.URL, func() {
		if !opened {
			opened = true
			close(gate)
		}
	}
}

// metricValue reads one sample of /metrics ("" if absent).
func metricValue(tb testing.TB, addr, sample string) string {
	tb.Helper()
	_, body := httpGet(tb, "http://"+addr+"/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			return v
		}
	}
	return ""
}

// waitFor polls cond every 20 ms until it holds, or fails after 15 s.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not after 15 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHealthAndMetrics checks METRICS_ADDR over the bot's life:
//   - /healthz answers 503 "starting" until the gateway's READY, logged at
//     INFO once, with no warning in a normal start; then 200;
//   - /metrics counts the stakes, /version names the build;
//   - a dropped connection is resumed and the bot keeps answering a /play,
//     /healthz 200 again;
//   - once Discord is gone for longer than the grace (2 s here, 30 s in
//     production), /healthz answers 503 naming the shard.
func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	h := newHarness(t, map[string]string{
		"DATA_PATH":    filepath.Join(t.TempDir(), "clefs.db"),
		"METRICS_ADDR": addr,
		"LOG_LEVEL":    "info",
	})
	var openGate func()
	h.cfg.APIBase, openGate = gatedAPI(t, h.srv)
	defer openGate() // on a failure before it opens, so that the bot can stop

	ctx, cancel := context.WithCancel(context.Background())
	done, started := make(chan error, 1), make(chan struct{})
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	go func() {
		done <- cli.Serve(ctx, h.cfg, logger, cli.Hooks{
			Drawer: h.draw, Started: func(string) { close(started) },
			IdentifyInterval: 10 * time.Millisecond, DisconnectGrace: 2 * time.Second,
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cli.Serve: %v", err)
		}
	}()

	// Starting: the listener answers (once it listens) 503 "starting".
	var status int
	var body string
	waitFor(t, "the metrics listener", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false // not listening yet
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		status, body = resp.StatusCode, string(b)
		return true
	})
	for range 3 {
		if status != 503 || body != "starting: gateway: gateway not connected yet\n" {
			t.Fatalf("GET /healthz before the gateway connects = %d %q, want 503 starting", status, body)
		}
		status, body = httpGet(t, "http://"+addr+"/healthz")
	}
	openGate()
	select {
	case <-started:
	case err := <-done:
		done <- err
		t.Fatalf("cli.Serve: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("bot not started after 15 s")
	}
	pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer pcancel()
	if err := metrics.Probe(pctx, addr); err != nil {
		t.Fatalf("healthz once READY: %v", err)
	}
	logs := h.logs.String()
	if strings.Contains(logs, "level=WARN") || strings.Contains(logs, "level=ERROR") {
		t.Errorf("a normal start logged a warning or an error:\n%s", logs)
	}
	if n := strings.Count(logs, `level=INFO msg="health: starting"`); n != 1 {
		t.Errorf("%d INFO lines for the probes while starting, want 1:\n%s", n, logs)
	}

	h.slash(fakediscord.Slash{User: alice, Name: "play"})
	status, version := httpGet(t, "http://"+addr+"/version")
	if status != 200 || !strings.Contains(version, `"go_version":"`+runtime.Version()+`"`) || !strings.Contains(version, `"modified":`) {
		t.Errorf("GET /version = %d %s", status, version)
	}
	if v := metricValue(t, addr, "clefs_credits_staked_cents_total"); v != "50" {
		t.Errorf("/metrics counts a stake of %q for the /play, want 50", v)
	}

	// The connection drops: discordgo resumes, the bot answers again.
	h.srv.Disconnect()
	waitFor(t, "shard 0 resumed", func() bool { return strings.Contains(h.logs.String(), `msg="gateway resumed"`) })
	if v := metricValue(t, addr, `clefs_gateway_shard_up{shard="0"}`); v != "1" {
		t.Errorf("clefs_gateway_shard_up after the resume = %q, want 1", v)
	}
	r := h.slash(fakediscord.Slash{User: alice, Name: "play"}) // hands back the ticket not yet revealed
	if got := shownBalance(t, r.Message); got != 2000-50 || !hasButton(r.Message, "v1:row:") {
		t.Errorf("/play after the resume shows balance %d, want %d (the open ticket, staked once):\n%s", got, 2000-50, text(r.Message))
	}
	if err := metrics.Probe(pctx, addr); err != nil {
		t.Errorf("healthz after the resume: %v", err)
	}

	// Discord goes away for good: past the grace, /healthz names the shard.
	h.srv.Close()
	waitFor(t, "/healthz 503 naming shard 0", func() bool {
		status, body = httpGet(t, "http://"+addr+"/healthz")
		return status == 503
	})
	if !strings.HasPrefix(body, "unhealthy: gateway: gateway shards disconnected for more than 2s: 0 (for ") {
		t.Errorf("GET /healthz with Discord gone = %q, want it to name shard 0", body)
	}
}
