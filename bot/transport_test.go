package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// secret is the interaction token of the tests: no log line, no error may
// hold it.
const secret = "SECRET-interaction-token-0123456789"

func testInteraction() *discordgo.Interaction {
	return &discordgo.Interaction{ID: "100000000000000001", AppID: "200000000000000002", Token: secret}
}

// fakeClock is a settable clock, and the Transport's sleep: a sleep
// records the wait asked and moves the clock, at once. onSleep, if set, runs inside the
// sleep (to act while a call waits).
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waits   []time.Duration
	onSleep func(d time.Duration)
}

func newClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	hook := c.onSleep
	c.onSleep = nil
	c.mu.Unlock()
	if hook != nil {
		hook(d)
	}
	c.add(d)
	return ctx.Err()
}

func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// recObs is a RESTObserver that counts.
type recObs struct {
	mu sync.Mutex
	n  map[string]int
}

func (o *recObs) add(k string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]int{}
	}
	o.n[k]++
}
func (o *recObs) RESTRequest(route string, status int) {
	o.add(fmt.Sprintf("req %s %d", route, status))
}
func (o *recObs) RESTRateLimited(scope string) { o.add("429 " + scope) }
func (o *recObs) RESTRetry(reason string)      { o.add("retry " + reason) }
func (o *recObs) RESTGaveUp(route string)      { o.add("giveup " + route) }
func (o *recObs) get(k string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n[k]
}

// logs captures log lines as text.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) lines(level string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, "level="+level) {
			out = append(out, line)
		}
	}
	return out
}

func (l *logs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// api is an httptest server playing Discord: answer serves the nth
// request (from 1).
type api struct {
	*httptest.Server
	n    atomic.Int64
	mu   sync.Mutex
	hits []string
}

func serve(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *api {
	t.Helper()
	a := &api{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		answer(int(a.n.Add(1)), w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) Hits() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.hits...)
}

type rig struct {
	s   *discordgo.Session
	r   restResponder
	clk *fakeClock
	obs *recObs
	log *logs
}

func newRig(t *testing.T, base string, tune func(*TransportOptions)) *rig {
	t.Helper()
	g := &rig{clk: newClock(), obs: &recObs{}, log: &logs{}}
	o := TransportOptions{
		Observer: g.obs, Logger: g.log.logger(), Now: g.clk.Now, Sleep: g.clk.Sleep,
		Jitter: func(time.Duration) time.Duration { return 0 },
	}
	if tune != nil {
		tune(&o)
	}
	s, err := NewSession("bot-token", base, o)
	if err != nil {
		t.Fatal(err)
	}
	g.s, g.r = s, newRESTResponder(s, "")
	t.Cleanup(func() {
		if strings.Contains(g.log.all(), secret) {
			t.Errorf("a log line holds the interaction token:\n%s", g.log.all())
		}
	})
	return g
}

func ctx10s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func edit(ctx context.Context, r restResponder) error {
	content := "result"
	return r.EditOriginal(ctx, testInteraction(), &discordgo.WebhookEdit{Content: &content})
}

func followUp(ctx context.Context, r restResponder) error {
	return r.FollowUp(ctx, testInteraction(), &discordgo.WebhookParams{Content: "more"})
}

func respond(ctx context.Context, r restResponder) error {
	return r.Respond(ctx, testInteraction(), &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
}

const (
	editRoute     = "PATCH /webhooks/:id/:token/messages/@original"
	followRoute   = "POST /webhooks/:id/:token"
	callbackRoute = "POST /interactions/:id/:token/callback"
)

func tooMany(w http.ResponseWriter, body string, headers ...string) {
	for k := 0; k+1 < len(headers); k += 2 {
		w.Header().Set(headers[k], headers[k+1])
	}
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = io.WriteString(w, body)
}

// firstThenOK answers the first request with first, the others with okJSON.
func firstThenOK(first func(w http.ResponseWriter, r *http.Request)) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			first(w, r)
			return
		}
		okJSON(w)
	}
}

func okJSON(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"300000000000000003"}`)
}

func TestRoute(t *testing.T) {
	for _, c := range []struct{ method, url, want string }{
		{"POST", discordgo.EndpointInteractionResponse("100000000000000001", secret), callbackRoute},
		{"PATCH", discordgo.EndpointWebhookMessage("200000000000000002", secret, "@original"), editRoute},
		{"POST", discordgo.EndpointWebhookToken("200000000000000002", secret) + "?wait=true", followRoute},
		{"GET", discordgo.EndpointUser("@me"), "GET /users/@me"},
		{"PUT", discordgo.EndpointApplicationGuildCommands("200000000000000002", "400000000000000004"), "PUT /applications/:id/guilds/:id/commands"},
		{"GET", "http://127.0.0.1:1/prefix/api/v9/users/Some%20Name", "GET /users/:x"},
	} {
		u, err := http.NewRequest(c.method, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := Route(c.method, u.URL); got != c.want {
			t.Errorf("Route(%s %s) = %q, want %q", c.method, c.url, got, c.want)
		}
	}
}

func TestRateLimitThenSuccessHonoursRetryAfter(t *testing.T) {
	srv := serve(t, firstThenOK(func(w http.ResponseWriter, r *http.Request) {
		tooMany(w, `{"message":"You are being rate limited.","retry_after":1.5,"global":false}`, "X-RateLimit-Scope", "user")
	}))
	g := newRig(t, srv.URL, func(o *TransportOptions) {
		o.Jitter = func(d time.Duration) time.Duration { return d - 1 } // the most jitter
	})
	if err := edit(ctx10s(t), g.r); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Hits()); got != 2 {
		t.Fatalf("%d attempts, want 2", got)
	}
	w := g.clk.Waits()
	if len(w) != 1 || w[0] < 1500*time.Millisecond || w[0] > 1500*time.Millisecond+rateLimitJitterMax {
		t.Fatalf("waits %v, want one of retry_after 1.5s plus at most %v", w, rateLimitJitterMax)
	}
	for k, want := range map[string]int{
		"req " + editRoute + " 429": 1, "req " + editRoute + " 200": 1,
		"429 user": 1, "retry rate_limit": 1, "giveup " + editRoute: 0,
	} {
		if got := g.obs.get(k); got != want {
			t.Errorf("%s counted %d, want %d", k, got, want)
		}
	}
	if warns := g.log.lines("WARN"); len(warns) != 0 {
		t.Errorf("a well-formed 429 logged warnings: %q", warns)
	}
}

// Each malformed 429 (issue 22, "Bad input") gets a bounded wait, a clear
// log line, and no panic.
func TestMalformedRateLimits(t *testing.T) {
	for _, c := range []struct {
		name     string
		body     string
		headers  []string
		deadline bool // the call has 10 s
		wantWait time.Duration
		wantErr  bool   // given up: the wait passes the deadline
		wantLog  string // in the warning
	}{
		{name: "no retry_after", body: `{"message":"rate limited"}`, wantWait: DefaultRateLimitWait, wantLog: "no retry_after and no Retry-After"},
		{name: "Retry-After header only", body: `{"message":"rate limited"}`, headers: []string{"Retry-After", "3"}, wantWait: 3 * time.Second},
		{name: "negative retry_after", body: `{"retry_after":-5}`, wantWait: DefaultRateLimitWait, wantLog: "retry_after -5 is negative"},
		{name: "huge retry_after", body: `{"retry_after":1e300}`, wantWait: DefaultMaxWait, wantLog: "clamped to 1m0s"},
		{name: "huge retry_after past the deadline", body: `{"retry_after":1e9}`, deadline: true, wantErr: true, wantLog: "clamped to 1m0s"},
		{name: "non-JSON body", body: `<html><body>429 Too Many Requests</body></html>`, headers: []string{"Content-Type", "text/html"}, wantWait: DefaultRateLimitWait, wantLog: "body is not JSON"},
		{name: "non-JSON body with Retry-After", body: `<html></html>`, headers: []string{"Retry-After", "2"}, wantWait: 2 * time.Second, wantLog: "body is not JSON"},
		{name: "non-numeric Retry-After", body: `oops`, headers: []string{"Retry-After", "soon"}, wantWait: DefaultRateLimitWait, wantLog: `Retry-After \"soon\" is not a number`},
		{name: "non-numeric X-RateLimit-Reset-After", body: `{"retry_after":0.5}`, headers: []string{"X-RateLimit-Reset-After", "soon", "X-RateLimit-Remaining", "zero"}, wantWait: 500 * time.Millisecond},
		{name: "huge global", body: `{"retry_after":1e9,"global":true}`, headers: []string{"X-RateLimit-Global", "true", "X-RateLimit-Reset-After", "1e9"}, wantWait: DefaultMaxWait, wantLog: "clamped to 1m0s"},
		{name: "huge global past the deadline", body: `{"retry_after":1e9,"global":true}`, headers: []string{"X-RateLimit-Global", "true"}, deadline: true, wantErr: true, wantLog: "clamped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, firstThenOK(func(w http.ResponseWriter, r *http.Request) {
				tooMany(w, c.body, c.headers...)
			}))
			g := newRig(t, srv.URL, nil)
			ctx := context.Background()
			if c.deadline {
				ctx = ctx10s(t)
			}
			err := edit(ctx, g.r)
			attempts := len(srv.Hits())
			w := g.clk.Waits()
			if c.wantErr {
				var gu *GiveUpError
				if !errors.As(err, &gu) || gu.Reason != reasonPastDeadline || gu.Status != 429 {
					t.Fatalf("err %v, want a give-up for a wait past the deadline", err)
				}
				if attempts != 1 || len(w) != 0 {
					t.Fatalf("%d attempts and waits %v, want 1 attempt and no wait", attempts, w)
				}
				if g.obs.get("giveup "+editRoute) != 1 {
					t.Errorf("the give-up was not counted")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if attempts != 2 || len(w) != 1 || w[0] != c.wantWait {
					t.Fatalf("%d attempts, waits %v; want 2 attempts and a wait of %v", attempts, w, c.wantWait)
				}
			}
			warns := g.log.lines("WARN")
			if c.wantLog == "" {
				if len(warns) != 0 {
					t.Errorf("warnings %q, want none", warns)
				}
				return
			}
			if len(warns) != 1 || !strings.Contains(warns[0], "malformed 429") || !strings.Contains(warns[0], c.wantLog) || !strings.Contains(warns[0], editRoute) {
				t.Errorf("warnings %q, want one \"malformed 429\" naming the route and %q", warns, c.wantLog)
			}
		})
	}
}

// A success whose rate-limit headers are malformed or absurd reaches
// discordgo sanitized: it parses them, and its bucket waits at most
// maxBucketWait (without sanitizing, "soon" is a parse error and 1e9
// holds the bucket for 31 years).
func TestSuccessHeadersSanitized(t *testing.T) {
	for _, c := range []struct{ name, resetAfter, remaining string }{
		{"non-numeric Reset-After", "soon", "0"},
		{"huge Reset-After", "1e9", "0"},
		{"negative Reset-After", "-3", "-1"},
		{"non-numeric Remaining", "1", "many"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-RateLimit-Reset-After", c.resetAfter)
				w.Header().Set("X-RateLimit-Remaining", c.remaining)
				w.Header().Set("X-RateLimit-Reset", "tomorrow")
				_, _ = io.WriteString(w, `{"id":"500000000000000005","username":"bot"}`)
			})
			g := newRig(t, srv.URL, nil)
			if _, err := g.s.User("@me", discordgo.WithContext(ctx10s(t))); err != nil {
				t.Fatalf("discordgo refused the answer: %v", err)
			}
			b := g.s.Ratelimiter.GetBucket(discordgo.EndpointUsers)
			if wait := g.s.Ratelimiter.GetWaitTime(b, 1); wait > maxBucketWait {
				t.Fatalf("discordgo's bucket would wait %v, want at most %v", wait, maxBucketWait)
			}
		})
	}
}

func TestGlobalRateLimitHoldsOtherRoutes(t *testing.T) {
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			tooMany(w, `{"message":"global","retry_after":2,"global":true}`, "X-RateLimit-Global", "true", "X-RateLimit-Scope", "global")
			return
		}
		_, _ = io.WriteString(w, `{"id":"500000000000000005","username":"bot"}`)
	})
	g := newRig(t, srv.URL, nil)
	var otherErr, lateErr error
	var hitsBeforeOther int
	// While the edit waits out its global 429, another route is called:
	// it must wait too, before sending anything.
	g.clk.onSleep = func(time.Duration) {
		hitsBeforeOther = len(srv.Hits())
		// A call that cannot wait that long gives up at once.
		short, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, lateErr = g.s.User("@me", discordgo.WithContext(short))
		_, otherErr = g.s.User("@me", discordgo.WithContext(ctx10s(t)))
	}
	if err := edit(ctx10s(t), g.r); err != nil {
		t.Fatal(err)
	}
	if otherErr != nil {
		t.Fatal(otherErr)
	}
	var gu *GiveUpError
	if !errors.As(lateErr, &gu) || gu.Reason != reasonPastDeadline || gu.Attempts != 0 {
		t.Fatalf("a call with 1 s left under a 2 s global limit: %v, want a give-up before any attempt", lateErr)
	}
	w := g.clk.Waits()
	// waits: the edit's 2 s, then the other route's: the global limit's
	// whole 2 s (the fake clock has not moved yet).
	if len(w) != 2 || w[0] != 2*time.Second || w[1] != 2*time.Second {
		t.Fatalf("waits %v, want the edit's 2s and the other route's 2s", w)
	}
	hits := srv.Hits()
	if hitsBeforeOther != 1 || len(hits) != 3 || !strings.HasPrefix(hits[1], "GET ") || !strings.HasPrefix(hits[2], "PATCH ") {
		t.Fatalf("requests %v", hits)
	}
	if g.obs.get("429 global") != 1 {
		t.Errorf("the global 429 was not counted by scope")
	}
}

// A global 429 met by another call while a request waits for the hold
// to end extends the hold: the request waits again before it goes, rather
// than leaving when the first hold ends (found by the chaos run).
func TestGlobalHoldExtendedWhileWaiting(t *testing.T) {
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { okJSON(w) })
	g := newRig(t, srv.URL, nil)
	tr := g.s.Client.Transport.(*Transport)
	tr.holdAll(2 * time.Second) // another call met a global 429 of 2 s
	// While the edit waits, a third call meets a global 429 of 5 s.
	g.clk.onSleep = func(time.Duration) { tr.holdAll(5 * time.Second) }
	if err := edit(ctx10s(t), g.r); err != nil {
		t.Fatal(err)
	}
	if w := g.clk.Waits(); len(w) != 2 || w[0] != 2*time.Second || w[1] != 3*time.Second {
		t.Fatalf("waits %v, want 2s then the 3s left of the extended hold", w)
	}
	if n := len(srv.Hits()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestServerErrorRetriedOnlyWhenSafe(t *testing.T) {
	badGateway := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	}
	t.Run("edit", func(t *testing.T) {
		srv := serve(t, firstThenOK(func(w http.ResponseWriter, r *http.Request) {
			badGateway(w)
		}))
		g := newRig(t, srv.URL, nil)
		if err := edit(ctx10s(t), g.r); err != nil {
			t.Fatal(err)
		}
		w := g.clk.Waits()
		if len(srv.Hits()) != 2 || len(w) != 1 || w[0] < backoffBase/2 || w[0] > backoffBase {
			t.Fatalf("%d attempts, waits %v; want 2 and one backoff in [%v, %v]", len(srv.Hits()), w, backoffBase/2, backoffBase)
		}
		if g.obs.get("retry server_error") != 1 || g.obs.get("req "+editRoute+" 502") != 1 {
			t.Errorf("counts %v", g.obs.n)
		}
	})
	t.Run("follow-up", func(t *testing.T) {
		srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { badGateway(w) })
		g := newRig(t, srv.URL, nil)
		err := followUp(ctx10s(t), g.r)
		var gu *GiveUpError
		if !errors.As(err, &gu) || gu.Reason != reasonNotRetried || gu.Status != 502 || gu.Attempts != 1 {
			t.Fatalf("err %v, want a give-up without retry", err)
		}
		if len(srv.Hits()) != 1 || g.obs.get("giveup "+followRoute) != 1 {
			t.Fatalf("%d attempts, give-ups %v", len(srv.Hits()), g.obs.n)
		}
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "100000000000000001") {
			t.Errorf("error %q: want the interaction's ID and not its token", err)
		}
	})
}

// reset closes the connection with an RST, without answering.
func reset(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

func TestConnectionReset(t *testing.T) {
	t.Run("edit retried", func(t *testing.T) {
		srv := serve(t, firstThenOK(func(w http.ResponseWriter, r *http.Request) {
			reset(t, w)
		}))
		g := newRig(t, srv.URL, nil)
		if err := edit(ctx10s(t), g.r); err != nil {
			t.Fatal(err)
		}
		if len(srv.Hits()) != 2 || g.obs.get("retry connection") != 1 || g.obs.get("req "+editRoute+" 0") != 1 {
			t.Fatalf("%d attempts, counts %v", len(srv.Hits()), g.obs.n)
		}
	})
	t.Run("follow-up not retried", func(t *testing.T) {
		srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { reset(t, w) })
		g := newRig(t, srv.URL, nil)
		err := followUp(ctx10s(t), g.r)
		var gu *GiveUpError
		if !errors.As(err, &gu) || gu.Reason != reasonNotRetried {
			t.Fatalf("err %v, want a give-up without retry", err)
		}
		if len(srv.Hits()) != 1 {
			t.Fatalf("%d attempts, want 1", len(srv.Hits()))
		}
	})
	t.Run("refused connection retried whatever the method", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens: the dial fails, the request never left
		g := newRig(t, "http://"+addr, nil)
		err = followUp(ctx10s(t), g.r)
		var gu *GiveUpError
		if !errors.As(err, &gu) || gu.Reason != reasonAttempts || gu.Attempts != DefaultMaxAttempts {
			t.Fatalf("err %v, want a give-up after %d attempts", err, DefaultMaxAttempts)
		}
	})
}

const alreadyAcknowledged = `{"message":"Interaction has already been acknowledged.","code":40060}`

func TestCallbackAppliedThenAlreadyAcknowledged(t *testing.T) {
	for _, c := range []struct {
		name  string
		first func(w http.ResponseWriter, r *http.Request)
	}{
		{"5xx after processing", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "<html>upstream timed out</html>")
		}},
		{"answered later than the attempt's timeout", func(w http.ResponseWriter, r *http.Request) {
			select { // the client gives up on the attempt
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					c.first(w, r)
					return
				}
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, alreadyAcknowledged)
			})
			g := newRig(t, srv.URL, func(o *TransportOptions) { o.AttemptTimeout = 100 * time.Millisecond })
			if err := respond(ctx10s(t), g.r); err != nil {
				t.Fatalf("Respond: %v, want nil: our first attempt got there", err)
			}
			if len(srv.Hits()) != 2 {
				t.Fatalf("%d attempts, want 2", len(srv.Hits()))
			}
		})
	}
	t.Run("40060 at the first attempt is an error", func(t *testing.T) {
		srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, alreadyAcknowledged)
		})
		g := newRig(t, srv.URL, nil)
		err := respond(ctx10s(t), g.r)
		var re *discordgo.RESTError
		if !errors.As(err, &re) || re.Message == nil || re.Message.Code != discordgo.ErrCodeInteractionHasAlreadyBeenAcknowledged {
			t.Fatalf("Respond: %v, want the 40060 error", err)
		}
		if len(srv.Hits()) != 1 {
			t.Fatalf("%d attempts, want 1", len(srv.Hits()))
		}
	})
}

// A call given up after its attempts logs one warning, from the caller,
// naming the interaction, the route, the attempts and the last status;
// the transport itself logs none, and nothing holds the token.
func TestGiveUpLogsOneWarning(t *testing.T) {
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "<html>down</html>")
	})
	g := newRig(t, srv.URL, nil)
	tr := newTracker(nil, g.log.logger(), 0)
	raw := fmt.Sprintf(`{"id":"100000000000000001","token":%q,"type":"not a number","application_id":"200000000000000002"}`, secret)
	tr.apologise(g.r, []byte(raw), g.log.logger())
	if got := len(srv.Hits()); got != DefaultMaxAttempts {
		t.Fatalf("%d attempts, want %d", got, DefaultMaxAttempts)
	}
	warns := g.log.lines("WARN")
	if len(warns) != 1 {
		t.Fatalf("warnings %q, want one", warns)
	}
	for _, want := range []string{"100000000000000001", callbackRoute, "5 attempts", "503"} {
		if !strings.Contains(warns[0], want) {
			t.Errorf("warning %q does not name %q", warns[0], want)
		}
	}
	if g.obs.get("giveup "+callbackRoute) != 1 || g.obs.get("retry server_error") != DefaultMaxAttempts-1 {
		t.Errorf("counts %v", g.obs.n)
	}
	if w := g.clk.Waits(); len(w) != DefaultMaxAttempts-1 {
		t.Errorf("waits %v, want %d", w, DefaultMaxAttempts-1)
	}
}

// The cancellation of the call's context ends a wait at once.
func TestContextEndsTheWait(t *testing.T) {
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		tooMany(w, `{"retry_after":30}`)
	})
	g := newRig(t, srv.URL, func(o *TransportOptions) { o.Sleep = nil }) // the real timer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- edit(ctx, g.r) }()
	for len(srv.Hits()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	var gu *GiveUpError
	if !errors.As(err, &gu) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want a give-up for the cancelled context", err)
	}
}

// Per-interaction calls leave nothing behind in discordgo's rate limiter,
// however many interactions pass: no bucket is ever used for a token's
// URL. (discordgo's RateLimiter exports no count of its buckets; GetBucket
// makes one if missing, fresh with Remaining 1, while a bucket a call went
// through holds Remaining below 1.)
func TestInteractionsLeaveNoBuckets(t *testing.T) {
	const calls = 3000
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/callback") {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("X-RateLimit-Remaining", "0") // a bucket that saw it would wait
		w.Header().Set("X-RateLimit-Reset-After", "30")
		okJSON(w)
	})
	g := newRig(t, srv.URL, nil)
	ctx := ctx10s(t)
	interaction := func(k int) *discordgo.Interaction {
		return &discordgo.Interaction{ID: fmt.Sprint(100000000000000000 + k), AppID: "200000000000000002", Token: fmt.Sprintf("token-%06d", k)}
	}
	for k := range calls {
		i := interaction(k)
		content := "x"
		var err error
		switch k % 3 {
		case 0:
			err = g.r.Respond(ctx, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
		case 1:
			err = g.r.EditOriginal(ctx, i, &discordgo.WebhookEdit{Content: &content})
		default:
			err = g.r.FollowUp(ctx, i, &discordgo.WebhookParams{Content: content})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := len(srv.Hits()); got != calls {
		t.Fatalf("%d requests, want %d", got, calls)
	}
	rl := g.s.Ratelimiter
	used := func(id string) bool { return rl.GetBucket(id).Remaining < 1 }
	for k := range calls {
		i := interaction(k)
		for _, id := range []string{
			discordgo.EndpointInteractionResponse(i.ID, i.Token),
			discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"),
			discordgo.EndpointWebhookToken(i.AppID, i.Token),
			discordgo.EndpointWebhookToken(i.AppID, i.Token) + "?wait=true",
		} {
			if used(id) {
				t.Fatalf("interaction %d used a bucket of its own (%s)", k, Route("", mustURL(t, id)))
			}
		}
	}
	// The probe can fail: discordgo's own call does leave a bucket per token.
	i := interaction(calls)
	if err := g.s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}); err != nil {
		t.Fatal(err)
	}
	if !used(discordgo.EndpointInteractionResponse(i.ID, i.Token)) {
		t.Fatal("the probe does not see discordgo's per-token bucket")
	}
}

// A 429 on a callback is waited out, its retry_after clamped to MaxWait,
// and the callback sent again; the callback and the webhook calls carry
// no bot token, and a file goes as multipart, payload_json then files[0].
func TestCallbackRateLimitedThenRetried(t *testing.T) {
	var mu sync.Mutex
	var auth, parts []string
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
		if n == 1 {
			tooMany(w, `{"message":"You are being rate limited.","retry_after":1e9,"global":false}`)
			return
		}
		if mr, err := r.MultipartReader(); err == nil {
			for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
				b, _ := io.ReadAll(p)
				parts = append(parts, p.FormName()+"="+string(b))
			}
		}
		if strings.HasSuffix(r.URL.Path, "/callback") {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		okJSON(w)
	})
	g := newRig(t, srv.URL, func(o *TransportOptions) { o.MaxWait = 2 * time.Second })
	if err := respond(ctx10s(t), g.r); err != nil {
		t.Fatal(err)
	}
	if w := g.clk.Waits(); len(w) != 1 || w[0] != 2*time.Second {
		t.Fatalf("waits %v, want one of 2s: retry_after clamped to MaxWait", w)
	}
	if g.obs.get("req "+callbackRoute+" 429") != 1 || g.obs.get("req "+callbackRoute+" 204") != 1 || g.obs.get("retry rate_limit") != 1 {
		t.Errorf("counts %v", g.obs.n)
	}
	if warns := g.log.lines("WARN"); len(warns) != 1 || !strings.Contains(warns[0], "clamped to 2s") {
		t.Errorf("warnings %q, want one saying the wait was clamped", warns)
	}
	file := &discordgo.File{Name: "export.json", ContentType: "application/json", Reader: strings.NewReader(`{"v":1}`)}
	if err := g.r.FollowUp(ctx10s(t), testInteraction(), &discordgo.WebhookParams{Content: "export", Files: []*discordgo.File{file}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(parts) != 2 || !strings.HasPrefix(parts[0], `payload_json={"content":"export"`) || parts[1] != `files[0]={"v":1}` {
		t.Errorf("multipart parts %q, want payload_json then files[0]", parts)
	}
	for k, a := range auth {
		if a != "" {
			t.Errorf("request %d carried Authorization %q, want none", k+1, a)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A closed transport sends nothing more: what a stopped bot left running
// (discordgo reopening a gateway) fails at once, off the wire.
func TestClosedTransportSendsNothing(t *testing.T) {
	srv := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { okJSON(w) })
	g := newRig(t, srv.URL, nil)
	if err := edit(ctx10s(t), g.r); err != nil {
		t.Fatal(err)
	}
	g.s.Client.Transport.(*Transport).Close()
	if err := edit(ctx10s(t), g.r); !errors.Is(err, ErrTransportClosed) {
		t.Fatalf("an edit after Close: %v, want ErrTransportClosed", err)
	}
	if _, err := g.s.Gateway(); !errors.Is(err, ErrTransportClosed) {
		t.Fatalf("GET /gateway after Close: %v, want ErrTransportClosed", err)
	}
	if got := len(srv.Hits()); got != 1 {
		t.Fatalf("%d requests reached Discord, want the 1 before Close", got)
	}
}
