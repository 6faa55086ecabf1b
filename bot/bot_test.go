package bot_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

const (
	token = "bot-test-token"
	guild = "123456789012345678"
)

// stub is a Handler whose behaviour a test sets.
type stub struct {
	handle func(ctx context.Context, r commands.Responder, i *discordgo.Interaction)
}

func (stub) Definitions() []*discordgo.ApplicationCommand {
	return []*discordgo.ApplicationCommand{{Name: "ping", Description: "Ping"}}
}

func (stub) EntryPoint() *commands.Command { return nil }

func (s stub) Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
	s.handle(ctx, r, i)
}

func say(ctx context.Context, r commands.Responder, i *discordgo.Interaction, content string) error {
	return r.Respond(ctx, i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: content},
	})
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func startFake(tb testing.TB) *fakediscord.Server {
	tb.Helper()
	return startFakeWith(tb, fakediscord.Options{Token: token})
}

func startFakeWith(tb testing.TB, o fakediscord.Options) *fakediscord.Server {
	tb.Helper()
	srv := fakediscord.New(o)
	if err := srv.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// run starts the bot (its REST calls to opts.APIBase, or else srv; its
// logs to opts.Logger, or else nowhere); the returned stop cancels it and
// returns Run's error.
func run(tb testing.TB, srv *fakediscord.Server, h bot.Handler, opts bot.GatewayOptions) (*bot.Gateway, func() error) {
	tb.Helper()
	opts.Token, opts.Logger = token, cmp.Or(opts.Logger, quiet())
	if opts.APIBase == "" {
		opts.APIBase = srv.URL()
	}
	b, err := bot.NewGateway(opts, h)
	if err != nil {
		tb.Fatal(err)
	}
	return b, start(tb, b)
}

// start runs b until the test ends, once it is ready; the returned stop
// cancels it and returns Run's error.
func start(tb testing.TB, b *bot.Gateway) func() error {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	select {
	case <-b.Ready():
	case err := <-done:
		cancel()
		tb.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		tb.Fatal("bot not ready after 10 s")
	}
	stopped := false
	var result error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-done
		}
		return result
	}
	tb.Cleanup(func() { stop() })
	return stop
}

// session is a discordgo session of the tests' token whose REST calls go
// to base.
func session(tb testing.TB, base string) *discordgo.Session {
	tb.Helper()
	s, err := bot.NewSession(token, base, bot.TransportOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// ping sends /ping in the guild as user, failing the test if the fake
// cannot.
func ping(ctx context.Context, tb testing.TB, srv *fakediscord.Server, user string) *fakediscord.Pending {
	tb.Helper()
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: user, Name: "ping"})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func waitCtx(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

func TestRunServesAndStops(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		if err := r.Respond(ctx, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
			t.Errorf("defer: %v", err)
		}
		content := "pong"
		if err := r.EditOriginal(ctx, i, &discordgo.WebhookEdit{Content: &content}); err != nil {
			t.Errorf("edit: %v", err)
		}
		if err := r.FollowUp(ctx, i, &discordgo.WebhookParams{Content: "again"}); err != nil {
			t.Errorf("follow-up: %v", err)
		}
	}}
	b, stop := run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild}})
	ctx := waitCtx(t)
	if cmds := srv.Commands(guild); len(cmds) != 1 || cmds[0].Name != "ping" {
		t.Fatalf("registered on the guild: %v", cmds)
	}
	if cmds := srv.Commands(""); cmds != nil {
		t.Errorf("registered globally too: %v", cmds)
	}
	id, err := srv.WaitIdentified(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Intents != discordgo.IntentsNone || id.Token != "Bot "+token {
		t.Errorf("identify: intents %d", id.Intents)
	}
	if err := b.Health(ctx); err != nil {
		t.Errorf("not connected after Ready: %v", err)
	}
	p := ping(ctx, t, srv, "7")
	r, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "pong" {
		t.Errorf("response = %+v", r)
	}
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if b.Health(ctx) == nil {
		t.Error("still connected after shutdown")
	}
	for _, f := range srv.Failures() {
		t.Errorf("failure: %s", f)
	}
}

func TestShutdownWaitsForInteractions(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		if err := say(ctx, r, i, "late but fine"); err != nil {
			t.Errorf("respond during shutdown: %v", err)
		}
	}}
	_, stop := run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild, ShutdownTimeout: 5 * time.Second}})
	ctx := waitCtx(t)
	p := ping(ctx, t, srv, "7")
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Run returned before the interaction finished: %v", err)
	case <-time.After(1500 * time.Millisecond): // discordgo's Close alone takes 1 s
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Errorf("Run: %v", err)
	}
	if r, ok := p.Snapshot(); !ok || r.Message.Content != "late but fine" {
		t.Errorf("the interaction in progress did not finish: %+v", r)
	}
}

func TestShutdownTimeoutCancels(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	started := make(chan struct{})
	var cancelled atomic.Bool
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		close(started)
		<-ctx.Done()
		cancelled.Store(true)
	}}
	_, stop := run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild, ShutdownTimeout: 100 * time.Millisecond}})
	ctx := waitCtx(t)
	ping(ctx, t, srv, "7")
	<-started
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if !cancelled.Load() {
		t.Error("the handler's context was not cancelled after the shutdown timeout")
	}
}

func TestPanicDoesNotStopTheBot(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	var n atomic.Int32
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		if n.Add(1) == 1 {
			panic("boom")
		}
		_ = say(ctx, r, i, "ok")
	}}
	_, _ = run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild}})
	ctx := waitCtx(t)
	ping(ctx, t, srv, "7")
	for n.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	p := ping(ctx, t, srv, "7")
	if r, err := p.Wait(ctx); err != nil || r.Message.Content != "ok" {
		t.Errorf("after a panic: %+v, %v", r, err)
	}
}

func TestBadTokenFailsRun(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	b, err := bot.NewGateway(bot.GatewayOptions{Options: bot.Options{Token: "wrong", APIBase: srv.URL(), Logger: quiet()}}, stub{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	err = b.Run(ctx)
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response.StatusCode != http.StatusUnauthorized {
		t.Errorf("Run with a wrong token = %v, want a 401", err)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts bot.GatewayOptions
		h    bot.Handler
	}{
		{"no token", bot.GatewayOptions{}, stub{}},
		{"no handler", bot.GatewayOptions{Options: bot.Options{Token: "t"}}, nil},
		{"shard out of range", bot.GatewayOptions{Options: bot.Options{Token: "t"}, ShardIDs: []int{2}, ShardCount: 2}, stub{}},
		{"shards unordered", bot.GatewayOptions{Options: bot.Options{Token: "t"}, ShardIDs: []int{1, 0}}, stub{}},
		{"no shards", bot.GatewayOptions{Options: bot.Options{Token: "t"}, ShardIDs: []int{}}, stub{}},
		{"negative count", bot.GatewayOptions{Options: bot.Options{Token: "t"}, ShardCount: -1}, stub{}},
		{"negative disconnect grace", bot.GatewayOptions{Options: bot.Options{Token: "t"}, DisconnectGrace: -time.Second}, stub{}},
		{"bad base", bot.GatewayOptions{Options: bot.Options{Token: "t", APIBase: "ftp://x"}}, stub{}},
	}
	for _, tt := range tests {
		if _, err := bot.NewGateway(tt.opts, tt.h); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
}

func TestRewriter(t *testing.T) {
	t.Parallel()
	var got []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Host+" "+r.URL.Path)
	}))
	defer backend.Close()
	tests := []struct {
		base, in, want string
	}{
		{backend.URL, "https://discord.com/api/v9/gateway", "/api/v9/gateway"},
		{backend.URL + "/proxy/", "https://discord.com/api/v9/users/@me", "/proxy/api/v9/users/@me"},
	}
	for _, tt := range tests {
		base, _ := url.Parse(tt.base)
		c := &http.Client{Transport: &bot.Rewriter{Base: base}}
		resp, err := c.Get(tt.in)
		if err != nil {
			t.Fatalf("GET %s: %v", tt.in, err)
		}
		resp.Body.Close()
		want := base.Host + " " + tt.want
		if got[len(got)-1] != want {
			t.Errorf("GET %s via %s reached %q, want %q", tt.in, tt.base, got[len(got)-1], want)
		}
	}
	// Other hosts are not rewritten.
	base, _ := url.Parse("http://127.0.0.1:1")
	c := &http.Client{Transport: &bot.Rewriter{Base: base}}
	resp, err := c.Get(backend.URL + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got[len(got)-1] != backend.Listener.Addr().String()+" /direct" {
		t.Errorf("other host rewritten: %v", got)
	}
}

func TestStopWhileStartingIsClean(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	b, err := bot.NewGateway(bot.GatewayOptions{Options: bot.Options{Token: token, APIBase: srv.URL(), Logger: quiet()}}, stub{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // SIGINT before the commands are registered
	if err := b.Run(ctx); err != nil {
		t.Errorf("Run cancelled while starting = %v, want nil", err)
	}
	if b.Health(context.Background()) == nil {
		t.Error("still connected")
	}
}

// TestEditsOfDifferentInteractionsOverlap checks that the edit of one
// interaction does not wait for the edit of another (discordgo's default
// puts them all in one rate-limit bucket held for the whole request).
func TestEditsOfDifferentInteractionsOverlap(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	// A proxy in front of the fake holds the first PATCH until a second
	// one arrives (or 3 s pass).
	var patches atomic.Int32
	second := make(chan struct{})
	var overlapped atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			switch patches.Add(1) {
			case 1:
				select {
				case <-second:
					overlapped.Store(true)
				case <-time.After(3 * time.Second):
				}
			case 2:
				close(second)
			}
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer proxy.Close()
	h := stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
		if err := r.Respond(ctx, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
			t.Errorf("defer: %v", err)
		}
		content := "done"
		if err := r.EditOriginal(ctx, i, &discordgo.WebhookEdit{Content: &content}); err != nil {
			t.Errorf("edit: %v", err)
		}
	}}
	run(t, srv, h, bot.GatewayOptions{Options: bot.Options{APIBase: proxy.URL, GuildID: guild}})
	wctx := waitCtx(t)
	var ps []*fakediscord.Pending
	for _, u := range []string{"7", "8"} {
		p := ping(wctx, t, srv, u)
		ps = append(ps, p)
	}
	for _, p := range ps {
		if r, err := p.Wait(wctx); err != nil || r.Message.Content != "done" {
			t.Fatalf("response = %+v, %v", r, err)
		}
	}
	if !overlapped.Load() {
		t.Error("the second interaction's edit waited for the first one's")
	}
}

// shardEvents is an Observer that passes on the shards' ups and downs.
type shardEvents chan bool

func (c shardEvents) ShardUp(_ int, up bool) {
	select {
	case c <- up:
	default: // the test reads only the transitions it waits for
	}
}
func (shardEvents) Received(string, int) {}
func (shardEvents) Rejected(string)      {}

// waitShard waits for the shard to go up (or down).
func waitShard(tb testing.TB, c shardEvents, up bool) {
	tb.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-c:
			if got == up {
				return
			}
		case <-timeout:
			tb.Fatalf("shard not up=%v after 10 s", up)
		}
	}
}

// TestGatewayHealthAgainstDiscord: Health says "starting" before Run, is
// nil once READY; a dropped connection that discordgo resumes leaves it
// healthy (on a clock that does not move), and a Discord gone for longer
// than the grace makes it name the shard.
func TestGatewayHealthAgainstDiscord(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	var mu sync.Mutex
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	events := make(shardEvents, 16)
	opts := bot.GatewayOptions{Options: bot.Options{Token: token, APIBase: srv.URL(), Logger: quiet(), Now: clock, Observer: events}}
	g, err := bot.NewGateway(opts, stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) { _ = say(ctx, r, i, "pong") }})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Health(context.Background()); !errors.Is(err, bot.ErrStarting) {
		t.Fatalf("Health before Run = %v, want ErrStarting", err)
	}
	stop := start(t, g)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	ctx := waitCtx(t)
	if err := g.Health(ctx); err != nil {
		t.Fatalf("Health after READY = %v", err)
	}
	waitShard(t, events, true)

	srv.Disconnect()
	waitShard(t, events, false)
	if err := g.Health(ctx); err != nil {
		t.Errorf("Health just after a drop = %v, want nil (within the grace)", err)
	}
	waitShard(t, events, true) // discordgo resumed
	if err := g.Health(ctx); err != nil {
		t.Errorf("Health after the resume = %v", err)
	}
	wctx := waitCtx(t)
	// A reconnection that discordgo runs twice closes the resumed
	// connection again for a moment: the fake then refuses to deliver, and
	// the player sends again.
	p, err := srv.Slash(wctx, fakediscord.Slash{Guild: guild, User: "7", Name: "ping"})
	for errors.Is(err, fakediscord.ErrNoGateway) && wctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		p, err = srv.Slash(wctx, fakediscord.Slash{Guild: guild, User: "7", Name: "ping"})
	}
	if err != nil {
		t.Fatal(err)
	}
	if r, err := p.Wait(wctx); err != nil || r.Message == nil || r.Message.Content != "pong" {
		t.Errorf("after the resume: %+v, %v", r, err)
	}

	srv.Close() // Discord gone: discordgo cannot reconnect
	waitShard(t, events, false)
	// That down may be one left queued by the double reconnection above,
	// the shard still up: the clock passes the grace again until Health
	// sees the shard down (or 10 s pass).
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		now = now.Add(bot.DefaultDisconnectGrace + time.Second)
		mu.Unlock()
		if err = g.Health(ctx); err != nil || time.Now().After(end) {
			break
		}
	}
	if err == nil || errors.Is(err, bot.ErrStarting) || !strings.Contains(err.Error(), "disconnected for more than 30s: 0") {
		t.Errorf("Health with Discord gone 31 s = %v, want shard 0 named", err)
	}
}
