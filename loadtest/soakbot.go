package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/metrics"
)

// InteractionSoakConfig describes a soak through the bot: play cycles
// (/play, Auto, the chest when due) sent as interactions by the fake
// Discord over its gateway to a real bot.Gateway (one discordgo session,
// the handlers of cli.NewHandlers, metrics), which answers over REST as in
// production. Unlike Soak, everything an interaction goes through is
// there: the transport, discordgo's REST client and rate limiter, the
// handlers and the store. The zero value of a field takes the default
// written beside it.
//
// The bot runs in this process, beside the fake Discord and the load
// generator: the heap read is the process's. The fake forgets all but its
// last Keep interactions and the load generator keeps only each player's
// last message, so that what grows with the interactions is the bot's.
// (The HTTP transport is not soaked: its replay protection holds each
// interaction's ID for up to 11 minutes by design, so its heap grows with
// the rate for that long; its edits use the same REST client.)
type InteractionSoakConfig struct {
	// Store, RedisURL, DataPath and Force choose the store, as in Config
	// (default a temporary bolt file, removed at the end).
	Store    string
	RedisURL string
	DataPath string
	Force    bool

	Interactions int     // interactions in all; required, 100 to 100,000,000
	Players      int     // players, each in a goroutine of its own; default 64
	Guilds       int     // guilds the players are spread over; default 4
	MaxGrowth    float64 // limit of end heap / early heap; default DefaultMaxGrowth
	// Keep is the number of interactions the fake Discord remembers
	// (fakediscord.Options.KeepInteractions); default 16 per player, at
	// least 256. The early reading only means something once that many
	// interactions were sent.
	Keep int
	// Timeout bounds the whole run; default 2 hours.
	Timeout time.Duration

	// Logger receives the run's progress; nil means none. BotLogger
	// receives the bot's logs; nil means Logger.
	Logger    *slog.Logger
	BotLogger *slog.Logger
	// BotEnv are variables of the bot's configuration, as in Config.
	BotEnv map[string]string
	// Drawer draws tickets and chests; nil means game.SeededDrawer{}.
	Drawer game.Drawer
	// WrapHandler, when set, wraps the bot's handler (tests give it one
	// that leaks per interaction, to see the soak fail).
	WrapHandler func(bot.Handler) bot.Handler
}

// HeapShare is the part of the live heap allocated under some function,
// read from the runtime's heap profile after GC and scaled as pprof scales
// its samples (one every runtime.MemProfileRate bytes allocated): an
// estimate, exact only when the rate is 1.
type HeapShare struct {
	Objects int64 `json:"objects"`
	Bytes   int64 `json:"bytes"`
}

// InteractionSoakReport is the result of SoakInteractions. Heap figures
// are runtime.MemStats's HeapAlloc after runtime.GC, in bytes, of this
// process (the bot, the fake Discord bounded to Keep interactions, the
// load generator, and the Redis client).
type InteractionSoakReport struct {
	Store     string `json:"store"`
	Transport string `json:"transport"`
	Players   int    `json:"players"`
	Keep      int    `json:"fake_keeps_interactions"`
	// Interactions are those answered; EarlyInteractions those answered
	// when the early heap was read (a tenth of those asked for).
	Interactions       int64         `json:"interactions"`
	EarlyInteractions  int64         `json:"early_interactions"`
	Cycles             int64         `json:"cycles"`
	Chests             int64         `json:"chests"`
	Errors             int64         `json:"errors"`
	Elapsed            time.Duration `json:"elapsed_ns"`
	InteractionsPerSec float64       `json:"interactions_per_sec"`

	StartHeap uint64  `json:"start_heap_bytes"` // once the bot is connected
	EarlyHeap uint64  `json:"early_heap_bytes"`
	EndHeap   uint64  `json:"end_heap_bytes"`
	Ratio     float64 `json:"ratio"` // EndHeap / EarlyHeap
	MaxGrowth float64 `json:"max_growth"`
	// BytesPerInteraction is (EndHeap − EarlyHeap) / (Interactions −
	// EarlyInteractions): what each interaction after the early reading
	// left behind (negative if the heap shrank).
	BytesPerInteraction float64 `json:"bytes_per_interaction"`
	// EarlyBuckets and EndBuckets are the live heap allocated under
	// discordgo's RateLimiter.GetBucket (its buckets and their map): one
	// bucket per interaction token if the bot lets discordgo key buckets
	// by URL (discordgo #1333). ProfileRate is the heap profile's sampling
	// rate they were estimated with.
	EarlyBuckets HeapShare `json:"early_buckets"`
	EndBuckets   HeapShare `json:"end_buckets"`
	ProfileRate  int       `json:"profile_rate"`

	Audit       Audit    `json:"audit"`
	Refused     []string `json:"refused,omitempty"`
	Cleanup     string   `json:"cleanup"`
	FirstErrors []string `json:"first_errors,omitempty"`
}

// withDefaults checks cfg and fills its defaults.
func (cfg InteractionSoakConfig) withDefaults() (InteractionSoakConfig, error) {
	if cfg.Players == 0 {
		cfg.Players = 64
	}
	if cfg.Guilds == 0 {
		cfg.Guilds = 4
	}
	if cfg.MaxGrowth == 0 {
		cfg.MaxGrowth = DefaultMaxGrowth
	}
	if cfg.Keep == 0 {
		cfg.Keep = max(16*cfg.Players, 256)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Hour
	}
	switch {
	case cfg.Interactions < 100 || cfg.Interactions > 100_000_000:
		return cfg, fmt.Errorf("loadtest: soak of %d interactions: want 100 to 100,000,000", cfg.Interactions)
	case cfg.Players < 1 || cfg.Players > 10_000:
		return cfg, fmt.Errorf("loadtest: soak over %d players: want 1 to 10,000", cfg.Players)
	case cfg.Guilds < 1 || cfg.Guilds > 1000:
		return cfg, fmt.Errorf("loadtest: soak over %d guilds: want 1 to 1,000", cfg.Guilds)
	case cfg.MaxGrowth < 1:
		return cfg, fmt.Errorf("loadtest: soak growth limit %v: want at least 1", cfg.MaxGrowth)
	case cfg.Keep < 4*cfg.Players:
		// A player's card must outlive the interactions of the others
		// between its /play and its last click on it.
		return cfg, fmt.Errorf("loadtest: the fake keeping %d interactions for %d players: want at least 4 per player", cfg.Keep, cfg.Players)
	case cfg.Timeout < 0:
		return cfg, errors.New("loadtest: negative soak timeout")
	}
	cfg.Guilds = min(cfg.Guilds, cfg.Players)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BotLogger == nil {
		cfg.BotLogger = cfg.Logger
	}
	return cfg, nil
}

// SoakInteractions opens the store cfg names (refusing one that holds data
// unless cfg.Force), creates the players, starts the fake Discord and the
// bot's gateway against it, and sends a tenth of cfg.Interactions, each
// player in its own goroutine, as soon as its last was answered. Then it
// reads the heap after runtime.GC and the rate limiter's share of it, sends
// the rest, reads them again, stops the bot, audits every player's books
// and removes what it wrote. It returns the report (partial if the run
// failed midway) and ErrGrowth when the end heap is over cfg.MaxGrowth
// times the early one, ErrAudit when the books do not balance, or the
// error that stopped the run, including failed interactions and calls the
// fake refused.
func SoakInteractions(ctx context.Context, cfg InteractionSoakConfig) (rep *InteractionSoakReport, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	log := cfg.Logger
	rcfg := Config{Store: cfg.Store, RedisURL: cfg.RedisURL, DataPath: cfg.DataPath, Force: cfg.Force,
		Players: cfg.Players, Guilds: cfg.Guilds}
	b, err := openBackend(ctx, rcfg, log)
	if err != nil {
		return nil, err
	}
	base := idBase()
	guilds := runGuilds(base, cfg.Guilds)
	rep = &InteractionSoakReport{Store: b.desc, Transport: Gateway, Players: cfg.Players, Keep: cfg.Keep,
		MaxGrowth: cfg.MaxGrowth, ProfileRate: runtime.MemProfileRate}
	defer func() {
		line, cerr := b.finish(ctx, guilds, log)
		rep.Cleanup = line
		err = errors.Join(err, cerr)
	}()
	players, err := setup(ctx, b.store, base, rcfg)
	if err != nil {
		return rep, err
	}
	botCfg, err := botConfig(cfg.BotEnv)
	if err != nil {
		return rep, err
	}
	m := metrics.New(metrics.NewRegistry())
	var h bot.Handler = cli.NewHandlers(botCfg, b.store, m, cfg.BotLogger, cli.Hooks{Drawer: cfg.Drawer})
	if cfg.WrapHandler != nil {
		h = cfg.WrapHandler(h)
	}
	c, err := startGateway(ctx, h, m, cfg.BotLogger, nil, cfg.Keep)
	if err != nil {
		return rep, err
	}
	closed := false
	defer func() {
		if !closed {
			err = errors.Join(err, c.close())
		}
	}()
	rep.StartHeap = heapAfterGC()

	var errs errLog
	var nErrs atomic.Int64
	start := time.Now()
	// send sends n interactions, each player as soon as its last one was
	// answered, and returns once all are answered.
	send := func(n int64) {
		var claimed atomic.Int64
		var wg sync.WaitGroup
		for _, p := range players {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil && claimed.Add(1) <= n {
					if err := p.step(ctx, c, time.Now(), nil); err != nil {
						errs.add(err)
						if nErrs.Add(1) > 100 {
							cancel() // a bot that fails is not soaking
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	early := int64(max(cfg.Interactions/10, 1))
	log.Info("soak through the gateway: sending", "interactions", early, "of", cfg.Interactions, "players", len(players), "fake_keeps", cfg.Keep)
	send(early)
	rep.EarlyInteractions, _, _, _ = counts(players)
	rep.EarlyHeap = heapAfterGC()
	rep.EarlyBuckets = bucketHeap()
	log.Info("soak: early heap", "interactions", rep.EarlyInteractions, "heap_bytes", rep.EarlyHeap, "bucket_objects", rep.EarlyBuckets.Objects)
	send(int64(cfg.Interactions) - early)
	rep.Elapsed = time.Since(start)
	rep.EndHeap = heapAfterGC()
	rep.EndBuckets = bucketHeap()
	rep.Interactions, rep.Cycles, rep.Chests, _ = counts(players)
	rep.Errors, rep.FirstErrors = errs.count(), errs.first
	rep.Refused = c.refused()
	// The bot and the fake are live until here, as they were at the early
	// reading: what they hold counts in both.
	closed = true
	if cerr := c.close(); cerr != nil {
		return rep, cerr
	}
	rep.InteractionsPerSec = float64(rep.Interactions) / max(rep.Elapsed.Seconds(), 1e-9)
	if rep.EarlyHeap > 0 {
		rep.Ratio = float64(rep.EndHeap) / float64(rep.EarlyHeap)
	}
	if d := rep.Interactions - rep.EarlyInteractions; d > 0 {
		rep.BytesPerInteraction = (float64(rep.EndHeap) - float64(rep.EarlyHeap)) / float64(d)
	}
	log.Info("soak: end heap", "interactions", rep.Interactions, "heap_bytes", rep.EndHeap, "ratio", rep.Ratio,
		"bytes_per_interaction", rep.BytesPerInteraction, "bucket_objects", rep.EndBuckets.Objects)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: soak stopped after %d of %d interactions (%d errors): %w", rep.Interactions, cfg.Interactions, rep.Errors, err)
	}
	rep.Audit, err = audit(ctx, b.store, players, rep.Cycles)
	if err != nil {
		return rep, err
	}
	switch {
	case rep.Errors > 0:
		return rep, fmt.Errorf("loadtest: soak: %d interactions failed; first: %s", rep.Errors, strings.Join(rep.FirstErrors, "; "))
	case len(rep.Refused) > 0:
		return rep, fmt.Errorf("loadtest: soak: the fake Discord refused the bot's calls; first: %s", strings.Join(rep.Refused, "; "))
	case rep.Ratio > cfg.MaxGrowth:
		return rep, fmt.Errorf("%w: %d bytes after %d interactions, %d after %d: %.2f× > %.2f× (%.0f bytes per interaction)",
			ErrGrowth, rep.EndHeap, rep.Interactions, rep.EarlyHeap, rep.EarlyInteractions, rep.Ratio, cfg.MaxGrowth, rep.BytesPerInteraction)
	}
	return rep, nil
}

// getBucket is the function under which discordgo allocates its rate
// limiter's buckets, and grows their map.
const getBucket = "github.com/bwmarrin/discordgo.(*RateLimiter).GetBucket"

// bucketHeap returns the live heap allocated under discordgo's
// RateLimiter.GetBucket, from the heap profile of the last garbage
// collection (call it after heapAfterGC).
func bucketHeap() HeapShare {
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, false)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, false); ok {
			recs = recs[:n]
			break
		}
	}
	rate := int64(runtime.MemProfileRate)
	var share HeapShare
	for _, r := range recs {
		objs, bytes := r.InUseObjects(), r.InUseBytes()
		if objs <= 0 || !stackHas(r.Stack(), getBucket) {
			continue
		}
		objs, bytes = scaleHeapSample(objs, bytes, rate)
		share.Objects += objs
		share.Bytes += bytes
	}
	return share
}

// stackHas reports whether the call stack holds the function fn, inlined
// or not.
func stackHas(stack []uintptr, fn string) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if f.Function == fn {
			return true
		}
		if !more {
			return false
		}
	}
}

// scaleHeapSample estimates the objects and bytes a heap profile's record
// stands for, as runtime/pprof does: a sample of objects of average size
// s was taken with probability 1 − exp(−s/rate).
func scaleHeapSample(count, size, rate int64) (int64, int64) {
	if count == 0 || size == 0 {
		return 0, 0
	}
	if rate <= 1 {
		return count, size
	}
	avg := float64(size) / float64(count)
	scale := 1 / (1 - math.Exp(-avg/float64(rate)))
	return int64(float64(count) * scale), int64(float64(size) * scale)
}

// WriteText writes the soak's report for a reader.
func (r *InteractionSoakReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "soak through the %s: store %s, the bot in this process, the fake Discord keeping its last %d interactions\n", r.Transport, r.Store, r.Keep)
	fmt.Fprintf(&b, "%d interactions (%d cycles, %d chests) by %d players in %s (%.0f interactions/s), %d errors\n",
		r.Interactions, r.Cycles, r.Chests, r.Players, round(r.Elapsed), r.InteractionsPerSec, r.Errors)
	fmt.Fprintf(&b, "heap after runtime.GC (this process: bot, fake Discord, load generator): %s once connected, %s after %d interactions, %s after %d\n",
		mib(r.StartHeap), mib(r.EarlyHeap), r.EarlyInteractions, mib(r.EndHeap), r.Interactions)
	if r.EarlyInteractions < int64(r.Keep) || r.EarlyInteractions < 2*int64(r.Players)*boundsFilled {
		fmt.Fprintf(&b, "  (fewer than %d interactions, or than %d per player, at the early reading: the fake's memory or the records may still be filling their bounds, so the ratio overstates a leak; send more interactions)\n",
			r.Keep, 2*boundsFilled)
	}
	verdict := "flat"
	if r.Ratio > r.MaxGrowth {
		verdict = "GROWING"
	}
	fmt.Fprintf(&b, "end / early heap: %.3f× (limit %.2f×): %s; %+.2f bytes per interaction after the early reading\n",
		r.Ratio, r.MaxGrowth, verdict, r.BytesPerInteraction)
	fmt.Fprintf(&b, "discordgo's rate-limit buckets (heap profile, one sample per %d bytes): ~%d objects, %s after %d interactions; ~%d objects, %s after %d\n",
		r.ProfileRate, r.EarlyBuckets.Objects, kib(r.EarlyBuckets.Bytes), r.EarlyInteractions, r.EndBuckets.Objects, kib(r.EndBuckets.Bytes), r.Interactions)
	r.Audit.writeText(&b)
	if r.Cleanup != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.Cleanup)
	}
	for _, e := range r.Refused {
		fmt.Fprintf(&b, "refused: %s\n", e)
	}
	for _, e := range r.FirstErrors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the soak's report as indented JSON.
func (r *InteractionSoakReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// kib formats bytes in KiB.
func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10)) }
