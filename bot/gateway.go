package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// DefaultDisconnectGrace is how long a shard may stay disconnected before
// Health reports it: discordgo reconnects and RESUMEs on its own.
const DefaultDisconnectGrace = 30 * time.Second

// ErrStarting is what a transport's Health matches (errors.Is) until it
// serves: not serving yet, not failing either. The error also has a method
// Starting() bool, by which /healthz tells it apart without this package.
var ErrStarting = errors.New("starting")

type startingError struct{ reason string }

func (e startingError) Error() string      { return e.reason }
func (startingError) Starting() bool       { return true }
func (startingError) Is(target error) bool { return target == ErrStarting }

func starting(format string, args ...any) error {
	return startingError{fmt.Sprintf(format, args...)}
}

// DefaultIdentifyInterval is how long Discord wants between two batches of
// shards identifying (a batch is max_concurrency shards).
const DefaultIdentifyInterval = 5 * time.Second

// GatewayOptions configure a Gateway; a zero duration means its default.
type GatewayOptions struct {
	Options // Logger: each shard's lines with a "shard" attribute; Now: Health's clock
	// ShardCount is the bot's total, every process included; 0 asks Discord
	// (GET /gateway/bot).
	ShardCount int
	// ShardIDs are the shards this process runs; nil means all of them.
	// The process that runs shard 0 registers the commands.
	ShardIDs         []int
	IdentifyInterval time.Duration // between two batches of shards opening
	DisconnectGrace  time.Duration // how long a shard may stay down before Health says so
}

// Gateway serves a Handler over Discord's gateway: one discordgo session per
// shard, and one more for the REST calls. Create it with NewGateway, run it
// with Run. Its methods are safe for concurrent use.
type Gateway struct {
	base
	opts  GatewayOptions
	ready chan struct{}

	mu      sync.Mutex
	shards  []*shard // set once Run knows them
	stopped bool     // shutdown has begun
}

// shard is one gateway connection.
type shard struct {
	id  int
	s   *discordgo.Session
	log *slog.Logger

	mu        sync.Mutex
	ready     bool      // the shard's first READY has arrived
	up        bool      // from a READY or a RESUMED until a disconnection
	downSince time.Time // while !up: the first disconnection, not the last failed reconnection
}

// shardUp records a READY (ready) or a RESUMED on sh.
func (g *Gateway) shardUp(sh *shard, ready bool) {
	sh.mu.Lock()
	sh.up = true
	sh.ready = sh.ready || ready
	sh.mu.Unlock()
	g.obs.ShardUp(sh.id, true)
}

// shardDown records a disconnection of sh. A shard already down keeps the
// time it went down.
func (g *Gateway) shardDown(sh *shard) {
	now := g.opts.Now()
	sh.mu.Lock()
	if sh.up || sh.downSince.IsZero() {
		sh.downSince = now
	}
	sh.up = false
	sh.mu.Unlock()
	g.obs.ShardUp(sh.id, false)
}

// NewGateway checks the options; nothing connects before Run.
func NewGateway(opts GatewayOptions, h Handler) (*Gateway, error) {
	if opts.ShardCount < 0 {
		return nil, fmt.Errorf("bot: shard count %d", opts.ShardCount)
	}
	for k, id := range opts.ShardIDs {
		if id < 0 || (k > 0 && id <= opts.ShardIDs[k-1]) || (opts.ShardCount > 0 && id >= opts.ShardCount) {
			return nil, fmt.Errorf("bot: shards %v: want distinct increasing numbers below the shard count %d", opts.ShardIDs, opts.ShardCount)
		}
	}
	if opts.ShardIDs != nil && len(opts.ShardIDs) == 0 {
		return nil, errors.New("bot: an empty list of shards")
	}
	opts.IdentifyInterval = positiveOr(opts.IdentifyInterval, DefaultIdentifyInterval)
	if opts.DisconnectGrace < 0 {
		return nil, fmt.Errorf("bot: disconnect grace %v: want 0 (the default) or more", opts.DisconnectGrace)
	}
	opts.DisconnectGrace = positiveOr(opts.DisconnectGrace, DefaultDisconnectGrace)
	b, err := newBase(h, &opts.Options)
	if err != nil {
		return nil, err
	}
	return &Gateway{base: b, opts: opts, ready: make(chan struct{})}, nil
}

// Ready is closed once every shard is connected and the commands registered.
func (g *Gateway) Ready() <-chan struct{} { return g.ready }

// Health suits /healthz (docs/operating.md, "Metrics and health"):
// ErrStarting, wrapped, until every shard has its first READY; then an error
// naming the shards down longer than DisconnectGrace, or nil; once stopped, an error.
func (g *Gateway) Health(context.Context) error {
	g.mu.Lock()
	shards, stopped := g.shards, g.stopped
	g.mu.Unlock()
	if stopped {
		return errors.New("gateway stopped")
	}
	if len(shards) == 0 {
		return starting("gateway not connected yet")
	}
	now := g.opts.Now()
	var waiting, down []string
	for _, sh := range shards {
		sh.mu.Lock()
		switch {
		case !sh.ready:
			waiting = append(waiting, strconv.Itoa(sh.id))
		case !sh.up && now.Sub(sh.downSince) > g.opts.DisconnectGrace:
			down = append(down, fmt.Sprintf("%d (for %v)", sh.id, now.Sub(sh.downSince).Round(time.Second)))
		}
		sh.mu.Unlock()
	}
	if len(waiting) > 0 {
		return starting("gateway shards waiting for their first READY: %s of %d", strings.Join(waiting, ", "), len(shards))
	}
	if len(down) > 0 {
		return fmt.Errorf("gateway shards disconnected for more than %v: %s of %d", g.opts.DisconnectGrace, strings.Join(down, ", "), len(shards))
	}
	return nil
}

// Run starts the shards as docs/scaling.md ("Gateway shards") tells and
// serves until ctx ends; then it stops taking interactions, closes the
// shards and waits for those in progress up to the shutdown timeout (then
// cancels them). A failed start returns its error; a clean shutdown nil.
func (g *Gateway) Run(ctx context.Context) error {
	if err := g.start(ctx); err != nil {
		return startFailed(ctx, err, g.shutdown)
	}
	close(g.ready)
	<-ctx.Done()
	return g.shutdown()
}

func (g *Gateway) start(ctx context.Context) error {
	gb, err := g.rest.GatewayBot(discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: ask Discord for the gateway (GET /gateway/bot): %w", apiError(g.rest, err))
	}
	count := g.opts.ShardCount
	if count == 0 {
		count = max(gb.Shards, 1)
		g.log.Info("shard count from Discord", "shard_count", count)
	}
	ids := g.opts.ShardIDs
	if ids == nil {
		for id := range count {
			ids = append(ids, id)
		}
	} else if last := ids[len(ids)-1]; last >= count {
		return fmt.Errorf("bot: shard %d does not exist: the bot has %d shards", last, count)
	}
	appID, err := g.setUp(ctx, g.opts.GuildID, ids[0] == 0)
	if err != nil {
		return err
	}
	responder := newRESTResponder(g.rest, appID)
	shards := make([]*shard, len(ids))
	for k, id := range ids {
		s, err := NewSession(g.opts.Token, g.opts.APIBase, TransportOptions{})
		if err != nil {
			return err
		}
		s.Client = g.rest.Client
		s.ShardID, s.ShardCount = id, count
		s.LogLevel = g.opts.LogLevel
		sh := &shard{id: id, s: s, log: g.log.With("transport", "gateway", "shard", id)}
		g.addHandlers(sh, responder)
		shards[k] = sh
	}
	g.mu.Lock()
	g.shards = shards
	g.mu.Unlock()

	batch := max(gb.SessionStartLimit.MaxConcurrency, 1)
	for k, sh := range shards {
		if k > 0 && k%batch == 0 {
			select {
			case <-time.After(g.opts.IdentifyInterval):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := sh.s.Open(); err != nil {
			return fmt.Errorf("bot: open gateway shard %d of %d: %w", sh.id, count, err)
		}
		g.shardUp(sh, true) // Open returns once READY has arrived
	}
	g.log.Info("gateway running", "shards", ids, "shard_count", count)
	return nil
}

// addHandlers makes the shard's session serve interactions and report its
// state. discordgo runs each handler in a goroutine of its own.
func (g *Gateway) addHandlers(sh *shard, responder restResponder) {
	// discordgo fires INTERACTION_CREATE's handlers even when decoding
	// failed, with an empty interaction; the raw event still has the
	// payload, from which the apology's few fields are read.
	sh.s.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
		if e.Type != "INTERACTION_CREATE" {
			return
		}
		g.obs.Received("gateway", sh.id)
		ic, _ := e.Struct.(*discordgo.InteractionCreate)
		if ic != nil && ic.Interaction != nil && ic.ID != "" && ic.Token != "" {
			g.track.handle(responder, ic.Interaction, sh.log)
			return
		}
		g.track.apologise(responder, e.RawData, sh.log)
	})
	sh.s.AddHandler(func(*discordgo.Session, *discordgo.Connect) {
		sh.log.Debug("gateway connected; identifying or resuming")
	})
	sh.s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		g.shardUp(sh, true)
		sh.log.Info("gateway ready", "session", r.SessionID)
	})
	sh.s.AddHandler(func(*discordgo.Session, *discordgo.Resumed) {
		g.shardUp(sh, false)
		sh.log.Info("gateway resumed")
	})
	sh.s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		g.shardDown(sh)
		if g.track.closing.Load() {
			sh.log.Info("gateway closed")
			return
		}
		sh.log.Warn("gateway disconnected; discordgo reconnects")
	})
}

func (g *Gateway) shutdown() error {
	start := time.Now()
	g.track.stop()
	g.mu.Lock()
	shards := g.shards
	g.stopped = true
	g.mu.Unlock()
	errs := make([]error, len(shards), len(shards)+1)
	var wg sync.WaitGroup
	for k, sh := range shards {
		wg.Go(func() { // discordgo's Close waits a second per session
			if err := sh.s.Close(); err != nil {
				errs[k] = fmt.Errorf("bot: close gateway shard %d: %w", sh.id, err)
			}
			g.shardDown(sh)
		})
	}
	wg.Wait()
	errs = append(errs, g.track.shutdown(start))
	// Not even a reconnection that discordgo left running past Close.
	if t, ok := g.rest.Client.Transport.(*Transport); ok {
		t.Close()
	}
	g.log.Info("gateway stopped", "handled", g.track.handled.Load(),
		"dropped_while_closing", g.track.dropped.Load(), "took", time.Since(start).Round(time.Millisecond))
	return errors.Join(errs...)
}
