package metrics

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/singleflight"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

const (
	// HealthTimeout is the deadline /healthz gives the health checks: a check
	// that has not answered by then counts as failed. With healthGrace
	// (checkHealth), /healthz answers within the 2 seconds a probe allows.
	HealthTimeout   = 1500 * time.Millisecond
	healthGrace     = 250 * time.Millisecond
	shutdownTimeout = 5 * time.Second // the listener's graceful shutdown
)

// NewRegistry returns a fresh registry (not Prometheus's global one)
// holding the Go runtime and process collectors, ready for New.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// Check is one named health check, such as "store" or "shard 0". Run
// returns nil if healthy; it must return soon after its context ends.
type Check struct {
	Name string
	Run  func(context.Context) error
}

// Health combines checks into one health function for Serve. It runs them
// all at once and returns when all have answered or ctx ends: nil, or an
// error naming, in order, every check that failed, panicked or had not
// answered ("store: no answer: context deadline exceeded"). A check that
// ignores ctx runs on, and later calls wait for that same run rather than
// start another: a hung check holds one goroutine, not one per probe.
func Health(checks ...Check) func(context.Context) error {
	running := make([]singleflight.Group, len(checks)) // one run of each check at a time
	return func(ctx context.Context) error {
		failed := make([]error, len(checks)) // in the order of checks; errors.Join drops the nils
		var wg sync.WaitGroup
		for i, c := range checks {
			wg.Go(func() { // wait answers by the time ctx ends
				if err := wait(ctx, &running[i], c.Run); err != nil {
					failed[i] = fmt.Errorf("%s: %w", c.Name, err)
				}
			})
		}
		wg.Wait()
		return errors.Join(failed...)
	}
}

// wait returns the answer of the run of f under way in g, or of a new run
// of f with ctx, or ctx's error if it ends first.
func wait(ctx context.Context, g *singleflight.Group, f func(context.Context) error) error {
	run := g.DoChan("", func() (any, error) { return nil, call(ctx, f) })
	select {
	case r := <-run:
		return r.Err
	case <-ctx.Done():
		return fmt.Errorf("no answer: %w", ctx.Err())
	}
}

// call returns f(ctx), or an error if f panics: checks run in goroutines of
// their own, where a panic would end the process.
func call(ctx context.Context, f func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f(ctx)
}

// checkHealth returns what health says within HealthTimeout, or an error if
// it has not returned by healthGrace after that: Health returns at the
// deadline, a hand-written function may not. A nil health is healthy.
func checkHealth(ctx context.Context, health func(context.Context) error) error {
	if health == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	done := make(chan error, 1) // never blocks a late health
	go func() { done <- call(ctx, health) }()
	select {
	case err := <-done:
		return err
	case <-time.After(HealthTimeout + healthGrace):
		return fmt.Errorf("health check did not return within %v", HealthTimeout+healthGrace)
	}
}

// IsStarting reports whether err says the process is still starting: err,
// or every error it joins (as Health joins its checks'), has a method
// Starting() bool that returns true somewhere in its chain. A store that
// fails while the gateway starts is a failure, not a start.
func IsStarting(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		for _, e := range errs {
			if !IsStarting(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	var s interface{ Starting() bool } // such as bot.ErrStarting
	return errors.As(err, &s) && s.Starting()
}

// Handler returns the HTTP handler Serve uses: GET /metrics (from g),
// /healthz (health; nil is always ok) and /version (build), as
// docs/operating.md ("Metrics and health") describes them; else 405 or 404.
func Handler(g prometheus.Gatherer, health func(context.Context) error, build buildinfo.Info, log *slog.Logger) http.Handler {
	log = cmp.Or(log, slog.Default())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelError), // "error gathering metrics: …"
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	}))
	var startLogged atomic.Bool // the first "starting" answer was logged at INFO
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		err := checkHealth(r.Context(), health)
		if err == nil {
			_, _ = io.WriteString(w, "ok\n")
			return
		}
		state := "unhealthy"
		if IsStarting(err) {
			// Probes during a normal start are expected: no warning.
			state = "starting"
			level := slog.LevelDebug
			if startLogged.CompareAndSwap(false, true) {
				level = slog.LevelInfo
			}
			log.Log(r.Context(), level, "health: starting", "reason", err)
		} else {
			log.Warn("health check failed", "err", err)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, state+": "+strings.Join(strings.Fields(err.Error()), " ")+"\n") // on one line
	})
	version, _ := json.Marshal(build) // strings and a bool: cannot fail
	version = append(version, '\n')
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(version)
	})
	return mux
}

// Serve listens on addr ("127.0.0.1:9090", ":9090") and serves Handler(g,
// health, build, log) until ctx ends, as ServeHTTP does.
func Serve(ctx context.Context, addr string, g prometheus.Gatherer, health func(context.Context) error, build buildinfo.Info, log *slog.Logger) error {
	log = cmp.Or(log, slog.Default())
	if err := ServeHTTP(ctx, addr, "metrics and health listener", Handler(g, health, build, log), log, nil); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// ServeHTTP serves h on addr, named what in its logs, until ctx ends, then
// shuts down letting requests in flight finish (shutdownTimeout) and
// returns nil; it fails at once if it cannot listen or the server fails
// (the caller names the listener). ready, if not nil, gets the address.
func ServeHTTP(ctx context.Context, addr, what string, h http.Handler, log *slog.Logger, ready func(addr string)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info(what+" started", "addr", ln.Addr().String())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	log.Info(what + " stopped")
	return nil
}

// Probe asks /healthz of the listener Serve runs on addr (an unspecified
// host, ":9090", through the loopback address) for the container's
// HEALTHCHECK: nil if it answered 200, else an error with its reason.
func Probe(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics: probe: bad address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("metrics: probe %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("metrics: probe: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("metrics: probe %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
