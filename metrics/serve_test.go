package metrics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// discard is a logger that writes nowhere.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// get performs GET url and returns the status and body.
func get(tb testing.TB, url string) (int, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestHealthz(t *testing.T) {
	tests := []struct {
		name     string
		health   func(context.Context) error
		status   int
		contains string
	}{
		{"nil health is ok", nil, 200, "ok"},
		{"healthy", func(context.Context) error { return nil }, 200, "ok"},
		{"unhealthy", func(context.Context) error { return errors.New("store: connection\nrefused") }, 503, "unhealthy: store: connection refused"},
		{
			"combined checks name the failing one",
			Health(
				Check{"gateway", func(context.Context) error { return nil }},
				Check{"store", func(context.Context) error { return errors.New("dial tcp: refused") }},
			),
			503, "store: dial tcp: refused",
		},
		{
			"a hanging check times out",
			func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
			503, "deadline exceeded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(Handler(NewRegistry(), tt.health, discard()))
			defer srv.Close()
			start := time.Now()
			status, body := get(t, srv.URL+"/healthz")
			if status != tt.status || !strings.Contains(body, tt.contains) {
				t.Errorf("GET /healthz = %d %q, want %d containing %q", status, body, tt.status, tt.contains)
			}
			if d := time.Since(start); d > HealthTimeout+3*time.Second {
				t.Errorf("GET /healthz took %v, want about the %v timeout at most", d, HealthTimeout)
			}
		})
	}
}

func TestHealthRunsEveryCheck(t *testing.T) {
	var ran []string
	h := Health(
		Check{"a", func(context.Context) error { ran = append(ran, "a"); return errors.New("down") }},
		Check{"b", func(context.Context) error { ran = append(ran, "b"); return nil }},
		Check{"c", func(context.Context) error { ran = append(ran, "c"); return errors.New("gone") }},
	)
	err := h(context.Background())
	if got := strings.Join(ran, ","); got != "a,b,c" {
		t.Errorf("checks ran %q, want a,b,c", got)
	}
	if err == nil || err.Error() != "a: down\nc: gone" {
		t.Errorf("err = %v, want a: down / c: gone", err)
	}
	if Health()(context.Background()) != nil {
		t.Error("no checks: want healthy")
	}
}

func TestMetricsEndpointExposesMovingCounters(t *testing.T) {
	reg := NewRegistry()
	m := New(reg)
	srv := httptest.NewServer(Handler(reg, nil, discard()))
	defer srv.Close()

	status, before := get(t, srv.URL+"/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics = %d", status)
	}
	for _, line := range []string{
		"clefs_plays_total 0",
		`clefs_wins_total{tier="gem"} 0`,
		"clefs_credits_staked_cents_total 0",
		"go_goroutines ", // NewRegistry's runtime collector
	} {
		if !strings.Contains(before, line) {
			t.Errorf("/metrics before play lacks %q", line)
		}
	}

	m.Purchase(game.Stake)
	m.Play(game.TierSabre, false, game.Stake, 500)
	m.Chest(game.LotGold, 500)
	m.Interaction("play", "ok", 5*time.Millisecond)

	_, after := get(t, srv.URL+"/metrics")
	for _, line := range []string{
		"clefs_tickets_bought_total 1",
		"clefs_plays_total 1",
		`clefs_wins_total{tier="sabre"} 1`,
		`clefs_chests_total{lot="gold"} 1`,
		"clefs_credits_staked_cents_total 50",
		`clefs_credits_paid_cents_total{game="main"} 500`,
		`clefs_credits_paid_cents_total{game="chest"} 500`,
		`clefs_interactions_total{command="play",outcome="ok"} 1`,
		`clefs_interaction_duration_seconds_bucket{command="play",le="0.005"} 1`,
		`clefs_interaction_duration_seconds_count{command="play"} 1`,
	} {
		if !strings.Contains(after, line+"\n") {
			t.Errorf("/metrics after play lacks line %q", line)
		}
	}
}

func TestHandlerRoutes(t *testing.T) {
	srv := httptest.NewServer(Handler(NewRegistry(), nil, discard()))
	defer srv.Close()
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/healthz", 200},
		{"HEAD", "/healthz", 200},
		{"GET", "/metrics", 200},
		{"GET", "/", 404},
		{"GET", "/debug/pprof/", 404},
		{"POST", "/healthz", 405},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
	}
}

func TestServeAnswersAndStopsWithContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var healthy atomic.Bool
	healthy.Store(true)
	health := func(context.Context) error {
		if healthy.Load() {
			return nil
		}
		return errors.New("store: down")
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, NewRegistry(), health, log) }()

	if err := Probe(context.Background(), addr); err != nil {
		t.Errorf("Probe healthy: %v", err)
	}
	healthy.Store(false)
	err = Probe(context.Background(), addr)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "store: down") {
		t.Errorf("Probe unhealthy = %v, want a 503 error with the reason", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after cancel = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return after its context ended")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("listener still accepts connections after shutdown")
	}
	if !strings.Contains(logs.String(), "metrics and health listener stopped") {
		t.Errorf("logs lack the stop message:\n%s", logs.String())
	}
}

func TestServeOnAddress(t *testing.T) {
	// Find a free port, then let Serve listen on it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	go func() { done <- Serve(ctx, addr, NewRegistry(), nil, discard()) }()

	var perr error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if perr = Probe(ctx, addr); perr == nil {
			break
		}
	}
	if perr != nil {
		t.Fatalf("Probe: %v", perr)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v, want nil after cancel", err)
	}
}

func TestServeBadAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{ln.Addr().String() /* in use */, "not an address", "127.0.0.1:99999"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := Serve(ctx, addr, NewRegistry(), nil, discard())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "metrics: listen") {
			t.Errorf("Serve(%q) = %v, want a listen error", addr, err)
		}
	}
}

func TestProbeAddresses(t *testing.T) {
	srv := httptest.NewServer(Handler(NewRegistry(), nil, discard()))
	defer srv.Close()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{":" + port, true},          // unspecified host: loopback
		{"0.0.0.0:" + port, true},   // idem
		{"localhost:" + port, true}, // a name
		{"127.0.0.1", false},        // no port
		{"", false},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := Probe(ctx, tt.addr)
		cancel()
		if (err == nil) != tt.ok {
			t.Errorf("Probe(%q) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
	}
}
