package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
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

// hang is a check that ignores its context and answers only once the test
// (tb) has ended.
func hang(tb testing.TB) func(context.Context) error {
	release := make(chan struct{})
	tb.Cleanup(func() { close(release) })
	return func(context.Context) error { <-release; return nil }
}

// ok is a check that passes.
func ok(context.Context) error { return nil }

// shards returns the checks of n healthy gateway shards, "shard 0" onwards.
func shards(n int) []Check {
	checks := make([]Check, n)
	for i := range checks {
		checks[i] = Check{Name: "shard " + strconv.Itoa(i), Run: ok}
	}
	return checks
}

func TestHealthz(t *testing.T) {
	tests := []struct {
		name     string
		health   func(context.Context) error
		status   int
		contains string
	}{
		{"nil health is ok", nil, 200, "ok"},
		{"healthy", ok, 200, "ok"},
		{"unhealthy", func(context.Context) error { return errors.New("store: connection\nrefused") }, 503, "unhealthy: store: connection refused"},
		{"many checks, all ok", Health(append(shards(16), Check{"store", ok})...), 200, "ok"},
		{
			"combined checks name the failing one",
			Health(Check{"shard 0", ok}, Check{"store", func(context.Context) error { return errors.New("dial tcp: refused") }}),
			503, "unhealthy: store: dial tcp: refused",
		},
		{
			"a check that honours its deadline",
			Health(Check{"store", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}),
			503, "unhealthy: store: ", // "no answer" or the check's own error: both are right at the deadline
		},
		{
			"a hanging check is named",
			Health(append(shards(8), Check{"shard 8", hang(t)}, Check{"store", ok})...),
			503, "unhealthy: shard 8: no answer: context deadline exceeded\n",
		},
		{"a hanging health function", hang(t), 503, "unhealthy: health check did not return"},
		{
			"a panicking check",
			Health(Check{"shard 2", func(context.Context) error { panic("boom") }}),
			503, "unhealthy: shard 2: panic: boom",
		},
		{"a panicking health function", func(context.Context) error { panic("boom") }, 503, "unhealthy: panic: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(Handler(NewRegistry(), tt.health, buildinfo.Info{}, discard()))
			defer srv.Close()
			// A hanging check is released only when the test ends: an
			// answer at all is one that did not wait for it.
			status, body := get(t, srv.URL+"/healthz")
			if status != tt.status || !strings.Contains(body, tt.contains) {
				t.Errorf("GET /healthz = %d %q, want %d containing %q", status, body, tt.status, tt.contains)
			}
		})
	}
}

func TestHealthRunsEveryCheckAtOnce(t *testing.T) {
	// Each check waits for all the others to start: run one after the
	// other, they would never answer.
	const n = 20
	var started sync.WaitGroup
	started.Add(n)
	wait := func(msg string) func(context.Context) error {
		return func(context.Context) error {
			started.Done()
			started.Wait()
			if msg == "" {
				return nil
			}
			return errors.New(msg)
		}
	}
	checks := make([]Check, n)
	for i := range checks {
		checks[i] = Check{Name: "shard " + strconv.Itoa(i), Run: wait("")}
	}
	checks[3].Run = wait("down")
	checks[17].Run = wait("gone")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := Health(checks...)(ctx)
	if err == nil || err.Error() != "shard 3: down\nshard 17: gone" {
		t.Errorf("err = %v, want shard 3: down / shard 17: gone, in the order of the checks", err)
	}
	if Health()(context.Background()) != nil {
		t.Error("no checks: want healthy")
	}
}

func TestHealthReturnsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := Health(Check{"store", ok}, Check{"shard 0", hang(t)})(ctx)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Health returned after %v, want soon after its context ended", d)
	}
	if err == nil || err.Error() != "shard 0: no answer: context canceled" {
		t.Errorf("err = %v, want shard 0: no answer: context canceled", err)
	}
}

func TestMetricsEndpointExposesMovingCounters(t *testing.T) {
	reg := NewRegistry()
	m := New(reg)
	srv := httptest.NewServer(Handler(reg, nil, buildinfo.Info{}, discard()))
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

func TestVersion(t *testing.T) {
	b := buildinfo.Info{Version: "v1.2.0", Revision: "5effcde", Time: "2026-05-01T12:00:00Z", Modified: true, GoVersion: "go1.26.8"}
	srv := httptest.NewServer(Handler(NewRegistry(), nil, b, discard()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"version": "v1.2.0", "revision": "5effcde", "time": "2026-05-01T12:00:00Z", "modified": true, "go_version": "go1.26.8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GET /version = %v, want %v", got, want)
	}
}

func TestHandlerRoutes(t *testing.T) {
	srv := httptest.NewServer(Handler(NewRegistry(), nil, buildinfo.Info{}, discard()))
	defer srv.Close()
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/healthz", 200},
		{"HEAD", "/healthz", 200},
		{"GET", "/metrics", 200},
		{"GET", "/version", 200},
		{"POST", "/version", 405},
		{"GET", "/", 404},
		{"GET", "/debug/pprof/", 404},
		{"POST", "/healthz", 405},
		{"GET", "/fair", 404}, // players' pages are on the public listener, not here
		{"GET", "/activity/", 404},
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
	done, ready := make(chan error, 1), make(chan string, 1)
	go func() {
		done <- ServeHTTP(ctx, "127.0.0.1:0", "metrics and health listener", Handler(NewRegistry(), health, buildinfo.Info{}, log), log, func(a string) { ready <- a })
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	}
	if err := Probe(context.Background(), addr); err != nil {
		t.Errorf("Probe healthy: %v", err)
	}
	healthy.Store(false)
	err := Probe(context.Background(), addr)
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

func TestServeBadAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{ln.Addr().String() /* in use */, "not an address", "127.0.0.1:99999"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := Serve(ctx, addr, NewRegistry(), nil, buildinfo.Info{}, discard())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "metrics: listen") {
			t.Errorf("Serve(%q) = %v, want a listen error", addr, err)
		}
	}
}

func TestProbeAddresses(t *testing.T) {
	srv := httptest.NewServer(Handler(NewRegistry(), nil, buildinfo.Info{}, discard()))
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

// TestHealthRunsAHungCheckOnce: a check that never answers is started once,
// however many probes come meanwhile, and each probe still answers at its
// own deadline, naming it; once it answers, the next probe runs it again.
func TestHealthRunsAHungCheckOnce(t *testing.T) {
	var runs atomic.Int64
	release := make(chan struct{})
	health := Health(Check{Name: "store", Run: func(context.Context) error {
		runs.Add(1)
		<-release // ignores its context, as a stuck client may
		return nil
	}}, Check{Name: "shard 0", Run: func(context.Context) error { return nil }})
	for range 20 {
		// Long enough for the healthy check to answer, even under -race.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := health(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "store: no answer") || strings.Contains(err.Error(), "shard 0") {
			t.Fatalf("a probe while the store's check hangs: %v", err)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the hung check was started %d times by 20 probes, want once", n)
	}
	close(release)
	for i := 0; ; i++ { // the hung run ends; a new probe runs the check again
		if err := health(context.Background()); err == nil {
			break
		}
		if i == 1000 {
			t.Fatal("the check never answered after its release")
		}
		time.Sleep(time.Millisecond)
	}
	if err := health(context.Background()); err != nil { // the run over, a new one
		t.Fatalf("a probe after the check answered: %v", err)
	}
	if n := runs.Load(); n < 2 {
		t.Fatalf("the check ran %d times after its release, want a new run", n)
	}
}

// startErr is a health error that says the process is starting, as
// bot.ErrStarting's do.
type startErr string

func (e startErr) Error() string { return string(e) }
func (startErr) Starting() bool  { return true }

func TestIsStarting(t *testing.T) {
	starting := Health(Check{"gateway", func(context.Context) error { return startErr("waiting for READY") }}, Check{"store", ok})
	startingAndDown := Health(
		Check{"gateway", func(context.Context) error { return startErr("waiting for READY") }},
		Check{"store", func(context.Context) error { return errors.New("refused") }},
	)
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a failure", errors.New("refused"), false},
		{"starting", startErr("x"), true},
		{"wrapped", fmt.Errorf("gateway: %w", startErr("x")), true},
		{"a check starting, the others ok", starting(context.Background()), true},
		{"a check starting, another failing", startingAndDown(context.Background()), false},
		{"an empty join", errors.Join(), false},
	} {
		if got := IsStarting(tt.err); got != tt.want {
			t.Errorf("%s: IsStarting(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestHealthzStarting: while a check says it is starting, /healthz answers
// 503 "starting" with the reason, logs it once at INFO and then at DEBUG,
// never at WARN; a real failure still answers "unhealthy" at WARN, and a
// start that failed is not hidden behind "starting".
func TestHealthzStarting(t *testing.T) {
	var logs syncBuf
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var state atomic.Int32 // 0 starting, 1 up, 2 store down while starting
	health := Health(
		Check{"gateway", func(context.Context) error {
			if state.Load() == 1 {
				return nil
			}
			return startErr("gateway shards waiting for their first READY: 0 of 1")
		}},
		Check{"store", func(context.Context) error {
			if state.Load() == 2 {
				return errors.New("dial tcp: refused")
			}
			return nil
		}},
	)
	srv := httptest.NewServer(Handler(NewRegistry(), health, buildinfo.Info{}, log))
	defer srv.Close()
	for range 3 {
		status, body := get(t, srv.URL+"/healthz")
		if want := "starting: gateway: gateway shards waiting for their first READY: 0 of 1\n"; status != 503 || body != want {
			t.Fatalf("GET /healthz while starting = %d %q, want 503 %q", status, body, want)
		}
	}
	got := logs.String()
	if n := strings.Count(got, "level=INFO msg=\"health: starting\""); n != 1 {
		t.Errorf("%d INFO lines for 3 probes while starting, want 1:\n%s", n, got)
	}
	if n := strings.Count(got, "level=DEBUG msg=\"health: starting\""); n != 2 {
		t.Errorf("%d DEBUG lines for the 2 later probes, want 2:\n%s", n, got)
	}
	if strings.Contains(got, "WARN") || strings.Contains(got, "ERROR") {
		t.Errorf("a warning while starting:\n%s", got)
	}
	state.Store(1)
	if status, body := get(t, srv.URL+"/healthz"); status != 200 || body != "ok\n" {
		t.Errorf("GET /healthz once up = %d %q", status, body)
	}
	state.Store(2)
	status, body := get(t, srv.URL+"/healthz")
	if status != 503 || !strings.HasPrefix(body, "unhealthy: ") || !strings.Contains(body, "store: dial tcp: refused") {
		t.Errorf("GET /healthz with the store down while starting = %d %q, want unhealthy", status, body)
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"health check failed\"") {
		t.Errorf("no warning for a store down:\n%s", logs.String())
	}
}

// syncBuf is a buffer safe for the handler's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
