package activity_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/activity"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

const (
	botToken = "activity-test-token"
	guild    = "900000000000000001"
	channel  = "900000000000000002"
	alice    = "100000000000000001"
	bob      = "100000000000000002"
)

// fixture is the Activity's handler over a real store and the fake
// Discord, with a clock the test moves.
type fixture struct {
	t     *testing.T
	srv   *fakediscord.Server
	store storage.Store
	url   string
	clock *storetest.Clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: storetest.NewClock()}
	f.srv = fakediscord.New(fakediscord.Options{Token: botToken})
	if err := f.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.srv.Close() })
	store, err := backend.Open(context.Background(), "", filepath.Join(t.TempDir(), "clefs.db"), storage.Options{
		Defaults: game.Settings{StartingBalance: 2000, DailyAmount: 500, DailyCooldown: 20 * time.Hour, PublicPlays: true, House: game.DefaultHouse},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f.store = store
	log := slog.New(slog.DiscardHandler)
	app := commands.New(commands.Config{Logger: log}, store)
	h, err := activity.New(activity.Options{
		Game: app, AppID: f.srv.AppID(), ClientSecret: fakediscord.TestClientSecret, Token: botToken,
		APIBase: f.srv.URL(), Now: f.clock.Now, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/activity/"
	return f
}

// answer is one HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
	return m
}

// errCode is an error answer's "error".
func (a answer) errCode() string {
	var m struct{ Error string }
	_ = json.Unmarshal(a.body, &m)
	return m.Error
}

func (f *fixture) do(method, path, session, body string) answer {
	f.t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if session != "" {
		req.Header.Set("Authorization", "Bearer "+session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}
}

// login runs the handshake for user in a new instance holding users and
// returns the session and the answer's state.
func (f *fixture) login(user string, users ...string) (string, commands.ActState) {
	f.t.Helper()
	return f.loginIn(f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: users}), user)
}

// loginIn runs the handshake for user in instance inst.
func (f *fixture) loginIn(inst, user string) (string, commands.ActState) {
	f.t.Helper()
	a := f.do("POST", "api/session", "", `{"code":"`+f.srv.Authorize(fakediscord.OAuthUser{ID: user, Locale: "fr"})+`","instance_id":"`+inst+`"}`)
	if a.status != 200 {
		f.t.Fatalf("session: %d %s", a.status, a.body)
	}
	var r struct {
		AccessToken string `json:"access_token"`
		Session     string
		ExpiresIn   int `json:"expires_in"`
		State       commands.ActState
	}
	if err := json.Unmarshal(a.body, &r); err != nil {
		f.t.Fatal(err)
	}
	if r.AccessToken == "" || r.Session == "" || r.ExpiresIn != 900 || r.State.User != user || r.State.Locale != "fr" {
		f.t.Fatalf("session answer: %s", a.body)
	}
	return r.Session, r.State
}

// step posts a game step and decodes the state of a 200.
func (f *fixture) step(session, kind, body string) commands.ActState {
	f.t.Helper()
	a := f.do("POST", "api/"+kind, session, body)
	if a.status != 200 {
		f.t.Fatalf("%s %s: %d %s", kind, body, a.status, a.body)
	}
	var st commands.ActState
	if err := json.Unmarshal(a.body, &st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) player(user string) game.Player {
	f.t.Helper()
	v, err := f.store.Load(context.Background(), storage.PlayerID{Guild: 900000000000000001, User: map[string]uint64{alice: 100000000000000001, bob: 100000000000000002}[user]})
	if err != nil {
		f.t.Fatal(err)
	}
	return v.Player
}

// The whole handshake, then a ticket played row by row: every state
// matches the store, and no hidden row's cells are ever sent.
func TestHandshakeAndPlay(t *testing.T) {
	f := newFixture(t)
	session, st := f.login(alice, bob, alice)
	if st.Balance != 2000 || st.Ticket != nil || !st.Daily.Ready {
		t.Fatalf("first state: %+v", st)
	}
	st = f.step(session, "buy", `{"op":"buy-0000000000000001"}`)
	id := st.Ticket.ID
	if st.Balance != 1950 || f.player(alice).Balance != 1950 {
		t.Fatalf("after buy: %+v", st)
	}
	a := f.do("POST", "api/reveal", session, `{"op":"reveal-00000000000001","ticket":1,"row":2}`)
	if a.status != 200 || !bytes.Contains(a.body, []byte(`"rows":[null,null,[`)) {
		t.Fatalf("reveal row 2: %d %s", a.status, a.body)
	}
	if a := f.do("POST", "api/reveal", session, `{"op":"reveal-00000000000001","ticket":1,"row":0}`); a.status != 409 || a.errCode() != "op_reused" {
		t.Errorf("another row under a reveal's ID: %d %s", a.status, a.body)
	}
	p := f.player(alice)
	g := p.Ticket.Outcome.Grid
	for r := range 2 { // the hidden rows: their cells are not in the answer
		row, _ := json.Marshal([3]int{int(g[3*r]), int(g[3*r+1]), int(g[3*r+2])})
		if bytes.Contains(a.body, row) && !bytes.Contains(a.body, []byte(`[null,null,`+string(row))) {
			t.Errorf("hidden row %d %s in %s", r, row, a.body)
		}
	}
	st = f.step(session, "reveal", `{"op":"reveal-00000000000002","ticket":1,"row":-1}`)
	p = f.player(alice)
	if st.Ticket.ID != id || st.Ticket.Open || st.Balance != p.Balance || st.Ticket.Prize != p.Ticket.Outcome.Prize || st.Keys != p.Keys {
		t.Errorf("finished: %+v, store balance %d keys %d", st, p.Balance, p.Keys)
	}
	for r, row := range st.Ticket.Rows {
		if row == nil || *row != [3]int{int(g[3*r]), int(g[3*r+1]), int(g[3*r+2])} {
			t.Errorf("row %d = %v, the store's %v", r, row, g[3*r:3*r+3])
		}
	}
	if got := f.step(session, "reveal", `{"op":"reveal-00000000000002","ticket":1,"row":-1}`); got.Balance != st.Balance {
		t.Errorf("a retried reveal answers %+v", got)
	}
	if st := f.step(session, "daily", `{"op":"daily-000000000000001"}`); st.Balance != p.Balance+500 || st.Daily.Ready {
		t.Errorf("daily: %+v", st)
	}
	// An operation ID is one action's: a repeat gets the first answer,
	// another action under it is refused and changes nothing.
	for _, tt := range []struct {
		kind, body string
		status     int
		balance    int64
	}{
		{"buy", `{"op":"buy-0000000000000001"}`, 200, 1950}, // its first answer's balance
		{"daily", `{"op":"daily-000000000000001"}`, 200, p.Balance + 500},
		{"reveal", `{"op":"buy-0000000000000001","ticket":1,"row":0}`, 409, 0},
		{"daily", `{"op":"buy-0000000000000001"}`, 409, 0},
		{"buy", `{"op":"reveal-00000000000002"}`, 409, 0},
		{"chest", `{"op":"reveal-00000000000002","chest":1}`, 409, 0},
		{"buy", `{"op":"daily-000000000000001"}`, 409, 0},
		{"reveal", `{"op":"daily-000000000000001","ticket":1,"row":-1}`, 409, 0},
	} {
		a := f.do("POST", "api/"+tt.kind, session, tt.body)
		if m := a.json(t); a.status != tt.status || (tt.status == 409 && (m["error"] != "op_reused" || m["state"] == nil)) ||
			(tt.status == 200 && (m["balance"] != float64(tt.balance) || m["ticket"].(map[string]any)["id"] != float64(id))) {
			t.Errorf("%s %s: %d %s", tt.kind, tt.body, a.status, a.body)
		}
	}
	a = f.do("GET", "api/state", session, "")
	if a.status != 200 || a.json(t)["balance"].(float64) != float64(p.Balance+500) {
		t.Errorf("state: %d %s", a.status, a.body)
	}
}

// Each way of getting a session it should not have is refused, and
// refused clearly.
func TestSessionRefusals(t *testing.T) {
	f := newFixture(t)
	inst := f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: []string{alice}})
	body := func(code, instance string) string {
		return `{"code":"` + code + `","instance_id":"` + instance + `"}`
	}
	code := f.srv.Authorize(fakediscord.OAuthUser{ID: alice})
	if a := f.do("POST", "api/session", "", body(code, inst)); a.status != 200 {
		t.Fatalf("first use of a code: %d %s", a.status, a.body)
	}
	dm := f.srv.StartActivity(fakediscord.Activity{Channel: channel, Users: []string{alice}})
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"forged code", body("forgedcode12345", inst), 401, "code"},
		{"reused code", body(code, inst), 401, "code"},
		{"not in the instance", body(f.srv.Authorize(fakediscord.OAuthUser{ID: bob}), inst), 403, "not_in_instance"},
		{"no such instance", body(f.srv.Authorize(fakediscord.OAuthUser{ID: alice}), "i-1-gc-2-3"), 403, "instance"},
		{"a DM's instance", body(f.srv.Authorize(fakediscord.OAuthUser{ID: alice}), dm), 403, "guild_only"},
		{"bad JSON", `{"code":`, 400, "bad_request"},
		{"unknown field", `{"code":"a","instance_id":"b","user":"` + alice + `"}`, 400, "bad_request"},
		{"two values", body("a", "b") + body("a", "b"), 400, "bad_request"},
		{"no code", `{"instance_id":"` + inst + `"}`, 400, "bad_request"},
		{"too large", `{"code":"` + strings.Repeat("a", 2000) + `"}`, 413, "too_large"},
	}
	for _, tt := range tests {
		a := f.do("POST", "api/session", "", tt.body)
		if a.status != tt.status || a.errCode() != tt.code || a.json(t)["message"] == "" {
			t.Errorf("%s: %d %s, want %d %q", tt.name, a.status, a.body, tt.status, tt.code)
		}
		if bytes.Contains(a.body, []byte(fakediscord.TestClientSecret)) || bytes.Contains(a.body, []byte(botToken)) {
			t.Errorf("%s: a secret in %s", tt.name, a.body)
		}
	}
}

// A session acts as its user, in its guild, until it expires: a token
// tampered with (another user, another guild, a later expiry) fails its
// HMAC.
func TestSessionTokens(t *testing.T) {
	f := newFixture(t)
	session, _ := f.login(alice, alice)
	payload, sig, _ := strings.Cut(session, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	forge := func(from, to string) string {
		return base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte(from), []byte(to), 1)) + "." + sig
	}
	for name, s := range map[string]string{
		"another user's":  forge(`"u":"`+alice, `"u":"`+bob),
		"another guild's": forge(`"g":"`+guild, `"g":"900000000000000009"`),
		"longer-lived":    forge(`"e":`, `"e":9`),
		"no signature":    payload,
		"garbage":         "not.a.session",
		"none":            "",
	} {
		if a := f.do("POST", "api/buy", s, `{"op":"buy-0000000000000001"}`); a.status != 401 || a.errCode() != "session" {
			t.Errorf("%s session: %d %s", name, a.status, a.body)
		}
	}
	if p := f.player(alice); p.Stats.Plays != 0 {
		t.Fatalf("a refused session bought: %+v", p.Stats)
	}
	f.step(session, "buy", `{"op":"buy-0000000000000001"}`)
	f.clock.Advance(activity.SessionLife)
	if a := f.do("GET", "api/state", session, ""); a.status != 401 || a.errCode() != "session" {
		t.Errorf("expired session: %d %s", a.status, a.body)
	}
}

// Game requests the page could not have sent are 400 and change nothing;
// a refusal by the rules is 409 with the player's words and the state.
func TestStepRefusals(t *testing.T) {
	f := newFixture(t)
	session, _ := f.login(alice, alice)
	for _, tt := range []struct{ kind, body string }{
		{"buy", `{"op":"short"}`},
		{"buy", `{"op":"has spaces in it 0000"}`},
		{"buy", `{"op":"buy-0000000000000001","guild":"1"}`},
		{"buy", `{"op":"buy-0000000000000001","ticket":1,"row":0}`},
		{"buy", `not json`},
		{"reveal", `{"op":"reveal-00000000000001","ticket":1,"row":-2}`},
		{"reveal", `{"op":"reveal-00000000000001","ticket":1,"row":3}`},
		{"reveal", `{"op":"reveal-00000000000001","ticket":-1,"row":0}`},
		{"reveal", `{"op":"reveal-00000000000001","row":0}`},
		{"chest", `{"op":"chest-000000000000001"}`},
		{"chest", `{"op":"chest-000000000000001","chest":0}`},
		{"daily", `{"op":"daily-000000000000001","user":"` + bob + `"}`},
	} {
		if a := f.do("POST", "api/"+tt.kind, session, tt.body); a.status != 400 || a.errCode() != "bad_request" {
			t.Errorf("%s %s: %d %s", tt.kind, tt.body, a.status, a.body)
		}
	}
	if a := f.do("POST", "api/buy", session, `{"op":"`+strings.Repeat("a", 1100)+`"}`); a.status != 413 {
		t.Errorf("a body over 1 KiB: %d %s", a.status, a.body)
	}
	if a := f.do("POST", "api/steal", session, `{}`); a.status != 404 {
		t.Errorf("unknown route: %d", a.status)
	}
	if v, _ := f.store.Load(context.Background(), storage.PlayerID{Guild: 900000000000000001, User: 100000000000000001}); v.Exists() {
		t.Fatalf("refused requests created the player: %+v", v.Player)
	}
	f.step(session, "buy", `{"op":"buy-0000000000000001"}`)
	a := f.do("POST", "api/chest", session, `{"op":"chest-000000000000001","chest":1}`)
	m := a.json(t)
	if a.status != 409 || m["error"] != "chest_over" || m["message"] == "" || m["state"] == nil {
		t.Errorf("no chest due: %d %s", a.status, a.body)
	}
	if !strings.Contains(m["message"].(string), "coffre") {
		t.Errorf("not in the player's language: %s", m["message"])
	}
}

// A flood from one user is answered 429 with Retry-After; another user
// plays on.
func TestFlood(t *testing.T) {
	f := newFixture(t)
	alices, _ := f.login(alice, alice)
	bobs, _ := f.login(bob, bob)
	limited := 0
	for range activity.DefaultBurst + 5 {
		a := f.do("GET", "api/state", alices, "")
		if a.status == 429 {
			limited++
			if a.header.Get("Retry-After") == "" || a.errCode() != "rate_limited" {
				t.Errorf("429 without Retry-After: %v %s", a.header, a.body)
			}
		}
	}
	if limited != 5 { // the clock stands still: the burst, then nothing
		t.Errorf("%d of %d requests limited, want 5", limited, activity.DefaultBurst+5)
	}
	if a := f.do("GET", "api/state", bobs, ""); a.status != 200 {
		t.Errorf("another user: %d", a.status)
	}
	f.clock.Advance(time.Second)
	if a := f.do("GET", "api/state", alices, ""); a.status != 200 {
		t.Errorf("after a second: %d", a.status)
	}
}

// A flood of logins: malformed ones, bogus codes for an instance not
// running, and for the flooder's own, costs Discord one read of each
// instance and the 7 exchanges of the flooder's instance (5, and 2 a user
// in it); players log in
// meanwhile, in a new instance and in one already read. Fabricated
// instances cost 20 reads at once in all, then 429, and no exchange.
func TestLoginFlood(t *testing.T) {
	f := newFixture(t)
	mine := f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: []string{"100000000000000009"}})
	inst := f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: []string{alice, bob}})
	count := func() (exchanges, reads int) {
		for _, fl := range f.srv.Failures() {
			exchanges += strings.Count(fl.Path, "/oauth2/token")
			reads += strings.Count(fl.Path, "/activity-instances/")
		}
		return exchanges, reads
	}
	flood := func(n int, body func(i int) string) map[int]int {
		statuses := map[int]int{}
		for i := range n {
			statuses[f.do("POST", "api/session", "", body(i)).status]++
		}
		return statuses
	}
	code := func(i int) string { return "bogus-code-" + strconv.Itoa(1e9+i) }
	got := flood(900, func(i int) string {
		if i == 450 {
			f.loginIn(inst, alice)
		}
		return []string{`{}`, `{"code":"` + code(i) + `","instance_id":"i-1-gc-2-3"}`, `{"code":"` + code(i) + `","instance_id":"` + mine + `"}`}[i%3]
	})
	if ex, reads := count(); ex != 7 || reads != 1 || got[400] != 300 || got[403] != 300 || got[401] != 7 || got[429] != 293 {
		t.Errorf("900 logins: %v, %d exchanges of a bogus code, %d reads of a missing instance", got, ex, reads)
	}
	got = flood(100, func(i int) string {
		if i == 50 {
			f.loginIn(inst, bob)
		}
		return `{"code":"` + code(i) + `","instance_id":"i-` + strconv.Itoa(1000+i) + `-gc-2-3"}`
	})
	if ex, reads := count(); ex != 7 || reads != 1+17 || got[403] != 17 || got[429] != 83 { // 20 reads at once, 3 done
		t.Errorf("100 fabricated instances: %v, %d exchanges of a bogus code, %d reads of a missing instance", got, ex, reads)
	}
}

// The page, the art and the config, each with the strict CSP.
func TestStatic(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		path   string
		status int
		ctype  string
	}{
		{"", 200, "text/html; charset=utf-8"},
		{"app.js", 200, "text/javascript; charset=utf-8"},
		{"art/0.png", 200, "image/png"},
		{"art/6.png", 200, "image/png"},
		{"art/hidden.png", 200, "image/png"},
		{"art/chest-open.png", 200, "image/png"},
		{"art/7.png", 404, ""},
		{"api/config", 200, "application/json"},
		{"../go.mod", 404, ""},
	} {
		a := f.do("GET", tt.path, "", "")
		if a.status != tt.status || (tt.ctype != "" && a.header.Get("Content-Type") != tt.ctype) {
			t.Errorf("%s: %d %s", tt.path, a.status, a.header.Get("Content-Type"))
		}
		if a.header.Get("Content-Security-Policy") != activity.CSP || a.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", tt.path, a.header)
		}
	}
	// Discord's root mapping forwards its root to the bare /activity: the
	// page, not a redirect to /activity/ (which Discord would map to
	// /activity/activity/).
	resp, err := http.Get(strings.TrimSuffix(f.url, "/") + "?instance_id=i-1-gc-2-3&frame_id=f&platform=desktop")
	if err != nil || resp.StatusCode != 200 || resp.Request.URL.Path != "/activity" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET /activity: %v %v", resp, err)
	}
	if m := f.do("GET", "api/config", "", "").json(t); m["client_id"] != f.srv.AppID() {
		t.Errorf("config: %v", m)
	}
}
