package fakediscord_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

const callbackRoute = "POST /interactions/{id}/{token}/callback"

// pending starts a /play that the test answers by hand: it returns the
// Pending and the interaction as the bot got it (ID and token).
func pending(tb testing.TB, srv *fakediscord.Server, c *client) (*fakediscord.Pending, *discordgo.Interaction) {
	tb.Helper()
	got := make(chan *discordgo.Interaction, 1)
	c.handle(func(_ *discordgo.Session, i *discordgo.Interaction) { got <- i })
	p, err := srv.Slash(ctxT(tb), fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
	if err != nil {
		tb.Fatal(err)
	}
	select {
	case i := <-got:
		return p, i
	case <-time.After(5 * time.Second):
		tb.Fatal("no INTERACTION_CREATE")
		return nil, nil
	}
}

// setup is a fake with a connected discordgo client and /play registered.
func setup(tb testing.TB, opts fakediscord.Options) (*fakediscord.Server, *client) {
	tb.Helper()
	srv := startFake(tb, opts)
	c := connect(tb, srv, token)
	register(tb, c, srv, guild, playCmd)
	return srv, c
}

// inject injects f, failing the test on an error.
func inject(t *testing.T, srv *fakediscord.Server, f fakediscord.Fault) {
	t.Helper()
	if _, err := srv.InjectFault(f); err != nil {
		t.Fatal(err)
	}
}

type answer struct {
	status int
	header http.Header
	body   string
	err    error
}

// call makes a raw REST call with a plain client.
func call(tb testing.TB, cl *http.Client, method, url, body string) answer {
	tb.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bot "+token)
	resp, err := cl.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

// callJSON is call, with the default client, of a route that answers a
// JSON object, decoded.
func callJSON(tb testing.TB, method, url, body string) (int, map[string]any) {
	tb.Helper()
	a := call(tb, http.DefaultClient, method, url, body)
	var out map[string]any
	if a.err != nil || json.Unmarshal([]byte(a.body), &out) != nil {
		tb.Fatalf("%s %s: %v, not a JSON object: %s", method, url, a.err, a.body)
	}
	return a.status, out
}

func callbackURL(srv *fakediscord.Server, i *discordgo.Interaction) string {
	return srv.URL() + "/api/v10/interactions/" + i.ID + "/" + i.Token + "/callback"
}

const playBody = `{"type":4,"data":{"content":"ok"}}`

func kinds(fs []fakediscord.InjectedFault) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Kind))
	}
	return out
}

func TestRateLimitEnforced(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: callbackRoute, RetryAfter: 300 * time.Millisecond})
	p, i := pending(t, srv, c)
	a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody)
	if a.status != 429 || a.body != `{"message":"You are being rate limited.","retry_after":0.3,"global":false,"code":0}` {
		t.Fatalf("429: %d %s", a.status, a.body)
	}
	bucket := fakediscord.BucketOf("POST", "/interactions/"+i.ID+"/"+i.Token+"/callback")
	for h, want := range map[string]string{
		"Retry-After": "1", "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "0.300",
		"X-RateLimit-Bucket": bucket, "X-RateLimit-Scope": "user", "X-RateLimit-Global": "", "Content-Type": "application/json",
	} {
		if got := a.header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if a.header.Get("X-RateLimit-Reset") == "" {
		t.Error("no X-RateLimit-Reset")
	}
	if _, ok := p.Snapshot(); ok {
		t.Error("a 429 took effect")
	}
	// At once: early, a Failure; the injected 429 itself is not one.
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 429 {
		t.Fatalf("early retry: %d", a.status)
	}
	f := srv.Failures()
	if len(f) != 1 || f[0].Status != 429 || !strings.Contains(f[0].Message, "retried before retry_after") || f[0].Interaction != i.ID {
		t.Fatalf("failures = %v", f)
	}
	time.Sleep(300 * time.Millisecond) // honour retry_after
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 204 {
		t.Fatalf("retry after retry_after: %d %s", a.status, a.body)
	}
	if len(srv.Failures()) != 1 {
		t.Errorf("failures = %v", srv.Failures())
	}
	fs := srv.Faults()
	if len(fs) != 1 || fs[0].Kind != fakediscord.FaultRateLimit || fs[0].Route != callbackRoute || fs[0].Interaction != i.ID || fs[0].Bucket != bucket || fs[0].Status != 429 {
		t.Errorf("faults = %+v", fs)
	}
}

func TestRateLimitDiscordgo(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Route: callbackRoute, Count: 2, RetryAfter: 200 * time.Millisecond})
	// Without discordgo's retries: a RateLimitError with the retry_after.
	_, i := pending(t, srv, c)
	c.s.ShouldRetryOnRateLimit = false
	err := c.s.InteractionRespond(i, message("ok"))
	var rl *discordgo.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != 200*time.Millisecond {
		t.Fatalf("InteractionRespond = %v, want a RateLimitError of 200ms", err)
	}
	// With them: discordgo waits retry_after and succeeds; no Failure.
	p, i := pending(t, srv, c)
	c.s.ShouldRetryOnRateLimit = true
	if err := c.s.InteractionRespond(i, message("ok")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	noFailures(t, srv)
	if n := len(srv.Faults()); n != 2 {
		t.Errorf("%d faults, want 2", n)
	}
}

func TestGlobalRateLimit(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	srv.SetGlobalRateLimit(300 * time.Millisecond)
	me := srv.URL() + "/api/v10/users/@me"
	a := call(t, http.DefaultClient, "GET", me, "")
	var body struct {
		RetryAfter float64 `json:"retry_after"`
		Global     bool    `json:"global"`
	}
	if err := json.Unmarshal([]byte(a.body), &body); a.status != 429 || err != nil || !body.Global || body.RetryAfter <= 0 || body.RetryAfter > 0.3 {
		t.Fatalf("global 429: %d %s", a.status, a.body)
	}
	if a.header.Get("X-RateLimit-Global") != "true" || a.header.Get("X-RateLimit-Scope") != "global" {
		t.Errorf("headers: %v", a.header)
	}
	// Another bucket at once was in flight: a 429, not a Failure.
	if a := call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/gateway", ""); a.status != 429 {
		t.Errorf("other bucket: %d", a.status)
	}
	noFailures(t, srv)
	// The same bucket at once is early.
	if a := call(t, http.DefaultClient, "GET", me, ""); a.status != 429 {
		t.Errorf("same bucket: %d", a.status)
	}
	if f := srv.Failures(); len(f) != 1 || !strings.Contains(f[0].Message, "retried before retry_after") {
		t.Errorf("failures = %v", f)
	}
	time.Sleep(300 * time.Millisecond)
	if a := call(t, http.DefaultClient, "GET", me, ""); a.status != 200 {
		t.Errorf("after the window: %d %s", a.status, a.body)
	}
	if got := kinds(srv.Faults()); len(got) != 2 || got[0] != "global_rate_limit" {
		t.Errorf("faults = %v", got)
	}
}

func TestMalformedRateLimits(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	me := srv.URL() + "/api/v10/users/@me"
	for _, tc := range []struct {
		kind  fakediscord.FaultKind
		check func(a answer) string
	}{
		{fakediscord.FaultRateLimitNoRetryAfter, func(a answer) string {
			if strings.Contains(a.body, "retry_after") || a.header.Get("Retry-After") != "" {
				return "has a retry_after"
			}
			return ""
		}},
		{fakediscord.FaultRateLimitNegative, func(a answer) string {
			var b struct {
				RetryAfter float64 `json:"retry_after"`
			}
			if json.Unmarshal([]byte(a.body), &b) != nil || b.RetryAfter >= 0 || !strings.HasPrefix(a.header.Get("X-RateLimit-Reset-After"), "-") {
				return "not negative"
			}
			return ""
		}},
		{fakediscord.FaultRateLimitHuge, func(a answer) string {
			var b struct {
				RetryAfter float64 `json:"retry_after"`
			}
			if json.Unmarshal([]byte(a.body), &b) != nil || b.RetryAfter != 1e9 || a.header.Get("Retry-After") != "1000000000" {
				return "not 1e9"
			}
			return ""
		}},
		{fakediscord.FaultRateLimitNotJSON, func(a answer) string {
			if json.Valid([]byte(a.body)) || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
				return "JSON"
			}
			return ""
		}},
		{fakediscord.FaultRateLimitBadResetAfter, func(a answer) string {
			if a.header.Get("X-RateLimit-Reset-After") != "soon" || !json.Valid([]byte(a.body)) {
				return "reset-after is a number"
			}
			return ""
		}},
	} {
		inject(t, srv, fakediscord.Fault{Kind: tc.kind})
		a := call(t, http.DefaultClient, "GET", me, "")
		if a.status != 429 {
			t.Errorf("%s: %d", tc.kind, a.status)
		}
		if msg := tc.check(a); msg != "" {
			t.Errorf("%s: %s: %v %s", tc.kind, msg, a.header, a.body)
		}
	}
	// Not enforced: calling again at once is no Failure.
	if a := call(t, http.DefaultClient, "GET", me, ""); a.status != 200 {
		t.Errorf("after: %d", a.status)
	}
	noFailures(t, srv)
	// discordgo without retries gets an error, not a panic. (A session
	// each: after the huge one, discordgo blocks its bucket for 1e9 s.)
	for _, k := range []fakediscord.FaultKind{fakediscord.FaultRateLimitNotJSON, fakediscord.FaultRateLimitNegative, fakediscord.FaultRateLimitHuge, fakediscord.FaultRateLimitBadResetAfter} {
		inject(t, srv, fakediscord.Fault{Kind: k, Route: "GET /users/@me"})
		s := restSession(t, srv, token)
		s.ShouldRetryOnRateLimit = false
		if _, err := s.User("@me"); err == nil {
			t.Errorf("%s: discordgo saw no error", k)
		}
	}
}

func TestServerErrorBeforeAndAfter(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	// Before: nothing done, the retry succeeds.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 503, Route: callbackRoute})
	p, i := pending(t, srv, c)
	a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody)
	if a.status != 503 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") || !strings.Contains(a.body, "<html>") {
		t.Fatalf("503: %d %v %s", a.status, a.header, a.body)
	}
	if _, ok := p.Snapshot(); ok {
		t.Error("a 503 before processing took effect")
	}
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 204 {
		t.Fatalf("retry: %d", a.status)
	}
	noFailures(t, srv)
	// After: it took effect, the retry gets 40060, a consequence.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultServerError, Route: callbackRoute, After: true})
	p, i = pending(t, srv, c)
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 502 {
		t.Fatalf("502: %d", a.status)
	}
	if _, ok := p.Snapshot(); !ok {
		t.Error("a 502 after processing did not take effect")
	}
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 400 || !strings.Contains(a.body, "40060") {
		t.Fatalf("retry: %d %s", a.status, a.body)
	}
	noFailures(t, srv)
	fs := srv.Faults()
	if got := kinds(fs); strings.Join(got, ",") != "server_error,server_error,consequence" || fs[2].Code != 40060 || fs[2].Interaction != i.ID || !fs[1].After {
		t.Errorf("faults = %+v", fs)
	}
	// Without an injected fault, a second callback stays a Failure.
	p, i = pending(t, srv, c)
	call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody)
	call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody)
	if f := srv.Failures(); len(f) != 1 || f[0].Code != 40060 || f[0].Interaction != p.ID() {
		t.Errorf("failures = %v", f)
	}
}

func TestSlowAnswers(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	impatient := &http.Client{Timeout: 100 * time.Millisecond}
	// Before: the client gives up first, nothing is done.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultSlow, Delay: 5 * time.Second, Route: callbackRoute})
	p, i := pending(t, srv, c)
	if a := call(t, impatient, "POST", callbackURL(srv, i), playBody); a.err == nil {
		t.Fatalf("slow before: answered %d", a.status)
	}
	if _, ok := p.Snapshot(); ok {
		t.Error("a slow call the client gave up on took effect")
	}
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.status != 204 {
		t.Fatalf("retry: %d", a.status)
	}
	// After: done at once, answered late.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultSlow, Delay: 5 * time.Second, Route: callbackRoute, After: true})
	p, i = pending(t, srv, c)
	if a := call(t, impatient, "POST", callbackURL(srv, i), playBody); a.err == nil {
		t.Fatalf("slow after: answered %d", a.status)
	}
	if _, err := p.Wait(ctxT(t)); err != nil {
		t.Fatalf("slow after did not take effect: %v", err)
	}
	// A late but successful callback, as the bot would see it.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultSlow, Delay: 200 * time.Millisecond, Route: callbackRoute, After: true})
	p, i = pending(t, srv, c)
	if err := c.s.InteractionRespond(i, message("late")); err != nil {
		t.Fatal(err)
	}
	if r, err := p.Wait(ctxT(t)); err != nil || r.Message.Content != "late" {
		t.Fatalf("late callback: %+v %v", r, err)
	}
	noFailures(t, srv)
	if got := kinds(srv.Faults()); len(got) != 3 {
		t.Errorf("faults = %v", got)
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	for _, after := range []bool{false, true} {
		inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultReset, Route: callbackRoute, After: after})
		p, i := pending(t, srv, c)
		if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i), playBody); a.err == nil {
			t.Fatalf("after=%t: answered %d", after, a.status)
		}
		if _, ok := p.Snapshot(); ok != after {
			t.Errorf("after=%t: took effect = %t", after, ok)
		}
	}
	noFailures(t, srv)
}

func TestTokenLife(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{TokenLife: 300 * time.Millisecond})
	edit := func(tok string) answer {
		return call(t, http.DefaultClient, "PATCH", srv.URL()+"/api/v10/webhooks/"+srv.AppID()+"/"+tok+"/messages/@original", `{"content":"done"}`)
	}
	p2, i2 := pending(t, srv, c)
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i2), `{"type":5}`); a.status != 204 {
		t.Fatal(a.status)
	}
	// Injected: 401 50027 at once, a fault.
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultTokenExpired, Route: "PATCH /webhooks/{app}/{token}/messages/@original"})
	if a := edit(i2.Token); a.status != 401 || !strings.Contains(a.body, `"code":50027`) || !strings.Contains(a.body, "Invalid Webhook Token") {
		t.Fatalf("injected: %d %s", a.status, a.body)
	}
	if a := edit(i2.Token); a.status != 200 {
		t.Fatalf("edit: %d %s", a.status, a.body)
	}
	noFailures(t, srv)
	// Past its life: a Failure of the bot, unless an injected fault hit
	// the interaction before (then a consequence).
	p3, i3 := pending(t, srv, c)
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i3), `{"type":5}`); a.status != 204 {
		t.Fatal(a.status)
	}
	time.Sleep(300 * time.Millisecond)
	for _, tok := range []string{i2.Token, i3.Token} {
		if a := edit(tok); a.status != 401 || !strings.Contains(a.body, `"code":50027`) {
			t.Fatalf("expired: %d %s", a.status, a.body)
		}
	}
	if f := srv.Failures(); len(f) != 1 || f[0].Code != 50027 || f[0].Status != 401 || f[0].Interaction != p3.ID() {
		t.Errorf("failures = %v", f)
	}
	if fs := srv.Faults(); len(fs) != 2 || fs[1].Kind != fakediscord.FaultConsequence || fs[1].Interaction != p2.ID() || fs[1].Code != 50027 {
		t.Errorf("faults = %+v", fs)
	}
}

func TestCountAndFraction(t *testing.T) {
	t.Parallel()
	statuses := func(seed uint64) string {
		srv := startFake(t, fakediscord.Options{Seed: seed})
		inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultServerError, Route: "GET /users/@me", Fraction: 0.5})
		inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultServerError, Status: 500, Route: "GET /gateway", Count: 2})
		var b strings.Builder
		for range 100 {
			fmt.Fprint(&b, call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/users/@me", "").status/100)
		}
		var gw []int
		for range 4 {
			gw = append(gw, call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/gateway", "").status)
		}
		if fmt.Sprint(gw) != "[500 500 200 200]" {
			t.Errorf("count 2: %v", gw)
		}
		if n := len(srv.FaultRules()); n != 1 {
			t.Errorf("%d rules left, want 1 (the count is spent)", n)
		}
		return b.String()
	}
	a, b := statuses(7), statuses(7)
	if a != b {
		t.Errorf("same seed, different draws:\n%s\n%s", a, b)
	}
	if n := strings.Count(a, "5"); n < 25 || n > 75 {
		t.Errorf("%d of 100 hit at fraction 0.5", n)
	}
	if statuses(8) == a {
		t.Error("another seed, the same draws")
	}
}

func TestChaos(t *testing.T) {
	t.Parallel()
	run := func() string {
		srv := startFake(t, fakediscord.Options{})
		if err := srv.SetChaos(fakediscord.Chaos{Fraction: 0.2, Seed: 3, Kinds: []fakediscord.FaultKind{fakediscord.FaultServerError, fakediscord.FaultTokenExpired}}); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for range 100 {
			fmt.Fprint(&b, call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/users/@me", "").status, " ")
		}
		if n := len(srv.Faults()); n != strings.Count(b.String(), "50")+strings.Count(b.String(), "401") {
			t.Errorf("%d faults recorded for %s", n, b.String())
		}
		noFailures(t, srv)
		srv.StopChaos()
		if a := call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/users/@me", ""); a.status != 200 {
			t.Errorf("after the chaos: %d", a.status)
		}
		return b.String()
	}
	a := run()
	if a != run() {
		t.Error("the chaos is not deterministic")
	}
	if n := strings.Count(a, "200"); n == 100 || n < 60 {
		t.Errorf("%d of 100 calls succeeded at fraction 0.2", n)
	}
	srv := startFake(t, fakediscord.Options{})
	for _, bad := range []fakediscord.Chaos{{Fraction: 2}, {Fraction: 0.1, Kinds: []fakediscord.FaultKind{"boom"}}, {Fraction: 0.1, After: -1}} {
		if err := srv.SetChaos(bad); err == nil {
			t.Errorf("SetChaos(%+v) accepted", bad)
		}
	}
}

func TestFaultChecks(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	for _, f := range []fakediscord.Fault{
		{},
		{Kind: "boom"},
		{Kind: fakediscord.FaultRateLimit, Route: "POST /nowhere"},
		{Kind: fakediscord.FaultRateLimit, Fraction: 1.5},
		{Kind: fakediscord.FaultRateLimit, Count: -1},
		{Kind: fakediscord.FaultRateLimit, RetryAfter: -time.Second},
		{Kind: fakediscord.FaultRateLimit, Scope: "everyone"},
		{Kind: fakediscord.FaultRateLimit, After: true},
		{Kind: fakediscord.FaultServerError, Status: 501},
		{Kind: fakediscord.FaultSlow},
		{Kind: fakediscord.FaultReset, Delay: time.Second},
	} {
		if _, err := srv.InjectFault(f); err == nil {
			t.Errorf("InjectFault(%+v) accepted", f)
		}
	}
	if n := len(srv.FaultRules()); n != 0 {
		t.Errorf("%d rules after refusals", n)
	}
}

// A rule on one interaction hits only its calls.
func TestFaultOnInteraction(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	_, i1 := pending(t, srv, c)
	_, i2 := pending(t, srv, c)
	inject(t, srv, fakediscord.Fault{Kind: fakediscord.FaultServerError, Interaction: i2.ID, Fraction: 1})
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i1), playBody); a.status != 204 {
		t.Errorf("other interaction: %d", a.status)
	}
	if a := call(t, http.DefaultClient, "POST", callbackURL(srv, i2), playBody); a.status != 502 {
		t.Errorf("its interaction: %d", a.status)
	}
}

func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// playable waits until a /play reaches the client and is answered.
func playable(tb testing.TB, srv *fakediscord.Server, c *client) {
	tb.Helper()
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) { _ = s.InteractionRespond(i, message("ok")) })
	ctx := ctxT(tb)
	waitFor(tb, "a /play answered", func() bool {
		p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
		if err != nil {
			return false
		}
		_, err = p.Wait(ctx)
		return err == nil
	})
}

func TestGatewayFaults(t *testing.T) {
	t.Parallel()
	// discordgo reconnects after 5 intervals without an ACK: 1 s, which a
	// loaded machine's pauses stay under (at 50 ms, a reconnection of its own
	// could leave op 7 no connection to go to).
	srv, c := setup(t, fakediscord.Options{HeartbeatInterval: 200 * time.Millisecond})
	// op 7: discordgo resumes.
	if n := srv.Reconnect(); n != 1 {
		t.Fatalf("op 7 to %d connections", n)
	}
	waitFor(t, "a RESUME after op 7", func() bool { return len(srv.Resumes()) == 1 })
	playable(t, srv, c)
	// op 9 d:false: a new IDENTIFY and READY.
	if n := srv.InvalidateSession(false); n != 1 {
		t.Fatalf("op 9 to %d connections", n)
	}
	waitFor(t, "an IDENTIFY after op 9", func() bool { return len(srv.Identifies()) == 2 })
	playable(t, srv, c)
	// op 9 d:true: discordgo identifies again too.
	srv.InvalidateSession(true)
	waitFor(t, "an IDENTIFY after op 9 d:true", func() bool { return len(srv.Identifies()) == 3 })
	playable(t, srv, c)
	// No heartbeat ACK: discordgo reconnects.
	before := len(srv.Resumes()) + len(srv.Identifies())
	srv.WithholdHeartbeatAcks(3 * time.Second)
	waitFor(t, "a reconnection without ACKs", func() bool { return len(srv.Resumes())+len(srv.Identifies()) > before })
	srv.WithholdHeartbeatAcks(0)
	playable(t, srv, c)
	noFailures(t, srv)
	got := strings.Join(kinds(srv.Faults()), ",")
	if got != "gateway_reconnect,gateway_invalid_session,gateway_invalid_session,heartbeat_acks_withheld" {
		t.Errorf("faults = %s", got)
	}
}

// A RESUME gets the dispatches the client missed, then RESUMED.
func TestResumeReplays(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	sess := srv.Identifies()[0].SessionID
	c.s.Close() // the bot goes away without reading; its session stays
	ws := dialGateway(t, srv)
	// An identified raw client to send an interaction to, then drop.
	if err := ws.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot " + token, "session_id": sess, "seq": 1}}); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		T string
		S int64
	}
	if err := ws.ReadJSON(&ev); err != nil || ev.T != "RESUMED" {
		t.Fatalf("RESUMED: %+v %v", ev, err)
	}
	seqResumed := ev.S
	if _, err := srv.Slash(ctxT(t), fakediscord.Slash{Guild: guild, User: "5", Name: "play"}); err != nil {
		t.Fatal(err)
	}
	if err := ws.ReadJSON(&ev); err != nil || ev.T != "INTERACTION_CREATE" {
		t.Fatalf("dispatch: %+v %v", ev, err)
	}
	missed := ev.S
	// A new connection resumes from before the interaction: it comes again.
	ws2 := dialGateway(t, srv)
	if err := ws2.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot " + token, "session_id": sess, "seq": seqResumed}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 2 {
		if err := ws2.ReadJSON(&ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(ev.T, " ", ev.S))
	}
	if want := []string{fmt.Sprint("INTERACTION_CREATE ", missed), fmt.Sprint("RESUMED ", missed+1)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after RESUME: %v, want %v", got, want)
	}
	rs := srv.Resumes()
	if len(rs) != 2 || rs[1].Replayed != 1 || rs[1].Seq != seqResumed || rs[1].SessionID != sess {
		t.Errorf("resumes = %+v", rs)
	}
	// A forgotten session cannot resume.
	srv.InvalidateSession(false)
	ws3 := dialGateway(t, srv)
	_ = ws3.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot " + token, "session_id": sess, "seq": 1}})
	var op struct {
		Op int
		D  bool
	}
	if err := ws3.ReadJSON(&op); err != nil || op.Op != 9 || op.D {
		t.Errorf("RESUME of a forgotten session: %+v %v", op, err)
	}
}

func TestControlFaults(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Control: true})
	do := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		return callJSON(t, method, srv.URL()+path, body)
	}
	code, out := do("POST", "/_fake/faults", `{"kind":"rate_limit","route":"GET /users/@me","retry_after":0.25,"count":1}`)
	f, _ := out["fault"].(map[string]any)
	if code != 200 || out["id"] != 1.0 || out["left"] != 1.0 || f["retry_after"] != "250ms" || f["scope"] != "user" {
		t.Fatalf("POST faults: %d %v", code, out)
	}
	if a := call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/users/@me", ""); a.status != 429 || a.header.Get("Retry-After") != "1" {
		t.Errorf("the rule: %d %v", a.status, a.header)
	}
	code, out = do("GET", "/_fake/faults", "")
	if inj, _ := out["injected"].([]any); code != 200 || len(inj) != 1 || inj[0].(map[string]any)["kind"] != "rate_limit" {
		t.Errorf("GET faults: %d %v", code, out)
	}
	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "/_fake/faults", `{"kind":"boom"}`, "unknown kind"},
		{"POST", "/_fake/faults", `{"kind":"rate_limit","colour":"red"}`, "unknown field"},
		{"POST", "/_fake/faults", `{"kind":"slow"}`, "delay"},
		{"POST", "/_fake/faults", `{"kind":"slow","delay":"soon"}`, "duration"},
		{"POST", "/_fake/faults", `{"kind":"rate_limit","route":"GET /nowhere"}`, "unknown route"},
		{"POST", "/_fake/faults", `not json`, "bad JSON"},
		{"PUT", "/_fake/global-rate-limit", `{}`, "duration"},
		{"PUT", "/_fake/chaos", `{"fraction":3}`, "fraction"},
		{"POST", "/_fake/gateway", `{"action":"explode"}`, "action"},
		{"POST", "/_fake/gateway", `{"action":"withhold_acks"}`, "duration"},
		{"DELETE", "/_fake/faults/x", ``, "not a number"},
	} {
		code, out := do(tc.method, tc.path, tc.body)
		if e, _ := out["error"].(string); code != 400 || !strings.Contains(e, tc.want) {
			t.Errorf("%s %s %s: %d %v, want 400 with %q", tc.method, tc.path, tc.body, code, out, tc.want)
		}
	}
	if n := len(srv.FaultRules()); n != 0 {
		t.Errorf("%d rules after bad input", n)
	}
	code, out = do("POST", "/_fake/faults", `{"kind":"server_error","fraction":1}`)
	id := fmt.Sprint(out["id"])
	if code != 200 {
		t.Fatal(out)
	}
	if code, _ := do("DELETE", "/_fake/faults/"+id, ""); code != 200 {
		t.Errorf("DELETE rule: %d", code)
	}
	if code, _ := do("DELETE", "/_fake/faults/"+id, ""); code != 404 {
		t.Errorf("DELETE rule again: %d", code)
	}
	if code, out := do("PUT", "/_fake/global-rate-limit", `{"duration":"200ms"}`); code != 200 || out["duration"] != "200ms" {
		t.Errorf("PUT global-rate-limit: %d %v", code, out)
	}
	if a := call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/gateway", ""); a.status != 429 || a.header.Get("X-RateLimit-Global") != "true" {
		t.Errorf("global window: %d", a.status)
	}
	if code, _ := do("PUT", "/_fake/chaos", `{"fraction":0.1,"seed":7,"kinds":["server_error"],"gateway_drops":1,"gateway_every":"1h"}`); code != 200 {
		t.Errorf("PUT chaos: %d", code)
	}
	if code, out := do("POST", "/_fake/gateway", `{"action":"reconnect"}`); code != 200 || out["connections"] != 0.0 {
		t.Errorf("gateway reconnect: %d %v", code, out)
	}
	if code, _ := do("DELETE", "/_fake/faults", ""); code != 200 {
		t.Errorf("DELETE faults: %d", code)
	}
	time.Sleep(200 * time.Millisecond) // the global 429's retry_after, still due
	if a := call(t, http.DefaultClient, "GET", srv.URL()+"/api/v10/gateway", ""); a.status != 200 {
		t.Errorf("after DELETE faults: %d", a.status)
	}
	a := call(t, http.DefaultClient, "GET", srv.URL()+"/_fake/resumes", "")
	if a.status != 200 || strings.TrimSpace(a.body) != "[]" {
		t.Errorf("GET resumes: %d %s", a.status, a.body)
	}
	a = call(t, http.DefaultClient, "GET", srv.URL()+"/_fake/", "")
	if !strings.Contains(a.body, "POST   /_fake/faults") {
		t.Error("the reference does not document the faults")
	}
}

func TestChaosGatewayDrops(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	if err := srv.SetChaos(fakediscord.Chaos{GatewayDrops: 2, GatewayEvery: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two drops", func() bool { return len(srv.Faults()) == 2 })
	waitFor(t, "two RESUMEs", func() bool { return len(srv.Resumes()) == 2 })
	playable(t, srv, c)
	if got := strings.Join(kinds(srv.Faults()), ","); got != "gateway_drop,gateway_reconnect" {
		t.Errorf("faults = %s", got)
	}
	if n := len(srv.Identifies()); n != 1 {
		t.Errorf("%d IDENTIFYs, want 1: both drops resume", n)
	}
	noFailures(t, srv)
}
