package bot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/fairpage"
)

// Limits of the HTTP endpoint.
const (
	// MaxBodyBytes bounds a POST's body: a click carrying a full message
	// is a few KiB.
	MaxBodyBytes = 1 << 20
	// MaxSignatureAge is the oldest (or furthest in the future) signature
	// timestamp accepted: a signed body replayed later is refused.
	MaxSignatureAge = 5 * time.Minute
	// replyDeadline bounds the wait for the handler's first answer:
	// Discord gives up after 3 seconds.
	replyDeadline = 3 * time.Second
)

// EndpointOptions configure an Endpoint.
type EndpointOptions struct {
	Options // Logger: the endpoint's life and refusals; Now: the signatures' clock
	// PublicKey is the application's Ed25519 public key, which signs every
	// interaction Discord POSTs. Required.
	PublicKey ed25519.PublicKey
	Addr      string // Run's listen address (host:port)
}

// Endpoint serves Discord's interactions over HTTP. Create it with
// NewEndpoint; it is an http.Handler, and Run serves it on Addr.
type Endpoint struct {
	base
	opts  EndpointOptions
	ilog  *slog.Logger // log, for the interactions: with transport=http
	mux   *http.ServeMux
	state atomic.Pointer[error] // Health's answer; nil while Run serves
	appID atomic.Value          // string, once Register has read it

	mu        sync.Mutex
	seen      map[string]time.Time // interaction IDs received, until their signature has expired
	lastSweep time.Time            // when seen was last swept of expired IDs
}

// NewEndpoint checks the options; nothing listens before Run.
func NewEndpoint(opts EndpointOptions, h Handler) (*Endpoint, error) {
	b, err := newBase(h, &opts.Options)
	if err != nil {
		return nil, err
	}
	if len(opts.PublicKey) != ed25519.PublicKeySize {
		return nil, errors.New("bot: the HTTP endpoint needs the application's public key")
	}
	e := &Endpoint{
		base: b, opts: opts, ilog: b.log.With("transport", "http"),
		mux: http.NewServeMux(), seen: map[string]time.Time{},
	}
	notYet := starting("interactions endpoint not serving yet")
	e.state.Store(&notYet)
	e.mux.HandleFunc("/interactions", e.serveInteraction)
	e.mux.Handle("GET /fair", fairpage.Handler()) // the verification page; HEAD too, 405 for other methods
	return e, nil
}

// ServeHTTP serves POST /interactions and GET /fair, the verification
// page (package fairpage); anything else is a 404.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.mux.ServeHTTP(w, r) }

// Health returns ErrStarting, wrapped, until Run serves, then nil (the
// store has its own check), and an error once it has stopped.
func (e *Endpoint) Health(context.Context) error {
	if err := e.state.Load(); err != nil {
		return *err
	}
	return nil
}

// Run binds Addr first (Discord may call as soon as the commands exist),
// registers and serves until ctx ends, then shuts down as the gateway does;
// a clean shutdown returns nil. ready, if not nil, gets the address.
func (e *Endpoint) Run(ctx context.Context, ready func(addr net.Addr)) error {
	ln, err := net.Listen("tcp", e.opts.Addr)
	if err != nil {
		return fmt.Errorf("bot: listen for interactions on %s: %w", e.opts.Addr, err)
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop := func() error {
		stopped := errors.New("interactions endpoint stopped")
		e.state.Store(&stopped)
		start := time.Now()
		sctx, cancel := context.WithTimeout(context.Background(), max(e.track.timeout, time.Second))
		defer cancel()
		err := srv.Shutdown(sctx) // waits for the replies in progress
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil // the tracker reports the interactions still running
		}
		err = errors.Join(err, e.track.shutdown(start))
		e.log.Info("interactions endpoint stopped", "handled", e.track.handled.Load(), "took", time.Since(start).Round(time.Millisecond))
		return err
	}

	if err := e.Register(ctx); err != nil {
		return startFailed(ctx, err, stop)
	}
	e.log.Info("interactions endpoint running", "addr", ln.Addr().String(), "path", "/interactions")
	e.state.Store(nil)
	if ready != nil {
		ready(ln.Addr())
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		return errors.Join(fmt.Errorf("bot: interactions endpoint: %w", err), stop())
	}
	return stop()
}

// Register sets the endpoint up as Run does before it serves: the
// application's ID, the emojis and the commands.
func (e *Endpoint) Register(ctx context.Context) error {
	appID, err := e.setUp(ctx, e.opts.GuildID, true)
	e.appID.Store(appID)
	return err
}

func (e *Endpoint) refuse(w http.ResponseWriter, r *http.Request, status int, reason, msg string) {
	e.obs.Rejected(reason)
	e.log.Debug("interaction request refused", "reason", reason, "status", status, "remote", r.RemoteAddr)
	http.Error(w, msg, status)
}

// serveInteraction checks a POST as docs/scaling.md ("The HTTP interactions
// endpoint") lists, answers a PING and hands any other interaction on.
func (e *Endpoint) serveInteraction(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		e.refuse(w, r, http.StatusMethodNotAllowed, "method", "only POST is served here")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		e.refuse(w, r, http.StatusUnsupportedMediaType, "content_type", "the body must be application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			e.refuse(w, r, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the body exceeds %d bytes", MaxBodyBytes))
			return
		}
		e.refuse(w, r, http.StatusBadRequest, "malformed", "the body could not be read")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !discordgo.VerifyInteraction(r, e.opts.PublicKey) {
		e.refuse(w, r, http.StatusUnauthorized, "signature", "invalid request signature")
		return
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-Signature-Timestamp"), 10, 64)
	if age := e.opts.Now().Sub(time.Unix(ts, 0)); err != nil || age > MaxSignatureAge || age < -MaxSignatureAge {
		e.refuse(w, r, http.StatusUnauthorized, "stale", "the signature's timestamp is not within 5 minutes of now")
		return
	}
	i := new(discordgo.Interaction)
	decodeErr := json.Unmarshal(body, i)
	undecodable := decodeErr != nil || i.ID == "" || i.Token == ""
	if undecodable { // as on the gateway: an apology, if it has an id and a token
		if i, err = decodeLeniently(body); err != nil {
			e.refuse(w, r, http.StatusBadRequest, "malformed", "the body is not an interaction")
			return
		}
	} else if i.Type == discordgo.InteractionPing {
		e.obs.Received("http", -1)
		_ = writeReply(w, replyBody{"application/json", []byte(`{"type":1}`)})
		return
	}
	if !e.firstSight(i.ID) {
		e.refuse(w, r, http.StatusConflict, "replay", "this interaction was already received")
		return
	}
	e.obs.Received("http", -1)
	if undecodable {
		e.log.Error("interaction not decodable; answering with an apology", "interaction", i.ID, "type", int(i.Type), "err", decodeErr)
		b, _ := json.Marshal(apology(i.Locale))
		_ = writeReply(w, replyBody{"application/json", b})
		return
	}
	e.answer(w, r, i)
}

// firstSight records an interaction's ID and reports whether it was new:
// a signed body replayed within its 5 minutes is refused. The map is swept
// once a minute of the IDs whose signature is too old anyway.
func (e *Endpoint) firstSight(id string) bool {
	now := e.opts.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.seen[id]; ok {
		return false
	}
	if now.Sub(e.lastSweep) > time.Minute {
		maps.DeleteFunc(e.seen, func(_ string, t time.Time) bool { return now.Sub(t) > 2*MaxSignatureAge })
		e.lastSweep = now
	}
	e.seen[id] = now
	return true
}

// answer runs the handler on i and writes its first answer as the HTTP
// reply; the handler goes on after that (an edit after a deferral) on the
// transport's context, not the request's.
func (e *Endpoint) answer(w http.ResponseWriter, r *http.Request, i *discordgo.Interaction) {
	appID, _ := e.appID.Load().(string)
	reply := &httpReply{
		restResponder: newRESTResponder(e.rest, appID),
		body:          make(chan replyBody, 1),
		sent:          make(chan error, 1),
	}
	handled := make(chan bool, 1)
	go func() { handled <- e.track.handle(reply, i, e.ilog) }()
	select {
	case b := <-reply.body:
		reply.sent <- writeReply(w, b)
	case ok := <-handled: // returned without answering: shutting down, or a failure
		select {
		case b := <-reply.body:
			reply.sent <- writeReply(w, b)
		default:
			if !ok {
				http.Error(w, "shutting down", http.StatusServiceUnavailable)
				return
			}
			e.log.Error("interaction left unanswered by the handler", "interaction", i.ID)
			http.Error(w, "no answer", http.StatusInternalServerError)
		}
	case <-time.After(replyDeadline):
		e.log.Error("interaction not answered within 3 s", "interaction", i.ID)
		http.Error(w, "no answer in time", http.StatusServiceUnavailable)
		reply.sent <- errors.New("too late: the HTTP reply was abandoned")
	case <-r.Context().Done():
		reply.sent <- fmt.Errorf("the request ended before the reply: %w", r.Context().Err())
	}
}

// replyBody is an encoded interaction response: JSON, or multipart.
type replyBody struct {
	contentType string
	b           []byte
}

// writeReply writes an interaction response as the HTTP reply and flushes
// it: an edit that follows a deferral must not reach Discord before it.
func writeReply(w http.ResponseWriter, r replyBody) error {
	w.Header().Set("Content-Type", r.contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(r.b)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(r.b); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// httpReply is the Responder of one interaction received over HTTP: the
// first answer goes in the HTTP reply, what follows (EditOriginal,
// FollowUp) over REST.
type httpReply struct {
	restResponder
	body     chan replyBody // the encoded first answer, taken by the request's goroutine
	sent     chan error     // whether it was written
	answered atomic.Bool
}

// Respond hands the answer (multipart with its files, if any) to the HTTP
// request and returns once it is written, so that an edit that follows a
// deferral leaves after it.
func (h *httpReply) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	var files []*discordgo.File
	if resp.Data != nil {
		files = resp.Data.Files
	}
	var body replyBody
	var err error
	if body.contentType, body.b, err = encodeBody(resp, files); err != nil {
		return fmt.Errorf("respond to interaction %s: encode: %w", i.ID, err)
	}
	if !h.answered.CompareAndSwap(false, true) {
		return fmt.Errorf("respond to interaction %s: already answered in the HTTP reply", i.ID)
	}
	h.body <- body
	select {
	case err := <-h.sent:
		if err != nil {
			return fmt.Errorf("respond to interaction %s: %w", i.ID, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("respond to interaction %s: %w", i.ID, ctx.Err())
	}
}
