package bot_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/fairpage"
)

// testKey is the application's key pair in these tests.
var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

// signed builds a POST of body signed with key at time ts, as Discord sends it.
func signed(tb testing.TB, url string, key ed25519.PrivateKey, ts time.Time, body string) *http.Request {
	tb.Helper()
	stamp := strconv.FormatInt(ts.Unix(), 10)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature-Timestamp", stamp)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, []byte(stamp+body))))
	return req
}

// recorder counts what the endpoint reports to its Observer.
type recorder struct {
	mu       sync.Mutex
	rejected map[string]int
	received int
}

func (r *recorder) ShardUp(int, bool) {}
func (r *recorder) Received(transport string, shard int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if transport == "http" && shard == -1 {
		r.received++
	}
}
func (r *recorder) Rejected(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejected[reason]++
}

// newEndpoint is bot.NewEndpoint with the tests' token and key, and a
// quiet logger.
func newEndpoint(tb testing.TB, h bot.Handler, o bot.EndpointOptions) *bot.Endpoint {
	tb.Helper()
	o.Token, o.PublicKey, o.Logger = token, testKey.Public().(ed25519.PublicKey), quiet()
	e, err := bot.NewEndpoint(o, h)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// endpoint serves an Endpoint over h on an httptest server; REST calls
// (edits) go to apiBase.
func endpoint(tb testing.TB, h bot.Handler, apiBase string) (*httptest.Server, *recorder) {
	tb.Helper()
	rec := &recorder{rejected: map[string]int{}}
	srv := httptest.NewServer(newEndpoint(tb, h, bot.EndpointOptions{Options: bot.Options{APIBase: apiBase, Observer: rec}}))
	tb.Cleanup(srv.Close)
	return srv, rec
}

// post sends body to url signed with testKey at ts, failing the test on an
// error; the response's body is closed when the test ends.
func post(t *testing.T, url string, ts time.Time, body string) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(signed(t, url, testKey, ts, body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func interactionJSON(id string, typ discordgo.InteractionType) string {
	return `{"id":"` + id + `","application_id":"99","type":` + strconv.Itoa(int(typ)) +
		`,"token":"tok-` + id + `","guild_id":"` + guild + `","member":{"user":{"id":"7"},"permissions":"0"},` +
		`"data":{"id":"5","name":"ping","type":1},"locale":"en-US","version":1}`
}

func TestEndpointAnswersInTheReply(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		calls.Add(1)
		if err := say(ctx, r, i, "pong from "+i.ID); err != nil {
			t.Errorf("respond: %v", err)
		}
	}}
	srv, rec := endpoint(t, h, "")
	resp := post(t, srv.URL+"/interactions", time.Now(), interactionJSON("101", discordgo.InteractionApplicationCommand))
	var got discordgo.InteractionResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, decode %v", resp.StatusCode, err)
	}
	if got.Type != discordgo.InteractionResponseChannelMessageWithSource || got.Data == nil || got.Data.Content != "pong from 101" {
		t.Errorf("reply = %+v", got)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	if calls.Load() != 1 || rec.received != 1 {
		t.Errorf("handler called %d times, %d received", calls.Load(), rec.received)
	}
}

func TestEndpointPing(t *testing.T) {
	t.Parallel()
	srv, _ := endpoint(t, stub{handle: func(context.Context, commands.Responder, *discordgo.Interaction) {
		t.Error("a PING reached the handler")
	}}, "")
	resp := post(t, srv.URL+"/interactions", time.Now(), `{"id":"1","application_id":"99","type":1,"token":"t","version":1}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != `{"type":1}` {
		t.Errorf("PING answered %d %s", resp.StatusCode, b)
	}
}

// TestEndpointRefuses sends what the endpoint must refuse: each is
// answered with its status, counted under its reason, and never reaches
// the handler.
func TestEndpointRefuses(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv, rec := endpoint(t, stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		calls.Add(1)
		_ = say(ctx, r, i, "ok")
	}}, "")
	url := srv.URL + "/interactions"
	body := interactionJSON("202", discordgo.InteractionApplicationCommand)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	now := time.Now()
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		reason string
	}{
		{"unsigned", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			return r
		}, http.StatusUnauthorized, "signature"},
		{"another key", func() *http.Request { return signed(t, url, otherKey, now, body) }, http.StatusUnauthorized, "signature"},
		{"tampered body", func() *http.Request {
			r := signed(t, url, testKey, now, body)
			r.Body = io.NopCloser(strings.NewReader(strings.Replace(body, `"7"`, `"8"`, 1)))
			return r
		}, http.StatusUnauthorized, "signature"},
		{"tampered timestamp", func() *http.Request {
			r := signed(t, url, testKey, now, body)
			r.Header.Set("X-Signature-Timestamp", strconv.FormatInt(now.Unix()+1, 10))
			return r
		}, http.StatusUnauthorized, "signature"},
		{"signature not hex", func() *http.Request {
			r := signed(t, url, testKey, now, body)
			r.Header.Set("X-Signature-Ed25519", "zz")
			return r
		}, http.StatusUnauthorized, "signature"},
		{"replayed after 6 minutes", func() *http.Request { return signed(t, url, testKey, now.Add(-6*time.Minute), body) }, http.StatusUnauthorized, "stale"},
		{"dated in the future", func() *http.Request { return signed(t, url, testKey, now.Add(6*time.Minute), body) }, http.StatusUnauthorized, "stale"},
		{"GET", func() *http.Request { r, _ := http.NewRequest(http.MethodGet, url, nil); return r }, http.StatusMethodNotAllowed, "method"},
		{"form", func() *http.Request {
			r := signed(t, url, testKey, now, body)
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusUnsupportedMediaType, "content_type"},
		{"too large", func() *http.Request {
			return signed(t, url, testKey, now, `{"id":"1","pad":"`+strings.Repeat("x", bot.MaxBodyBytes)+`"}`)
		}, http.StatusRequestEntityTooLarge, "too_large"},
		{"not JSON", func() *http.Request { return signed(t, url, testKey, now, `{"id":`) }, http.StatusBadRequest, "malformed"},
		{"no token", func() *http.Request { return signed(t, url, testKey, now, `{"id":"3","type":2}`) }, http.StatusBadRequest, "malformed"},
		{"id not a number", func() *http.Request { return signed(t, url, testKey, now, `{"id":"x","type":2,"token":"t"}`) }, http.StatusBadRequest, "malformed"},
	}
	for _, tt := range tests {
		resp, err := http.DefaultClient.Do(tt.req())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the handler ran %d times for refused requests", n)
	}
	want := map[string]int{}
	for _, tt := range tests {
		want[tt.reason]++
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for reason, n := range want {
		if rec.rejected[reason] != n {
			t.Errorf("rejected[%s] = %d, want %d", reason, rec.rejected[reason], n)
		}
	}
	if rec.received != 0 {
		t.Errorf("%d refused requests counted as received", rec.received)
	}
	if resp, err := http.Get(srv.URL + "/other"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %v %v", resp, err)
	}
}

// TestEndpointApologisesForAnUndecodableInteraction: a signed interaction
// with a field of the wrong type is answered as on the gateway, with a
// private apology, and never reaches the handler.
func TestEndpointApologisesForAnUndecodableInteraction(t *testing.T) {
	t.Parallel()
	srv, _ := endpoint(t, stub{handle: func(context.Context, commands.Responder, *discordgo.Interaction) {
		t.Error("an undecodable interaction reached the handler")
	}}, "")
	body := `{"id":"606","token":"t","type":2,"guild_id":123,"locale":"fr"}`
	resp := post(t, srv.URL+"/interactions", time.Now(), body)
	var got discordgo.InteractionResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if got.Data == nil || got.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(got.Data.Content, "Désolé") {
		t.Errorf("reply %+v", got.Data)
	}
}

// TestEndpointRefusesAReplay sends one signed interaction twice: the
// handler runs once, the second copy gets a 409.
func TestEndpointRefusesAReplay(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv, _ := endpoint(t, stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		calls.Add(1)
		_ = say(ctx, r, i, "ok")
	}}, "")
	body := interactionJSON("303", discordgo.InteractionMessageComponent)
	now := time.Now()
	var statuses []int
	for range 2 {
		resp := post(t, srv.URL+"/interactions", now, body)
		statuses = append(statuses, resp.StatusCode)
	}
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusConflict || calls.Load() != 1 {
		t.Errorf("statuses %v, handler ran %d times; want 200, 409 and once", statuses, calls.Load())
	}
}

// TestEndpointDeferThenEdit: a slow handler's deferral is the HTTP reply,
// and its edit goes over REST after it, with the interaction's token.
func TestEndpointDeferThenEdit(t *testing.T) {
	t.Parallel()
	var edits atomic.Int32
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/webhooks/99/tok-404/messages/@original") {
			edits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"1","channel_id":"2","content":"done"}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer rest.Close()
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		if err := r.Respond(ctx, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
			t.Errorf("defer: %v", err)
		}
		content := "done"
		if err := r.EditOriginal(ctx, i, &discordgo.WebhookEdit{Content: &content}); err != nil {
			t.Errorf("edit: %v", err)
		}
	}}
	srv, _ := endpoint(t, h, rest.URL)
	resp := post(t, srv.URL+"/interactions", time.Now(), interactionJSON("404", discordgo.InteractionApplicationCommand))
	var got discordgo.InteractionResponse
	err := json.NewDecoder(resp.Body).Decode(&got)
	if err != nil || got.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("reply %+v, %v", got, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for edits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if edits.Load() != 1 {
		t.Fatalf("%d edits over REST, want 1", edits.Load())
	}
}

// TestEndpointRun registers the commands on the fake Discord, serves on a
// free port and stops cleanly.
func TestEndpointRun(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	e := newEndpoint(t, stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) { _ = say(ctx, r, i, "ok") }},
		bot.EndpointOptions{Options: bot.Options{GuildID: guild, APIBase: srv.URL()}, Addr: "127.0.0.1:0"})
	if err := e.Health(context.Background()); !errors.Is(err, bot.ErrStarting) {
		t.Errorf("Health before Run = %v, want ErrStarting", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("not serving after 10 s")
	}
	if cmds := srv.Commands(guild); len(cmds) != 1 || cmds[0].Name != "ping" {
		t.Errorf("registered: %v", cmds)
	}
	if err := e.Health(ctx); err != nil {
		t.Errorf("Health while serving = %v", err)
	}
	resp := post(t, "http://"+addr.String()+"/interactions", time.Now(), interactionJSON("505", discordgo.InteractionApplicationCommand))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := e.Health(context.Background()); err == nil || errors.Is(err, bot.ErrStarting) {
		t.Errorf("Health after Run = %v, want stopped", err)
	}
}

// TestEndpointAnswersWithAFile checks that a reply with a file goes as
// multipart/form-data: the JSON in payload_json, the file in files[0].
func TestEndpointAnswersWithAFile(t *testing.T) {
	t.Parallel()
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		err := r.Respond(ctx, i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "here", Files: []*discordgo.File{
				{Name: "x.json", ContentType: "application/json", Reader: strings.NewReader(`{"v":1}`)},
			}},
		})
		if err != nil {
			t.Errorf("respond: %v", err)
		}
	}}
	srv, _ := endpoint(t, h, "")
	resp := post(t, srv.URL+"/interactions", time.Now(), interactionJSON("111", discordgo.InteractionApplicationCommand))
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, content type %q (%v)", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	parts := map[string]string{}
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		parts[p.FormName()] = string(b)
	}
	var got discordgo.InteractionResponse
	if err := json.Unmarshal([]byte(parts["payload_json"]), &got); err != nil || got.Data == nil || got.Data.Content != "here" {
		t.Errorf("payload_json %q (%v)", parts["payload_json"], err)
	}
	if parts["files[0]"] != `{"v":1}` {
		t.Errorf("files[0] = %q, parts %v", parts["files[0]"], parts)
	}
}

// TestEndpointServesTheFairPage checks GET /fair beside /interactions.
func TestEndpointServesTheFairPage(t *testing.T) {
	t.Parallel()
	srv, _ := endpoint(t, stub{handle: func(context.Context, commands.Responder, *discordgo.Interaction) {}}, "")
	for _, tc := range []struct {
		method string
		status int
	}{{http.MethodGet, 200}, {http.MethodHead, 200}, {http.MethodPost, 405}, {http.MethodPut, 405}} {
		req, err := http.NewRequest(tc.method, srv.URL+"/fair", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s /fair = %d, want %d", tc.method, resp.StatusCode, tc.status)
		}
		if tc.status == 200 && resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s /fair: Content-Type %q", tc.method, resp.Header.Get("Content-Type"))
		}
		if tc.method == http.MethodGet && !bytes.Equal(b, fairpage.HTML()) {
			t.Errorf("GET /fair: %d bytes, not the page", len(b))
		}
	}
}
