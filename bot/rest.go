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
	// Definitions returns the commands to register.
	Definitions() []*discordgo.ApplicationCommand
	// EntryPoint returns the entry-point command to create when the
	// application has none (see Register); nil means none.
	EntryPoint() *commands.Command
	// Handle answers one interaction through the Responder; it must not panic
	// (the transports recover anyway) and must answer within Discord's 3 seconds.
	Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction)
}

var _ Handler = (*commands.App)(nil)

// Observer receives the transports' events for metrics. Every method must
// be cheap and safe for concurrent use; a nil Observer means none.
type Observer interface {
	// ShardUp tells whether a gateway shard is connected.
	ShardUp(shard int, up bool)
	// Received counts an interaction received: transport "gateway" with
	// its shard, or "http" with shard -1.
	Received(transport string, shard int)
	// Rejected counts a request of the HTTP endpoint refused for reason
	// ("signature", "stale", "method", "content_type", "too_large",
	// "malformed", "replay").
	Rejected(reason string)
}

// nopObserver is the Observer of a transport given none.
type nopObserver struct{}

func (nopObserver) ShardUp(int, bool)      {}
func (nopObserver) Received(string, int)   {}
func (nopObserver) Rejected(reason string) {}

// DefaultShutdownTimeout is the time given to the interactions in progress
// at shutdown when a transport's ShutdownTimeout is zero.
const DefaultShutdownTimeout = 10 * time.Second

// MaxCallTime bounds a REST call that has no deadline of its own
// (ApplicationID, for one), all its attempts and waits included.
const MaxCallTime = 2 * DefaultMaxWait

// NewSession returns a discordgo session for token (without "Bot ") whose
// REST calls go to apiBase ("" or https://discord.com: Discord itself; any
// other http(s) URL: a REST proxy or the fake Discord, through a Rewriter).
// discordgo's own retries are off (ShouldRetryOnRateLimit false,
// MaxRestRetries 0): its HTTP client's Transport retries instead, bounded
// and under each call's context. Nothing connects before the session is
// used. t configures the Transport (its zero value: the defaults).
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
	// Each attempt has its own timeout (TransportOptions.AttemptTimeout);
	// the client's covers a whole call, retries included.
	s.Client = &http.Client{Timeout: MaxCallTime, Transport: NewTransport(next, t)}
	s.ShouldRetryOnRateLimit = false           // it would sleep without a context and retry for ever
	s.MaxRestRetries = 0                       // it would retry a 502 at once, POSTs included
	s.Identify.Intents = discordgo.IntentsNone // interactions need no intent
	s.StateEnabled = false                     // the bot keeps no guild state
	return s, nil
}

// Application asks Discord for the bot's application
// (GET /oauth2/applications/@me; discordgo's call takes no context, the
// session's HTTP client timeout bounds it): its ID, and whether its
// Activities are enabled (its EMBEDDED flag).
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

// flagEmbedded is the application flag EMBEDDED: its Activities are on.
const flagEmbedded = 1 << 17

// ErrNoActivities is Register's error when the application cannot have the
// Activity's entry point: every other command is registered.
var ErrNoActivities = errors.New("the application has no Activities, so Discord refuses the entry-point command: " +
	"in the Developer Portal, enable Activities (Activities → Settings) and map / to PUBLIC_ADDR's public URL " +
	"(Activities → URL Mappings), then restart; until then /play and every other command work, not the Activity")

// Register replaces the application's commands by defs (a bulk overwrite:
// commands no longer defined disappear), on guildID only or globally when
// guildID is "". It returns how many Discord now has.
//
// The entry-point command (PRIMARY_ENTRY_POINT) is global only, and Discord
// refuses a global overwrite that would remove it (50240): a global
// registration reads the global commands first and sends the
// application's entry point back as it is, handler included, or else
// entry (nil: none). A guild registration sends defs alone and leaves the
// global commands as they are. Without activities (Application), entry is
// not sent, and when Discord refuses the entry point's handler (50035
// APPLICATION_COMMAND_HANDLER_INVALID) defs are sent again alone: either
// is ErrNoActivities, with the count of the commands registered.
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
	var re *discordgo.RESTError
	if errors.As(err, &re) && len(body) > len(defs) && bytes.Contains(re.ResponseBody, []byte("APPLICATION_COMMAND_HANDLER_INVALID")) {
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

// restResponder answers interactions over REST: the gateway's Responder,
// and the HTTP endpoint's for the edits and follow-ups that come after its
// reply.
//
// These calls carry the interaction's token in their URL and need no bot
// token. They go through a plain http.Client on the session's Transport
// (its retries, timeouts, 429s and global hold), never through discordgo's
// request functions: discordgo's rate limiter keys a bucket by URL and
// keeps it for ever (discordgo issue #1333), a bucket per interaction.
// Discord limits these routes per interaction; the Transport waits out and
// retries a 429.
type restResponder struct {
	client *http.Client // the session's, for its Transport
	agent  string       // the session's User-Agent, which Discord asks of every client
	appID  string       // the application, for the webhook URLs of edits when the interaction does not name it
}

// newRESTResponder returns the responder sending through s's HTTP client.
func newRESTResponder(s *discordgo.Session, appID string) restResponder {
	return restResponder{client: s.Client, agent: s.UserAgent, appID: appID}
}

// CallbackWindow bounds one interaction callback, all its attempts and
// waits included: Discord accepts a callback within 3 seconds of the
// interaction.
const CallbackWindow = 3 * time.Second

// Respond sends the callback. Discord refuses a second callback of an
// interaction with 40060 "already acknowledged": when an earlier attempt
// of this very call may have been applied (the Transport retried it after
// a 5xx, a timeout or a lost connection), that refusal means the answer
// got there, and Respond returns nil. A 40060 without such an attempt is
// an error (someone else answered).
//
// The call, its retries and its waits end within CallbackWindow: Discord
// refuses a callback after its 3-second window (10062), so a longer wait
// (a 429 asking for a minute) would only hold the player's lock, and
// every other answer to that player, for nothing.
func (r restResponder) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	ctx, cancel := context.WithTimeout(ctx, CallbackWindow)
	defer cancel()
	ctx, call := withCall(ctx)
	var files []*discordgo.File
	if resp.Data != nil {
		files = resp.Data.Files
	}
	if err := r.request(ctx, http.MethodPost, discordgo.EndpointInteractionResponse(i.ID, i.Token), resp, files); err != nil {
		var re *discordgo.RESTError
		if errors.As(err, &re) && re.Message != nil && re.Message.Code == discordgo.ErrCodeInteractionHasAlreadyBeenAcknowledged && call.delivered.Load() {
			return nil
		}
		return fmt.Errorf("respond to interaction %s: %w", i.ID, err)
	}
	return nil
}

// withAppID returns i with its application ID, taken from the responder
// when the interaction did not carry one.
func (r restResponder) withAppID(i *discordgo.Interaction) *discordgo.Interaction {
	if i.AppID != "" || r.appID == "" {
		return i
	}
	c := *i
	c.AppID = r.appID
	return &c
}

// EditOriginal edits the original response (PATCH, retried by the
// Transport after a 5xx or a timeout: an edit is idempotent).
func (r restResponder) EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	i = r.withAppID(i)
	if err := r.request(ctx, http.MethodPatch, discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), e, e.Files); err != nil {
		return fmt.Errorf("edit response to interaction %s: %w", i.ID, err)
	}
	return nil
}

// FollowUp sends a follow-up message (POST ?wait=true: Discord answers
// once the message exists; not retried after a 5xx or a timeout, since it
// may have been created).
func (r restResponder) FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error {
	i = r.withAppID(i)
	if err := r.request(ctx, http.MethodPost, discordgo.EndpointWebhookToken(i.AppID, i.Token)+"?wait=true", p, p.Files); err != nil {
		return fmt.Errorf("follow up interaction %s: %w", i.ID, err)
	}
	return nil
}

// request sends one per-interaction call, data as JSON (or multipart with
// files, as Discord takes them). A refusal is a *discordgo.RESTError, as
// discordgo's own calls return. Its error names no URL: the URL carries
// the interaction's token, which must not reach the logs.
func (r restResponder) request(ctx context.Context, method, urlStr string, data any, files []*discordgo.File) error {
	contentType := "application/json"
	var body []byte
	var err error
	if len(files) > 0 {
		contentType, body, err = discordgo.MultipartBodyWithJSON(data, files)
	} else {
		body, err = json.Marshal(data)
	}
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

// withoutURL replaces, in err, the URL of a *url.Error (it carries the
// interaction's token) by the route template.
func withoutURL(err error, method, urlStr string) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	var gu *GiveUpError
	if errors.As(ue.Err, &gu) {
		return gu // it names the route
	}
	route := "?"
	if u, perr := url.Parse(urlStr); perr == nil {
		route = Route(method, u)
	}
	return fmt.Errorf("%s: %w", route, ue.Err)
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
	u, ok := t.rewrite(r.URL)
	if !ok {
		return next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.URL, r.Host = u, u.Host
	return next.RoundTrip(r)
}

// rewrite returns where u goes: on Base when u is on discord.com (ok),
// else u itself.
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

// CheckToken asks Discord whose token the session has (GET /users/@me) and
// returns that user: the bot's composition root calls it first, so that a
// wrong DISCORD_TOKEN or an unreachable DISCORD_API_BASE is reported before
// anything is opened. The error names the URL requested and, when Discord
// refuses the token, DISCORD_TOKEN.
func CheckToken(ctx context.Context, s *discordgo.Session) (*discordgo.User, error) {
	u, err := s.User("@me", discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("bot: check the bot token (GET /users/@me): %w", apiError(s, err))
	}
	return u, nil
}

// apiError makes err, from a REST call of discordgo on s, name what an
// operator has to look at:
//   - the URL actually requested: with DISCORD_API_BASE the Rewriter sends
//     the request elsewhere, but http.Client's *url.Error names the URL it
//     was given (https://discord.com/…);
//   - DISCORD_TOKEN, when Discord answers 401 Unauthorized.
func apiError(s *discordgo.Session, err error) error {
	if err == nil {
		return nil
	}
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
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("%w: Discord refused the bot token: check DISCORD_TOKEN (Developer Portal → your application → Bot → Reset Token)", err)
	}
	return err
}

// base is what both transports hold: the REST session, the handler, the
// tracker of its interactions and where they report.
type base struct {
	log   *slog.Logger
	obs   Observer
	rest  *discordgo.Session
	h     Handler
	track *tracker
}

// newBase checks the options both transports share and builds their REST
// session; nothing connects.
func newBase(h Handler, token, apiBase string, logLevel int, obs Observer, log *slog.Logger, shutdownTimeout time.Duration) (base, error) {
	if h == nil {
		return base{}, errors.New("bot: no handler")
	}
	log = cmp.Or(log, slog.Default())
	ro, _ := obs.(RESTObserver) // *metrics.Metrics is one
	rest, err := NewSession(token, apiBase, TransportOptions{Observer: ro, Logger: log})
	if err != nil {
		return base{}, err
	}
	rest.LogLevel = logLevel
	return base{log: log, obs: cmp.Or[Observer](obs, nopObserver{}), rest: rest, h: h, track: newTracker(h, log, shutdownTimeout)}, nil
}

// setUp reads the application's ID, uploads the handler's emojis when it
// is an EmojiHandler (a failure there is only logged) and, if register,
// registers the commands on guildID ("": globally). The ID comes back
// even when the registration fails. An application without Activities
// (ErrNoActivities) is a warning, and the handler's ActivityOff, if it has
// one (commands.App), takes the Activity off its cards.
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

// startFailed shuts a transport down after its start failed with err: a
// start cut short because ctx ended is a clean shutdown (stop's error
// alone), any other failure is joined with it.
func startFailed(ctx context.Context, err error, stop func() error) error {
	serr := stop()
	if ctx.Err() != nil {
		return serr
	}
	return errors.Join(err, serr)
}
