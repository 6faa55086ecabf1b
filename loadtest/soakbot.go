package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/bot"
)

// ErrGrowth is returned by SoakInteractions when the heap after the last
// interaction is more than InteractionSoakConfig.MaxGrowth times the heap
// after a tenth of them: something is kept per interaction.
var ErrGrowth = errors.New("loadtest: the heap grew during the soak")

// DefaultMaxGrowth is the end heap's limit, as a multiple of the early one.
const DefaultMaxGrowth = 1.2

// soakTimeout bounds a whole soak.
const soakTimeout = 2 * time.Hour

// InteractionSoakConfig describes a soak of the bot as production runs it:
// play cycles (/play, Auto, the chest when shown) sent by the fake Discord
// over its gateway to a real bot.Gateway with the handlers of
// cli.NewHandlers, which answers over REST. The zero value of a field
// takes the default written beside it.
//
// The bot runs in this process: the heap read is the process's. The fake
// forgets all but its last Keep interactions and the load generator keeps
// only each player's last message, so what grows with the interactions is
// the bot's. (The HTTP transport is not soaked: its replay protection
// holds each interaction's ID for up to 11 minutes by design.)
type InteractionSoakConfig struct {
	// Config chooses the store, the players, the bot's settings, the
	// loggers and the drawer, as for Run; nothing else of it applies.
	Config

	Interactions int     // interactions in all; required, 100 to 100,000,000
	MaxGrowth    float64 // limit of end heap / early heap; default DefaultMaxGrowth
	// Keep is the number of interactions the fake Discord remembers
	// (fakediscord.Options.KeepInteractions); default 16 per player, at
	// least 256. The early reading only means something once that many
	// interactions were sent.
	Keep int
	// WrapHandler, when set, wraps the bot's handler (tests give it one
	// that leaks per interaction, to see the soak fail).
	WrapHandler func(bot.Handler) bot.Handler
}

// InteractionSoakReport is the result of SoakInteractions. Heap figures
// are runtime.MemStats's HeapAlloc after runtime.GC, in bytes, of this
// process (the bot, the fake Discord bounded to Keep interactions, the
// load generator, and the Redis client).
type InteractionSoakReport struct {
	Store   string `json:"store"`
	Players int    `json:"players"`
	Keep    int    `json:"fake_keeps_interactions"`
	// Interactions are those answered; EarlyInteractions those answered
	// when the early heap was read (a tenth of those asked for).
	Interactions       int64         `json:"interactions"`
	EarlyInteractions  int64         `json:"early_interactions"`
	Cycles             int64         `json:"cycles"`
	Chests             int64         `json:"chests"`
	Errors             int64         `json:"errors"`
	Elapsed            time.Duration `json:"elapsed_ns"`
	InteractionsPerSec float64       `json:"interactions_per_sec"`

	EarlyHeap uint64  `json:"early_heap_bytes"`
	EndHeap   uint64  `json:"end_heap_bytes"`
	Ratio     float64 `json:"ratio"` // EndHeap / EarlyHeap
	MaxGrowth float64 `json:"max_growth"`
	// BytesPerInteraction is (EndHeap − EarlyHeap) / (Interactions −
	// EarlyInteractions): what each interaction after the early reading
	// left behind (negative if the heap shrank).
	BytesPerInteraction float64 `json:"bytes_per_interaction"`

	Audit       Audit    `json:"audit"`
	Refused     []string `json:"refused,omitempty"`
	Cleanup     string   `json:"cleanup"`
	FirstErrors []string `json:"first_errors,omitempty"`
}

// withDefaults checks cfg and fills its defaults.
func (cfg InteractionSoakConfig) withDefaults() (InteractionSoakConfig, error) {
	var err error
	if cfg.Config, err = cfg.Config.withDefaults(); err != nil {
		return cfg, err
	}
	if cfg.MaxGrowth == 0 {
		cfg.MaxGrowth = DefaultMaxGrowth
	}
	if cfg.Keep == 0 {
		cfg.Keep = max(16*cfg.Players, 256)
	}
	switch {
	case cfg.Interactions < 100 || cfg.Interactions > 100_000_000:
		return cfg, fmt.Errorf("loadtest: soak of %d interactions: want 100 to 100,000,000", cfg.Interactions)
	case cfg.MaxGrowth < 1:
		return cfg, fmt.Errorf("loadtest: soak growth limit %v: want at least 1", cfg.MaxGrowth)
	case cfg.Keep < 4*cfg.Players:
		// A player's card must outlive the interactions of the others
		// between its /play and its last click on it.
		return cfg, fmt.Errorf("loadtest: the fake keeping %d interactions for %d players: want at least 4 per player", cfg.Keep, cfg.Players)
	}
	return cfg, nil
}

// SoakInteractions opens the store cfg names (refusing one that holds
// data), creates the players, starts the fake Discord and the bot's
// gateway against it, and sends a tenth of cfg.Interactions, each
// player in its own goroutine, as soon as its last was answered. Then it
// reads the heap after runtime.GC, sends the rest, reads it again, stops
// the bot, audits every player's books and removes what it wrote. It
// returns the report (partial if the run failed midway) and ErrGrowth when
// the end heap is over cfg.MaxGrowth times the early one, ErrAudit when
// the books do not balance, or the error that stopped the run, including
// failed interactions and calls the fake refused.
func SoakInteractions(ctx context.Context, cfg InteractionSoakConfig) (rep *InteractionSoakReport, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, soakTimeout)
	defer cancel()
	log := cfg.Logger
	r, err := prepare(ctx, cfg.Config, cfg.Keep)
	if err != nil {
		return nil, err
	}
	for _, p := range r.players {
		p.mix = playCycle
	}
	rep = &InteractionSoakReport{Store: r.b.desc, Players: cfg.Players, Keep: cfg.Keep, MaxGrowth: cfg.MaxGrowth}
	defer func() {
		rep.Cleanup, err = r.close(ctx, log, err)
	}()
	var h bot.Handler = r.app
	if cfg.WrapHandler != nil {
		h = cfg.WrapHandler(h)
	}
	c, err := startBot(ctx, Gateway, r, h, cfg.Config)
	if err != nil {
		return rep, err
	}

	var errs errLog
	var nErrs atomic.Int64
	start := time.Now()
	// send sends n interactions, each player as soon as its last one was
	// answered, and returns once all are answered.
	send := func(n int64) {
		var claimed atomic.Int64
		var wg sync.WaitGroup
		for _, p := range r.players {
			wg.Go(func() {
				for ctx.Err() == nil && claimed.Add(1) <= n {
					if err := p.step(ctx, c, time.Now(), nil); err != nil {
						errs.add(err)
						if nErrs.Add(1) > 100 {
							cancel() // a bot that fails is not soaking
						}
					}
				}
			})
		}
		wg.Wait()
	}
	early := int64(max(cfg.Interactions/10, 1))
	log.Info("soak through the gateway: sending", "interactions", early, "of", cfg.Interactions, "players", len(r.players), "fake_keeps", cfg.Keep)
	send(early)
	rep.EarlyInteractions = sum(r.players, callsOf)
	rep.EarlyHeap = heapAfterGC()
	log.Info("soak: early heap", "interactions", rep.EarlyInteractions, "heap_bytes", rep.EarlyHeap)
	send(int64(cfg.Interactions) - early)
	rep.Elapsed = time.Since(start)
	rep.EndHeap = heapAfterGC()
	rep.Interactions, rep.Cycles, rep.Chests = sum(r.players, callsOf), sum(r.players, cyclesOf), sum(r.players, chestsOf)
	rep.Errors, rep.FirstErrors = errs.count(), errs.first
	rep.Refused = c.refused()
	// The bot and the fake are live until here, as they were at the early
	// reading: what they hold counts in both.
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
		"bytes_per_interaction", rep.BytesPerInteraction)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: soak stopped after %d of %d interactions (%d errors): %w", rep.Interactions, cfg.Interactions, rep.Errors, err)
	}
	rep.Audit, err = audit(ctx, r.b.store, r.players, rep.Cycles)
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

// heapAfterGC returns the live heap: HeapAlloc after two collections (the
// second empties the sync.Pools' victim caches the first left).
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// WriteText writes the soak's report for a reader.
func (r *InteractionSoakReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "soak through the gateway: store %s, the bot in this process, the fake Discord keeping its last %d interactions\n", r.Store, r.Keep)
	fmt.Fprintf(&b, "%d interactions (%d cycles, %d chests) by %d players in %s (%.0f interactions/s), %d errors\n",
		r.Interactions, r.Cycles, r.Chests, r.Players, round(r.Elapsed), r.InteractionsPerSec, r.Errors)
	fmt.Fprintf(&b, "heap after runtime.GC (this process: bot, fake Discord, load generator): %s after %d interactions, %s after %d\n",
		mib(r.EarlyHeap), r.EarlyInteractions, mib(r.EndHeap), r.Interactions)
	verdict := "flat"
	if r.Ratio > r.MaxGrowth {
		verdict = "GROWING"
	}
	fmt.Fprintf(&b, "end / early heap: %.3f× (limit %.2f×): %s; %+.2f bytes per interaction after the early reading\n",
		r.Ratio, r.MaxGrowth, verdict, r.BytesPerInteraction)
	fmt.Fprintf(&b, "%scleanup: %s\n", r.Audit.text(), r.Cleanup)
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

// mib formats bytes in MiB.
func mib(n uint64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
