package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/wire"
)

// Handler is what the bot needs of the interaction handlers; *commands.App
// implements it.
type Handler interface {
	// Definitions returns the commands to register.
	Definitions() []*discordgo.ApplicationCommand
	// Handle answers one interaction through the Responder; it must not panic
	// (the bot recovers anyway) and must answer within Discord's 3 seconds.
	Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction)
}

var _ Handler = (*commands.App)(nil)

// DefaultShutdownTimeout is the time given to the interactions in progress
// at shutdown when Options.ShutdownTimeout is zero.
const DefaultShutdownTimeout = 10 * time.Second

// Options configure a Bot.
type Options struct {
	// Token is the bot token, without "Bot ". Required.
	Token string
	// GuildID registers the commands on this guild only; "" registers them globally.
	GuildID string
	// APIBase replaces https://discord.com for every REST call ("" = Discord).
	APIBase string
	// ShardID and ShardCount shard the gateway (0 and 1 when not sharded).
	// Only shard 0 registers the commands.
	ShardID, ShardCount int
	// ShutdownTimeout bounds the wait for interactions in progress at
	// shutdown; 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logger logs the bot's life; nil means slog.Default().
	Logger *slog.Logger
	// GatewayLogLevel is discordgo's own log level (discordgo.LogError…);
	// its output goes through discordgo.Logger (see RouteDiscordgoLogs).
	GatewayLogLevel int
}

// Bot is a discordgo session serving a Handler. Create it with New, run it
// with Run. Connected is safe for concurrent use.
type Bot struct {
	opts  Options
	h     Handler
	log   *slog.Logger
	s     *discordgo.Session
	ready chan struct{}

	open      atomic.Bool // between a successful Open and Close
	mu        sync.Mutex
	closing   bool
	inflight  sync.WaitGroup
	handleCtx context.Context // the handlers' context; cancelled when the shutdown wait times out
	cancel    context.CancelFunc
	dropped   atomic.Int64
	handled   atomic.Int64
}

// New checks the options and prepares the session; nothing connects before Run.
func New(opts Options, h Handler) (*Bot, error) {
	if opts.Token == "" {
		return nil, errors.New("bot: no token")
	}
	if h == nil {
		return nil, errors.New("bot: no handler")
	}
	if opts.ShardCount == 0 {
		opts.ShardCount = 1
	}
	if opts.ShardID < 0 || opts.ShardID >= opts.ShardCount {
		return nil, fmt.Errorf("bot: shard %d out of 0..%d", opts.ShardID, opts.ShardCount-1)
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s, err := discordgo.New("Bot " + opts.Token)
	if err != nil {
		return nil, fmt.Errorf("bot: new session: %w", err)
	}
	var transport http.RoundTripper = http.DefaultTransport
	if opts.APIBase != "" && strings.TrimRight(opts.APIBase, "/") != "https://discord.com" {
		base, err := url.Parse(opts.APIBase)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("bot: API base %q is not an http(s) URL", opts.APIBase)
		}
		transport = &Rewriter{Base: base, Next: http.DefaultTransport}
	}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: transport}
	s.Identify.Intents = discordgo.IntentsNone // interactions need no intent
	s.Compress = false
	s.Identify.Compress = false
	s.StateEnabled = false // the bot keeps no guild state; READY's user is kept anyway
	s.ShardID, s.ShardCount = opts.ShardID, opts.ShardCount
	s.SyncEvents = false // each event handler runs in its own goroutine
	s.LogLevel = opts.GatewayLogLevel
	b := &Bot{opts: opts, h: h, log: opts.Logger, s: s, ready: make(chan struct{})}
	b.handleCtx, b.cancel = context.WithCancel(context.Background())
	s.AddHandler(b.onRawEvent)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		b.log.Info("gateway ready", "session", r.SessionID, "user", userID(r.User), "shard", opts.ShardID)
	})
	s.AddHandler(func(*discordgo.Session, *discordgo.Resumed) { b.log.Info("gateway resumed") })
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		b.mu.Lock()
		closing := b.closing
		b.mu.Unlock()
		if closing {
			b.log.Info("gateway closed")
			return
		}
		b.log.Warn("gateway disconnected; discordgo reconnects")
	})
	return b, nil
}

func userID(u *discordgo.User) string {
	if u == nil {
		return ""
	}
	return u.ID
}

// Session is the underlying discordgo session (for tests and tools).
func (b *Bot) Session() *discordgo.Session { return b.s }

// Ready is closed once the gateway is connected and the commands registered.
func (b *Bot) Ready() <-chan struct{} { return b.ready }

// Connected reports whether the gateway connection is up: opened and
// heartbeating (discordgo's DataReady, false while reconnecting).
func (b *Bot) Connected() bool {
	if !b.open.Load() {
		return false
	}
	b.s.RLock()
	defer b.s.RUnlock()
	return b.s.DataReady
}

// Health is Connected as a health check for /healthz.
func (b *Bot) Health(context.Context) error {
	if !b.Connected() {
		return errors.New("gateway not connected")
	}
	return nil
}

// Run connects, registers the commands (shard 0 only) and serves
// interactions until ctx ends, then shuts down: it stops taking
// interactions, closes the gateway, and waits for those in progress up to
// Options.ShutdownTimeout (then cancels their context). It returns an error
// if connecting or registering fails; a clean shutdown returns nil.
func (b *Bot) Run(ctx context.Context) error {
	if err := b.s.Open(); err != nil {
		return fmt.Errorf("bot: open gateway: %w", err)
	}
	b.open.Store(true)
	if err := b.register(ctx); err != nil {
		serr := b.shutdown()
		if ctx.Err() != nil {
			return serr // stopped while starting: a clean shutdown
		}
		return errors.Join(err, serr)
	}
	close(b.ready)
	b.log.Info("bot running", "shard", b.opts.ShardID, "shards", b.opts.ShardCount)
	<-ctx.Done()
	return b.shutdown()
}

func (b *Bot) register(ctx context.Context) error {
	if b.opts.ShardID != 0 {
		return nil
	}
	appID := applicationID(b.s)
	if appID == "" {
		return errors.New("bot: READY named no application")
	}
	defs := b.h.Definitions()
	got, err := b.s.ApplicationCommandBulkOverwrite(appID, b.opts.GuildID, defs, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: register %d commands (guild %q): %w", len(defs), b.opts.GuildID, err)
	}
	scope := "global"
	if b.opts.GuildID != "" {
		scope = "guild " + b.opts.GuildID
	}
	b.log.Info("commands registered", "count", len(got), "scope", scope)
	return nil
}

// shutdown stops taking interactions, closes the gateway and waits for the
// interactions in progress.
func (b *Bot) shutdown() error {
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	start := time.Now()
	var errs []error
	if b.open.Swap(false) {
		if err := b.s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("bot: close gateway: %w", err))
		}
	}
	done := make(chan struct{})
	go func() { b.inflight.Wait(); close(done) }()
	wait := b.opts.ShutdownTimeout - time.Since(start)
	timer := time.NewTimer(max(wait, 0))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		b.log.Warn("shutdown: interactions still running; cancelling them", "timeout", b.opts.ShutdownTimeout)
		b.cancel()
		select {
		case <-done:
		case <-time.After(time.Second):
			errs = append(errs, errors.New("bot: interactions still running after the shutdown timeout"))
		}
	}
	b.cancel()
	b.log.Info("bot stopped", "handled", b.handled.Load(), "dropped_while_closing", b.dropped.Load(), "took", time.Since(start).Round(time.Millisecond))
	return errors.Join(errs...)
}

// onRawEvent receives every gateway event, each in its own goroutine
// (discordgo's SyncEvents=false). INTERACTION_CREATE arrives decoded by
// wire.DecodeInteraction (see gateway.go). One that could not be decoded
// is still answered: the few fields needed to answer are read leniently
// from the raw payload and the user gets a short apology instead of "This
// interaction failed" after 3 s.
func (b *Bot) onRawEvent(s *discordgo.Session, e *discordgo.Event) {
	if e == nil || e.Type != interactionCreate {
		return
	}
	ev, _ := e.Struct.(*InteractionEvent)
	if ev != nil && ev.Err == nil && ev.Interaction != nil && ev.Interaction.ID != "" && ev.Interaction.Token != "" {
		b.handle(s, ev.Interaction)
		return
	}
	var decodeErr error = errors.New("no id or token")
	if ev != nil && ev.Err != nil {
		decodeErr = ev.Err
	}
	i, err := decodeLeniently(e.RawData)
	if err != nil {
		b.log.Error("interaction not decodable, not answerable", "err", decodeErr, "envelope", err, "bytes", len(e.RawData))
		return
	}
	if !b.enter() {
		return
	}
	defer b.inflight.Done()
	b.log.Error("interaction not decodable; answering with an apology", "interaction", i.ID, "type", i.Type, "err", decodeErr)
	ctx, cancel := context.WithTimeout(b.handleCtx, 3*time.Second)
	defer cancel()
	if err := (responder{s}).Respond(ctx, i, apology(i.Locale)); err != nil {
		b.log.Warn("apology failed", "interaction", i.ID, "err", err)
	}
}

// handle runs the handler on one interaction.
func (b *Bot) handle(s *discordgo.Session, i *discordgo.Interaction) {
	if !b.enter() {
		b.log.Warn("interaction dropped: shutting down", "interaction", i.ID)
		return
	}
	defer b.inflight.Done()
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("panic in interaction handler", "interaction", i.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	b.handled.Add(1)
	b.h.Handle(b.handleCtx, responder{s}, i)
}

// enter counts an interaction in flight, unless the bot is shutting down
// (then it counts it as dropped and reports false).
func (b *Bot) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closing {
		b.dropped.Add(1)
		return false
	}
	b.inflight.Add(1)
	return true
}

// decodeLeniently reads what answering needs (id, token, type, locale) from
// an INTERACTION_CREATE payload whose other fields may be malformed.
func decodeLeniently(raw []byte) (*discordgo.Interaction, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Token  string          `json:"token"`
		Type   int             `json:"type"`
		Locale any             `json:"locale"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode interaction envelope: %w", err)
	}
	id := strings.Trim(string(m.ID), `"`)
	if _, err := strconv.ParseUint(id, 10, 64); err != nil || m.Token == "" {
		return nil, fmt.Errorf("interaction without a usable id (%q) or token", id)
	}
	i := &discordgo.Interaction{ID: id, Token: m.Token, Type: discordgo.InteractionType(m.Type)}
	if l, ok := m.Locale.(string); ok {
		i.Locale = discordgo.Locale(l)
	}
	return i, nil
}

// apology is the private answer to an interaction the bot could not read.
func apology(locale discordgo.Locale) *discordgo.InteractionResponse {
	msg := "⚠️ Sorry, this request could not be read. Nothing was changed; please try again."
	if strings.HasPrefix(string(locale), "fr") {
		msg = "⚠️ Désolé, cette demande n'a pas pu être lue. Rien n'a changé ; réessayez."
	}
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: msg, Flags: discordgo.MessageFlagsEphemeral},
	}
}

// responder answers through the session's REST calls. The initial answer
// and the edits, the bot's hot path, are encoded by package wire and sent
// raw; discordgo's encoding/json marshalling of its component types cost
// several times more (`go test -bench . ./wire`).
type responder struct{ s *discordgo.Session }

// send encodes the body with enc and sends the request. The body is not
// pooled: net/http may still read a request body after the call returns.
func (r responder) send(ctx context.Context, method, endpoint, bucket string, enc func([]byte) ([]byte, error)) error {
	body, err := enc(make([]byte, 0, 2048))
	if err != nil {
		return err
	}
	_, err = r.s.RequestRaw(method, endpoint, "application/json", body, bucket, 0, discordgo.WithContext(ctx))
	return err
}

func (r responder) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	var err error
	if resp.Data != nil && len(resp.Data.Files) > 0 {
		err = r.s.InteractionRespond(i, resp, discordgo.WithContext(ctx)) // multipart
	} else {
		endpoint := discordgo.EndpointInteractionResponse(i.ID, i.Token)
		err = r.send(ctx, http.MethodPost, endpoint, endpoint, func(b []byte) ([]byte, error) { return wire.AppendResponse(b, resp) })
	}
	if err != nil {
		return fmt.Errorf("respond to interaction %s: %w", i.ID, err)
	}
	return nil
}

// applicationID is the bot's application, as READY named it (its user ID
// when READY had no application object).
func applicationID(s *discordgo.Session) string {
	if r := s.State.Ready; r.Application != nil && r.Application.ID != "" {
		return r.Application.ID
	} else if r.User != nil {
		return r.User.ID
	}
	return ""
}

// withAppID returns i with its application ID, taken from READY when the
// interaction did not carry one: the webhook URLs of edits and follow-ups
// need it.
func (r responder) withAppID(i *discordgo.Interaction) *discordgo.Interaction {
	if i.AppID != "" {
		return i
	}
	c := *i
	c.AppID = applicationID(r.s)
	return &c
}

func (r responder) EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	i = r.withAppID(i)
	var err error
	if len(e.Files) > 0 {
		_, err = r.s.InteractionResponseEdit(i, e, discordgo.WithContext(ctx))
	} else {
		// discordgo's InteractionResponseEdit puts every webhook edit of the
		// bot in one rate-limit bucket, whose lock is held for the whole
		// request: edits of unrelated interactions would wait for each
		// other. Discord limits webhooks per token, so the bucket is the
		// interaction's.
		err = r.send(ctx, http.MethodPatch,
			discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"),
			discordgo.EndpointWebhookToken(i.AppID, i.Token),
			func(b []byte) ([]byte, error) { return wire.AppendWebhookEdit(b, e) })
	}
	if err != nil {
		return fmt.Errorf("edit response to interaction %s: %w", i.ID, err)
	}
	return nil
}

func (r responder) FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error {
	i = r.withAppID(i)
	if _, err := r.s.FollowupMessageCreate(i, true, p, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("follow up interaction %s: %w", i.ID, err)
	}
	return nil
}

// Rewriter is an http.RoundTripper that sends every request for
// discord.com to Base instead (scheme, host, and Base's path as a prefix).
// Other hosts (the CDN…) pass unchanged.
type Rewriter struct {
	Base *url.URL
	Next http.RoundTripper // nil means http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Rewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	if r.URL.Host != "discord.com" && r.URL.Host != "discordapp.com" {
		return next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.URL.Scheme = t.Base.Scheme
	r.URL.Host = t.Base.Host
	r.Host = t.Base.Host
	if p := strings.TrimRight(t.Base.Path, "/"); p != "" {
		r.URL.Path = p + r.URL.Path
		if r.URL.RawPath != "" {
			r.URL.RawPath = p + r.URL.RawPath
		}
	}
	return next.RoundTrip(r)
}
