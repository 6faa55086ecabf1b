package bot

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/internal/backoff"
)

// RESTObserver receives the REST transport's events for the clefs_discord_*
// metrics (docs/operating.md lists their labels); its methods must be cheap
// and safe for concurrent use. A transport's Observer that also implements
// it (*metrics.Metrics does) counts the REST calls. Routes are Route's.
type RESTObserver interface {
	RESTRequest(route string, status int) // one attempt; status 0: no response
	RESTRateLimited(scope string)         // one 429; "unknown": no X-RateLimit-Scope
	RESTRetry(reason string)
	RESTGaveUp(route string)
}

// Defaults of TransportOptions. Discord answers in well under a second: a
// hung attempt's 5 s leave half of a handler's 10 s.
const (
	DefaultMaxAttempts    = 5
	DefaultAttemptTimeout = 5 * time.Second
	DefaultMaxWait        = 60 * time.Second
	DefaultRateLimitWait  = time.Second // after a 429 that asks no wait, or a malformed one
)

const (
	// The backoff after a 5xx or a connection error (backoff.Jittered).
	backoffBase = 200 * time.Millisecond
	backoffMax  = 2 * time.Second
	// rateLimitJitterMax bounds the random time added to a 429's wait, so
	// that the calls a global 429 stopped do not all come back at once.
	rateLimitJitterMax = 250 * time.Millisecond
	maxErrorBody       = 64 << 10 // what is read of a 429's or a 5xx's body
	// maxBucketWait clamps the X-RateLimit-Reset-After discordgo's buckets
	// see: a bucket waits without a context, holding every call behind it.
	// A route limited for longer answers the next call with a 429, which
	// the Transport waits out under that call's context.
	maxBucketWait = 5 * time.Second
)

// TransportOptions configure a Transport; the zero value is production.
type TransportOptions struct {
	Observer RESTObserver // counts requests, 429s, retries and give-ups; nil: none
	// Logger receives a warning per malformed 429 and a debug line per
	// retry; nil: slog.Default(). Give-ups are the caller's to log.
	Logger         *slog.Logger
	MaxAttempts    int              // bounds the attempts of a call; 0: DefaultMaxAttempts
	AttemptTimeout time.Duration    // bounds each attempt; 0: DefaultAttemptTimeout
	MaxWait        time.Duration    // clamps the waits asked by Discord; 0: DefaultMaxWait
	Now            func() time.Time // the clock; nil: time.Now
	// Sleep waits d or until ctx ends (returning its error); nil: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a random duration in [0, d); nil: backoff.Random().
	Jitter func(d time.Duration) time.Duration
}

// Transport is the http.RoundTripper under discordgo that owns its
// retries, bounded and under the request's context, as docs/operating.md
// ("Discord answers 429 or 5xx") tells (NewSession turns discordgo's off).
// A call given up returns a *GiveUpError, so discordgo never sees a 429 or
// a 5xx it would retry; sanitize keeps its buckets from blocking for long.
type Transport struct {
	next http.RoundTripper
	o    TransportOptions // every default applied

	mu          sync.Mutex
	globalUntil time.Time // no request leaves before (a global 429)

	closed atomic.Bool // Close was called: no request leaves any more
}

// ErrTransportClosed is what a Transport answers once closed.
var ErrTransportClosed = errors.New("bot: the REST transport is closed")

// Close makes every later request fail at once with ErrTransportClosed:
// discordgo keeps retrying a gateway connection it was reopening when its
// session was closed, and a stopped bot must not reach Discord.
func (t *Transport) Close() { t.closed.Store(true) }

// NewTransport returns a Transport over next (nil: http.DefaultTransport).
func NewTransport(next http.RoundTripper, o TransportOptions) *Transport {
	o.Observer = cmp.Or[RESTObserver](o.Observer, nopObserver{})
	o.Logger = cmp.Or(o.Logger, slog.Default())
	o.MaxAttempts = positiveOr(o.MaxAttempts, DefaultMaxAttempts)
	o.AttemptTimeout = positiveOr(o.AttemptTimeout, DefaultAttemptTimeout)
	o.MaxWait = positiveOr(o.MaxWait, DefaultMaxWait)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = backoff.Sleep
	}
	if o.Jitter == nil {
		o.Jitter = backoff.Random()
	}
	return &Transport{next: cmp.Or[http.RoundTripper](next, http.DefaultTransport), o: o}
}

// positiveOr returns v, or def when v is not positive (an option's zero).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func (nopObserver) RESTRequest(string, int) {}
func (nopObserver) RESTRateLimited(string)  {}
func (nopObserver) RESTRetry(string)        {}
func (nopObserver) RESTGaveUp(string)       {}

// GiveUpError is the error of a REST call the Transport stopped trying; it
// names the route template, never the URL (which carries a token).
type GiveUpError struct {
	Route    string        // "PATCH /webhooks/:id/:token/messages/@original"
	Attempts int           // attempts sent
	Status   int           // the last attempt's status; 0: no response
	Reason   string        // why it stopped
	Wait     time.Duration // the wait it would have needed, when that is why
	Err      error         // the last attempt's error, if any
}

func (e *GiveUpError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "discord: gave up on %s after %d attempt", e.Route, e.Attempts)
	if e.Attempts != 1 {
		b.WriteByte('s')
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ", last status %d %s", e.Status, http.StatusText(e.Status))
	}
	fmt.Fprintf(&b, ": %s", e.Reason)
	if e.Wait > 0 {
		fmt.Fprintf(&b, " (wait %v)", e.Wait)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *GiveUpError) Unwrap() error { return e.Err }

// Give-up reasons.
const (
	reasonAttempts     = "no attempt left"
	reasonPastDeadline = "the wait would pass the context's deadline"
	reasonNotRetried   = "not retried: a POST may have been applied"
	reasonNoReplay     = "not retried: the body cannot be sent again"
	reasonContext      = "the context ended"
)

// retryAmbiguous tells whether a request that may have been applied may be
// sent again: an idempotent method, or a callback (a second is refused with
// 40060, which Respond reads as success); never another POST (a follow-up
// may exist). A failed dial is retried whatever the method.
func retryAmbiguous(method, route string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return true
	}
	return route == "POST /interactions/:id/:token/callback"
}

// Route returns the route template of a request to Discord's API, which
// metrics and errors name: the method and the path after /api/vN, with
// snowflakes as ":id", tokens as ":token", and any other segment that is
// not a short lower-case word as ":x".
func Route(method string, u *url.URL) string {
	p := u.Path
	if _, v, ok := strings.Cut(p, "/api/v"); ok {
		_, after, _ := strings.Cut(v, "/") // what follows the version
		p = "/" + after
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	out := make([]string, len(segs))
	for k, s := range segs {
		switch {
		case k >= 2 && (segs[k-2] == "interactions" || segs[k-2] == "webhooks"):
			out[k] = ":token"
		case s != "" && strings.Trim(s, "0123456789") == "":
			out[k] = ":id"
		case len(s) > 32 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz@_-.") != "": // not a fixed word ("callback", "@original")
			out[k] = ":x"
		default:
			out[k] = s
		}
	}
	return method + " /" + strings.Join(out, "/")
}

// callState follows one call of a restResponder across the Transport's
// attempts (carried by the context, as httptrace's ClientTrace is):
// delivered is set once an attempt may have been applied (a 5xx, a
// timeout or a connection lost after sending).
type callState struct{ delivered atomic.Bool }

type callKey struct{}

// attempt records one attempt of the call, if ctx carries one.
func (st *callState) attempt(maybeApplied bool) {
	if st != nil && maybeApplied {
		st.delivered.Store(true)
	}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.closed.Load() {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrTransportClosed
	}
	ctx := req.Context()
	route := Route(req.Method, req.URL)
	mayResend := retryAmbiguous(req.Method, route)
	call, _ := ctx.Value(callKey{}).(*callState)
	hasBody := req.Body != nil && req.Body != http.NoBody
	replayable := !hasBody || req.GetBody != nil
	if hasBody && req.GetBody != nil {
		req.Body.Close() // each attempt sends a copy from GetBody
	}
	giveUp := func(e *GiveUpError) (*http.Response, error) {
		e.Route = route
		t.o.Observer.RESTGaveUp(route)
		return nil, e
	}
	status := 0
	var lastErr error
	for attempt := 1; ; attempt++ {
		for wait := t.globalWait(); wait > 0; wait = t.globalWait() { // a global 429 met while waiting extends the hold
			if err := t.wait(ctx, wait); err != nil {
				return giveUp(waitGaveUp(attempt-1, status, wait, err))
			}
		}
		areq, cancel, err := t.attemptRequest(ctx, req)
		if err != nil {
			return giveUp(&GiveUpError{Attempts: attempt - 1, Status: status, Reason: reasonNoReplay, Err: err})
		}
		resp, err := t.next.RoundTrip(areq)
		status, lastErr = 0, err
		if err == nil {
			status = resp.StatusCode
		}
		t.o.Observer.RESTRequest(route, status)
		var reason string
		var wait time.Duration
		switch {
		case err != nil:
			timedOut := areq.Context().Err() != nil
			cancel()
			var op *net.OpError
			sent := !errors.As(err, &op) || op.Op != "dial" // a failed dial never left
			call.attempt(sent)
			if ctx.Err() != nil {
				return giveUp(&GiveUpError{Attempts: attempt, Reason: reasonContext, Err: err})
			}
			if sent && !mayResend {
				return giveUp(&GiveUpError{Attempts: attempt, Reason: reasonNotRetried, Err: err})
			}
			reason = "connection"
			if timedOut {
				reason = "timeout"
			}
			wait = backoff.Jittered(attempt, backoffBase, backoffMax, t.o.Jitter)
		case status == http.StatusTooManyRequests:
			rl := t.readRateLimit(resp, route)
			cancel()
			t.o.Observer.RESTRateLimited(rl.scope)
			wait = rl.wait
			if rl.global {
				t.holdAll(wait)
			}
			wait += t.o.Jitter(min(wait/10, rateLimitJitterMax))
			reason = "rate_limit"
		case status >= 500:
			call.attempt(true)
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			cancel()
			if !mayResend {
				return giveUp(&GiveUpError{Attempts: attempt, Status: status, Reason: reasonNotRetried})
			}
			reason = "server_error"
			wait = backoff.Jittered(attempt, backoffBase, backoffMax, t.o.Jitter)
		default:
			sanitize(resp.Header)
			resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		if attempt >= t.o.MaxAttempts {
			return giveUp(&GiveUpError{Attempts: attempt, Status: status, Reason: reasonAttempts, Err: lastErr})
		}
		if !replayable {
			return giveUp(&GiveUpError{Attempts: attempt, Status: status, Reason: reasonNoReplay, Err: lastErr})
		}
		if err := t.wait(ctx, wait); err != nil {
			return giveUp(waitGaveUp(attempt, status, wait, err))
		}
		t.o.Observer.RESTRetry(reason)
		t.o.Logger.Debug("discord: retrying", "route", route, "attempt", attempt+1, "reason", reason, "status", status, "wait", wait)
	}
}

var errPastDeadline = errors.New("past the deadline")

// waitGaveUp is the give-up of a wait that failed with err (Transport.wait).
func waitGaveUp(attempts, status int, wait time.Duration, err error) *GiveUpError {
	if errors.Is(err, errPastDeadline) {
		return &GiveUpError{Attempts: attempts, Status: status, Reason: reasonPastDeadline, Wait: wait}
	}
	return &GiveUpError{Attempts: attempts, Status: status, Reason: reasonContext, Wait: wait, Err: err}
}

// wait sleeps d under ctx, or returns errPastDeadline at once if d would
// end after ctx's deadline.
func (t *Transport) wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && t.o.Now().Add(d).After(dl) {
		return errPastDeadline
	}
	if d <= 0 {
		return nil
	}
	return t.o.Sleep(ctx, d)
}

func (t *Transport) globalWait() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.globalUntil.Sub(t.o.Now())
}

// holdAll makes every request wait d from now (a global 429).
func (t *Transport) holdAll(d time.Duration) {
	until := t.o.Now().Add(d)
	t.mu.Lock()
	defer t.mu.Unlock()
	if until.After(t.globalUntil) {
		t.globalUntil = until
	}
}

// attemptRequest returns one attempt's request, under its timeout, with a
// fresh copy of the body (RoundTrip sends a body without GetBody once).
func (t *Transport) attemptRequest(ctx context.Context, req *http.Request) (*http.Request, context.CancelFunc, error) {
	actx, cancel := context.WithTimeout(ctx, t.o.AttemptTimeout)
	areq := req.Clone(actx)
	if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			cancel()
			return nil, nil, fmt.Errorf("copy the request body: %w", err)
		}
		areq.Body = body
	}
	return areq, cancel, nil
}

// cancelOnClose ends an attempt's context once discordgo has read the body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// rateLimit is what a 429 asks.
type rateLimit struct {
	wait   time.Duration
	global bool
	scope  string
}

// readRateLimit reads a 429's wait (the body's retry_after, else Retry-After,
// else DefaultRateLimitWait; clamped to MaxWait) and closes its body.
func (t *Transport) readRateLimit(resp *http.Response, route string) rateLimit {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	var msg struct {
		RetryAfter *float64 `json:"retry_after"`
		Global     bool     `json:"global"`
	}
	var problems []string
	if err := json.Unmarshal(body, &msg); err != nil {
		problems = append(problems, "body is not JSON")
		msg.RetryAfter = nil
	}
	secs, from := msg.RetryAfter, "retry_after"
	if secs == nil {
		if h := resp.Header.Get("Retry-After"); h != "" {
			if v, err := strconv.ParseFloat(h, 64); err == nil {
				secs, from = &v, "Retry-After"
			} else {
				problems = append(problems, fmt.Sprintf("Retry-After %q is not a number", h))
			}
		} else {
			problems = append(problems, "no retry_after and no Retry-After")
		}
	}
	rl := rateLimit{wait: DefaultRateLimitWait, scope: strings.ToLower(resp.Header.Get("X-RateLimit-Scope"))}
	if secs != nil {
		switch v := *secs; {
		case math.IsNaN(v) || v < 0:
			problems = append(problems, fmt.Sprintf("%s %v is negative", from, v))
		case v > t.o.MaxWait.Seconds():
			rl.wait = t.o.MaxWait
			problems = append(problems, fmt.Sprintf("%s %vs clamped to %v", from, v, t.o.MaxWait))
		default:
			rl.wait = time.Duration(v * float64(time.Second))
		}
	}
	rl.global = msg.Global || resp.Header.Get("X-RateLimit-Global") == "true" || rl.scope == "global"
	switch {
	case rl.global:
		rl.scope = "global"
	case rl.scope == "user" || rl.scope == "shared":
	default:
		rl.scope = "unknown"
	}
	if len(problems) > 0 {
		t.o.Logger.Warn("discord: malformed 429", "route", route, "problem", strings.Join(problems, "; "), "wait", rl.wait, "global", rl.global)
	}
	return rl
}

// sanitize makes the rate-limit headers safe for discordgo's buckets, which
// must neither block for long nor fail to parse them: global limits are the
// Transport's, and Reset-After (clamped to maxBucketWait) replaces Reset.
func sanitize(h http.Header) {
	h.Del("X-RateLimit-Global")
	h.Del("X-RateLimit-Reset")
	if v := h.Get("X-RateLimit-Reset-After"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil || math.IsNaN(f) || f < 0:
			h.Del("X-RateLimit-Reset-After")
		case f > maxBucketWait.Seconds():
			h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(maxBucketWait.Seconds(), 'f', -1, 64))
		}
	}
	if v := h.Get("X-RateLimit-Remaining"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		switch {
		case err != nil:
			h.Del("X-RateLimit-Remaining")
		case n < 0:
			h.Set("X-RateLimit-Remaining", "0")
		}
	}
}
