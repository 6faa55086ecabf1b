package e2e_test

// Exploratory QA: the bot played as a new user and a moderator would, and
// fed the payload variations a different fake Discord (or Discord itself)
// might send. The payload variations go through mitm, a websocket proxy
// between the bot and the fake's gateway that rewrites INTERACTION_CREATE
// payloads: the interaction keeps its real ID and token, so the fake still
// accepts and checks the bot's callback.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// mitm sits between the bot and the fake Discord: REST passes through, the
// gateway URL points at its own websocket, which relays frames and applies
// queued mutations to the next INTERACTION_CREATE payloads.
type mitm struct {
	tb   testing.TB
	srv  *httptest.Server
	fake *url.URL

	mu       sync.Mutex
	mutates  []func(d map[string]any)
	always   func(d map[string]any) // applied to every interaction, if set
	applied  chan string            // IDs of interactions mutated by next, in order
	endpoint string                 // the bot's HTTP endpoint (host:port), in HTTP mode
}

// qaKey signs the interactions the mitm relays to a bot's HTTP endpoint,
// after changing them: the bot trusts it (DISCORD_PUBLIC_KEY) instead of
// the fake Discord's key.
var qaKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{42}, ed25519.SeedSize))

func newMITM(tb testing.TB, fakeURL string) *mitm {
	tb.Helper()
	u, err := url.Parse(fakeURL)
	if err != nil {
		tb.Fatal(err)
	}
	m := &mitm{tb: tb, fake: u, applied: make(chan string, 1024)}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		p := r.Request.URL.Path
		if !strings.HasSuffix(p, "/gateway/bot") && !strings.HasSuffix(p, "/gateway") {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		var obj map[string]any
		if json.Unmarshal(body, &obj) == nil {
			if _, ok := obj["url"]; ok {
				obj["url"] = m.wsURL()
				body, _ = json.Marshal(obj)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", fmt.Sprint(len(body)))
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /interactions", m.interaction)
	mux.HandleFunc("/gateway", m.gateway)
	mux.HandleFunc("/gateway/", m.gateway)
	mux.Handle("/", rp)
	m.srv = httptest.NewServer(mux)
	tb.Cleanup(m.srv.Close)
	return m
}

func (m *mitm) URL() string   { return m.srv.URL }
func (m *mitm) wsURL() string { return "ws" + strings.TrimPrefix(m.srv.URL, "http") + "/gateway" }

// next queues a mutation of the next INTERACTION_CREATE's "d".
func (m *mitm) next(f func(d map[string]any)) {
	m.mu.Lock()
	m.mutates = append(m.mutates, f)
	m.mu.Unlock()
}

var qaUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (m *mitm) gateway(w http.ResponseWriter, r *http.Request) {
	target := "ws://" + m.fake.Host + "/gateway"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	up, _, err := websocket.DefaultDialer.Dial(target, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	down, err := qaUpgrader.Upgrade(w, r, nil)
	if err != nil {
		up.Close()
		return
	}
	var once sync.Once
	closeBoth := func() { once.Do(func() { up.Close(); down.Close() }) }
	defer closeBoth()
	go func() { // bot → fake
		defer closeBoth()
		for {
			typ, data, err := down.ReadMessage()
			if err != nil {
				return
			}
			if up.WriteMessage(typ, data) != nil {
				return
			}
		}
	}()
	for { // fake → bot
		typ, data, err := up.ReadMessage()
		if err != nil {
			return
		}
		data = m.rewrite(data)
		if down.WriteMessage(typ, data) != nil {
			return
		}
	}
}

// interaction relays an interaction the fake Discord POSTs to the bot's
// HTTP endpoint, changed like a gateway one and signed again with qaKey,
// and relays the bot's reply back.
func (m *mitm) interaction(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var d map[string]any
	if json.Unmarshal(body, &d) == nil && m.mutate(d) {
		body, _ = json.Marshal(d)
	}
	m.mu.Lock()
	endpoint := m.endpoint
	m.mu.Unlock()
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+endpoint+"/interactions", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature-Timestamp", stamp)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(qaKey, append([]byte(stamp), body...))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// mutate applies the queued mutation (or the permanent one) to an
// interaction's payload; it reports whether it changed anything.
func (m *mitm) mutate(d map[string]any) bool {
	m.mu.Lock()
	var f func(map[string]any)
	if len(m.mutates) > 0 {
		f, m.mutates = m.mutates[0], m.mutates[1:]
	}
	always := m.always
	m.mu.Unlock()
	if always != nil {
		always(d)
	} else if f == nil {
		return false
	}
	if f != nil {
		id, _ := d["id"].(string)
		f(d)
		m.applied <- id // buffered: tests read it back
	}
	return true
}

func (m *mitm) rewrite(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"INTERACTION_CREATE"`)) && !bytes.Contains(data, []byte(`"READY"`)) {
		return data
	}
	var p map[string]any
	if json.Unmarshal(data, &p) != nil {
		return data
	}
	d, _ := p["d"].(map[string]any)
	if d == nil {
		return data
	}
	switch p["t"] {
	case "READY":
		if _, ok := d["resume_gateway_url"]; ok {
			d["resume_gateway_url"] = m.wsURL()
		}
	case "INTERACTION_CREATE":
		if !m.mutate(d) {
			return data
		}
	default:
		return data
	}
	out, err := json.Marshal(p)
	if err != nil {
		return data
	}
	return out
}

// qa is a harness whose bot talks to the fake through a mitm, with an
// adjustable clock for the store and the handlers.
type qa struct {
	*harness
	m   *mitm
	now *storetest.Clock
}

func newQA(t *testing.T, env map[string]string) *qa {
	t.Helper()
	if env["INTERACTIONS_ADDR"] != "" {
		env["DISCORD_PUBLIC_KEY"] = hex.EncodeToString(qaKey.Public().(ed25519.PublicKey))
	}
	h := newHarness(t, env)
	m := newMITM(t, h.srv.URL())
	h.cfg.APIBase = m.URL()
	q := &qa{harness: h, m: m, now: storetest.NewClock()}
	h.now = q.now.Now
	h.relay = func(addr string) string { // the fake posts to the mitm, which relays to the bot
		m.mu.Lock()
		m.endpoint = addr
		m.mu.Unlock()
		return m.URL() + "/interactions"
	}
	h.start()
	return q
}

// bothTransports runs a QA test on the gateway and on the HTTP endpoint,
// each on a new embedded store: what one transport refuses, the other
// refuses too, with the same replies.
func bothTransports(t *testing.T, test func(t *testing.T, env map[string]string)) {
	t.Parallel()
	t.Run("gateway", func(t *testing.T) {
		t.Parallel()
		test(t, boltEnv(t))
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		test(t, httpEnv(boltEnv(t)))
	})
}

func boltEnv(t *testing.T) map[string]string {
	return map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db")}
}

// mutSlash runs a slash command whose payload is rewritten by f on its way
// to the bot. It returns the response, or the error of waiting for it.
func (q *qa) mutSlash(sl fakediscord.Slash, f func(d map[string]any)) (fakediscord.Response, string, error) {
	q.t.Helper()
	if sl.Channel == "" {
		sl.Channel = chan1
	}
	if sl.Guild == "" {
		sl.Guild = guild
	}
	return q.mutated(f, "/"+sl.Name, func() (*fakediscord.Pending, error) { return q.srv.Slash(q.ctx(), sl) })
}

// mutClick is mutSlash for a button press.
func (q *qa) mutClick(c fakediscord.Click, f func(d map[string]any)) (fakediscord.Response, string, error) {
	q.t.Helper()
	return q.mutated(f, "click "+c.CustomID, func() (*fakediscord.Pending, error) { return q.srv.Click(q.ctx(), c) })
}

// mutated sends an interaction (send, named what), its payload rewritten
// by f, and waits for the response.
func (q *qa) mutated(f func(d map[string]any), what string, send func() (*fakediscord.Pending, error)) (fakediscord.Response, string, error) {
	q.t.Helper()
	if f != nil {
		q.m.next(f)
	}
	p, err := send()
	if err != nil {
		q.t.Fatalf("%s: %v", what, err)
	}
	if f != nil {
		q.waitApplied(p.ID())
	}
	r, err := p.Wait(q.ctx())
	return r, p.ID(), err
}

func (q *qa) waitApplied(id string) {
	q.t.Helper()
	select {
	case got := <-q.m.applied:
		if got != id {
			q.t.Fatalf("mutation applied to interaction %s, want %s", got, id)
		}
	case <-time.After(5 * time.Second):
		q.t.Fatalf("mutation of %s never applied", id)
	}
}

// sane checks that a text shown to a user carries no raw message ID, no
// formatting verb error, no template residue and no Go value dump.
func sane(tb testing.TB, what, s string) {
	tb.Helper()
	if strings.TrimSpace(s) == "" {
		tb.Errorf("%s: empty text", what)
		return
	}
	for _, bad := range []string{"err_", "%!", "{{", "}}", "<nil>", "<no value>", "map[", "&{", "[]", "MISSING", "\\u"} {
		if strings.Contains(s, bad) {
			tb.Errorf("%s: text contains %q:\n%s", what, bad, s)
		}
	}
}

// okAnswer checks a response arrived within 3 s with a sane text.
func okAnswer(tb testing.TB, what string, r fakediscord.Response, err error) {
	tb.Helper()
	if err != nil {
		tb.Errorf("%s: no answer: %v", what, err)
		return
	}
	if r.Latency <= 0 || r.Latency >= 3*time.Second {
		tb.Errorf("%s: answered after %v", what, r.Latency)
	}
	if r.Message == nil {
		tb.Errorf("%s: no message", what)
		return
	}
	sane(tb, what, text(r.Message))
}

// refusal checks an ephemeral refusal whose text contains want.
func refusal(tb testing.TB, what string, r fakediscord.Response, err error, want string) {
	tb.Helper()
	okAnswer(tb, what, r, err)
	if err != nil || r.Message == nil {
		return
	}
	if !r.Ephemeral {
		tb.Errorf("%s: refusal not ephemeral: %q", what, text(r.Message))
	}
	if want != "" && !strings.Contains(text(r.Message), want) {
		tb.Errorf("%s: refusal %q does not say %q", what, text(r.Message), want)
	}
}

// alive checks the bot still answers a normal /balance.
func (q *qa) alive(what string) {
	q.t.Helper()
	r, _, err := q.mutSlash(fakediscord.Slash{User: carol, Name: "balance"}, nil)
	if err != nil || r.Message == nil || !strings.Contains(text(r.Message), "Balance") {
		q.t.Fatalf("after %s the bot no longer answers /balance: %v %+v", what, err, r)
	}
}

func member(d map[string]any) map[string]any {
	m, _ := d["member"].(map[string]any)
	return m
}

func dataOf(d map[string]any) map[string]any {
	m, _ := d["data"].(map[string]any)
	return m
}

// subOptions returns the options list of /admin's subcommand in a payload.
func subOptions(d map[string]any) []any {
	opts, _ := dataOf(d)["options"].([]any)
	if len(opts) == 0 {
		return nil
	}
	sub, _ := opts[0].(map[string]any)
	o, _ := sub["options"].([]any)
	return o
}

func setOption(d map[string]any, name string, f func(o map[string]any)) {
	for _, x := range subOptions(d) {
		if o, _ := x.(map[string]any); o != nil && o["name"] == name {
			f(o)
		}
	}
}

// TestQAPayloadVariations sends what another fake, or Discord, may send
// differently from ours (fields missing, of another JSON type, null, or
// forged): each gets an answer within 3 s, a refusal is ephemeral and
// readable, the bot stays alive, and nothing is paid or charged but what
// the valid requests asked for.
func TestQAPayloadVariations(t *testing.T) { bothTransports(t, qaPayloadVariations) }

func qaPayloadVariations(t *testing.T, env map[string]string) {
	q := newQA(t, env)

	// A card of alice's to click on.
	q.draw.set(loss(false))
	card := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	auto := button(t, card, "v1:auto:")

	type want int
	const (
		answered want = iota // any sane answer
		refused              // an ephemeral refusal
	)
	slashCases := []struct {
		name string
		sl   fakediscord.Slash
		f    func(d map[string]any)
		want want
		says string
	}{
		{"no locale", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { delete(d, "locale") }, answered, "Balance"},
		{"no guild_locale", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { delete(d, "guild_locale"); delete(d, "guild") }, answered, "Balance"},
		{"unknown locale", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["locale"] = "xx-YY" }, answered, "Balance"},
		{"guild locale fr, user en", fakediscord.Slash{User: bob, Name: "balance", GuildLocale: discordgo.French}, nil, answered, "Balance"},
		{"member without permissions: /admin", modSlash("audit", ""),
			func(d map[string]any) { delete(member(d), "permissions") }, refused, "Only moderators"},
		{"member permissions 0: /admin", modSlash("audit", ""),
			func(d map[string]any) { member(d)["permissions"] = "0" }, refused, "Only moderators"},
		{"member permissions 0: /balance", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { member(d)["permissions"] = "0" }, answered, "Balance"},
		{"administrator: /admin", fakediscord.Slash{User: mod, Name: "admin", Sub: "audit", Perms: fakediscord.PermsAdmin}, nil, refused, "Moderator actions"},
		{"DM: user, no member, no guild", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) {
				d["user"] = member(d)["user"]
				delete(d, "member")
				delete(d, "guild_id")
				delete(d, "guild")
				d["context"] = 1
			}, refused, "server"},
		{"guild id but user instead of member", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["user"] = member(d)["user"]; delete(d, "member") }, refused, ""},
		{"unknown command name", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { dataOf(d)["name"] = "frobnicate" }, refused, "unknown"},
		{"no data", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { delete(d, "data") }, refused, ""},
		{"modal submit", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) {
				d["type"] = 5
				d["data"] = map[string]any{"custom_id": "someone:modal", "components": []any{}}
			}, refused, ""},
		{"non-numeric user id", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { member(d)["user"].(map[string]any)["id"] = "bob" }, refused, ""},
		{"non-numeric guild id", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["guild_id"] = "my-guild" }, refused, ""},
		{"guild never seen", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["guild_id"] = "900000000000000777" }, answered, "20.00"},
		{"huge guild id (> uint64)", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["guild_id"] = "99999999999999999999999" }, refused, ""},
		{"admin grant: user without resolved", modSlash("grant", "", opt("user", bob), opt("amount", "1")),
			func(d map[string]any) { delete(dataOf(d), "resolved") }, answered, "1.00"},
		{"admin grant: user is a bot", modSlash("grant", "", opt("user", carol), opt("amount", "1")),
			func(d map[string]any) {
				dataOf(d)["resolved"].(map[string]any)["users"].(map[string]any)[carol].(map[string]any)["bot"] = true
			}, refused, "Bots"},
		{"admin grant: user id not a number", modSlash("grant", "", opt("user", bob), opt("amount", "1")),
			func(d map[string]any) { setOption(d, "user", func(o map[string]any) { o["value"] = "@bob" }) }, refused, ""},
		{"admin grant: no subcommand", modSlash("audit", ""),
			func(d map[string]any) { dataOf(d)["options"] = []any{} }, refused, ""},
		{"admin: unknown subcommand", modSlash("audit", ""),
			func(d map[string]any) { dataOf(d)["options"] = []any{map[string]any{"name": "nuke", "type": 1}} }, refused, ""},
		{"admin settings: channel is a voice channel", modSlash("settings", "", opt("channel", "900000000000000055")),
			func(d map[string]any) {
				dataOf(d)["resolved"] = map[string]any{"channels": map[string]any{
					"900000000000000055": map[string]any{"id": "900000000000000055", "type": 2, "name": "Voice"}}}
			}, answered, ""},
		{"extra unknown fields", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) {
				d["brand_new_field"] = map[string]any{"x": []any{1, "a", nil}}
				dataOf(d)["another"] = true
				member(d)["banner"] = "abc"
			}, answered, "Balance"},
		{"null member user", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { member(d)["user"] = nil }, refused, ""},
		{"500 junk options", modSlash("audit", ""),
			func(d map[string]any) {
				var o []any
				for i := range 500 {
					o = append(o, map[string]any{"name": fmt.Sprint("x", i), "type": 3, "value": strings.Repeat("y", 100)})
				}
				dataOf(d)["options"].([]any)[0].(map[string]any)["options"] = o
			}, answered, ""},
		{"reason of 10,000 characters", modSlash("grant", "", opt("user", bob), opt("amount", "1"), opt("reason", "r")),
			func(d map[string]any) {
				setOption(d, "reason", func(o map[string]any) { o["value"] = strings.Repeat("a", 10000) })
			}, refused, "too long"},
		{"reason with invalid UTF-8, mentions and markdown", modSlash("grant", "", opt("user", bob), opt("amount", "1"), opt("reason", "r")),
			func(d map[string]any) {
				setOption(d, "reason", func(o map[string]any) { o["value"] = "@everyone **bold** <@&1> \xff `x` \n line" })
			}, answered, "@everyone"},
		{"admin settings: channel id not a number", modSlash("settings", "", opt("channel", "900000000000000055")),
			func(d map[string]any) { setOption(d, "channel", func(o map[string]any) { o["value"] = "general" }) }, refused, ""},
		// An amount that arrives as a JSON number (another client, or the
		// option retyped NUMBER): refused without template residue.
		{"amount as a JSON number", modSlash("grant", "", opt("user", bob), opt("amount", "5")),
			func(d map[string]any) { setOption(d, "amount", func(o map[string]any) { o["value"] = 5 }) }, refused, "amount"},
		{"amount retyped NUMBER", modSlash("grant", "", opt("user", bob), opt("amount", "5")),
			func(d map[string]any) {
				setOption(d, "amount", func(o map[string]any) { o["value"], o["type"] = 5.5, 10 })
			}, refused, "amount"},
		// A field of an unexpected JSON type makes discordgo's
		// Interaction.UnmarshalJSON fail as a whole: the bot still answers
		// from the raw event's id and token. (Discord sends these as
		// strings; another fake may not.)
		{"permissions as a JSON number", modSlash("audit", ""),
			func(d map[string]any) { member(d)["permissions"] = fakediscord.PermsModerator }, answered, ""},
		{"guild_id as a JSON number", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["guild_id"] = 900000000000000001 }, answered, ""},
		{"locale as a JSON number", fakediscord.Slash{User: bob, Name: "balance"},
			func(d map[string]any) { d["locale"] = 7 }, answered, ""},
		// JSON nulls where objects are expected.
		{"options [null]", modSlash("audit", ""), func(d map[string]any) { dataOf(d)["options"] = []any{nil} }, answered, ""},
		{"sub-options [null]", modSlash("grant", "", opt("user", bob), opt("amount", "1")),
			func(d map[string]any) { dataOf(d)["options"].([]any)[0].(map[string]any)["options"] = []any{nil, nil} }, answered, ""},
		{"resolved user null", modSlash("grant", "", opt("user", bob), opt("amount", "1")),
			func(d map[string]any) { dataOf(d)["resolved"].(map[string]any)["users"].(map[string]any)[bob] = nil }, answered, ""},
		{"member null", fakediscord.Slash{User: bob, Name: "balance"}, func(d map[string]any) { d["member"] = nil }, answered, ""},
		{"data null", fakediscord.Slash{User: bob, Name: "balance"}, func(d map[string]any) { d["data"] = nil }, answered, ""},
	}
	for _, c := range slashCases {
		r, id, err := q.mutSlash(c.sl, c.f)
		what := c.name
		switch c.want {
		case answered:
			okAnswer(t, what, r, err)
		case refused:
			refusal(t, what, r, err, "")
		}
		if err == nil && r.Message != nil && c.says != "" && !strings.Contains(text(r.Message), c.says) {
			t.Errorf("%s: answer %q does not say %q", what, text(r.Message), c.says)
		}
		q.after(what, id, r, err)
	}
	// The voice channel above was accepted as the play channel: put it back.
	q.mutSlash(modSlash("settings", "", opt("any-channel", true)), nil)

	// Autocomplete and ping: the bot answers them with their own callback
	// types (8 and 1), which our fake does not take; only those refusals
	// may be recorded.
	for _, c := range []struct {
		name string
		typ  int
		resp string
	}{{"autocomplete", 4, "got 8"}, {"ping", 1, "got 1"}} {
		_, id, err := q.mutSlash(fakediscord.Slash{User: bob, Name: "balance"}, func(d map[string]any) { d["type"] = c.typ })
		if err == nil {
			t.Errorf("%s: the fake accepted a callback", c.name)
		}
		seen := false
		for _, f := range q.srv.Failures() {
			if f.Interaction != id {
				continue
			}
			if f.Status == 400 && strings.Contains(f.Errors, c.resp) {
				seen = true
			} else if f.Method != "DEADLINE" {
				t.Errorf("%s: unexpected failure %+v", c.name, f)
			}
		}
		if !seen {
			t.Errorf("%s: the bot did not answer with its callback type (%s)", c.name, c.resp)
		}
		q.alive(c.name)
	}

	// Buttons.
	clickCases := []struct {
		name string
		f    func(d map[string]any)
		says string
	}{
		{"huge custom ID", func(d map[string]any) { dataOf(d)["custom_id"] = strings.Repeat("v1:auto:", 700) }, "out of date"},
		{"another bot's custom ID", func(d map[string]any) { dataOf(d)["custom_id"] = "ticket_close_12345" }, "out of date"},
		{"v2 custom ID", func(d map[string]any) { dataOf(d)["custom_id"] = "v2" + auto[2:] }, "out of date"},
		{"non-numeric ticket", func(d map[string]any) {
			dataOf(d)["custom_id"] = "v1:auto:" + alice + ":one"
		}, "out of date"},
		{"negative row", func(d map[string]any) {
			dataOf(d)["custom_id"] = strings.Replace(auto, "auto", "row", 1) + ":-1"
		}, "out of date"},
		{"row 3", func(d map[string]any) {
			dataOf(d)["custom_id"] = strings.Replace(auto, "auto", "row", 1) + ":3"
		}, "out of date"},
		{"owner id not a number", func(d map[string]any) {
			dataOf(d)["custom_id"] = strings.Replace(auto, alice, "alice", 1)
		}, "out of date"},
		{"someone else's button via forged owner", func(d map[string]any) {
			member(d)["user"].(map[string]any)["id"] = bob
		}, "belong"},
		{"unknown component type", func(d map[string]any) { dataOf(d)["component_type"] = 99 }, ""},
		{"no message on the click", func(d map[string]any) { delete(d, "message") }, ""},
		{"empty custom ID", func(d map[string]any) { dataOf(d)["custom_id"] = "" }, "out of date"},
		{"message null", func(d map[string]any) { d["message"] = nil }, ""},
		{"message components [null]", func(d map[string]any) { d["message"].(map[string]any)["components"] = []any{nil} }, ""},
		{"message embeds [null]", func(d map[string]any) { d["message"].(map[string]any)["embeds"] = []any{nil} }, ""},
	}
	for _, c := range clickCases {
		// Press any enabled button of the card: the mutation decides what arrives.
		cur, _ := q.srv.Message(card.ID)
		press := ""
		for _, b := range fakediscord.Buttons(cur) {
			if !b.Disabled {
				press = b.CustomID
				break
			}
		}
		r, id, err := q.mutClick(fakediscord.Click{Message: card.ID, CustomID: press, User: alice}, c.f)
		if c.says != "" {
			refusal(t, c.name, r, err, c.says)
		} else {
			okAnswer(t, c.name, r, err)
		}
		q.after(c.name, id, r, err)
	}

	q.stop()
	// Nothing was paid or charged by any of it, beyond alice's one stake and
	// the moderator's three 1.00 grants to bob (one without resolved, one
	// with its resolved user null: the option's ID names bob).
	if p := q.player(alice); p.Balance != 2000-game.Stake || p.Stats.Plays != 1 {
		t.Errorf("alice: balance %d, %d plays; want %d and 1 (the last click above revealed her one ticket)",
			p.Balance, p.Stats.Plays, 2000-game.Stake)
	}
	if p := q.player(bob); p.Balance != 2000+300 {
		t.Errorf("bob: balance %d, want 2300 (three 1.00 grants went through)", p.Balance)
	}
	if p := q.player(carol); p.Balance != 2000 {
		t.Errorf("carol: balance %d, want 2000 (the bot grant was refused)", p.Balance)
	}
}

// after logs the answer r to the interaction id (what), checks the fake
// refused none of the bot's calls for it, and that the bot still answers.
func (q *qa) after(what, id string, r fakediscord.Response, err error) {
	q.t.Helper()
	if err == nil && r.Message != nil {
		q.t.Logf("%s → ephemeral=%v %q", what, r.Ephemeral, oneLine(text(r.Message)))
	}
	for _, f := range q.srv.Failures() {
		if f.Interaction == id {
			q.t.Errorf("%s: fake Discord refused: %+v", what, f)
		}
	}
	q.alive(what)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// TestQAModeratorAmounts types every kind of amount a moderator might:
// each is answered privately and readably, and the store ends exactly where
// the accepted ones put it.
func TestQAModeratorAmounts(t *testing.T) { bothTransports(t, qaModeratorAmounts) }

func qaModeratorAmounts(t *testing.T, env map[string]string) {
	q := newQA(t, env)
	bal := int64(2000)
	cases := []struct {
		sub, amount string
		locale      discordgo.Locale
		delta       int64 // for grant; for set-balance the new balance
		ok          bool
		says        string // in the refusal
	}{
		{"grant", "5", "", 500, true, ""},
		{"grant", "-5", "", -500, true, ""},
		{"grant", "12,50", "", 1250, true, ""},
		{"grant", "12.50", discordgo.French, 1250, true, ""},
		{"grant", "+1", "", 100, true, ""},
		{"grant", " 2 ", "", 200, true, ""},
		{"grant", "0.5", "", 50, true, ""},
		{"grant", "-99999", "", 0, false, "negative"},
		{"grant", "NaN", "", 0, false, "NaN"},
		{"grant", "Inf", "", 0, false, "Inf"},
		{"grant", "1e3", "", 0, false, "1e3"},
		{"grant", "0x10", "", 0, false, "0x10"},
		{"grant", "12.505", "", 0, false, "12.505"},
		{"grant", "1 000", "", 0, false, "1 000"},
		{"grant", "1,000.00", "", 0, false, "1,000.00"},
		{"grant", "١٢", "", 0, false, "١٢"},
		{"grant", ".5", "", 0, false, ".5"},
		{"grant", "5.", "", 0, false, "5."},
		{"grant", "--5", "", 0, false, "--5"},
		{"grant", "-", "", 0, false, "not a valid"},
		{"grant", "99999999999", "", 0, false, "99999999999"},
		{"grant", "9999999999.99", "", 0, false, ""},
		{"grant", "abc", discordgo.French, 0, false, "n'est pas un montant valide"},
		{"set-balance", "-1", "", 0, false, "negative"},
		{"set-balance", "7.25", "", 725, true, ""},
		{"set-balance", "0", "", 0, true, ""},
		{"set-balance", "abc", "", 0, false, "abc"},
		{"set-balance", "1e2", "", 0, false, "1e2"},
		{"grant", "0", "", 0, false, "outside"},
		{"set-balance", "9999999999.99", "", 999999999999, true, ""}, // MaxBalance: 10^10 credits
		{"set-balance", "10000000000.00", "", 0, false, ""},
		{"grant", "0.01", "", 1, true, ""},         // exactly MaxBalance
		{"grant", "0.01", "", 0, false, "outside"}, // over MaxBalance
		{"set-balance", "20", "", 2000, true, ""},
	}
	for _, c := range cases {
		what := fmt.Sprintf("%s %q (%s)", c.sub, c.amount, c.locale)
		r, _, err := q.mutSlash(modSlash(c.sub, c.locale, opt("user", bob), opt("amount", c.amount)), nil)
		okAnswer(t, what, r, err)
		if err != nil || r.Message == nil {
			continue
		}
		if !r.Ephemeral {
			t.Errorf("%s: moderator's answer is public", what)
		}
		got := text(r.Message)
		t.Logf("%s → %q", what, oneLine(got))
		done := strings.Contains(got, "✅")
		if done != c.ok {
			t.Errorf("%s: accepted=%v, want %v: %q", what, done, c.ok, got)
			continue
		}
		if !c.ok {
			if c.says != "" && !strings.Contains(got, c.says) {
				t.Errorf("%s: refusal %q does not say %q", what, got, c.says)
			}
			continue
		}
		if c.sub == "grant" {
			bal += c.delta
		} else {
			bal = c.delta
		}
		// Compare digits only: separators differ between locales.
		wantShown := fmt.Sprintf("%d%02d", bal/100, bal%100)
		digits := strings.NewReplacer(",", "", ".", "", " ", "", "\u202f", "", "\u00a0", "").Replace(got)
		if !strings.Contains(digits, wantShown) {
			t.Errorf("%s: answer %q does not show the new balance %s", what, got, wantShown)
		}
	}
	// The balance bob sees agrees.
	r := q.slash(fakediscord.Slash{User: bob, Name: "balance"})
	if got := shownBalance(t, r.Message); got != bal {
		t.Errorf("bob's /balance shows %d, want %d", got, bal)
	}
	q.stop()
	p := q.player(bob)
	if p.Balance != bal {
		t.Errorf("stored balance %d, want %d", p.Balance, bal)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}

// TestQAWinOverMaxBalance: a player at the largest balance a moderator may
// set wins a prize that takes the balance over game.MaxBalance. The
// prize must be paid (the grid promised it) or the play refused before the
// stake is taken; a ticket that can never be revealed is neither.
func TestQAWinOverMaxBalance(t *testing.T) {
	t.Parallel()
	q := newQA(t, boltEnv(t))
	r, _, err := q.mutSlash(modSlash("set-balance", "", opt("user", alice), opt("amount", "9999999999.99")), nil)
	okAnswer(t, "set-balance to the maximum", r, err)
	q.draw.set(win(game.TierGem))
	card := q.slash(fakediscord.Slash{User: alice, Name: "play"})
	t.Logf("/play → %q", oneLine(text(card.Message)))
	if !hasButton(card.Message, "v1:auto:") {
		return // refused before the stake: acceptable
	}
	r = q.click(card.Message, "v1:auto:", alice)
	t.Logf("Auto → ephemeral=%v %q", r.Ephemeral, oneLine(text(r.Message)))
	sane(t, "Auto over MaxBalance", text(r.Message))
	if r.Ephemeral {
		t.Errorf("the win over MaxBalance was refused after the stake was taken: %q", text(r.Message))
	}
	q.stop()
	p := q.player(alice)
	t.Logf("stored: balance %d, ticket %+v", p.Balance, p.Ticket)
	if p.Ticket != nil && p.Ticket.Open() {
		t.Errorf("ticket %d stays open for ever: balance %d", p.Ticket.ID, p.Balance)
	}
}

// TestQAResetGuildAndSettings walks a moderator through reset-guild (cancel,
// another moderator's press, a demoted moderator's press, an expired
// confirmation, a real confirmation) and every settings option.
func TestQAResetGuildAndSettings(t *testing.T) {
	t.Parallel()
	q := newQA(t, boltEnv(t))
	const mod2 = "100000000000000008"
	const chan2 = "900000000000000003"

	// Some players with state.
	q.draw.set(loss(true))
	for _, u := range []string{alice, bob} {
		c := q.slash(fakediscord.Slash{User: u, Name: "play"}).Message
		q.click(c, "v1:auto:", u)
	}
	q.slash(modSlash("grant", "", opt("user", carol), opt("amount", "3")))

	ask := func(reason string) *discordgo.Message {
		t.Helper()
		o := []fakediscord.Opt{}
		if reason != "" {
			o = append(o, opt("reason", reason))
		}
		r := q.slash(modSlash("reset-guild", "", o...))
		if !r.Ephemeral || !hasButton(r.Message, "v1:rg:") || !hasButton(r.Message, "v1:rgx:") {
			t.Fatalf("reset-guild: want an ephemeral confirmation with two buttons: %+v %q", fakediscord.Buttons(r.Message), text(r.Message))
		}
		sane(t, "reset-guild ask", text(r.Message))
		return r.Message
	}

	// Cancel.
	m := ask("")
	r := q.click(m, "v1:rgx:", mod)
	if !strings.Contains(text(r.Message), "Cancelled") || len(fakediscord.Buttons(r.Message)) != 0 {
		t.Errorf("cancel: %q %+v", text(r.Message), fakediscord.Buttons(r.Message))
	}

	// Another moderator presses confirm (the message is ephemeral: only a
	// forged payload can do this), then the asking one after losing the
	// permission, then after the confirmation expired.
	m = ask("season end")
	ok := button(t, m, "v1:rg:")
	rr, _, err := q.mutClick(fakediscord.Click{Message: m.ID, CustomID: ok, User: mod}, func(d map[string]any) {
		member(d)["user"].(map[string]any)["id"] = mod2
		member(d)["permissions"] = fmt.Sprint(fakediscord.PermsModerator)
	})
	refusal(t, "another moderator confirms", rr, err, "belong")
	rr, _, err = q.mutClick(fakediscord.Click{Message: m.ID, CustomID: ok, User: mod}, func(d map[string]any) { member(d)["permissions"] = "0" })
	refusal(t, "demoted moderator confirms", rr, err, "Only moderators")
	q.now.Advance(6 * time.Minute)
	rr, _, err = q.mutClick(fakediscord.Click{Message: m.ID, CustomID: ok, User: mod}, func(d map[string]any) { member(d)["permissions"] = fmt.Sprint(fakediscord.PermsModerator) })
	refusal(t, "expired confirmation", rr, err, "expired")
	q.now.Advance(-6 * time.Minute)
	// A time in the future (a forged custom ID).
	rr, _, err = q.mutClick(fakediscord.Click{Message: m.ID, CustomID: ok, User: mod}, func(d map[string]any) {
		member(d)["permissions"] = fmt.Sprint(fakediscord.PermsModerator)
		dataOf(d)["custom_id"] = fmt.Sprintf("v1:rg:%s:%d", mod, q.now.Now().Unix()+3600)
	})
	refusal(t, "confirmation from the future", rr, err, "")

	// Nothing was reset so far.
	r = q.slash(fakediscord.Slash{User: carol, Name: "balance"})
	if got := shownBalance(t, r.Message); got != 2300 {
		t.Fatalf("carol's balance %d before the confirmation, want 2300", got)
	}
	m = ask("")
	p, err := q.srv.Click(q.ctx(), fakediscord.Click{Message: m.ID, CustomID: button(t, m, "v1:rg:"), User: mod, Perms: fakediscord.PermsModerator})
	r = q.answered(p, err, "confirm reset-guild")
	t.Logf("confirm → %q", oneLine(text(r.Message)))
	if !strings.Contains(text(r.Message), "3 players were reset") {
		t.Errorf("confirm: %q, want 3 players reset", text(r.Message))
	}
	for _, u := range []string{alice, bob, carol} {
		r = q.slash(fakediscord.Slash{User: u, Name: "balance"})
		if got := shownBalance(t, r.Message); got != 2000 {
			t.Errorf("%s after reset-guild: %d, want 2000", u, got)
		}
		if !strings.Contains(text(r.Message), "0 keys") {
			t.Errorf("%s keeps keys after reset-guild: %q", u, text(r.Message))
		}
	}
	r = q.slash(modSlash("audit", ""))
	sane(t, "audit", text(r.Message))
	for _, want := range []string{"server reset", "grant", "3.00"} {
		if !strings.Contains(text(r.Message), want) {
			t.Errorf("audit does not show %q: %q", want, text(r.Message))
		}
	}

	// Settings, one option at a time.
	settings := func(what string, o ...fakediscord.Opt) fakediscord.Response {
		t.Helper()
		r := q.slash(modSlash("settings", "", o...))
		if !r.Ephemeral {
			t.Errorf("settings %s: public answer", what)
		}
		sane(t, "settings "+what, text(r.Message))
		t.Logf("settings %s → %q", what, oneLine(text(r.Message)))
		return r
	}
	settings("show")
	settings("starting-balance", opt("starting-balance", "30"))
	const dan = "100000000000000004"
	if got := shownBalance(t, q.slash(fakediscord.Slash{User: dan, Name: "balance"}).Message); got != 3000 {
		t.Errorf("a new player after starting-balance 30: %d", got)
	}
	settings("daily-amount 0", opt("daily-amount", "0"))
	q.refused(q.slash(fakediscord.Slash{User: dan, Name: "daily"}), "/daily when disabled")
	settings("daily-amount 1.5", opt("daily-amount", "1.5"))
	r = q.slash(fakediscord.Slash{User: dan, Name: "daily"})
	if r.Ephemeral == false && !strings.Contains(text(r.Message), "1.50") {
		t.Errorf("/daily after daily-amount 1.5: %q", text(r.Message))
	}
	if got := shownBalance(t, q.slash(fakediscord.Slash{User: dan, Name: "balance"}).Message); got != 3150 {
		t.Errorf("dan after /daily 1.50: %d, want 3150", got)
	}
	q.refused(q.slash(fakediscord.Slash{User: dan, Name: "daily"}), "second /daily")
	settings("public-plays false", opt("public-plays", false))
	r = q.slash(fakediscord.Slash{User: dan, Name: "play"})
	if !r.Ephemeral {
		t.Error("/play public although public-plays is false")
	}
	// Its buttons work on the ephemeral card.
	r = q.click(r.Message, "v1:auto:", dan)
	danCard := r.Message
	if !r.Ephemeral || len(gridRows(r.Message)) != 3 {
		t.Errorf("Auto on a private card: ephemeral=%v %q", r.Ephemeral, text(r.Message))
	}
	settings("public-plays true", opt("public-plays", true))
	settings("channel", opt("channel", chan2))
	r = q.slash(fakediscord.Slash{User: dan, Name: "play"})
	q.refused(r, "/play outside the channel")
	if !strings.Contains(text(r.Message), "<#"+chan2+">") {
		t.Errorf("the channel refusal does not name the channel: %q", text(r.Message))
	}
	// Play again on the old card from the wrong channel is refused too.
	q.refused(q.click(danCard, "v1:again:", dan), "Play again outside the channel")
	r = q.slash(fakediscord.Slash{User: dan, Name: "play", Channel: chan2})
	if r.Ephemeral {
		t.Errorf("/play in the allowed channel refused: %q", text(r.Message))
	}
	q.refused(q.slash(modSlash("settings", "", opt("channel", chan2), opt("any-channel", true))), "channel and any-channel")
	settings("any-channel", opt("any-channel", true))
	settings("any-channel false (no-op)", opt("any-channel", false))
	r = q.slash(fakediscord.Slash{User: dan, Name: "balance"})
	if r.Ephemeral != true {
		t.Errorf("/balance public: %v", r.Ephemeral)
	}
	q.refused(q.slash(modSlash("settings", "", opt("starting-balance", "-1"))), "negative starting balance")
	q.refused(q.slash(modSlash("settings", "", opt("daily-amount", "abc"))), "bad daily amount")
	q.refused(q.slash(modSlash("settings", "", opt("daily-amount", "99999999"))), "huge daily amount")
	rr, _, err = q.mutSlash(modSlash("settings", "", opt("starting-balance", "30")), func(d map[string]any) {
		setOption(d, "starting-balance", func(o map[string]any) { o["value"] = 25 })
	})
	refusal(t, "starting-balance as a JSON number", rr, err, "invalid")
	if strings.Contains(text(rr.Message), "saved") {
		t.Errorf("a starting-balance of the wrong type was saved: %q", text(rr.Message))
	}
	rr, _, err = q.mutSlash(modSlash("settings", "", opt("reason", "x")), func(d map[string]any) {
		setOption(d, "reason", func(o map[string]any) { o["value"] = strings.Repeat("é", 300) })
	})
	refusal(t, "reason of 300 characters", rr, err, "too long")
	r = q.slash(modSlash("audit", discordgo.French))
	sane(t, "audit fr", text(r.Message))
	t.Logf("audit fr → %q", oneLine(text(r.Message)))
}

// burst presses customID on message msg n times at once as user (pressAll).
func (q *qa) burst(msg, customID, user string, n int) []fakediscord.Response {
	q.t.Helper()
	return q.pressAll(msg, user, 0, slices.Repeat([]string{customID}, n)...)
}

// pressAll presses the buttons ids on message msg at once, as a member with
// permissions perms (0: a plain member), and waits for every answer. The
// fake only lets a user press a button that is enabled at that moment, so
// each press is of any enabled button, rewritten to its ID on its way.
func (q *qa) pressAll(msg, user string, perms int64, ids ...string) []fakediscord.Response {
	q.t.Helper()
	cur, ok := q.srv.Message(msg)
	if !ok {
		q.t.Fatalf("burst: no message %s", msg)
	}
	press := ""
	for _, b := range fakediscord.Buttons(cur) {
		if !b.Disabled {
			press = b.CustomID
			break
		}
	}
	if press == "" {
		q.t.Fatalf("burst: no enabled button on %s", msg)
	}
	for _, id := range ids {
		q.m.next(func(d map[string]any) { dataOf(d)["custom_id"] = id })
	}
	// All presses are made on the message as it is now, before any answer
	// can change it (one press after another could find the button gone).
	ps, err := q.srv.ClickBurst(q.ctx(), fakediscord.Click{Message: msg, CustomID: press, User: user, Perms: perms}, len(ids))
	if err != nil {
		q.t.Fatalf("burst: %v", err)
	}
	out := make([]fakediscord.Response, len(ids))
	for i, p := range ps {
		r, err := p.Wait(q.ctx())
		if err != nil {
			q.t.Errorf("burst %s #%d: %v", ids[i], i, err)
			continue
		}
		if r.Latency >= 3*time.Second {
			q.t.Errorf("burst %s #%d: answered after %v", ids[i], i, r.Latency)
		}
		if r.Message != nil {
			sane(q.t, "burst "+ids[i], text(r.Message))
		}
		out[i] = r
	}
	for range ids {
		<-q.m.applied
	}
	return out
}

// TestQAConcurrency: double (quintuple) clicks, two /play at once, the chest
// pressed five times, Play again on an old card; on both stores. Every
// press is answered in time, and the books and the cards agree exactly.
func TestQAConcurrency(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"bolt", "redis"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			env := boltEnv(t)
			if store == "redis" {
				env = map[string]string{"REDIS_URL": redistest.URL(t)}
			}
			q := newQA(t, env)
			bal := int64(2000)

			// Rows in odd orders, then Auto on the rest.
			q.draw.set(win(game.TierCandle))
			card := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
			bal -= game.Stake
			for _, row := range []string{"2", "0"} {
				card = q.click(card, "v1:row:"+alice+":1:"+row, alice).Message
			}
			card = q.click(card, "v1:auto:", alice).Message
			bal += 100
			if got := shownBalance(t, card); got != bal {
				t.Errorf("rows 3, 1, Auto: card shows %d, want %d", got, bal)
			}

			// Play again ×5 at once: one ticket bought.
			q.draw.set(win(game.TierBarrel))
			rs := q.burst(card.ID, button(t, card, "v1:again:"), alice, 5)
			bal -= game.Stake
			tickets := map[string]bool{}
			finished := card.ID
			for _, r := range rs {
				if r.Message != nil && !r.Ephemeral {
					if e := r.Message.Embeds; len(e) > 0 && e[0].Footer != nil {
						tickets[e[0].Footer.Text] = true
						if r.Message.ID != finished {
							card = r.Message // the next ticket: a new message (plays are public)
						}
					}
				}
			}
			if len(tickets) != 1 || card.ID == finished {
				t.Errorf("Play again ×5 showed tickets %v, want one, in a new message", tickets)
			}
			if old, ok := q.srv.Message(finished); !ok || shownBalance(t, old) != bal+game.Stake {
				t.Errorf("the finished card was not kept as it was")
			}
			card, _ = q.srv.Message(card.ID)
			if got := shownBalance(t, card); got != bal {
				t.Errorf("after Play again ×5: card shows %d, want %d (one stake)", got, bal)
			}

			// Auto ×5 at once: one draw, one prize.
			q.burst(card.ID, button(t, card, "v1:auto:"), alice, 5)
			bal += 50
			card, _ = q.srv.Message(card.ID)
			if got := shownBalance(t, card); got != bal {
				t.Errorf("after Auto ×5: card shows %d, want %d (one prize)", got, bal)
			}

			// Row 1, Auto and Row 3 at once on a new ticket: one draw. (The
			// card may be left stale: see TestQAConcurrentRevealStaleCard.)
			q.draw.set(loss(false))
			card = q.click(card, "v1:again:", alice).Message
			bal -= game.Stake
			card = q.mixedReveal(card)
			if hasButton(card, "v1:row:") {
				card = q.click(card, "v1:row:", alice).Message
			}
			if rows := gridRows(card); len(rows) != 3 || strings.Contains(strings.Join(rows, ""), q.hiddenCell()) {
				t.Errorf("the grid is not all shown: %q", rows)
			}

			// /play twice at once: one stake.
			q.draw.set(loss(true))
			p1, p2 := q.send(fakediscord.Slash{User: alice, Name: "play"}), q.send(fakediscord.Slash{User: alice, Name: "play"})
			r1 := q.answered(p1, nil, "/play #1")
			r2 := q.answered(p2, nil, "/play #2")
			bal -= game.Stake
			f1, f2 := r1.Message.Embeds[0].Footer.Text, r2.Message.Embeds[0].Footer.Text
			if f1 != f2 {
				t.Errorf("/play twice at once sold two tickets: %q and %q", f1, f2)
			}
			t.Logf("/play ×2: %q / %q; second says %q", f1, f2, oneLine(r2.Message.Embeds[0].Description))
			card = r1.Message
			old := r2.Message
			card = q.click(card, "v1:auto:", alice).Message // key 1
			// Keys 2 and 3, through Play again.
			for range 2 {
				card = q.click(card, "v1:again:", alice).Message
				bal -= game.Stake
				card = q.click(card, "v1:auto:", alice).Message
			}
			if got := shownBalance(t, card); got != bal {
				t.Errorf("third key: card shows %d, want %d", got, bal)
			}
			// The other /play card of the same ticket: its arrows now show
			// the ticket (or refuse); Play again on it must not buy.
			if hasButton(old, "v1:auto:") {
				r := q.click(old, "v1:auto:", alice)
				t.Logf("Auto on the twin card → ephemeral=%v %q", r.Ephemeral, oneLine(text(r.Message)))
			}

			// The chest ×5 at once: paid once.
			q.draw.setChest(chestOf(game.LotGold))
			q.burst(card.ID, button(t, card, "v1:chest:"), alice, 5)
			bal += 500
			card, _ = q.srv.Message(card.ID)
			if got := shownBalance(t, card); got != bal {
				t.Errorf("after the chest ×5: card shows %d, want %d (one lot)", got, bal)
			}

			// Play again on an old, finished card (A) after /play bought a
			// newer ticket (B): while B is open, A's button shows B again
			// (no charge); once B is finished, A's button is refused.
			q.draw.set(loss(false))
			a := q.click(card, "v1:again:", alice).Message
			bal -= game.Stake
			a = q.click(a, "v1:auto:", alice).Message
			b := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
			bal -= game.Stake
			r := q.click(a, "v1:again:", alice)
			if r.Ephemeral || r.Message.Embeds[0].Footer.Text != b.Embeds[0].Footer.Text {
				t.Errorf("Play again on A while B is open: %q, want B resumed", oneLine(text(r.Message)))
			}
			a = r.Message
			q.click(b, "v1:auto:", alice)
			if hasButton(a, "v1:again:") {
				t.Errorf("card A shows B open but offers Play again")
			}
			hist := q.slash(fakediscord.Slash{User: alice, Name: "history"})
			sane(t, "history", text(hist.Message))

			r = q.slash(fakediscord.Slash{User: alice, Name: "balance"})
			if got := shownBalance(t, r.Message); got != bal {
				t.Errorf("/balance shows %d, want %d", got, bal)
			}
			q.stop()
			q.noFailures()
			p := q.player(alice)
			if p.Balance != bal {
				t.Errorf("stored balance %d, want %d", p.Balance, bal)
			}
			s := p.Stats
			if err := p.Check(); err != nil {
				t.Error(err)
			}
			if s.StakedCents != 8*game.Stake || s.Chests != 1 {
				t.Errorf("stats %+v: want 8 stakes and 1 chest", s)
			}
		})
	}
}

// mixedReveal presses Row 1, Auto and Row 3 of card's ticket at once and
// returns the card as it stands after the three answers.
func (q *qa) mixedReveal(card *discordgo.Message) *discordgo.Message {
	q.t.Helper()
	ticket := strings.TrimPrefix(button(q.t, card, "v1:auto:"), "v1:auto:"+alice+":")
	ids := []string{"v1:row:" + alice + ":" + ticket + ":0", "v1:auto:" + alice + ":" + ticket, "v1:row:" + alice + ":" + ticket + ":2"}
	for _, r := range q.pressAll(card.ID, alice, 0, ids...) {
		okAnswer(q.t, "mixed reveal", r, nil)
	}
	m, _ := q.srv.Message(card.ID)
	return m
}

// TestQAConcurrentRevealStaleCard: Row 1, Auto and Row 3 pressed at once.
// The store draws once and ends with every row shown, but each answer is a
// type-7 update rendered from the state its own store call saw, and they
// reach Discord in any order: the last one to arrive may be an older state
// (a row still hidden, the balance before the prize), so the card
// disagrees with /balance until the player presses the remaining arrow.
func TestQAConcurrentRevealStaleCard(t *testing.T) {
	// Not parallel: it keeps the cores busy, so it runs alone among e2e's
	// tests, before the parallel ones; .ci/run runs it before any other package.
	q := newQA(t, boltEnv(t))
	bal := int64(2000)
	q.draw.set(win(game.TierSabre))
	card := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	stale := 0
	for i := range 10 {
		bal -= game.Stake
		card = q.mixedReveal(card)
		bal += 500
		rows := gridRows(card)
		if strings.Contains(strings.Join(rows, ""), q.hiddenCell()) || shownBalance(t, card) != bal {
			stale++
			t.Logf("round %d: card shows %q and %d, the store %d", i, rows, shownBalance(t, card), bal)
			card = q.click(card, "v1:auto:", alice).Message
		}
		card = q.click(card, "v1:again:", alice).Message
	}
	if stale > 0 {
		t.Errorf("%d of 10 cards left stale after Row 1 + Auto + Row 3 at once", stale)
	}
}

// TestQANewUserLocales plays every player command as a new user in each
// locale (fr; en-US, en-GB; de and a missing locale fall back to English),
// down to running out of credits: every text is sane, in the right
// language, with the right plurals, and the credits add up.
func TestQANewUserLocales(t *testing.T) { bothTransports(t, qaNewUserLocales) }

func qaNewUserLocales(t *testing.T, env map[string]string) {
	q := newQA(t, env)
	type words struct{ credit, key0, key1, key2, funds string }
	en := words{"credits", "0 keys of 3", "1 key of 3", "2 keys of 3", "Not enough credits"}
	fr := words{"crédit", "0 clef sur 3", "1 clef sur 3", "2 clefs sur 3", "Crédits insuffisants"}
	for i, c := range []struct {
		locale  discordgo.Locale
		missing bool
		w       words
	}{
		{discordgo.French, false, fr},
		{discordgo.EnglishUS, false, en},
		{discordgo.EnglishGB, false, en},
		{discordgo.German, false, en},
		{"", true, en},
	} {
		user := fmt.Sprintf("2000000000000000%02d", i+1)
		name := string(c.locale)
		if c.missing {
			name = "missing"
		}
		var mut func(d map[string]any)
		if c.missing {
			mut = func(d map[string]any) { delete(d, "locale") }
		}
		do := func(cmd string) fakediscord.Response {
			t.Helper()
			r, _, err := q.mutSlash(fakediscord.Slash{User: user, Name: cmd, Locale: c.locale}, mut)
			okAnswer(t, name+" /"+cmd, r, err)
			if err != nil || r.Message == nil {
				t.FailNow()
			}
			t.Logf("%s /%s → %q", name, cmd, oneLine(text(r.Message)))
			return r
		}
		press := func(m *discordgo.Message, prefix string) fakediscord.Response {
			t.Helper()
			r, _, err := q.mutClick(fakediscord.Click{Message: m.ID, CustomID: button(t, m, prefix), User: user, Locale: c.locale}, mut)
			okAnswer(t, name+" "+prefix, r, err)
			if err != nil || r.Message == nil {
				t.FailNow()
			}
			return r
		}
		has := func(what string, r fakediscord.Response, want string) {
			t.Helper()
			if !strings.Contains(text(r.Message), want) {
				t.Errorf("%s %s: %q lacks %q", name, what, oneLine(text(r.Message)), want)
			}
		}
		r := do("rules")
		has("/rules", r, c.w.credit)
		has("/balance", do("balance"), c.w.key0)
		do("history")
		do("leaderboard")
		r = do("daily")
		has("/daily", r, c.w.credit)
		r = do("daily")
		if !r.Ephemeral || !strings.Contains(text(r.Message), "<t:") {
			t.Errorf("%s second /daily: want a private refusal with a timestamp: %q", name, text(r.Message))
		}
		// Two losing plays with a key each.
		q.draw.set(loss(true))
		card := do("play").Message
		card = press(card, "v1:auto:").Message
		if !strings.Contains(text(card), c.w.key1) {
			t.Errorf("%s: after one key: %q lacks %q", name, oneLine(text(card)), c.w.key1)
		}
		card = press(card, "v1:again:").Message
		card = press(card, "v1:auto:").Message
		if !strings.Contains(text(card), c.w.key2) {
			t.Errorf("%s: after two keys: %q lacks %q", name, oneLine(text(card)), c.w.key2)
		}
		t.Logf("%s card → %q", name, oneLine(text(card)))
		h := do("history")
		if n := strings.Count(text(h.Message), "ticket"); n < 2 {
			t.Errorf("%s /history shows %d tickets: %q", name, n, text(h.Message))
		}
		do("leaderboard")
		// Running out: a moderator leaves 0.70; one more play, then refusals.
		q.slash(modSlash("set-balance", "", opt("user", user), opt("amount", "0.70")))
		q.draw.set(loss(false))
		card = press(card, "v1:again:").Message
		card = press(card, "v1:auto:").Message
		r = press(card, "v1:again:")
		if !r.Ephemeral || !strings.Contains(text(r.Message), c.w.funds) {
			t.Errorf("%s: Play again with 0.20 left: %q", name, text(r.Message))
		}
		t.Logf("%s out of credits → %q", name, oneLine(text(r.Message)))
		r = do("play")
		if !r.Ephemeral || !strings.Contains(text(r.Message), c.w.funds) {
			t.Errorf("%s: /play with 0.20 left: %q", name, text(r.Message))
		}
		r = do("balance")
		digits := strings.NewReplacer(",", ".").Replace(text(r.Message))
		if !strings.Contains(digits, "0.20") {
			t.Errorf("%s: /balance after running out: %q, want 0.20", name, text(r.Message))
		}
	}
	q.stop()
	q.noFailures()
	for i := range 5 {
		user := fmt.Sprintf("2000000000000000%02d", i+1)
		p := q.player(user)
		s := p.Stats
		if p.Balance != 20 || s.Plays != 3 || s.StakedCents != 150 || s.DailyCents != 500 {
			t.Errorf("%s: balance %d, stats %+v; want 20 cents, 3 plays, 1.50 staked, 5.00 daily", user, p.Balance, s)
		}
		if p.Keys != 2 {
			t.Errorf("%s: %d keys, want 2", user, p.Keys)
		}
	}
}

// slowLink is a TCP proxy to a Redis server whose traffic can be held up,
// as a slow or briefly unreachable store would.
type slowLink struct {
	ln     net.Listener
	target string
	tee    io.Writer
	mu     sync.Mutex
	open   chan struct{} // closed while traffic flows
}

// newSlowLink starts a link to target; tee, if not nil, sees what each
// client sends before it is forwarded.
func newSlowLink(tb testing.TB, target string, tee io.Writer) *slowLink {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	l := &slowLink{ln: ln, target: target, tee: tee, open: make(chan struct{})}
	close(l.open)
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.serve(c)
		}
	}()
	return l
}

func (l *slowLink) addr() string { return l.ln.Addr().String() }

// hold stops forwarding for d, from now.
func (l *slowLink) hold(d time.Duration) {
	l.mu.Lock()
	ch := make(chan struct{})
	l.open = ch
	l.mu.Unlock()
	time.AfterFunc(d, func() { close(ch) })
}

func (l *slowLink) gate() {
	l.mu.Lock()
	ch := l.open
	l.mu.Unlock()
	<-ch
}

func (l *slowLink) serve(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", l.target)
	if err != nil {
		return
	}
	defer up.Close()
	pump := func(dst, src net.Conn, tee io.Writer) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && tee != nil {
				_, _ = tee.Write(buf[:n])
			}
			if n > 0 {
				l.gate()
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() { pump(up, c, l.tee); up.Close(); c.Close() }()
	pump(c, up, nil)
}

// TestQASlowStore: the store answers after 2.5 s (the bot defers, then
// edits) or not for 12 s (the bot defers, then apologizes). Every
// interaction is acknowledged within 3 s; refusals stay private; nothing is
// charged twice.
func TestQASlowStore(t *testing.T) {
	t.Parallel()
	addr, _ := redistest.StartServer(t)
	link := newSlowLink(t, addr, nil)
	q := newQA(t, map[string]string{"REDIS_URL": "redis://" + link.addr() + "/0"})
	bal := int64(2000)

	// A slow /play: deferred, then the card. The deferral is private (so
	// that a refusal stays private), hence the card too: see qa-findings F10.
	q.draw.set(win(game.TierBarrel))
	link.hold(2500 * time.Millisecond)
	r := q.slash(fakediscord.Slash{User: alice, Name: "play"})
	bal -= game.Stake
	t.Logf("slow /play → type %d ephemeral=%v after %v: %q", r.Type, r.Ephemeral, r.Latency, oneLine(text(r.Message)))
	if r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || !hasButton(r.Message, "v1:auto:") {
		t.Errorf("slow /play: type %d, ephemeral %v, buttons %+v", r.Type, r.Ephemeral, fakediscord.Buttons(r.Message))
	}
	card := r.Message

	// A slow Auto: deferred update, then the card edited.
	link.hold(2500 * time.Millisecond)
	r = q.click(card, "v1:auto:", alice)
	bal += 50
	t.Logf("slow Auto → type %d after %v: %q", r.Type, r.Latency, oneLine(text(r.Message)))
	if got := shownBalance(t, r.Message); got != bal {
		t.Errorf("slow Auto: card shows %d, want %d", got, bal)
	}
	card = r.Message

	// A slow refusal of a button: someone else's press is refused at once
	// (no store call); a slow Play again with too few credits is refused
	// privately after the deferral.
	q.slash(modSlash("set-balance", "", opt("user", alice), opt("amount", "0.30")))
	bal = 30
	link.hold(2500 * time.Millisecond)
	p, err := q.srv.Click(q.ctx(), fakediscord.Click{Message: card.ID, CustomID: button(t, card, "v1:again:"), User: alice})
	if err != nil {
		t.Fatal(err)
	}
	r, err = p.Wait(q.ctx())
	if err != nil {
		t.Fatalf("slow Play again: %v", err)
	}
	t.Logf("slow Play again, no credits → type %d, follow-ups %d", r.Type, len(r.FollowUps))
	if len(r.FollowUps) != 1 || r.FollowUps[0].Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("slow refused Play again: want one ephemeral follow-up, got %+v", r.FollowUps)
	} else if !strings.Contains(text(r.FollowUps[0]), "Not enough credits") {
		t.Errorf("slow refused Play again says %q", text(r.FollowUps[0]))
	}

	// A slow /play refused for lack of credits: the refusal stays private.
	link.hold(2500 * time.Millisecond)
	r, err = q.send(fakediscord.Slash{User: alice, Name: "play"}).Wait(q.ctx())
	if err != nil {
		t.Fatalf("slow refused /play: %v", err)
	}
	t.Logf("slow /play, no credits → type %d ephemeral=%v follow-ups %d: %q", r.Type, r.Ephemeral, len(r.FollowUps), oneLine(text(r.Message)))
	if !r.Ephemeral || r.Message == nil || !strings.Contains(text(r.Message), "Not enough credits") {
		t.Errorf("slow refused /play: ephemeral %v, %+v", r.Ephemeral, r.Message)
	}

	// A store gone for 12 s: acknowledged in time, then an apology.
	link.hold(12 * time.Second)
	p = q.send(fakediscord.Slash{User: bob, Name: "balance"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err = p.Wait(ctx)
	if err != nil {
		t.Fatalf("/balance with the store gone: %v", err)
	}
	t.Logf("store gone → type %d ephemeral=%v after %v: %q", r.Type, r.Ephemeral, r.Latency, oneLine(text(r.Message)))
	if r.Latency >= 3*time.Second || !r.Ephemeral || !strings.Contains(text(r.Message), "Sorry") {
		t.Errorf("store gone: latency %v, ephemeral %v, %q", r.Latency, r.Ephemeral, text(r.Message))
	}
	time.Sleep(3 * time.Second) // the link opens again
	q.alive("the store came back")
	q.stop()
	q.noFailures()
	if p := q.player(alice); p.Balance != bal || p.Stats.Plays != 1 {
		t.Errorf("alice: balance %d, %d plays; want %d and 1", p.Balance, p.Stats.Plays, bal)
	}
}

// TestQACrowd: 30 players buy and reveal at the same moment while 100
// forged presses arrive: every interaction is acknowledged within 3 s and
// every player's books are exact.
func TestQACrowd(t *testing.T) {
	// Not parallel: it keeps the cores busy, so it runs alone among e2e's
	// tests, before the parallel ones; .ci/run runs it before any other package.
	q := newQA(t, boltEnv(t))
	q.draw.set(win(game.TierCandle))
	const players = 30
	users := make([]string, players)
	for i := range users {
		users[i] = fmt.Sprintf("4000000000000000%02d", i)
	}
	// Something to press for the forged presses.
	bait := q.slash(fakediscord.Slash{User: carol, Name: "play"}).Message
	press := button(t, bait, "v1:row:")
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := q.srv.Slash(q.ctx(), fakediscord.Slash{Guild: guild, Channel: chan1, User: u, Name: "play"})
			if err != nil {
				t.Errorf("%s /play: %v", u, err)
				return
			}
			r, err := p.Wait(q.ctx())
			if err != nil || r.Latency >= 3*time.Second || r.Message == nil {
				t.Errorf("%s /play: %v after %v", u, err, r.Latency)
				return
			}
			id := ""
			for _, b := range fakediscord.Buttons(r.Message) {
				if strings.HasPrefix(b.CustomID, "v1:auto:") {
					id = b.CustomID
				}
			}
			p, err = q.srv.Click(q.ctx(), fakediscord.Click{Message: r.Message.ID, CustomID: id, User: u})
			if err != nil {
				t.Errorf("%s Auto: %v", u, err)
				return
			}
			r, err = p.Wait(q.ctx())
			if err != nil || r.Latency >= 3*time.Second {
				t.Errorf("%s Auto: %v after %v", u, err, r.Latency)
			}
		}()
	}
	var forged []*fakediscord.Pending
	var n atomic.Int64
	q.m.mu.Lock()
	q.m.always = func(d map[string]any) { // only the presses of carol's bait
		if dd := dataOf(d); dd != nil && dd["custom_id"] == press {
			i := n.Add(1)
			dd["custom_id"] = fmt.Sprintf("junk:%d:%s", i, strings.Repeat("z", int(i)))
		}
	}
	q.m.mu.Unlock()
	for range 100 {
		p, err := q.srv.Click(q.ctx(), fakediscord.Click{Message: bait.ID, CustomID: press, User: carol})
		if err != nil {
			t.Fatalf("forged press %d of 100: %v (mutated %d)", len(forged), err, n.Load())
		}
		forged = append(forged, p)
	}
	for _, p := range forged {
		r, err := p.Wait(q.ctx())
		if err != nil || r.Latency >= 3*time.Second || !r.Ephemeral {
			t.Errorf("forged press: %v after %v, ephemeral %v", err, r.Latency, r.Ephemeral)
		}
	}
	wg.Wait()
	q.stop()
	q.noFailures()
	for _, u := range users {
		if p := q.player(u); p.Balance != 2000-game.Stake+100 || p.Stats.Plays != 1 {
			t.Errorf("%s: balance %d, %d plays; want %d, 1", u, p.Balance, p.Stats.Plays, 2000-game.Stake+100)
		}
	}
}

// TestQAResetsAndDoubles: /daily twice at once pays once; a reset player's
// old buttons (an open ticket, a due chest) are refused and pay nothing.
func TestQAResetsAndDoubles(t *testing.T) { bothTransports(t, qaResetsAndDoubles) }

func qaResetsAndDoubles(t *testing.T, env map[string]string) {
	q := newQA(t, env)

	// /daily ×2 at once.
	ps := []*fakediscord.Pending{q.send(fakediscord.Slash{User: bob, Name: "daily"}), q.send(fakediscord.Slash{User: bob, Name: "daily"})}
	paid := 0
	for _, p := range ps {
		r := q.answered(p, nil, "/daily ×2")
		sane(t, "/daily ×2", text(r.Message))
		if !r.Ephemeral || strings.Contains(text(r.Message), "received") {
			paid++
		}
	}
	if paid != 1 {
		t.Errorf("/daily twice at once: %d answers say paid, want 1", paid)
	}
	if got := shownBalance(t, q.slash(fakediscord.Slash{User: bob, Name: "balance"}).Message); got != 2500 {
		t.Errorf("bob after /daily ×2: %d, want 2500", got)
	}

	// Alice: an open, drawn-but-hidden winning ticket; reset; old buttons.
	q.draw.set(win(game.TierSabre))
	card := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	card = q.click(card, "v1:row:"+alice+":1:1", alice).Message // drawn, row 2 shown
	r := q.slash(modSlash("reset", "", opt("user", alice), opt("reason", "test")))
	sane(t, "reset", text(r.Message))
	q.refused(q.click(card, "v1:auto:", alice), "Auto on a reset player's ticket")
	// Carol: a due chest; reset; the chest button.
	q.draw.set(loss(true))
	c := q.slash(fakediscord.Slash{User: carol, Name: "play"}).Message
	for i := range 3 {
		c = q.click(c, "v1:auto:", carol).Message
		if i < 2 {
			c = q.click(c, "v1:again:", carol).Message
		}
	}
	if !hasButton(c, "v1:chest:") {
		t.Fatalf("carol: no chest after three keys: %q", text(c))
	}
	q.slash(modSlash("reset", "", opt("user", carol)))
	q.refused(q.click(c, "v1:chest:", carol), "the chest of a reset player")
	for _, u := range []string{alice, carol} {
		r := q.slash(fakediscord.Slash{User: u, Name: "balance"})
		if got := shownBalance(t, r.Message); got != 2000 || !strings.Contains(text(r.Message), "0 keys") {
			t.Errorf("%s after reset and old buttons: %d, %q", u, got, oneLine(text(r.Message)))
		}
	}
	// A new play after the reset starts at ticket... whatever the store says, and costs one stake.
	q.draw.set(loss(false))
	nc := q.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	if got := shownBalance(t, nc); got != 2000-game.Stake {
		t.Errorf("alice's first play after reset shows %d", got)
	}

	q.stop()
	q.noFailures()
}

// TestQAResetGuildConfirmOnce: the reset-guild confirmation pressed three
// times at once (a double click) must reset the server once.
func TestQAResetGuildConfirmOnce(t *testing.T) { bothTransports(t, qaResetGuildConfirmOnce) }

func qaResetGuildConfirmOnce(t *testing.T, env map[string]string) {
	q := newQA(t, env)
	q.slash(fakediscord.Slash{User: alice, Name: "play"})
	// Reset-guild confirmed three times at once.
	m := q.slash(modSlash("reset-guild", "")).Message
	rs := q.pressAll(m.ID, mod, fakediscord.PermsModerator, slices.Repeat([]string{button(t, m, "v1:rg:")}, 3)...)
	done := 0
	for _, r := range rs {
		if r.Message != nil && strings.Contains(text(r.Message), "were reset") {
			done++
		}
	}
	a := text(q.slash(modSlash("audit", "")).Message)
	if n := strings.Count(a, "**server reset**"); n != 1 {
		t.Errorf("reset-guild confirmed ×3 at once: %d audit entries (answers saying done: %d)", n, done)
	}
	t.Logf("audit → %q", oneLine(a))
	q.stop()
	q.noFailures()
}

// TestQAChannelIDOnlyInChannelObject: a payload without channel_id, only
// the channel object (which discordgo v0.29 does not decode; Discord sends
// both). The bot cannot place such a play, so where a play channel is set
// it refuses it privately, naming the channel, and charges nothing: a play
// channel can never be bypassed by leaving channel_id out.
func TestQAChannelIDOnlyInChannelObject(t *testing.T) {
	t.Parallel()
	q := newQA(t, boltEnv(t))
	q.slash(modSlash("settings", "", opt("channel", chan1)))
	noChannelID := func(d map[string]any) { delete(d, "channel_id") }
	for _, ch := range []string{chan1, "900000000000000009"} {
		r, _, err := q.mutSlash(fakediscord.Slash{User: alice, Name: "play", Channel: ch}, noChannelID)
		okAnswer(t, "/play without channel_id", r, err)
		if !r.Ephemeral || !strings.Contains(text(r.Message), "<#"+chan1+">") {
			t.Errorf("/play in %s without channel_id: want a private refusal naming the play channel, got ephemeral=%v %q", ch, r.Ephemeral, oneLine(text(r.Message)))
		}
	}
	q.stop()
	if p := q.player(alice); p.Stats.Plays != 0 {
		t.Errorf("%d tickets bought; want none", p.Stats.Plays)
	}
}
