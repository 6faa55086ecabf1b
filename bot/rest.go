package bot

import (
	"context"
	"errors"
	"fmt"
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

// NewSession returns a discordgo session for token (without "Bot ") whose
// REST calls go to apiBase ("" or https://discord.com: Discord itself; any
// other http(s) URL: a REST proxy or the fake Discord, through a Rewriter).
// Nothing connects before the session is used.
func NewSession(token, apiBase string) (*discordgo.Session, error) {
	if token == "" {
		return nil, errors.New("bot: no token")
	}
	// http.DefaultTransport keeps 2 idle connections per host: every
	// answer beyond two at once would open (and TLS-handshake) a new one.
	pooled := http.DefaultTransport.(*http.Transport).Clone()
	pooled.MaxIdleConnsPerHost = 256
	var transport http.RoundTripper = pooled
	if apiBase != "" && strings.TrimRight(apiBase, "/") != "https://discord.com" {
		base, err := url.Parse(apiBase)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("bot: API base %q is not an http(s) URL", apiBase)
		}
		transport = &Rewriter{Base: base, Next: pooled}
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("bot: new session: %w", err)
	}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: transport}
	s.Identify.Intents = discordgo.IntentsNone // interactions need no intent
	s.StateEnabled = false                     // the bot keeps no guild state
	return s, nil
}

// ApplicationID asks Discord for the bot's application ID
// (GET /oauth2/applications/@me; discordgo's call takes no context, the
// session's HTTP client timeout bounds it).
func ApplicationID(s *discordgo.Session) (string, error) {
	app, err := s.Application("@me")
	if err != nil {
		return "", fmt.Errorf("bot: read the application: %w", err)
	}
	if app.ID == "" {
		return "", errors.New("bot: Discord named no application")
	}
	return app.ID, nil
}

// Register replaces the application's commands by defs (a bulk overwrite:
// commands no longer defined disappear), on guildID only or globally when
// guildID is "". It returns how many Discord now has.
func Register(ctx context.Context, s *discordgo.Session, appID, guildID string, defs []*discordgo.ApplicationCommand) (int, error) {
	got, err := s.ApplicationCommandBulkOverwrite(appID, guildID, defs, discordgo.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("bot: register %d commands (guild %q): %w", len(defs), guildID, err)
	}
	return len(got), nil
}

// restResponder answers interactions with discordgo's REST calls: the
// gateway's Responder, and the HTTP endpoint's for the edits and follow-ups
// that come after its reply.
type restResponder struct {
	s     *discordgo.Session
	appID string // the application, for the webhook URLs of edits when the interaction does not name it
}

func (r restResponder) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	if err := r.s.InteractionRespond(i, resp, discordgo.WithContext(ctx)); err != nil {
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

// EditOriginal edits the original response. discordgo's
// InteractionResponseEdit files every webhook edit of the bot under one
// rate-limit bucket, which it holds for the whole request, so the edits of
// unrelated interactions would wait for each other; Discord limits
// webhooks per token, so the edit is sent with the interaction's own
// bucket, through discordgo's RequestWithBucketID.
func (r restResponder) EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	i = r.withAppID(i)
	var err error
	if len(e.Files) > 0 {
		_, err = r.s.InteractionResponseEdit(i, e, discordgo.WithContext(ctx))
	} else {
		_, err = r.s.RequestWithBucketID(http.MethodPatch,
			discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), e,
			discordgo.EndpointWebhookToken(i.AppID, i.Token), discordgo.WithContext(ctx))
	}
	if err != nil {
		return fmt.Errorf("edit response to interaction %s: %w", i.ID, err)
	}
	return nil
}

func (r restResponder) FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error {
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
