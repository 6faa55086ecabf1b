package fakediscord

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultKind names a fault the fake can inject into a REST call.
type FaultKind string

// The faults of REST calls (Fault.Kind, Chaos.Kinds).
const (
	// FaultRateLimit answers 429 as Discord does on a bucket: the body
	// {"message": "You are being rate limited.", "retry_after": 1.234,
	// "global": false, "code": 0}, Retry-After (whole seconds, rounded up),
	// X-RateLimit-Limit, -Remaining (0), -Reset, -Reset-After, -Bucket and
	// -Scope (Fault.Scope: "user", the default, or "shared"). The call is
	// not processed. A call on the same bucket before retry_after has
	// elapsed is a Failure ("retried before retry_after").
	FaultRateLimit FaultKind = "rate_limit"
	// FaultGlobalRateLimit answers one global 429: "global": true,
	// X-RateLimit-Global: true, X-RateLimit-Scope: global. Until its
	// retry_after elapses, any call is early (a Failure), except calls of
	// other buckets arriving within GlobalGrace of it (already in flight).
	// See SetGlobalRateLimit for a window in which every call gets one.
	FaultGlobalRateLimit FaultKind = "global_rate_limit"
	// Malformed 429s, for the bot's bad-input tests; never enforced.
	FaultRateLimitNoRetryAfter  FaultKind = "rate_limit_no_retry_after"  // no retry_after in the body, no Retry-After header
	FaultRateLimitNegative      FaultKind = "rate_limit_negative"        // retry_after and the headers negative
	FaultRateLimitHuge          FaultKind = "rate_limit_huge"            // retry_after 1e9 s, the headers too
	FaultRateLimitNotJSON       FaultKind = "rate_limit_not_json"        // an HTML body, the headers well-formed
	FaultRateLimitBadResetAfter FaultKind = "rate_limit_bad_reset_after" // X-RateLimit-Reset-After: "soon"
	// FaultServerError answers Fault.Status (500, 502 (default), 503 or
	// 504) with an HTML body, as Discord's front end does.
	FaultServerError FaultKind = "server_error"
	// FaultSlow answers after Fault.Delay: before processing the call
	// (the default; a client that gave up by then leaves nothing done) or,
	// with Fault.After, after processing it (the call took effect; the
	// client sees the answer late, e.g. a callback answered 2.5 s late).
	FaultSlow FaultKind = "slow"
	// FaultReset closes the connection without answering (hijacked).
	FaultReset FaultKind = "reset"
	// FaultTokenExpired answers 401 {"message": "Invalid Webhook Token",
	// "code": 50027}, as to an interaction token past its life.
	FaultTokenExpired FaultKind = "token_expired"
)

// Kinds only recorded in Server.Faults, never set in a Fault.
const (
	// FaultConsequence: a refusal the bot caused only because of an
	// earlier injected fault on the same interaction (a second callback
	// after a callback that took effect but failed, a callback or edit
	// made late by injected 429s or delays): 40060, 10062 and 50027 of an
	// interaction that had a fault are recorded here, not as Failures.
	FaultConsequence FaultKind = "consequence"
	// FaultMissingPermissions: a message posted in a channel where the bot
	// may not post (DenyChannel), answered 403 {"message": "Missing
	// Permissions", "code": 50013}.
	FaultMissingPermissions FaultKind = "missing_permissions"
	// Gateway faults: op 7, op 9, a dropped connection, heartbeat ACKs
	// withheld.
	FaultGatewayReconnect      FaultKind = "gateway_reconnect"
	FaultGatewayInvalidSession FaultKind = "gateway_invalid_session"
	FaultGatewayDrop           FaultKind = "gateway_drop"
	FaultHeartbeatAcks         FaultKind = "heartbeat_acks_withheld"
)

// Defaults of faults.
const (
	DefaultRetryAfter = time.Second
	// GlobalGrace: a call of another bucket arriving this soon after a
	// global 429 was sent was already in flight; it is not early.
	GlobalGrace = 250 * time.Millisecond
	// DefaultTokenLife is an interaction token's life, like Discord's.
	DefaultTokenLife = 15 * time.Minute
	hugeRetryAfter   = 1e9 // seconds
)

// Routes are the REST routes of the fake, as Fault.Route names them:
// the method and the path after /api/v10, with its parameters in braces.
var Routes = func() []string {
	out := make([]string, len(restRoutes))
	for i, rt := range restRoutes {
		out[i] = rt.pattern
	}
	return out
}()

// Fault is a rule that injects a fault into the REST calls it matches:
// all of Route, Bucket and Interaction that are set must match. It hits the
// next Count matching calls (0: one, or every one with Fraction), each
// with probability Fraction (0: always), drawn from the server's seeded
// generator (Options.Seed). Rules are tried in the order they were added;
// the first that hits wins. As JSON (the control API), durations are a
// number of seconds (1.234) or a Go duration ("1.5s").
type Fault struct {
	Kind FaultKind `json:"kind"`
	// Route is a route template of Routes, e.g.
	// "POST /interactions/{id}/{token}/callback"; a template may also name
	// the original message, "PATCH /webhooks/{app}/{token}/messages/@original".
	// "": any route.
	Route string `json:"route,omitempty"`
	// Bucket is an X-RateLimit-Bucket value (BucketOf); "": any.
	Bucket string `json:"bucket,omitempty"`
	// Interaction is an interaction's ID: its callback, edits and
	// follow-ups; "": any.
	Interaction string  `json:"interaction,omitempty"`
	Count       int     `json:"count,omitempty"`
	Fraction    float64 `json:"fraction,omitempty"`
	// RetryAfter is the 429's retry_after; 0: DefaultRetryAfter.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Scope is X-RateLimit-Scope of a FaultRateLimit: "user" (default) or "shared".
	Scope string `json:"scope,omitempty"`
	// Status of a FaultServerError: 500, 502 (default), 503 or 504.
	Status int `json:"status,omitempty"`
	// Delay of a FaultSlow; required.
	Delay time.Duration `json:"delay,omitempty"`
	// After processes the call before failing it (FaultServerError,
	// FaultSlow, FaultReset): the call takes effect, the client sees an
	// error (a retry of a callback then gets 40060). Default: before, the
	// call is not processed.
	After bool `json:"after,omitempty"`
}

// UnmarshalJSON reads a Fault as the control API takes it; unknown fields
// are an error.
func (f *Fault) UnmarshalJSON(b []byte) error {
	type plain Fault
	a := struct {
		*plain
		RetryAfter jsonDuration `json:"retry_after"`
		Delay      jsonDuration `json:"delay"`
	}{plain: (*plain)(f)}
	err := decodeStrict(b, &a)
	f.RetryAfter, f.Delay = time.Duration(a.RetryAfter), time.Duration(a.Delay)
	return err
}

// MarshalJSON writes durations as Go durations ("1.5s").
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	return json.Marshal(struct {
		plain
		RetryAfter jsonDuration `json:"retry_after,omitempty"`
		Delay      jsonDuration `json:"delay,omitempty"`
	}{plain(f), jsonDuration(f.RetryAfter), jsonDuration(f.Delay)})
}

// jsonDuration is a duration as JSON: a number of seconds or a Go duration string.
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration: want a number of seconds or a Go duration like \"1.5s\": %w", err)
		}
		*d = jsonDuration(v)
		return nil
	}
	var sec float64
	if err := json.Unmarshal(b, &sec); err != nil {
		return fmt.Errorf("duration: want a number of seconds or a Go duration like \"1.5s\", got %s", truncate(string(b), 40))
	}
	if math.IsNaN(sec) || math.Abs(sec) > 1e6 {
		return fmt.Errorf("duration: %v seconds out of range", sec)
	}
	*d = jsonDuration(sec * float64(time.Second))
	return nil
}

func (d jsonDuration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// faultKinds are the kinds a Fault may have.
var faultKinds = []FaultKind{FaultRateLimit, FaultGlobalRateLimit, FaultRateLimitNoRetryAfter, FaultRateLimitNegative,
	FaultRateLimitHuge, FaultRateLimitNotJSON, FaultRateLimitBadResetAfter, FaultServerError, FaultSlow, FaultReset, FaultTokenExpired}

func (f *Fault) isRateLimit() bool {
	return strings.HasPrefix(string(f.Kind), "rate_limit") || f.Kind == FaultGlobalRateLimit
}

// check validates f and fills its defaults.
func (f *Fault) check() error {
	switch {
	case f.Kind == "":
		return fmt.Errorf("fault: kind is required")
	case !slices.Contains(faultKinds, f.Kind):
		return fmt.Errorf("fault: unknown kind %q (want one of %v)", f.Kind, faultKinds)
	}
	if f.Route != "" && !routeKnown(f.Route) {
		return fmt.Errorf("fault: unknown route %q (want one of %s, e.g. \"POST /interactions/{id}/{token}/callback\")", f.Route, strings.Join(Routes, ", "))
	}
	if f.Count < 0 {
		return fmt.Errorf("fault: count %d is negative", f.Count)
	}
	if !(f.Fraction >= 0 && f.Fraction <= 1) {
		return fmt.Errorf("fault: fraction %v is not within [0, 1]", f.Fraction)
	}
	if f.RetryAfter < 0 || f.RetryAfter > time.Hour {
		return fmt.Errorf("fault: retry_after %s is not within [0, 1h] (use the malformed kinds for absurd values)", f.RetryAfter)
	}
	f.RetryAfter = cmp.Or(f.RetryAfter, DefaultRetryAfter)
	switch {
	case f.Scope == "" && f.Kind == FaultGlobalRateLimit:
		f.Scope = "global"
	case f.Scope == "":
		f.Scope = "user"
	case f.Scope == "global" && f.Kind != FaultGlobalRateLimit:
		return fmt.Errorf(`fault: scope "global" is kind global_rate_limit`)
	case f.Scope != "global" && f.Scope != "user" && f.Scope != "shared":
		return fmt.Errorf(`fault: scope %q: want "user" or "shared"`, f.Scope)
	case f.Scope != "global" && (!f.isRateLimit() || f.Kind == FaultGlobalRateLimit):
		return fmt.Errorf("fault: scope %q applies to a per-bucket 429 only", f.Scope)
	}
	switch {
	case f.Kind == FaultServerError && f.Status == 0:
		f.Status = http.StatusBadGateway
	case f.Kind == FaultServerError:
		if f.Status != 500 && f.Status != 502 && f.Status != 503 && f.Status != 504 {
			return fmt.Errorf("fault: status %d: want 500, 502, 503 or 504", f.Status)
		}
	case f.Status != 0:
		return fmt.Errorf("fault: status applies to kind server_error only")
	}
	switch {
	case f.Kind == FaultSlow && (f.Delay <= 0 || f.Delay > 10*time.Minute):
		return fmt.Errorf("fault: a slow fault needs a delay within (0, 10m], got %s", f.Delay)
	case f.Kind != FaultSlow && f.Delay != 0:
		return fmt.Errorf("fault: delay applies to kind slow only")
	}
	if f.After && f.Kind != FaultServerError && f.Kind != FaultSlow && f.Kind != FaultReset {
		return fmt.Errorf("fault: after applies to server_error, slow and reset only (a 429 is never processed)")
	}
	return nil
}

// routeKnown reports whether route is a template of Routes, or one with
// {msg} given as @original.
func routeKnown(route string) bool {
	return slices.Contains(Routes, route) || slices.Contains(Routes, strings.Replace(route, "/messages/@original", "/messages/{msg}", 1))
}

// InjectedFault is a fault the fake injected, or a consequence of one.
type InjectedFault struct {
	At          time.Time `json:"at"`
	Kind        FaultKind `json:"kind"`
	Method      string    `json:"method,omitempty"`
	Route       string    `json:"route,omitempty"` // the route template
	Path        string    `json:"path,omitempty"`  // the URL path, tokens elided
	Bucket      string    `json:"bucket,omitempty"`
	Interaction string    `json:"interaction,omitempty"`
	Status      int       `json:"status,omitempty"` // the status answered; 0 for a reset
	Code        int       `json:"code,omitempty"`   // for a consequence, Discord's error code
	After       bool      `json:"after,omitempty"`
	Detail      string    `json:"detail,omitempty"`
}

// Chaos injects random faults into a fraction of the REST calls that no
// rule hit, deterministically from Seed, and drops the gateway connections
// a few times.
type Chaos struct {
	// Fraction of the REST calls that get a fault, within [0, 1].
	Fraction float64 `json:"fraction"`
	// Kinds to draw from, uniformly; empty: rate_limit, global_rate_limit,
	// server_error, slow, reset.
	Kinds []FaultKind `json:"kinds,omitempty"`
	// Seed of the draws.
	Seed uint64 `json:"seed"`
	// RetryAfter of the 429s; 0: 500 ms.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Delay of the slow answers; 0: 2 s.
	Delay time.Duration `json:"delay,omitempty"`
	// After is the fraction of server_error, slow and reset faults that
	// happen after processing the call (0: all before).
	After float64 `json:"after,omitempty"`
	// GatewayDrops drops every gateway connection this many times, at
	// most one every GatewayEvery (0: 5 s) and only while one is
	// identified, alternately abruptly and by op 7.
	GatewayDrops int           `json:"gateway_drops,omitempty"`
	GatewayEvery time.Duration `json:"gateway_every,omitempty"`
}

// UnmarshalJSON reads Chaos as the control API takes it: durations as
// seconds or Go durations; unknown fields are an error.
func (c *Chaos) UnmarshalJSON(b []byte) error {
	type plain Chaos
	a := struct {
		*plain
		RetryAfter   jsonDuration `json:"retry_after"`
		Delay        jsonDuration `json:"delay"`
		GatewayEvery jsonDuration `json:"gateway_every"`
	}{plain: (*plain)(c)}
	err := decodeStrict(b, &a)
	c.RetryAfter, c.Delay, c.GatewayEvery = time.Duration(a.RetryAfter), time.Duration(a.Delay), time.Duration(a.GatewayEvery)
	return err
}

// chaosState is an active Chaos.
type chaosState struct {
	Chaos
	rng  *rand.Rand
	stop chan struct{}
}

func (c *Chaos) check() error {
	if !(c.Fraction >= 0 && c.Fraction <= 1) || !(c.After >= 0 && c.After <= 1) {
		return fmt.Errorf("chaos: fraction %v and after %v must be within [0, 1]", c.Fraction, c.After)
	}
	if len(c.Kinds) == 0 {
		c.Kinds = []FaultKind{FaultRateLimit, FaultGlobalRateLimit, FaultServerError, FaultSlow, FaultReset}
	}
	for _, k := range c.Kinds {
		f := Fault{Kind: k}
		if k == FaultSlow {
			f.Delay = time.Second
		}
		if err := f.check(); err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
	}
	if c.RetryAfter < 0 || c.RetryAfter > time.Hour || c.Delay < 0 || c.Delay > 10*time.Minute {
		return fmt.Errorf("chaos: retry_after %s or delay %s out of range", c.RetryAfter, c.Delay)
	}
	c.RetryAfter = cmp.Or(c.RetryAfter, 500*time.Millisecond)
	c.Delay = cmp.Or(c.Delay, 2*time.Second)
	if c.GatewayDrops < 0 || c.GatewayEvery < 0 {
		return fmt.Errorf("chaos: gateway_drops and gateway_every must not be negative")
	}
	c.GatewayEvery = cmp.Or(c.GatewayEvery, 5*time.Second)
	return nil
}

// InjectFault adds a rule and returns its ID (for RemoveFault). It fails,
// changing nothing, on a fault that does not make sense (see Fault).
func (s *Server) InjectFault(f Fault) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	left := cmp.Or(f.Count, 1)
	if f.Count == 0 && f.Fraction > 0 {
		left = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ruleSeq++
	s.rules = append(s.rules, &FaultRule{Fault: f, ID: s.ruleSeq, Left: left})
	return s.ruleSeq, nil
}

// RemoveFault removes a rule; it reports whether it was there.
func (s *Server) RemoveFault(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.rules)
	s.rules = slices.DeleteFunc(s.rules, func(r *FaultRule) bool { return r.ID == id })
	return len(s.rules) < n
}

// ClearFaults removes every rule, ends a global rate limit window and the
// chaos, and lets heartbeats be ACKed again. Faults already recorded stay,
// and so do the retry_after of the 429s already served: a call before
// they elapse is still early.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.rules = nil
	s.globalWindow = time.Time{}
	s.noAckUntil = time.Time{}
	s.mu.Unlock()
	s.StopChaos()
}

// FaultRules returns the active rules with their remaining hits (-1: unlimited).
func (s *Server) FaultRules() []FaultRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []FaultRule{}
	for _, r := range s.rules {
		out = append(out, *r)
	}
	return out
}

// FaultRule is an active rule.
type FaultRule struct {
	ID    int   `json:"id"`
	Fault Fault `json:"fault"`
	Left  int   `json:"left"` // remaining hits; -1 unlimited
}

// SetGlobalRateLimit makes every REST call answer a global 429 for d from
// now, each with retry_after the time left (0 ends it). Each is recorded as
// a FaultGlobalRateLimit; a call arriving before the retry_after its
// bucket was given is a Failure.
func (s *Server) SetGlobalRateLimit(d time.Duration) {
	var until time.Time
	if d > 0 {
		until = time.Now().Add(d)
	}
	s.locked(func() { s.globalWindow = until })
}

// SetChaos starts the chaos (replacing any), or fails on a bad config.
func (s *Server) SetChaos(c Chaos) error {
	if err := c.check(); err != nil {
		return err
	}
	st := &chaosState{Chaos: c, rng: rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)), stop: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	old := s.chaos
	s.chaos = st
	if c.GatewayDrops > 0 {
		s.wg.Add(1)
		go s.chaosGateway(st)
	}
	s.mu.Unlock()
	if old != nil {
		close(old.stop)
	}
	return nil
}

// StopChaos ends the chaos, if any.
func (s *Server) StopChaos() {
	s.mu.Lock()
	ch := s.chaos
	s.chaos = nil
	s.mu.Unlock()
	if ch != nil {
		close(ch.stop)
	}
}

// chaosGateway drops the gateway connections GatewayDrops times, each
// time there is one to drop.
func (s *Server) chaosGateway(st *chaosState) {
	defer s.wg.Done()
	t := time.NewTicker(st.GatewayEvery)
	defer t.Stop()
	for done := 0; done < st.GatewayDrops; {
		select {
		case <-t.C:
		case <-st.stop:
			return
		case <-s.ctx.Done():
			return
		}
		if len(s.authedConns()) == 0 {
			continue // still reconnecting: wait for the next tick
		}
		if done%2 == 0 {
			s.Disconnect()
		} else {
			s.Reconnect()
		}
		done++
	}
}

// Faults returns every injected fault and consequence so far, oldest first.
func (s *Server) Faults() []InjectedFault { return copyOf(s, &s.injected) }

// recordFaultLocked records an injected fault and marks its interaction.
func (s *Server) recordFaultLocked(f InjectedFault) {
	f.At = time.Now()
	s.injected = append(s.injected, f)
	if in, ok := s.interactions[f.Interaction]; ok {
		in.faulted = true
	}
	s.log.Info("fault injected", "kind", string(f.Kind), "route", f.Route, "path", f.Path, "interaction", f.Interaction, "status", f.Status, "after", f.After)
}

// BucketOf is the X-RateLimit-Bucket the fake gives a call: a hash of its
// method and path (after /api/vN), so one per route and interaction.
func BucketOf(method, path string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(method + " " + path))
	return strconv.FormatUint(h.Sum64(), 16)
}

// restCall is what the fault layer knows of a REST call.
type restCall struct {
	route, path, bucket, interaction string
}

// apiPath is the path after /api/vN.
func apiPath(p string) string {
	rest := strings.TrimPrefix(p, "/api/")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return "/"
}

// serveREST runs h (the route's handler, with its authorization) for a
// call, unless it is early after a 429 or a fault hits it.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request, route string, h http.HandlerFunc) {
	path := apiPath(r.URL.Path)
	c := restCall{route: route, path: path, bucket: BucketOf(r.Method, path)}
	now := time.Now()
	s.mu.Lock()
	// The interaction of a callback ({id}) or of a webhook call ({token}).
	in := s.interactions[r.PathValue("id")]
	if strings.Contains(route, " /webhooks/") {
		in = s.byToken[r.PathValue("token")]
	}
	c.interaction = in.ID()
	// A call before the retry_after its bucket (or, for a global 429, any
	// bucket) was given is early: the bot did not honour it.
	until, limited := s.retryUntil[c.bucket]
	if limited && !now.Before(until) {
		delete(s.retryUntil, c.bucket)
		limited = false
	}
	if !limited && now.Before(s.globalUntil) && now.Sub(s.globalSent) >= GlobalGrace {
		until, limited = s.globalUntil, true
	}
	if limited {
		left := until.Sub(now)
		f := newFailure(r.Method, r.URL.Path, http.StatusTooManyRequests, 0,
			fmt.Sprintf("retried before retry_after (%s early)", left.Round(time.Millisecond)), nil, c.interaction)
		s.recordFailureLocked(f)
		s.mu.Unlock()
		write429(w, FaultRateLimit, left, "user", c.bucket)
		return
	}
	var hit *Fault
	if now.Before(s.globalWindow) {
		hit = &Fault{Kind: FaultGlobalRateLimit, RetryAfter: s.globalWindow.Sub(now), Scope: "global"}
	}
	for _, ru := range s.rules {
		if hit != nil || !ru.Fault.matches(c) || (ru.Fault.Fraction > 0 && s.rng.Float64() >= ru.Fault.Fraction) {
			continue
		}
		hit = &ru.Fault
		if ru.Left > 0 {
			ru.Left--
		}
		if ru.Left == 0 {
			s.rules = slices.DeleteFunc(s.rules, func(x *FaultRule) bool { return x == ru })
		}
	}
	if hit == nil && s.chaos != nil && s.chaos.Fraction > 0 && s.chaos.rng.Float64() < s.chaos.Fraction {
		ch := s.chaos
		f := Fault{Kind: ch.Kinds[ch.rng.IntN(len(ch.Kinds))], RetryAfter: ch.RetryAfter}
		switch f.Kind {
		case FaultSlow:
			f.Delay = ch.Delay
		case FaultServerError:
			f.Status = []int{500, 502, 503, 504}[ch.rng.IntN(4)]
		}
		if f.Kind == FaultSlow || f.Kind == FaultServerError || f.Kind == FaultReset {
			f.After = ch.rng.Float64() < ch.After
		}
		_ = f.check() // fills the defaults; the kinds were checked by SetChaos
		hit = &f
	}
	if hit == nil {
		s.mu.Unlock()
		h(w, r)
		return
	}
	f := *hit
	rec := InjectedFault{Kind: f.Kind, Method: r.Method, Route: route, Path: elideToken(r.URL.Path),
		Bucket: c.bucket, Interaction: c.interaction, After: f.After}
	switch {
	case f.isRateLimit():
		rec.Status = http.StatusTooManyRequests
		rec.Detail = "retry_after " + f.RetryAfter.String()
	case f.Kind == FaultServerError:
		rec.Status = f.Status
	case f.Kind == FaultSlow:
		rec.Detail = "delay " + f.Delay.String()
	case f.Kind == FaultTokenExpired:
		rec.Status = http.StatusUnauthorized
	}
	// The well-formed 429s are enforced.
	if f.Kind == FaultRateLimit || f.Kind == FaultGlobalRateLimit {
		s.retryUntil[c.bucket] = now.Add(f.RetryAfter)
	}
	if f.Kind == FaultGlobalRateLimit {
		s.globalUntil, s.globalSent = now.Add(f.RetryAfter), now
	}
	s.recordFaultLocked(rec)
	s.mu.Unlock()
	s.applyFault(w, r, f, c, h)
}

func (f *Fault) matches(c restCall) bool {
	if f.Route != "" && f.Route != c.route {
		// A template naming @original matches that message only.
		orig := strings.Replace(c.route, "/messages/{msg}", "/messages/@original", 1)
		if f.Route != orig || !strings.HasSuffix(c.path, "/messages/@original") {
			return false
		}
	}
	return (f.Bucket == "" || f.Bucket == c.bucket) && (f.Interaction == "" || f.Interaction == c.interaction)
}

// applyFault answers a call hit by f.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f Fault, c restCall, h http.HandlerFunc) {
	if f.isRateLimit() {
		write429(w, f.Kind, f.RetryAfter, f.Scope, c.bucket)
		return
	}
	var done *httptest.ResponseRecorder
	if f.After {
		done = httptest.NewRecorder()
		h(done, r)
	}
	switch f.Kind {
	case FaultTokenExpired:
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Invalid Webhook Token", "code": 50027})
	case FaultServerError:
		writeHTMLError(w, f.Status)
	case FaultReset:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			s.log.Warn("fakediscord: cannot hijack for a reset", "err", err)
			writeHTMLError(w, http.StatusBadGateway)
			return
		}
		if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
			_ = tc.SetLinger(0) // a RST, not a FIN
		}
		_ = conn.Close()
	case FaultSlow:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up: before processing, nothing is done
		case <-s.ctx.Done():
			return
		}
		if done == nil {
			h(w, r)
			return
		}
		maps.Copy(w.Header(), done.Header())
		w.WriteHeader(done.Code)
		_, _ = w.Write(done.Body.Bytes())
	}
}

// write429 answers a 429 as Discord does, or malformed as kind says.
func write429(w http.ResponseWriter, kind FaultKind, retryAfter time.Duration, scope, bucket string) {
	sec := math.Round(retryAfter.Seconds()*1000) / 1000
	switch kind {
	case FaultRateLimitNegative:
		sec = -math.Max(sec, 1)
	case FaultRateLimitHuge:
		sec = hugeRetryAfter
	}
	global := kind == FaultGlobalRateLimit
	hd := w.Header()
	if kind != FaultRateLimitNoRetryAfter {
		hd.Set("Retry-After", strconv.FormatFloat(math.Ceil(sec), 'f', -1, 64))
	}
	hd.Set("X-RateLimit-Limit", "5")
	hd.Set("X-RateLimit-Remaining", "0")
	reset := float64(time.Now().UnixMilli())/1000 + sec
	hd.Set("X-RateLimit-Reset", strconv.FormatFloat(reset, 'f', 3, 64))
	resetAfter := strconv.FormatFloat(sec, 'f', 3, 64)
	if kind == FaultRateLimitBadResetAfter {
		resetAfter = "soon"
	}
	hd.Set("X-RateLimit-Reset-After", resetAfter)
	hd.Set("X-RateLimit-Scope", scope)
	if global {
		hd.Set("X-RateLimit-Global", "true")
	} else {
		hd.Set("X-RateLimit-Bucket", bucket)
	}
	if kind == FaultRateLimitNotJSON {
		writeHTMLError(w, http.StatusTooManyRequests)
		return
	}
	retry := `"retry_after":` + strconv.FormatFloat(sec, 'f', -1, 64) + ","
	if kind == FaultRateLimitNoRetryAfter {
		retry = ""
	}
	hd.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	// The fields in Discord's order.
	_, _ = fmt.Fprintf(w, `{"message":"You are being rate limited.",%s"global":%t,"code":0}`, retry, global)
}

// writeHTMLError answers status with an HTML page, as a proxy in front of
// Discord does.
func writeHTMLError(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n",
		status, http.StatusText(status), status, http.StatusText(status))
}

// controlFaults mounts the control API of faults on mux (see ControlAPI).
func (s *Server) controlFaults(mux *http.ServeMux) {
	handleJSON(mux, "POST /_fake/faults", func(f Fault) (any, error) {
		id, err := s.InjectFault(f)
		for _, ru := range s.FaultRules() {
			if ru.ID == id {
				return ru, err
			}
		}
		return FaultRule{ID: id, Fault: f}, err
	})
	answer(mux, "GET /_fake/faults", func(r *http.Request) any {
		return map[string]any{"rules": s.FaultRules(), "injected": orEmpty(s.Faults())}
	})
	answer(mux, "DELETE /_fake/faults", func(r *http.Request) any {
		s.ClearFaults()
		return map[string]any{"cleared": true}
	})
	mux.HandleFunc("DELETE /_fake/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil {
			badRequest(w, fmt.Errorf("rule ID %q is not a number", r.PathValue("id")))
			return
		}
		if !s.RemoveFault(id) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no rule %d", id)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"removed": id})
	})
	handleJSON(mux, "PUT /_fake/global-rate-limit", func(body struct {
		Duration *jsonDuration `json:"duration"`
	}) (any, error) {
		if body.Duration == nil || *body.Duration < 0 || time.Duration(*body.Duration) > time.Hour {
			return nil, fmt.Errorf(`global-rate-limit: want {"duration": seconds or "1s"} within [0, 1h] (0 ends it)`)
		}
		s.SetGlobalRateLimit(time.Duration(*body.Duration))
		return map[string]any{"duration": time.Duration(*body.Duration).String()}, nil
	})
	handleJSON(mux, "PUT /_fake/chaos", func(c Chaos) (any, error) {
		return map[string]any{"chaos": true}, s.SetChaos(c)
	})
	answer(mux, "DELETE /_fake/chaos", func(r *http.Request) any {
		s.StopChaos()
		return map[string]any{"chaos": false}
	})
	handleJSON(mux, "POST /_fake/gateway", func(body struct {
		Action    string       `json:"action"`
		Resumable bool         `json:"resumable"`
		Duration  jsonDuration `json:"duration"`
	}) (any, error) {
		n := 0
		switch body.Action {
		case "reconnect":
			n = s.Reconnect()
		case "invalid_session":
			n = s.InvalidateSession(body.Resumable)
		case "drop":
			n = len(s.authedConns())
			s.Disconnect()
		case "withhold_acks":
			if body.Duration <= 0 || time.Duration(body.Duration) > time.Hour {
				return nil, fmt.Errorf("gateway: withhold_acks needs a duration within (0, 1h]")
			}
			s.WithholdHeartbeatAcks(time.Duration(body.Duration))
		default:
			return nil, fmt.Errorf(`gateway: action %q: want "reconnect", "invalid_session", "drop" or "withhold_acks"`, body.Action)
		}
		return map[string]any{"action": body.Action, "connections": n}, nil
	})
	answer(mux, "GET /_fake/resumes", func(r *http.Request) any { return orEmpty(s.Resumes()) })
}
