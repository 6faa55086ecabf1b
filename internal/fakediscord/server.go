package fakediscord

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Defaults of Options.
const (
	DefaultAckTimeout        = 3 * time.Second
	DefaultHeartbeatInterval = 41250 * time.Millisecond
)

// botName is the bot user's name and the application's.
const botName = "Clefs"

// Permission sets for Slash.Perms and Click.Perms.
const (
	// PermsMember is what @everyone has on a typical server: view channels,
	// send messages, embed links, read history, add reactions, use commands.
	PermsMember int64 = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
		discordgo.PermissionEmbedLinks | discordgo.PermissionReadMessageHistory |
		discordgo.PermissionAddReactions | discordgo.PermissionUseApplicationCommands
	// PermsModerator adds Manage Server.
	PermsModerator = PermsMember | discordgo.PermissionManageGuild
	// PermsAdmin is Administrator.
	PermsAdmin = PermsMember | discordgo.PermissionAdministrator
)

// Options configure a Server.
type Options struct {
	// Token is the bot token expected as "Authorization: Bot TOKEN". Required.
	Token string
	// AppID is the application's ID, also the bot user's ID. Empty: generated.
	AppID string
	// Guilds are the guilds the bot is in, listed in READY.
	Guilds []string
	// Addr is the listen address. Empty: 127.0.0.1:0 (a free port).
	Addr string
	// AckTimeout is the time the bot has to call back. Zero: 3 s, like Discord.
	AckTimeout time.Duration
	// HeartbeatInterval is sent in HELLO. Zero: 41.25 s, like Discord.
	HeartbeatInterval time.Duration
	// Logger logs what the bot does. Nil: nothing is logged.
	Logger *slog.Logger
	// Control serves the /_fake/ control API (see ControlHandler).
	Control bool
	// InteractionsURL is the bot's Interactions Endpoint URL, e.g.
	// http://127.0.0.1:8080/interactions. Set, interactions are POSTed
	// there, signed, instead of being dispatched on the gateway (see
	// SetInteractionsURL). Empty: the gateway.
	InteractionsURL string
	// PrivateKey signs the requests to InteractionsURL. Nil: the fixed test
	// key whose public half is TestPublicKeyHex.
	PrivateKey ed25519.PrivateKey
	// RecommendedShards is the "shards" of GET /gateway/bot. Zero: 1.
	RecommendedShards int
	// TokenLife is an interaction token's life: past it, its webhook calls
	// (edits, follow-ups) answer 401 Invalid Webhook Token (50027), a
	// Failure. Zero: 15 minutes, like Discord. The time to call back is
	// AckTimeout (10062 Unknown interaction past it).
	TokenLife time.Duration
	// Seed seeds the draws of the faults with a Fraction (see Fault).
	Seed uint64
	// KeepInteractions, when > 0, bounds what the fake remembers, for long
	// runs (the load generator's soak): once more interactions than that
	// were sent, the oldest is forgotten with the messages it created, as
	// if its token had expired and its messages were deleted (a call or a
	// click about it answers unknown). Zero: every interaction is kept.
	KeepInteractions int
	// Activities enables the application's Activities (its EMBEDDED flag),
	// as the Developer Portal does: the application starts with Discord's
	// default entry-point command ("launch", type 4, handler 2), which a
	// global bulk overwrite may not remove (400 50240), and interactions
	// may be answered with LAUNCH_ACTIVITY (type 12; see Launches).
	// Without it, type 12 and a command's handler are refused.
	Activities bool
}

// Failure is a call the fake refused (any 4xx answer), an interaction the
// bot left without a callback past the deadline, or, in HTTP mode, a reply
// of the interactions endpoint that failed the interaction.
//
// For the endpoint's reply, Method is POST and Path the endpoint's URL;
// Status is the endpoint's own status when it was not 2xx (Code 0), 0 when
// the request failed (no connection), or else what the callback endpoint
// would have answered for that body (e.g. 400 with Code 50035 and Errors).
type Failure struct {
	At          time.Time
	Method      string
	Path        string // the URL path with the interaction token elided
	Status      int    // HTTP status; 0 for a missed deadline
	Code        int    // Discord's JSON error code
	Message     string
	Errors      string // Discord's nested "errors" object, as JSON, for 50035
	Interaction string // the interaction's ID, when the call was about one
}

func (f Failure) String() string {
	s := fmt.Sprintf("%s %s: %d %d %s", f.Method, f.Path, f.Status, f.Code, f.Message)
	if f.Errors != "" {
		s += " " + f.Errors
	}
	return s
}

// Identify is a gateway IDENTIFY the fake received.
type Identify struct {
	At        time.Time
	Token     string
	Intents   discordgo.Intent
	Shard     [2]int // [id, count]; [0, 1] when not sharded
	SessionID string
}

// Server is a fake Discord. Its methods are safe for concurrent use.
type Server struct {
	opts  Options
	log   *slog.Logger
	botID string

	ln   net.Listener
	http *http.Server
	base string

	// The requests to the interactions endpoint: Close cancels ctx and
	// waits for wg.
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu           sync.Mutex
	closed       bool
	snow         int64 // last snowflake's increment
	lastMS       int64
	commands     map[string][]*appCommand // by guild; "" = global
	registered   map[string]bool          // the guilds ("" = global) with a bulk overwrite accepted
	commandsSeq  int
	launches     []Launch
	messages     map[string]*message
	attachments  map[string]*attachment  // by ID, served by getAttachment
	interactions map[string]*interaction // by ID
	byToken      map[string]*interaction
	kept         []string // with KeepInteractions: the IDs kept, a ring…
	keptNext     int      // …whose oldest is at keptNext once full
	failures     []Failure
	identifies   []Identify
	sessions     map[string]*session
	conns        map[*gwConn]struct{}
	identifiedCh chan struct{} // closed and replaced at every IDENTIFY or RESUME
	registeredCh chan struct{} // closed and replaced at every registration
	endpoint     string        // the interactions endpoint; "" = the gateway
	emojis       []*appEmoji   // the application's emojis, in creation order
	emojiCreates int           // successful creations
	refuseEmojis bool          // SetRefuseEmojis

	// Faults (faults.go).
	rng          *rand.Rand // the draws of rules with a Fraction
	rules        []*FaultRule
	ruleSeq      int
	injected     []InjectedFault
	retryUntil   map[string]time.Time // by bucket: no call before, after a 429
	globalUntil  time.Time            // no call of any bucket before, after a global 429…
	globalSent   time.Time            // …except those within GlobalGrace of it
	globalWindow time.Time            // every call answers a global 429 until then
	noAckUntil   time.Time            // heartbeats are not ACKed until then
	chaos        *chaosState
	resumes      []Resume
	oauth        oauthState // OAuth2 and the Activity (oauth.go)
}

// New returns a server; call Start to listen.
func New(opts Options) *Server {
	opts.AckTimeout = cmp.Or(opts.AckTimeout, DefaultAckTimeout)
	opts.HeartbeatInterval = cmp.Or(opts.HeartbeatInterval, DefaultHeartbeatInterval)
	opts.TokenLife = cmp.Or(opts.TokenLife, DefaultTokenLife)
	opts.Addr = cmp.Or(opts.Addr, "127.0.0.1:0")
	if opts.PrivateKey == nil {
		opts.PrivateKey = testPrivateKey()
	}
	opts.RecommendedShards = max(opts.RecommendedShards, 1)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:         opts,
		log:          log,
		commands:     map[string][]*appCommand{},
		registered:   map[string]bool{},
		messages:     map[string]*message{},
		attachments:  map[string]*attachment{},
		interactions: map[string]*interaction{},
		byToken:      map[string]*interaction{},
		sessions:     map[string]*session{},
		conns:        map[*gwConn]struct{}{},
		identifiedCh: make(chan struct{}),
		registeredCh: make(chan struct{}),
		oauth:        oauthState{codes: map[string]*grant{}, tokens: map[string]*grant{}, instances: map[string]*activityInstance{}, denied: map[string]bool{}},
		endpoint:     opts.InteractionsURL,
		rng:          rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		retryUntil:   map[string]time.Time{},
		client: &http.Client{
			// Discord does not follow an endpoint's redirects.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if opts.AppID == "" {
		s.opts.AppID = s.snowflake()
	}
	s.botID = s.opts.AppID
	if opts.Activities {
		s.commands[""] = []*appCommand{s.defaultEntryPoint()}
	}
	return s
}

// Start listens on Options.Addr and serves in the background.
func (s *Server) Start() error {
	if s.opts.Token == "" {
		return errors.New("fakediscord: Options.Token is required")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("fakediscord: listen: %w", err)
	}
	s.ln = ln
	s.base = "http://" + ln.Addr().String()
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("fakediscord: serve", "err", err)
		}
	}()
	s.log.Info("fake Discord listening", "url", s.base, "app_id", s.opts.AppID)
	return nil
}

// URL is the base URL to use as DISCORD_API_BASE, e.g. http://127.0.0.1:40123.
func (s *Server) URL() string { return s.base }

// AppID is the application's (and bot user's) ID.
func (s *Server) AppID() string { return s.opts.AppID }

// Close closes the gateway connections and the listener, stops the
// interactions' deadlines and cancels the requests to the interactions
// endpoint, waiting for them to end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.cancel()
	conns := slices.Collect(maps.Keys(s.conns))
	for _, in := range s.interactions {
		if in.timer != nil {
			in.timer.Stop()
		}
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close(websocketGoingAway, "server closing")
	}
	s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.http != nil && s.http.Shutdown(ctx) != nil {
		_ = s.http.Close()
	}
	return nil
}

// restRoutes are the REST routes, by method and path after /api/vN (as
// Fault.Route names them), with their handlers. Interactions, webhooks and
// the OAuth2 token exchange need no bot token, but a wrong one is refused.
var restRoutes = []struct {
	pattern string
	h       func(*Server, http.ResponseWriter, *http.Request)
}{
	{"GET /gateway", (*Server).getGateway},
	{"GET /gateway/bot", (*Server).getGatewayBot},
	{"GET /users/@me", (*Server).getMe},
	{"GET /applications/@me", (*Server).getApplication},
	{"GET /oauth2/applications/@me", (*Server).getApplication},
	{"GET /applications/{app}/commands", (*Server).getCommands},
	{"PUT /applications/{app}/commands", (*Server).putCommands},
	{"GET /applications/{app}/guilds/{guild}/commands", (*Server).getCommands},
	{"PUT /applications/{app}/guilds/{guild}/commands", (*Server).putCommands},
	{"DELETE /applications/{app}/commands/{command}", (*Server).deleteCommand},
	{"DELETE /applications/{app}/guilds/{guild}/commands/{command}", (*Server).deleteCommand},
	{"GET /applications/{app}/emojis", (*Server).getEmojis},
	{"POST /applications/{app}/emojis", (*Server).postEmoji},
	{"GET /applications/{app}/emojis/{emoji}", (*Server).getEmoji},
	{"PATCH /applications/{app}/emojis/{emoji}", (*Server).patchEmoji},
	{"DELETE /applications/{app}/emojis/{emoji}", (*Server).deleteEmoji},
	{"POST /oauth2/token", (*Server).postToken},
	{"GET /applications/{app}/activity-instances/{instance}", (*Server).getActivityInstance},
	{"POST /channels/{channel}/messages", (*Server).postChannelMessage},
	{"POST /interactions/{id}/{token}/callback", (*Server).postCallback},
	{"POST /webhooks/{app}/{token}", (*Server).postFollowUp},
	{"GET /webhooks/{app}/{token}/messages/{msg}", (*Server).getWebhookMessage},
	{"PATCH /webhooks/{app}/{token}/messages/{msg}", (*Server).patchWebhookMessage},
	{"DELETE /webhooks/{app}/{token}/messages/{msg}", (*Server).deleteWebhookMessage},
}

// Handler returns the HTTP handler of the REST API, the gateway and, with
// Options.Control, the control API. Start serves it; it is exported to mount
// the fake elsewhere.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /gateway", s.handleGateway)
	mux.HandleFunc("GET /gateway/", s.handleGateway)
	mux.HandleFunc("GET /attachments/{channel}/{id}/{filename}", s.getAttachment)
	for _, rt := range restRoutes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		auth := !strings.HasPrefix(path, "/interactions/") && !strings.HasPrefix(path, "/webhooks/") && path != "/oauth2/token"
		// The application's routes refuse another's (but for its Activity
		// instances, which answer 404).
		app := strings.HasPrefix(path, "/applications/{app}/") && !strings.Contains(path, "/activity-instances/")
		mux.HandleFunc(method+" /api/{version}"+path, func(w http.ResponseWriter, r *http.Request) {
			if v := r.PathValue("version"); v != "v9" && v != "v10" {
				s.fail(w, r, http.StatusNotFound, 0, "404: Not Found", nil, "")
				return
			}
			s.serveREST(w, r, rt.pattern, func(w http.ResponseWriter, r *http.Request) {
				token := r.Header.Get("Authorization")
				// GET /users/@me also takes a user's OAuth2 token: getMe checks it.
				bearer := rt.pattern == "GET /users/@me" && strings.HasPrefix(token, "Bearer ")
				switch {
				case (token != "" || auth) && token != "Bot "+s.opts.Token && !bearer:
					s.fail(w, r, http.StatusUnauthorized, 0, "401: Unauthorized", nil, "")
				case app && r.PathValue("app") != s.opts.AppID:
					s.fail(w, r, http.StatusForbidden, 50001, "Missing Access", nil, "")
				default:
					rt.h(s, w, r)
				}
			})
		})
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, 0, "404: Not Found", nil, "")
	})
	if s.opts.Control {
		mux.Handle("/_fake/", s.ControlHandler())
	}
	return mux
}

// Failures returns every refused call, missed deadline and failed reply
// of the interactions endpoint so far, oldest first.
func (s *Server) Failures() []Failure { return copyOf(s, &s.failures) }

// Identifies returns the gateway IDENTIFYs received so far.
func (s *Server) Identifies() []Identify { return copyOf(s, &s.identifies) }

// WaitIdentified waits until a live gateway connection has identified (or
// resumed) and returns its IDENTIFY.
func (s *Server) WaitIdentified(ctx context.Context) (Identify, error) {
	for {
		s.mu.Lock()
		var best *gwConn
		for c := range s.conns {
			if c.session != nil && (best == nil || c.opened.After(best.opened)) {
				best = c
			}
		}
		ch := s.identifiedCh
		var id Identify
		if best != nil {
			id = best.session.identify
		}
		s.mu.Unlock()
		if best != nil {
			return id, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return Identify{}, fmt.Errorf("fakediscord: waiting for IDENTIFY: %w", ctx.Err())
		}
	}
}

// Disconnect drops every gateway connection abruptly (no close frame), as a
// network failure would; discordgo then reconnects and RESUMEs.
func (s *Server) Disconnect() {
	// The connections are forgotten at once, so that no dispatch races
	// their read loops and meets a closed connection instead of none.
	s.mu.Lock()
	conns := slices.Collect(maps.Keys(s.conns))
	clear(s.conns)
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.UnderlyingConn().Close()
	}
	s.locked(func() {
		s.recordFaultLocked(InjectedFault{Kind: FaultGatewayDrop, Detail: fmt.Sprintf("%d connections dropped", len(conns))})
	})
}

// copyOf returns a copy of a list of the server's, read under s.mu.
func copyOf[T any](s *Server, list *[]T) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(*list)
}

// locked runs f under s.mu.
func (s *Server) locked(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// lookup reads m[k] under s.mu.
func lookup[K comparable, V any](s *Server, m map[K]V, k K) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := m[k]
	return v, ok
}

// read returns a field of the server's, read under s.mu.
func read[T any](s *Server, p *T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *p
}

// snowflake returns a new ID: milliseconds since Discord's epoch << 22 |
// increment. The caller holds s.mu (or is New).
func (s *Server) snowflake() string {
	ms := time.Now().UnixMilli() - 1420070400000
	if ms <= s.lastMS {
		ms = s.lastMS
		s.snow++
		if s.snow >= 1<<22 {
			ms++
			s.snow = 0
		}
	} else {
		s.snow = 0
	}
	s.lastMS = ms
	return strconv.FormatInt(ms<<22|s.snow, 10)
}

// fieldErr is one entry of Discord's "errors" object.
type fieldErr struct {
	path    string // dotted: "data.components.0.components.1.custom_id"
	code    string // BASE_TYPE_MAX_LENGTH…
	message string
}

// errorsJSON nests field errors the way Discord does:
// {"data": {"content": {"_errors": [{"code": …, "message": …}]}}}.
func errorsJSON(errs []fieldErr) map[string]any {
	root := map[string]any{}
	for _, e := range errs {
		node := root
		if e.path != "" {
			for _, part := range strings.Split(e.path, ".") {
				next, ok := node[part].(map[string]any)
				if !ok {
					next = map[string]any{}
					node[part] = next
				}
				node = next
			}
		}
		list, _ := node["_errors"].([]any)
		node["_errors"] = append(list, map[string]any{"code": e.code, "message": e.message})
	}
	return root
}

// newFailure builds a Failure; path may hold an interaction token.
func newFailure(method, path string, status, code int, msg string, errs []fieldErr, interactionID string) Failure {
	f := Failure{
		At: time.Now(), Method: method, Path: elideToken(path),
		Status: status, Code: code, Message: msg, Interaction: interactionID,
	}
	if len(errs) > 0 {
		b, _ := json.Marshal(errorsJSON(errs))
		f.Errors = string(b)
	}
	return f
}

// fail answers a Discord-shaped error and records it.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status, code int, msg string, errs []fieldErr, interactionID string) {
	body := map[string]any{"message": msg, "code": code}
	if len(errs) > 0 {
		body["errors"] = errorsJSON(errs)
	}
	f := newFailure(r.Method, r.URL.Path, status, code, msg, errs, interactionID)
	s.locked(func() { s.recordFailureLocked(f) })
	writeJSON(w, status, body)
}

// recordFailureLocked records a failure, or, for a refusal the bot only
// met because of an injected fault on the same interaction (40060, 10062,
// 50027), a FaultConsequence.
func (s *Server) recordFailureLocked(f Failure) {
	if in, ok := s.interactions[f.Interaction]; ok && in.faulted && (f.Code == 40060 || f.Code == 10062 || f.Code == 50027) {
		s.injected = append(s.injected, InjectedFault{At: f.At, Kind: FaultConsequence, Method: f.Method, Path: f.Path,
			Interaction: f.Interaction, Status: f.Status, Code: f.Code, Detail: f.Message})
		s.log.Info("refused after an injected fault", "method", f.Method, "path", f.Path, "status", f.Status, "code", f.Code, "interaction", f.Interaction)
		return
	}
	s.failures = append(s.failures, f)
	s.log.Warn("refused", "method", f.Method, "path", f.Path, "status", f.Status, "code", f.Code,
		"message", f.Message, "errors", f.Errors, "interaction", f.Interaction)
}

// elideToken shortens interaction tokens in paths for logs.
func elideToken(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if len(part) > 40 {
			parts[i] = part[:8] + "…"
		}
	}
	return strings.Join(parts, "/")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// readBody reads a JSON body (≤ 1 MiB); it answers 400 itself on failure.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, interactionID string) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body",
			[]fieldErr{{"", "CONTENT_TYPE_INVALID", "Expected \"Content-Type\" header to be one of {'application/json'}."}}, interactionID)
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
	if err != nil || len(b) > 1<<20 {
		s.fail(w, r, http.StatusRequestEntityTooLarge, 40005, "Request entity too large", nil, interactionID)
		return nil, false
	}
	if !json.Valid(b) {
		s.fail(w, r, http.StatusBadRequest, 50109, "The request body contains invalid JSON.", nil, interactionID)
		return nil, false
	}
	return b, true
}

func (s *Server) botUser() map[string]any {
	return map[string]any{
		"id": s.botID, "username": botName, "discriminator": "0", "global_name": nil,
		"avatar": nil, "bot": true, "verified": true, "flags": 0, "mfa_enabled": false,
	}
}

func (s *Server) gatewayURL() string { return "ws" + strings.TrimPrefix(s.base, "http") + "/gateway" }

func (s *Server) getGateway(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"url": s.gatewayURL()})
}

// Discord's daily budget of IDENTIFYs, reported by GET /gateway/bot.
const (
	sessionStartTotal = 1000
	sessionStartReset = 24 * time.Hour
)

func (s *Server) getGatewayBot(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	used := len(s.identifies)
	reset := sessionStartReset
	if used > 0 {
		reset -= time.Since(s.identifies[0].At)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"url": s.gatewayURL(), "shards": s.opts.RecommendedShards,
		"session_start_limit": map[string]any{
			"total": sessionStartTotal, "remaining": max(0, sessionStartTotal-used),
			"reset_after": max(0, reset.Milliseconds()), "max_concurrency": 1,
		},
	})
}

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	if s.bearerMe(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, s.botUser())
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) {
	flags := 1 << 23 // APPLICATION_COMMAND_BADGE
	if s.opts.Activities {
		flags |= flagEmbedded
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": s.opts.AppID, "name": botName, "icon": nil, "description": "",
		"bot_public": true, "bot_require_code_grant": false, "flags": flags,
		"bot": s.botUser(), "verify_key": s.PublicKeyHex(),
	})
}
