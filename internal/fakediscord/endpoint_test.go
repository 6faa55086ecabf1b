package fakediscord_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// request is a request the endpoint received, kept to replay it.
type request struct {
	header http.Header
	body   []byte
}

// endpoint is a bot's interactions endpoint as a bot writes it: it checks
// the signature with discordgo.VerifyInteraction (401 otherwise), answers
// PING with PONG, and lets answer reply to every other interaction.
type endpoint struct {
	*httptest.Server
	key ed25519.PublicKey

	mu     sync.Mutex
	answer func(i *discordgo.Interaction) (status int, body any)
	seen   []request
}

func startEndpoint(tb testing.TB, publicKeyHex string) *endpoint {
	tb.Helper()
	key, err := hex.DecodeString(publicKeyHex)
	if err != nil {
		tb.Fatal(err)
	}
	e := &endpoint{key: key}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	tb.Cleanup(e.Close)
	return e
}

func (e *endpoint) handle(f func(i *discordgo.Interaction) (int, any)) {
	e.mu.Lock()
	e.answer = f
	e.mu.Unlock()
}

func (e *endpoint) requests() []request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]request(nil), e.seen...)
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	if !discordgo.VerifyInteraction(r, e.key) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body) // VerifyInteraction put the body back
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.seen = append(e.seen, request{r.Header.Clone(), body})
	answer := e.answer
	e.mu.Unlock()
	status, reply := http.StatusOK, any(map[string]int{"type": 1})
	if i.Type != discordgo.InteractionPing {
		if answer == nil {
			http.Error(w, "no handler", http.StatusInternalServerError)
			return
		}
		status, reply = answer(&i)
	}
	if mp, ok := reply.(multipartReply); ok {
		w.Header().Set("Content-Type", mp.contentType)
		w.WriteHeader(status)
		_, _ = w.Write(mp.body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	switch v := reply.(type) {
	case string:
		_, _ = io.WriteString(w, v)
	default:
		_ = json.NewEncoder(w).Encode(v)
	}
}

// multipartReply is a reply of the endpoint with files, as
// discordgo.MultipartBodyWithJSON encodes it.
type multipartReply struct {
	contentType string
	body        []byte
}

// httpSetup is a fake that posts interactions to an endpoint (its PING
// answered) and a REST-only bot that registered cmds on the guild.
func httpSetup(tb testing.TB, opts fakediscord.Options, cmds ...*discordgo.ApplicationCommand) (*endpoint, *fakediscord.Server, *discordgo.Session) {
	tb.Helper()
	ep := startEndpoint(tb, fakediscord.TestPublicKeyHex)
	opts.InteractionsURL = ep.URL + "/interactions"
	srv := startFake(tb, opts)
	bot := restSession(tb, srv, token)
	if err := srv.Ping(ctxT(tb)); err != nil {
		tb.Fatalf("Ping: %v", err)
	}
	if _, err := bot.ApplicationCommandBulkOverwrite(srv.AppID(), guild, cmds); err != nil {
		tb.Fatal(err)
	}
	return ep, srv, bot
}

func message(content string, components ...discordgo.MessageComponent) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: content, Components: components},
	}
}

func TestTestKey(t *testing.T) {
	t.Parallel()
	if got := fakediscord.New(fakediscord.Options{Token: token}).PublicKeyHex(); got != fakediscord.TestPublicKeyHex {
		t.Errorf("default PublicKeyHex = %s, want TestPublicKeyHex %s", got, fakediscord.TestPublicKeyHex)
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fakediscord.New(fakediscord.Options{Token: token, PrivateKey: priv}).PublicKeyHex(); got != hex.EncodeToString(pub) {
		t.Errorf("PublicKeyHex = %s, want the given key's %x", got, pub)
	}
	// The application's verify_key is that key, as the Developer Portal shows it.
	srv := startFake(t, fakediscord.Options{PrivateKey: priv})
	app, err := restSession(t, srv, token).Application("@me")
	if err != nil {
		t.Fatal(err)
	}
	if app.VerifyKey != hex.EncodeToString(pub) {
		t.Errorf("verify_key = %s, want %x", app.VerifyKey, pub)
	}
}

// TestHTTPInteractions runs a slash command, a click and a deferred reply
// edited over REST through an interactions endpoint that verifies Discord's
// signatures with discordgo.VerifyInteraction.
func TestHTTPInteractions(t *testing.T) {
	t.Parallel()
	ep, srv, bot := httpSetup(t, fakediscord.Options{}, playCmd, &discordgo.ApplicationCommand{Name: "slow", Description: "Takes time"})
	ctx := ctxT(t)
	edited := make(chan error, 1)
	ep.handle(func(i *discordgo.Interaction) (int, any) {
		if i.Type == discordgo.InteractionMessageComponent {
			return 200, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "clicked " + i.MessageComponentData().CustomID},
			}
		}
		if i.ApplicationCommandData().Name == "slow" {
			go func() {
				// The edit may reach the fake before it has read the reply.
				content := "done"
				_, err := bot.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content})
				edited <- err
			}()
			return 200, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}
		}
		return 200, message("grid", buttons("auto")...)
	})

	p, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "222", User: "333", Locale: discordgo.French, Name: "play"}))
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Message == nil || r.Message.Content != "grid" ||
		r.Message.ChannelID != "222" || r.Latency <= 0 {
		t.Fatalf("response = %+v", r)
	}
	reqs := ep.requests()
	if len(reqs) != 2 { // the PING, the command
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	h := reqs[1].header
	if h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "Discord-Interactions/1.0 (+https://discord.com)" {
		t.Errorf("headers = %v", h)
	}
	if ts, err := strconv.ParseInt(h.Get("X-Signature-Timestamp"), 10, 64); err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
		t.Errorf("X-Signature-Timestamp = %q, want unix seconds of now", h.Get("X-Signature-Timestamp"))
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(reqs[1].body, &i); err != nil {
		t.Fatal(err)
	}
	if i.ID != p.ID() || i.GuildID != guild || i.Member.User.ID != "333" || i.Locale != discordgo.French || i.Token == "" {
		t.Errorf("interaction as posted: %+v", i)
	}

	if _, r2 := answered(t, ctx)(srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "auto", User: "333"})); r2.Type != discordgo.InteractionResponseUpdateMessage ||
		r2.Message.ID != r.Message.ID || r2.Message.Content != "clicked auto" {
		t.Errorf("click: %+v", r2)
	}

	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "333", Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-edited; err != nil {
		t.Fatalf("REST edit after the deferred reply: %v", err)
	}
	r, err = p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || r.Edits != 1 || r.Message.Content != "done" ||
		r.Message.Flags&discordgo.MessageFlagsLoading != 0 {
		t.Errorf("deferred then edited: %+v", r)
	}
	if m, ok := srv.Message(r.Message.ID); !ok || m.Content != "done" {
		t.Errorf("stored message = %+v", m)
	}
	noFailures(t, srv)
}

// TestSignature proves the signature is Discord's: VerifyInteraction takes
// the request as posted, and refuses it with its body tampered with, its
// timestamp changed, or another key.
func TestSignature(t *testing.T) {
	t.Parallel()
	ep := startEndpoint(t, fakediscord.TestPublicKeyHex)
	srv := startFake(t, fakediscord.Options{InteractionsURL: ep.URL})
	if err := srv.Ping(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	req := ep.requests()[0]
	otherKey, _, _ := ed25519.GenerateKey(nil)
	testKey, _ := hex.DecodeString(fakediscord.TestPublicKeyHex)
	verify := func(body []byte, header http.Header, key ed25519.PublicKey) bool {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header = header
		return discordgo.VerifyInteraction(r, key)
	}
	tampered := bytes.Replace(req.body, []byte(`"type":1`), []byte(`"type":2`), 1)
	if bytes.Equal(tampered, req.body) {
		t.Fatalf("no type in %s", req.body)
	}
	later := req.header.Clone()
	ts, _ := strconv.ParseInt(later.Get("X-Signature-Timestamp"), 10, 64)
	later.Set("X-Signature-Timestamp", strconv.FormatInt(ts+1, 10))
	tests := []struct {
		name   string
		body   []byte
		header http.Header
		key    ed25519.PublicKey
		want   bool
	}{
		{"as posted", req.body, req.header, testKey, true},
		{"tampered body", tampered, req.header, testKey, false},
		{"other timestamp", req.body, later, testKey, false},
		{"other key", req.body, req.header, otherKey, false},
	}
	for _, tt := range tests {
		if got := verify(tt.body, tt.header, tt.key); got != tt.want {
			t.Errorf("%s: VerifyInteraction = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The fake signs with the key it is given, and the endpoint, which
	// knows the test key, refuses it: the interaction fails.
	_, priv, _ := ed25519.GenerateKey(nil)
	other := startFake(t, fakediscord.Options{InteractionsURL: ep.URL, PrivateKey: priv})
	if err := other.Ping(ctxT(t)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Ping signed with another key: %v, want the endpoint's 401", err)
	}
}

// TestHTTPEndpointFailures: whatever keeps the initial response from Discord
// is a Failure, and the interaction fails at once: its Wait ends before
// half the deadline has passed.
func TestHTTPEndpointFailures(t *testing.T) {
	t.Parallel()
	const deadline = 3 * time.Second
	ep, srv, bot := httpSetup(t, fakediscord.Options{AckTimeout: deadline}, playCmd)
	ctx := ctxT(t)
	tests := []struct {
		name     string
		status   int
		reply    any
		wantErr  error
		status2  int    // Failure.Status
		code     int    // Failure.Code
		contains string // in Failure.Message or Errors
	}{
		{"401", http.StatusUnauthorized, `{"error":"nope"}`, fakediscord.ErrEndpoint, 401, 0, "answered 401"},
		{"500", http.StatusInternalServerError, "boom", fakediscord.ErrEndpoint, 500, 0, "boom"},
		{"malformed JSON", 200, `{"type":4,`, fakediscord.ErrEndpoint, 400, 50109, "not valid JSON"},
		{"empty body", 200, "", fakediscord.ErrEndpoint, 400, 50109, "no body"},
		{"content too long", 200, message(strings.Repeat("x", 2001)), fakediscord.ErrEndpoint, 400, 50035, `"content"`},
		{"update on a command", 200, &discordgo.InteractionResponse{Type: 7, Data: &discordgo.InteractionResponseData{Content: "x"}}, fakediscord.ErrEndpoint, 400, 50035, `"type"`},
		{"too slow", 200, "slow", fakediscord.ErrNoCallback, 0, 10062, "no callback within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep.handle(func(i *discordgo.Interaction) (int, any) {
				if tt.reply == "slow" {
					time.Sleep(deadline + 200*time.Millisecond)
					return 200, message("late")
				}
				return tt.status, tt.reply
			})
			before := len(srv.Failures())
			p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
			if err != nil {
				t.Fatal(err)
			}
			wait := ctx
			if tt.wantErr == fakediscord.ErrEndpoint {
				var cancel context.CancelFunc
				wait, cancel = context.WithTimeout(ctx, deadline/2)
				defer cancel()
			}
			if _, err := p.Wait(wait); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Wait = %v, want %v", err, tt.wantErr)
			}
			f := srv.Failures()[before:]
			if len(f) != 1 || f[0].Status != tt.status2 || f[0].Code != tt.code || f[0].Interaction != p.ID() ||
				!strings.Contains(f[0].Message+f[0].Errors, tt.contains) {
				t.Fatalf("failures = %v, want one %d %d %q", f, tt.status2, tt.code, tt.contains)
			}
			if tt.status2 != 0 && f[0].Path != ep.URL+"/interactions" {
				t.Errorf("failure path = %q, want the endpoint's URL", f[0].Path)
			}
			// Nor can the bot answer over REST afterwards.
			in := &discordgo.Interaction{ID: p.ID(), Token: tokenOf(t, ep, p.ID())}
			if st, code := restCode(bot.InteractionRespond(in, message("after"))); st != 404 || code != 10062 {
				t.Errorf("REST callback after the failure: %d %d, want 404 10062", st, code)
			}
		})
	}

	// No endpoint listening: a Failure without a status.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	srv.SetInteractionsURL(dead.URL)
	before := len(srv.Failures())
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(ctx); !errors.Is(err, fakediscord.ErrEndpoint) {
		t.Errorf("Wait = %v, want ErrEndpoint", err)
	}
	if f := srv.Failures()[before:]; len(f) != 1 || f[0].Status != 0 || !strings.Contains(f[0].Message, "interactions endpoint") {
		t.Errorf("failures = %v", f)
	}
}

// tokenOf finds the token of an interaction among the posted ones.
func tokenOf(tb testing.TB, ep *endpoint, id string) string {
	tb.Helper()
	for _, r := range ep.requests() {
		var i discordgo.Interaction
		if json.Unmarshal(r.body, &i) == nil && i.ID == id {
			return i.Token
		}
	}
	tb.Fatalf("interaction %s not posted", id)
	return ""
}

// TestPingChecks: the Developer Portal refuses an endpoint that skips the
// signature check or does not answer PONG.
func TestPingChecks(t *testing.T) {
	t.Parallel()
	trusting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":1}`)
	}))
	defer trusting.Close()
	srv := startFake(t, fakediscord.Options{})
	ctx := ctxT(t)
	if err := srv.Ping(ctx); err == nil {
		t.Error("Ping without an endpoint succeeded")
	}
	srv.SetInteractionsURL(trusting.URL)
	if err := srv.Ping(ctx); err == nil || !strings.Contains(err.Error(), "wrong signature") {
		t.Errorf("Ping of an endpoint that trusts anyone: %v", err)
	}
	ep := startEndpoint(t, fakediscord.TestPublicKeyHex)
	ep.handle(func(*discordgo.Interaction) (int, any) { return 200, nil })
	// An endpoint answering something else than PONG to a PING.
	notPong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !discordgo.VerifyInteraction(r, ep.key) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"type":4,"data":{"content":"hi"}}`)
	}))
	defer notPong.Close()
	srv.SetInteractionsURL(notPong.URL)
	if err := srv.Ping(ctx); err == nil || !strings.Contains(err.Error(), "PONG") {
		t.Errorf("Ping answered with a message: %v", err)
	}
	srv.SetInteractionsURL(ep.URL)
	if err := srv.Ping(ctx); err != nil {
		t.Errorf("Ping of a good endpoint: %v", err)
	}
	noFailures(t, srv)
}

// TestSwitchToHTTP: with the endpoint set at runtime, the gateway gets no
// more interactions; set back to "", it gets them again.
func TestSwitchToHTTP(t *testing.T) {
	t.Parallel()
	ep := startEndpoint(t, fakediscord.TestPublicKeyHex)
	ep.handle(func(*discordgo.Interaction) (int, any) { return 200, message("over HTTP") })
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		_ = s.InteractionRespond(i, message("over the gateway"))
	})
	for _, tt := range []struct{ url, want string }{{ep.URL, "over HTTP"}, {"", "over the gateway"}} {
		srv.SetInteractionsURL(tt.url)
		if got := srv.InteractionsURL(); got != tt.url {
			t.Errorf("InteractionsURL = %q, want %q", got, tt.url)
		}
		if _, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})); r.Message.Content != tt.want {
			t.Errorf("with %q: %+v; want %q", tt.url, r, tt.want)
		}
	}
	noFailures(t, srv)
}
