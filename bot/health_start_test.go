package bot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/metrics"
)

// TestQuietStart: probes of /healthz through every phase of a normal start
// — before Run, shards known but waiting for READY, one shard READY of two,
// then both — and of the HTTP endpoint before it serves, answer 503
// "starting" with no WARN line (one INFO line for the whole start, then
// DEBUG), and 200 once up. (That a check failing while another starts is
// still a WARN, metrics' TestHealthzStarting shows.)
func TestQuietStart(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)}
	g, err := NewGateway(GatewayOptions{Options: Options{Token: "t", Now: clk.Now}}, noHandler{})
	if err != nil {
		t.Fatal(err)
	}
	lines := &logs{}
	log := lines.logger()
	h := metrics.Handler(prometheus.NewRegistry(), metrics.Health(
		metrics.Check{Name: "gateway", Run: g.Health},
		metrics.Check{Name: "store", Run: func(context.Context) error { return nil }},
	), buildinfo.Info{}, log)
	probe := func(what string, wantCode int, wantBody string) {
		t.Helper()
		for range 3 { // a probe every few seconds: several per phase
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if w.Code != wantCode || !strings.HasPrefix(w.Body.String(), wantBody) {
				t.Fatalf("%s: /healthz = %d %q, want %d %q…", what, w.Code, w.Body.String(), wantCode, wantBody)
			}
		}
	}

	probe("before Run", 503, "starting: gateway: gateway not connected yet")
	s0, s1 := &shard{id: 0}, &shard{id: 1}
	g.mu.Lock()
	g.shards = []*shard{s0, s1}
	g.mu.Unlock()
	probe("shards known, none READY", 503, "starting: gateway: gateway shards waiting for their first READY: 0, 1 of 2")
	g.shardUp(s0, true)
	clk.add(time.Minute) // a slow READY is a start, not a disconnection
	probe("shard 1 waiting", 503, "starting: gateway: gateway shards waiting for their first READY: 1 of 2")
	g.shardUp(s1, true)
	probe("both READY", 200, "ok")

	out := lines.all()
	if strings.Contains(out, "level=WARN") || strings.Contains(out, "level=ERROR") {
		t.Errorf("a normal start logged a warning or an error:\n%s", out)
	}
	if n := strings.Count(out, "level=INFO"); n != 1 || !strings.Contains(out, `level=INFO msg="health: starting"`) {
		t.Errorf("%d INFO lines while starting, want the one \"health: starting\":\n%s", n, out)
	}

	// The HTTP endpoint, before Run serves: starting too, and quiet.
	pub, _, err := ed25519.GenerateKey(bytes.NewReader(make([]byte, 64)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEndpoint(EndpointOptions{Options: Options{Token: "t", Logger: log}, PublicKey: pub, Addr: "127.0.0.1:0"}, noHandler{})
	if err != nil {
		t.Fatal(err)
	}
	h = metrics.Handler(prometheus.NewRegistry(), metrics.Health(metrics.Check{Name: "http", Run: e.Health}), buildinfo.Info{}, log)
	probe("endpoint before Run", 503, "starting: http: interactions endpoint not serving yet")
	e.state.Store(nil)
	probe("endpoint serving", 200, "ok")
	if out := lines.all(); strings.Contains(out, "level=WARN") {
		t.Errorf("the endpoint's start logged a warning:\n%s", out)
	}
}
