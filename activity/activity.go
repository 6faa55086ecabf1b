package activity

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lesclefsdutresor/clefs/art"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
)

// The page, built from activity/web (npm run build) and committed.
//
//go:embed static
var staticFS embed.FS

// Defaults of Options, and a request body's bound.
const (
	DefaultRate  = 5       // requests a second per user
	DefaultBurst = 20      // requests at once per user
	maxBody      = 1 << 10 // bytes of a request's body, at most
)

// What logins may ask of Discord, however many come: docs/activity.md,
// "Logins under a flood".
const (
	lookupRate, lookupBurst     = 10, 20
	exchangeRate, exchangeBurst = 10, 20
	instanceRate, instanceBurst = 1, 5
	instanceLife                = 30 * time.Second
)

// CSP is the Content-Security-Policy of every answer: the page loads
// nothing from anywhere else, and only Discord may frame it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https://cdn.discordapp.com; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; " +
	"frame-ancestors 'self' https://discord.com https://*.discord.com https://*.discordsays.com"

// Game plays the Activity's steps: *commands.App.
type Game interface {
	Act(ctx context.Context, act commands.Act) (commands.ActState, error)
}

// Options configure the Activity's handler.
type Options struct {
	Game         Game
	AppID        string           // the application's ID, the bot user's
	ClientSecret string           // the application's OAuth2 client secret
	Token        string           // the bot token, for the activity-instance route
	APIBase      string           // replaces https://discord.com (config DISCORD_API_BASE)
	Client       *http.Client     // calls Discord; nil means a client with a 10 s timeout
	Now          func() time.Time // the sessions' and the rate limit's clock; nil means time.Now
	Logger       *slog.Logger     // logs the refusals and failures; nil means slog.Default()
	// Rate and Burst bound each user's game requests (a token bucket); 0
	// means DefaultRate and DefaultBurst. Logins are bounded apart.
	Rate  float64
	Burst int
	Bus   Bus             // carries the table's updates between processes; nil: a LocalBus (one process)
	Done  <-chan struct{} // closed, ends the table's streams, which a server's shutdown would wait for
}

// handler serves the Activity under /activity/.
type handler struct {
	game         Game
	appID        string
	key, passKey []byte // sign the sessions, and the table's stream passes (no route takes one as a session)
	hub          *hub
	done         <-chan struct{}
	discord      *discord
	now          func() time.Time
	log          *slog.Logger
	users        *limiter
	// lookups and exchanges bound the logins' calls to Discord (key ""),
	// perInstance the exchanges for one instance (key: its ID).
	lookups, exchanges, perInstance *limiter
	mu                              sync.Mutex
	known                           map[string]known // instances read, by ID
	files                           map[string]*file // by path under /activity/: "" is index.html
	mux                             *http.ServeMux
}

// known is what Discord said of an instance, kept until exp: the
// instance, or err, its refusal (none running).
type known struct {
	in  instance
	err error
	exp time.Time
}

// file is a static answer: the page's files and the art.
type file struct {
	body, gz []byte // gz: the gzipped body, nil when it does not pay
	ctype    string
	etag     string
	cache    string
}

// New returns the handler of /activity and everything under /activity/
// (mount it at both): the page, the art and the API. The bare /activity is
// served, never redirected (docs/activity.md, "Setting it up", says why).
func New(o Options) (http.Handler, error) {
	if o.Game == nil || o.AppID == "" || o.ClientSecret == "" || o.Token == "" {
		return nil, errors.New("activity: the game, the application ID, the client secret and the bot token are required")
	}
	o.APIBase = cmp.Or(o.APIBase, "https://discord.com")
	o.Client = cmp.Or(o.Client, &http.Client{Timeout: 10 * time.Second})
	o.Logger = cmp.Or(o.Logger, slog.Default())
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	h := &handler{
		game: o.Game, appID: o.AppID, key: mac([]byte(o.ClientSecret), sessionLabel), now: o.Now, log: o.Logger,
		discord: &discord{api: strings.TrimRight(o.APIBase, "/") + "/api/v10", appID: o.AppID, secret: o.ClientSecret, token: o.Token, client: o.Client},
		users:   newLimiter(o.Rate, o.Burst),
		lookups: newLimiter(lookupRate, lookupBurst), exchanges: newLimiter(exchangeRate, exchangeBurst),
		perInstance: newLimiter(instanceRate, instanceBurst), known: map[string]known{}, files: map[string]*file{},
	}
	h.passKey, h.hub, h.done = mac(h.key, "table pass"), newHub(o.Bus, o.Now), o.Done
	if err := h.loadFiles(); err != nil {
		return nil, err
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /activity/api/config", h.config)
	m.HandleFunc("POST /activity/api/session", h.session)
	m.HandleFunc("GET /activity/api/state", h.play(commands.ActKindState))
	for _, k := range []string{commands.ActKindBuy, commands.ActKindReveal, commands.ActKindChest, commands.ActKindDaily} {
		m.HandleFunc("POST /activity/api/"+k, h.play(k))
	}
	m.HandleFunc("POST /activity/api/table", h.table)
	m.HandleFunc("GET /activity/api/table", h.table)
	m.HandleFunc("/activity/{path...}", h.static)
	m.HandleFunc("/activity", h.static) // the page
	h.mux = m
	return h, nil
}

// ServeHTTP sets the headers every answer carries and routes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

// loadFiles reads the page's files and draws the art, once.
func (h *handler) loadFiles() error {
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		h.add(strings.TrimPrefix(p, "static/"), b, "no-cache")
		return nil
	})
	if err != nil {
		return fmt.Errorf("activity: read the page: %w", err)
	}
	if h.files["index.html"] == nil {
		return errors.New("activity: static/index.html is missing")
	}
	h.files[""] = h.files["index.html"]
	for i := range game.NumSymbols {
		b, err := art.SymbolPNG(game.Symbol(i))
		if err != nil {
			return fmt.Errorf("activity: draw symbol %d: %w", i, err)
		}
		h.add("art/"+strconv.Itoa(i)+".png", b, "public, max-age=86400")
	}
	for _, n := range art.Names() {
		b, err := art.PicturePNG(n)
		if err != nil {
			return fmt.Errorf("activity: draw %s: %w", n, err)
		}
		h.add("art/"+n+".png", b, "public, max-age=86400")
	}
	return nil
}

// contentTypes are the types of the files served, by extension.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml",
	".json": "application/json", ".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8",
}

// add serves b at /activity/ + p.
func (h *handler) add(p string, b []byte, cache string) {
	sum := sha256.Sum256(b)
	f := &file{body: b, cache: cache, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
	f.ctype = cmp.Or(contentTypes[path.Ext(p)], "application/octet-stream")
	if f.ctype != "image/png" {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		if z.Len() < len(b) {
			f.gz = z.Bytes()
		}
	}
	h.files[p] = f
}

// static serves the page's files and the art; anything else is a 404
// (405 for a method other than GET), in JSON under api/.
func (h *handler) static(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	f := h.files[p]
	switch {
	case strings.HasPrefix(p, "api/"):
		h.fail(w, http.StatusNotFound, "not_found", "no such route")
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	case f == nil:
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.ctype)
	hd.Set("Cache-Control", f.cache)
	hd.Set("ETag", f.etag)
	hd.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if f.gz != nil && acceptsGzip(r) {
		hd.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, e := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if name, q, _ := strings.Cut(strings.TrimSpace(e), ";"); strings.EqualFold(name, "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// config answers the application's ID, which the page's SDK needs.
func (h *handler) config(w http.ResponseWriter, r *http.Request) {
	h.reply(w, http.StatusOK, map[string]string{"client_id": h.appID})
}

// Shapes of what the page sends.
var (
	codePattern     = regexp.MustCompile(`^[A-Za-z0-9_.~-]{1,200}$`)
	instancePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)
)

// session proves who plays, where, as docs/activity.md ("How it works")
// says: Discord's word only, the instance read before any exchange.
func (h *handler) session(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code       string `json:"code"`
		InstanceID string `json:"instance_id"`
	}
	if !h.decode(w, r, &req) {
		return
	}
	id := req.InstanceID
	if !codePattern.MatchString(req.Code) || !instancePattern.MatchString(id) {
		h.fail(w, http.StatusBadRequest, "bad_request", "code and instance_id are required, as Discord gives them")
		return
	}
	ctx, now := r.Context(), h.now()
	in, wait, err := h.instance(ctx, id, now, false)
	if !h.checkInstance(w, in, wait, err, id, "") {
		return
	}
	ok, wait := h.perInstance.allowUpTo(id, float64(instanceBurst+2*len(in.Users)), now)
	if ok {
		ok, wait = h.exchanges.allow("", now)
	}
	if !ok {
		h.tooMany(w, wait, "", "session")
		return
	}
	access, err := h.discord.exchange(ctx, req.Code)
	if err != nil {
		h.discordFailed(w, err, "code", "Discord refused the authorization code: authorize again", "instance", id)
		return
	}
	u, err := h.discord.user(ctx, access)
	if err != nil {
		h.discordFailed(w, err, "code", "Discord refused the access token: authorize again", "instance", id)
		return
	}
	if !slices.Contains(in.Users, u.ID) { // joined since the instance was read?
		in, _, err = h.instance(ctx, id, now, true)
		if !h.checkInstance(w, in, 0, err, id, u.ID) {
			return
		}
	}
	locale := u.Locale
	if len(locale) > 16 {
		locale = ""
	}
	s := session{U: u.ID, G: in.Location.GuildID, C: in.Location.ChannelID, I: in.InstanceID, L: locale, E: now.Add(SessionLife).Unix()}
	st, ok := h.act(w, r, s, commands.Act{Kind: commands.ActKindState})
	if !ok {
		return
	}
	h.log.Info("activity: session started", "guild", s.G, "channel", s.C, "user", s.U, "instance", s.I)
	h.reply(w, http.StatusOK, map[string]any{
		"access_token": access, "session": sign(h.key, s), "expires_in": int(SessionLife / time.Second), "state": st,
	})
}

// instance returns what Discord says of instance id: as kept, unless
// fresh or not kept; a read not fresh waits its turn among the lookups
// (else wait > 0). Discord unavailable is not kept.
func (h *handler) instance(ctx context.Context, id string, now time.Time, fresh bool) (instance, time.Duration, error) {
	h.mu.Lock()
	k, ok := h.known[id]
	h.mu.Unlock()
	if ok && !fresh && now.Before(k.exp) {
		return k.in, 0, k.err
	}
	if ok, wait := h.lookups.allow("", now); !ok && !fresh {
		return instance{}, wait, nil
	}
	in, err := h.discord.instance(ctx, id)
	if err == nil || errors.Is(err, errRefused) {
		h.mu.Lock()
		if len(h.known) >= 512 { // reads are bounded, so are the live ones
			maps.DeleteFunc(h.known, func(_ string, k known) bool { return !now.Before(k.exp) })
		}
		h.known[id] = known{in, err, now.Add(instanceLife)}
		h.mu.Unlock()
	}
	return in, 0, err
}

// checkInstance answers a session request for instance id that cannot
// go on, as read (in, wait, err), for user ("" before the exchange), and
// returns false; true if in is running, this application's, in a guild's
// channel, and holds user.
func (h *handler) checkInstance(w http.ResponseWriter, in instance, wait time.Duration, err error, id, user string) bool {
	guild, errGuild := strconv.ParseUint(in.Location.GuildID, 10, 64)
	_, errChannel := strconv.ParseUint(in.Location.ChannelID, 10, 64)
	switch {
	case wait > 0:
		h.tooMany(w, wait, user, "session")
	case err != nil:
		h.discordFailed(w, err, "instance", "this Activity is not running: launch it again", "instance", id, "user", user)
	case in.ApplicationID != h.appID || in.InstanceID != id:
		h.refuse(w, http.StatusForbidden, "instance", "this Activity instance is another application's", "instance", id, "user", user)
	case user != "" && !slices.Contains(in.Users, user):
		h.refuse(w, http.StatusForbidden, "not_in_instance", "you are not in this Activity: launch it again", "instance", id, "user", user)
	case errGuild != nil || guild == 0 || errChannel != nil:
		h.refuse(w, http.StatusForbidden, "guild_only", "the game is played in a server's channel, not in a direct message", "instance", id, "user", user)
	default:
		return true
	}
	return false
}

// bodies are what each step takes, for the refusals.
var bodies = map[string]string{
	commands.ActKindBuy: `{"op"}`, commands.ActKindDaily: `{"op"}`,
	commands.ActKindReveal: `{"op", "ticket" (a positive number), "row" (0, 1, 2, or -1 for Auto)}`,
	commands.ActKindChest:  `{"op", "chest" (a positive number)}`,
}

// play serves one game route of kind.
func (h *handler) play(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.bearer(w, r)
		if !ok {
			return
		}
		if ok, wait := h.users.allow(s.U, h.now()); !ok {
			h.tooMany(w, wait, s.U, kind)
			return
		}
		act := commands.Act{Kind: kind}
		if kind != commands.ActKindState {
			var req struct { // what the kind does not take must be absent
				Op     string `json:"op"`
				Ticket *int64 `json:"ticket"`
				Row    *int   `json:"row"`
				Chest  *int64 `json:"chest"`
			}
			if !h.decode(w, r, &req) {
				return
			}
			ticket, row, chest := req.Ticket != nil, req.Row != nil, req.Chest != nil
			if ticket != (kind == commands.ActKindReveal) || row != (kind == commands.ActKindReveal) || chest != (kind == commands.ActKindChest) ||
				(ticket && *req.Ticket <= 0) || (chest && *req.Chest <= 0) {
				h.refuse(w, http.StatusBadRequest, "bad_request", kind+" takes "+bodies[kind], "user", s.U)
				return
			}
			act.Op = req.Op
			if ticket {
				act.Ticket, act.Row = uint64(*req.Ticket), *req.Row
			}
			if chest {
				act.Chest = *req.Chest
			}
		}
		if st, ok := h.act(w, r, s, act); ok {
			h.reply(w, http.StatusOK, st)
			if kind != commands.ActKindState && kind != commands.ActKindDaily { // after the answer: the table waits, not the player
				g, _ := strconv.ParseUint(s.G, 10, 64)
				h.hub.publish(context.WithoutCancel(r.Context()), g, message{Kind: "seat", Instance: s.I, Seat: seatOf(st)})
			}
		}
	}
}

// bearer returns the session of r's Authorization; on failure it answers
// 401 and returns false.
func (h *handler) bearer(w http.ResponseWriter, r *http.Request) (session, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s, err := verify(h.key, token, h.now())
	if !ok || err != nil {
		h.refuse(w, http.StatusUnauthorized, "session", "your session is over: authorize again")
		return session{}, false
	}
	return s, true
}

// act runs act for the session's user, where the session says; on an
// error it answers it and returns false.
func (h *handler) act(w http.ResponseWriter, r *http.Request, s session, act commands.Act) (commands.ActState, bool) {
	g, errG := strconv.ParseUint(s.G, 10, 64)
	c, errC := strconv.ParseUint(s.C, 10, 64)
	u, errU := strconv.ParseUint(s.U, 10, 64)
	if errors.Join(errG, errC, errU) != nil { // signed by us: cannot happen
		h.fail(w, http.StatusUnauthorized, "session", "your session is over: authorize again")
		return commands.ActState{}, false
	}
	act.Guild, act.Channel, act.User, act.Locale = g, c, u, s.L
	st, err := h.game.Act(r.Context(), act)
	var ae *commands.ActError
	switch {
	case err == nil:
		return st, true
	case errors.As(err, &ae):
		h.reply(w, http.StatusConflict, ae)
	case errors.Is(err, commands.ErrActInput):
		h.refuse(w, http.StatusBadRequest, "bad_request", strings.TrimPrefix(err.Error(), commands.ErrActInput.Error()+": "), "user", s.U, "kind", act.Kind)
	default: // logged by Act
		h.fail(w, http.StatusServiceUnavailable, "unavailable", "the game could not answer: try again, nothing is done twice")
	}
	return commands.ActState{}, false
}

// decode reads a JSON body of at most maxBody bytes into v, refusing
// unknown fields and trailing data; on failure it answers and returns false.
func (h *handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	d := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil && d.Decode(&struct{}{}) != io.EOF {
		err = errors.New("more than one JSON value")
	}
	switch {
	case errors.As(err, new(*http.MaxBytesError)):
		h.refuse(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("a request's body is at most %d bytes", maxBody), "path", r.URL.Path)
	case err != nil:
		h.refuse(w, http.StatusBadRequest, "bad_request", "the body is not the JSON this route takes: "+err.Error(), "path", r.URL.Path)
	}
	return err == nil
}

// discordFailed answers a failed call to Discord: a refusal (403 for the
// instance, else 401 code) or Discord unavailable (503).
func (h *handler) discordFailed(w http.ResponseWriter, err error, code, msg string, attrs ...any) {
	if errors.Is(err, errRefused) {
		status := http.StatusUnauthorized
		if code == "instance" {
			status = http.StatusForbidden
		}
		h.refuse(w, status, code, msg, append(attrs, "err", err)...)
		return
	}
	h.log.Warn("activity: Discord unavailable", append(attrs, "err", err)...)
	h.fail(w, http.StatusServiceUnavailable, "discord", "Discord did not answer: try again")
}

// refuse logs a refused request and answers it.
func (h *handler) refuse(w http.ResponseWriter, status int, code, msg string, attrs ...any) {
	h.log.Info("activity: request refused", append([]any{"status", status, "error", code}, attrs...)...)
	h.fail(w, status, code, msg)
}

// tooMany answers a flood: 429 with Retry-After.
func (h *handler) tooMany(w http.ResponseWriter, wait time.Duration, user, kind string) {
	h.log.Info("activity: rate limited", "user", user, "kind", kind)
	w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
	h.fail(w, http.StatusTooManyRequests, "rate_limited", "too many requests: slow down")
}

// fail answers an error body {"error", "message"}.
func (h *handler) fail(w http.ResponseWriter, status int, code, msg string) {
	h.reply(w, status, map[string]string{"error": code, "message": msg})
}

// reply answers v as JSON.
func (h *handler) reply(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"internal","message":"encoding the answer failed"}`)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
