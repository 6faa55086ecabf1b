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
		return "", fmt.Errorf("bot: read the application (GET /oauth2/applications/@me): %w", apiError(s, err))
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
		return 0, fmt.Errorf("bot: register %d commands (guild %q): %w", len(defs), guildID, apiError(s, err))
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
		return fmt.Errorf("respond to interaction %s: %w", i.ID, apiError(r.s, err))
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
		return fmt.Errorf("edit response to interaction %s: %w", i.ID, apiError(r.s, err))
	}
	return nil
}

func (r restResponder) FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error {
	i = r.withAppID(i)
	if _, err := r.s.FollowupMessageCreate(i, true, p, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("follow up interaction %s: %w", i.ID, apiError(r.s, err))
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
		if rw, ok := s.Client.Transport.(*Rewriter); ok {
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
