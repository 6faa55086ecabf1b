package bot

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// Handler is what the transports need of the interaction handlers;
// *commands.App implements it.
type Handler interface {
	Definitions() []*discordgo.ApplicationCommand // the commands to register
	// EntryPoint is the entry-point command to create when the application
	// has none (see Register); nil means none.
	EntryPoint() *commands.Command
	// Handle answers one interaction through r within Discord's 3 seconds;
	// it must not panic (the transports recover anyway).
	Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction)
}

var _ Handler = (*commands.App)(nil)

// Observer receives the transports' events for metrics; its methods must
// be cheap and safe for concurrent use. A nil Observer means none.
type Observer interface {
	ShardUp(shard int, up bool) // whether a gateway shard is connected
	// Received counts an interaction: transport "gateway" with its shard,
	// or "http" with shard -1.
	Received(transport string, shard int)
	// Rejected counts a request of the HTTP endpoint refused for reason
	// ("signature", "stale", "method", "content_type", "too_large",
	// "malformed", "replay").
	Rejected(reason string)
}

// nopObserver is an Observer and a RESTObserver that counts nothing.
type nopObserver struct{}

func (nopObserver) ShardUp(int, bool)    {}
func (nopObserver) Received(string, int) {}
func (nopObserver) Rejected(string)      {}

// DefaultShutdownTimeout replaces a zero Options.ShutdownTimeout.
const DefaultShutdownTimeout = 10 * time.Second

// MaxCallTime bounds a REST call that has no deadline of its own
// (Application, for one), all its attempts and waits included.
const MaxCallTime = 2 * DefaultMaxWait

// NewSession returns a discordgo session for token (without "Bot ") whose
// REST calls go to apiBase ("" or https://discord.com: Discord; any other
// http(s) URL through a Rewriter) through a Transport configured by t,
// which retries instead of discordgo. Nothing connects before it is used.
func NewSession(token, apiBase string, t TransportOptions) (*discordgo.Session, error) {
	if token == "" {
		return nil, errors.New("bot: no token")
	}
	// http.DefaultTransport keeps 2 idle connections per host: every
	// answer beyond two at once would open (and TLS-handshake) a new one.
	pooled := http.DefaultTransport.(*http.Transport).Clone()
	pooled.MaxIdleConnsPerHost = 256
	var next http.RoundTripper = pooled
	if apiBase != "" && strings.TrimRight(apiBase, "/") != "https://discord.com" {
		base, err := url.Parse(apiBase)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("bot: API base %q is not an http(s) URL", apiBase)
		}
		next = &Rewriter{Base: base, Next: pooled}
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("bot: new session: %w", err)
	}
	// The client's timeout covers a whole call, retries included.
	s.Client = &http.Client{Timeout: MaxCallTime, Transport: NewTransport(next, t)}
	s.ShouldRetryOnRateLimit = false           // it would sleep without a context and retry for ever
	s.MaxRestRetries = 0                       // it would retry a 502 at once, POSTs included
	s.Identify.Intents = discordgo.IntentsNone // interactions need no intent
	s.StateEnabled = false                     // the bot keeps no guild state
	return s, nil
}

// Application asks Discord (GET /oauth2/applications/@me, bounded by the
// client's timeout: discordgo's call takes no context) for the bot's
// application ID, and whether its Activities are on (EMBEDDED flag).
func Application(s *discordgo.Session) (id string, activities bool, err error) {
	app, err := s.Application("@me")
	if err != nil {
		return "", false, fmt.Errorf("bot: read the application (GET /oauth2/applications/@me): %w", apiError(s, err))
	}
	if app.ID == "" {
		return "", false, errors.New("bot: Discord named no application")
	}
	return app.ID, app.Flags&flagEmbedded != 0, nil
}

const flagEmbedded = 1 << 17

// ErrNoActivities is Register's error when the application cannot have the
// Activity's entry point: every other command is registered.
var ErrNoActivities = errors.New("the application has no Activities, so Discord refuses the entry-point command: " +
	"in the Developer Portal, enable Activities (Activities → Settings) and map / to PUBLIC_ADDR's public URL " +
	"(Activities → URL Mappings), then restart; until then /play and every other command work, not the Activity")

// Register replaces the application's commands by defs (a bulk
// overwrite), on guildID or globally when it is "", and returns how many
// Discord now has.
//
// Discord refuses a global overwrite that would remove the entry-point
// command (global only; 50240): a global registration sends back the
// application's entry point as it is, handler included, or else entry
// (nil: none). Without activities, entry is not sent, and when Discord
// refuses its handler (APPLICATION_COMMAND_HANDLER_INVALID) defs are sent
// alone: either is ErrNoActivities, with the count registered.
func Register(ctx context.Context, s *discordgo.Session, appID, guildID string, defs []*discordgo.ApplicationCommand, entry *commands.Command, activities bool) (int, error) {
	url := discordgo.EndpointApplicationGuildCommands(appID, guildID)
	body := make([]any, 0, len(defs)+1)
	for _, d := range defs {
		body = append(body, d)
	}
	var skipped error
	if entry != nil && !activities {
		entry, skipped = nil, ErrNoActivities
	}
	if guildID == "" {
		url = discordgo.EndpointApplicationGlobalCommands(appID)
		var have []commands.Command // discordgo's type would lose the handler
		if err := requestJSON(ctx, s, http.MethodGet, url, nil, &have); err != nil {
			return 0, fmt.Errorf("bot: read the global commands: %w", err)
		}
		for _, c := range have {
			if c.Type == commands.PrimaryEntryPoint {
				c.ApplicationID, c.Version = "", "" // Discord's, not a request's
				entry = &c
				break
			}
		}
		if entry != nil {
			body = append(body, entry)
		}
	}
	var got []json.RawMessage
	err := requestJSON(ctx, s, http.MethodPut, url, body, &got)
	if re, ok := errors.AsType[*discordgo.RESTError](err); ok && len(body) > len(defs) && bytes.Contains(re.ResponseBody, []byte("APPLICATION_COMMAND_HANDLER_INVALID")) {
		err, skipped = requestJSON(ctx, s, http.MethodPut, url, body[:len(defs)], &got), ErrNoActivities
	}
	if err != nil {
		return 0, fmt.Errorf("bot: register %d commands (guild %q): %w", len(body), guildID, err)
	}
	return len(got), skipped
}

// requestJSON sends data as JSON through discordgo's session (its rate
// limits, its token) and decodes the answer into out.
func requestJSON(ctx context.Context, s *discordgo.Session, method, url string, data, out any) error {
	b, err := s.RequestWithBucketID(method, url, data, url, discordgo.WithContext(ctx))
	if err != nil {
		return apiError(s, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode %s %s: %w", method, url, err)
	}
	return nil
}

// restResponder answers interactions over REST (the gateway's Responder,
// the HTTP endpoint's after its reply) through the session's Transport but
// not discordgo's rate limiter, which would keep a bucket per interaction
// for ever (discordgo issue #1333; docs/operating.md, "Discord answers 429 or 5xx").
type restResponder struct {
	client *http.Client // the session's, for its Transport
	agent  string       // the session's User-Agent, which Discord asks of every client
	appID  string       // for the webhook URLs when the interaction does not name it
}

func newRESTResponder(s *discordgo.Session, appID string) restResponder {
	return restResponder{client: s.Client, agent: s.UserAgent, appID: appID}
}

// CallbackWindow bounds one interaction callback, all its attempts and
// waits included: Discord refuses a callback after 3 seconds (10062), so
// a longer wait would only hold the player's lock for nothing.
const CallbackWindow = 3 * time.Second

// Respond sends the callback. A 40060 "already acknowledged" after an
// earlier attempt of this call may have been applied (a 5xx, a timeout, a
// lost connection) means the answer got there: nil. Without such an
// attempt, someone else answered: an error.
func (r restResponder) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	ctx, cancel := context.WithTimeout(ctx, CallbackWindow)
	defer cancel()
	call := &callState{}
	ctx = context.WithValue(ctx, callKey{}, call)
	var files []*discordgo.File
	if resp.Data != nil {
		files = resp.Data.Files
	}
	if err := r.request(ctx, http.MethodPost, discordgo.EndpointInteractionResponse(i.ID, i.Token), resp, files); err != nil {
		if re, ok := errors.AsType[*discordgo.RESTError](err); ok && re.Message != nil && re.Message.Code == discordgo.ErrCodeInteractionHasAlreadyBeenAcknowledged && call.delivered.Load() {
			return nil
		}
		return fmt.Errorf("respond to interaction %s: %w", i.ID, err)
	}
	return nil
}

// EditOriginal edits the original response (PATCH: idempotent, retried).
func (r restResponder) EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	url := discordgo.EndpointWebhookMessage(cmp.Or(i.AppID, r.appID), i.Token, "@original")
	if err := r.request(ctx, http.MethodPatch, url, e, e.Files); err != nil {
		return fmt.Errorf("edit response to interaction %s: %w", i.ID, err)
	}
	return nil
}

// FollowUp sends a follow-up message (POST ?wait=true; not retried after
// a 5xx or a timeout: it may have been created).
func (r restResponder) FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error {
	url := discordgo.EndpointWebhookToken(cmp.Or(i.AppID, r.appID), i.Token) + "?wait=true"
	if err := r.request(ctx, http.MethodPost, url, p, p.Files); err != nil {
		return fmt.Errorf("follow up interaction %s: %w", i.ID, err)
	}
	return nil
}

// request sends one per-interaction call. A refusal is a
// *discordgo.RESTError, as discordgo returns; no error names the URL,
// which carries the interaction's token.
func (r restResponder) request(ctx context.Context, method, urlStr string, data any, files []*discordgo.File) error {
	contentType, body, err := encodeBody(data, files)
	if err != nil {
		return fmt.Errorf("encode the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, urlStr, bytes.NewReader(body))
	if err != nil {
		return withoutURL(err, method, urlStr)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", r.agent)
	resp, err := r.client.Do(req)
	if err != nil {
		return withoutURL(err, method, urlStr)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // a success's body is not needed
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	re := &discordgo.RESTError{Request: req, Response: resp, ResponseBody: out}
	if json.Unmarshal(out, &re.Message) != nil {
		re.Message = nil
	}
	return re
}

// encodeBody encodes data as JSON, or as multipart/form-data with files,
// as Discord takes them.
func encodeBody(data any, files []*discordgo.File) (contentType string, body []byte, err error) {
	if len(files) > 0 {
		return discordgo.MultipartBodyWithJSON(data, files)
	}
	body, err = json.Marshal(data)
	return "application/json", body, err
}

// withoutURL replaces the URL of a *url.Error by the route template.
func withoutURL(err error, method, urlStr string) error {
	ue, ok := errors.AsType[*url.Error](err)
	if !ok {
		return err
	}
	if gu, ok := errors.AsType[*GiveUpError](ue.Err); ok {
		return gu // it names the route
	}
	route := "?"
	if u, perr := url.Parse(urlStr); perr == nil {
		route = Route(method, u)
	}
	return fmt.Errorf("%s: %w", route, ue.Err)
}

// Rewriter is an http.RoundTripper that sends every request for
// discord.com to Base instead (Base's path as a prefix); other hosts pass.
type Rewriter struct {
	Base *url.URL
	Next http.RoundTripper // nil means http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Rewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	if u, ok := t.rewrite(r.URL); ok {
		r = r.Clone(r.Context())
		r.URL, r.Host = u, u.Host
	}
	return cmp.Or[http.RoundTripper](t.Next, http.DefaultTransport).RoundTrip(r)
}

func (t *Rewriter) rewrite(u *url.URL) (_ *url.URL, ok bool) {
	if u.Host != "discord.com" && u.Host != "discordapp.com" {
		return u, false
	}
	c := *u
	c.Scheme, c.Host = t.Base.Scheme, t.Base.Host
	if p := strings.TrimRight(t.Base.Path, "/"); p != "" {
		c.Path = p + c.Path
		if c.RawPath != "" {
			c.RawPath = p + c.RawPath
		}
	}
	return &c, true
}

// CheckToken asks Discord whose token the session has (GET /users/@me):
// the composition root calls it first, so that a wrong DISCORD_TOKEN or an
// unreachable DISCORD_API_BASE is reported before anything is opened.
func CheckToken(ctx context.Context, s *discordgo.Session) (*discordgo.User, error) {
	u, err := s.User("@me", discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("bot: check the bot token (GET /users/@me): %w", apiError(s, err))
	}
	return u, nil
}

// apiError makes err, from discordgo's REST call on s, name the URL
// actually requested (http.Client's names the one before the Rewriter)
// and, on a 401, DISCORD_TOKEN.
func apiError(s *discordgo.Session, err error) error {
	if ue, ok := err.(*url.Error); ok && s.Client != nil {
		rt := s.Client.Transport
		if t, ok := rt.(*Transport); ok {
			rt = t.next
		}
		if rw, ok := rt.(*Rewriter); ok {
			if u, perr := url.Parse(ue.URL); perr == nil {
				if real, ok := rw.rewrite(u); ok {
					err = &url.Error{Op: ue.Op, URL: real.String(), Err: ue.Err}
				}
			}
		}
	}
	if re, ok := errors.AsType[*discordgo.RESTError](err); ok && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("%w: Discord refused the bot token: check DISCORD_TOKEN (Developer Portal → your application → Bot → Reset Token)", err)
	}
	return err
}

// Options are what both transports take (GatewayOptions, EndpointOptions).
type Options struct {
	Token   string // the bot token, without "Bot "; required
	GuildID string // registers the commands on this guild only; "": globally
	// APIBase replaces https://discord.com for every REST call ("" = Discord);
	// the gateway URL is then whatever that API's GET /gateway answers.
	APIBase         string
	ShutdownTimeout time.Duration // the wait for interactions in progress at shutdown
	Logger          *slog.Logger  // nil: slog.Default()
	Observer        Observer      // shard states, interactions received, requests refused; nil: none
	// LogLevel is discordgo's own (DiscordgoLogLevel; zero: discordgo.LogError).
	LogLevel int
	Now      func() time.Time // nil: time.Now
}

// base is what both transports hold.
type base struct {
	log   *slog.Logger
	obs   Observer
	rest  *discordgo.Session
	h     Handler
	track *tracker
}

// newBase checks the shared options and fills in o.Now; nothing connects.
func newBase(h Handler, o *Options) (base, error) {
	if h == nil {
		return base{}, errors.New("bot: no handler")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := cmp.Or(o.Logger, slog.Default())
	ro, _ := o.Observer.(RESTObserver) // *metrics.Metrics is one
	rest, err := NewSession(o.Token, o.APIBase, TransportOptions{Observer: ro, Logger: log})
	if err != nil {
		return base{}, err
	}
	rest.LogLevel = o.LogLevel
	return base{log: log, obs: cmp.Or[Observer](o.Observer, nopObserver{}), rest: rest, h: h, track: newTracker(h, log, o.ShutdownTimeout)}, nil
}

// setUp reads the application's ID (returned even when the registration
// fails), uploads the emojis and, if register, registers the commands.
// Without Activities it warns and calls the handler's ActivityOff, if any.
func (b *base) setUp(ctx context.Context, guildID string, register bool) (appID string, err error) {
	appID, activities, err := Application(b.rest)
	if err != nil {
		return "", err
	}
	installEmojis(ctx, b.rest, appID, b.h, b.log)
	if register {
		var n int
		if n, err = Register(ctx, b.rest, appID, guildID, b.h.Definitions(), b.h.EntryPoint(), activities); err != nil && !errors.Is(err, ErrNoActivities) {
			return appID, err
		}
		scope := "global"
		if guildID != "" {
			scope = "guild"
		}
		b.log.Info("commands registered", "count", n, "guild", guildID, "scope", scope)
	}
	if errors.Is(err, ErrNoActivities) || !activities && b.h.EntryPoint() != nil {
		b.log.Warn("the Activity is off: " + ErrNoActivities.Error())
		if a, ok := b.h.(interface{ ActivityOff() }); ok {
			a.ActivityOff()
		}
	}
	return appID, nil
}

// startFailed shuts a transport down after its start failed with err; a
// start cut short because ctx ended is a clean shutdown.
func startFailed(ctx context.Context, err error, stop func() error) error {
	serr := stop()
	if ctx.Err() != nil {
		return serr
	}
	return errors.Join(err, serr)
}
