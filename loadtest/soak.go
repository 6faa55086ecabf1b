package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// ErrGrowth is returned by Soak when the heap after the last play is more
// than SoakConfig.MaxGrowth times the heap after a tenth of them: the store
// keeps something per write.
var ErrGrowth = errors.New("loadtest: the heap grew during the soak")

// DefaultMaxGrowth is the end heap's limit, as a multiple of the early one.
const DefaultMaxGrowth = 1.2

// SoakConfig describes a soak run: plays applied to the store directly
// (storage.Apply of game's Buy, Reveal of all rows, OpenChest when due;
// DirectCycle), with no handler and no transport, so that nothing but the
// store and its client holds memory per play. The zero value of a field
// takes the default written beside it.
type SoakConfig struct {
	// Store, RedisURL, DataPath and Force choose the store, as in Config
	// (default a temporary bolt file, removed at the end).
	Store    string
	RedisURL string
	DataPath string
	Force    bool

	Plays      int     // play cycles in all; required, 10 to 10,000,000
	Players    int     // players the cycles are spread over; default 64
	Guilds     int     // guilds the players are spread over; default 4
	Goroutines int     // concurrent cycles, each on a player no other goroutine holds; default 64
	MaxGrowth  float64 // limit of end heap / early heap; default DefaultMaxGrowth
	// Timeout bounds the whole run; default 30 minutes.
	Timeout time.Duration

	// Logger receives the run's progress; nil means none.
	Logger *slog.Logger
	// Drawer draws tickets and chests; nil means game.SeededDrawer{}.
	Drawer game.Drawer
	// Wrap, when set, wraps the store the plays go through (tests give
	// it a store that leaks, to see the soak fail).
	Wrap func(storage.Store) storage.Store
}

// SoakReport is the result of Soak. Heap figures are runtime.MemStats's
// HeapAlloc after runtime.GC, in bytes, of this process: the store's
// memory for bolt, the Redis client's for Redis (whose server's memory is
// reported apart).
type SoakReport struct {
	Store      string `json:"store"`
	Players    int    `json:"players"`
	Goroutines int    `json:"goroutines"`
	// Plays are the cycles completed; EarlyPlays those completed when the
	// early heap was read (a tenth of the cycles asked for).
	Plays      int64         `json:"plays"`
	EarlyPlays int64         `json:"early_plays"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Chests     int64         `json:"chests"`
	Errors     int64         `json:"errors"`

	StartHeap uint64  `json:"start_heap_bytes"` // after the players are created
	EarlyHeap uint64  `json:"early_heap_bytes"`
	EndHeap   uint64  `json:"end_heap_bytes"`
	Ratio     float64 `json:"ratio"` // EndHeap / EarlyHeap
	MaxGrowth float64 `json:"max_growth"`
	// EarlyServerMemory and EndServerMemory are the Redis server's
	// used_memory (INFO memory) at the same moments, for information; 0
	// for bolt.
	EarlyServerMemory uint64 `json:"early_server_memory_bytes,omitempty"`
	EndServerMemory   uint64 `json:"end_server_memory_bytes,omitempty"`

	Audit       Audit    `json:"audit"`
	Cleanup     string   `json:"cleanup"`
	FirstErrors []string `json:"first_errors,omitempty"`
}

// withDefaults checks cfg and fills its defaults.
func (cfg SoakConfig) withDefaults() (SoakConfig, error) {
	if cfg.Players == 0 {
		cfg.Players = 64
	}
	if cfg.Guilds == 0 {
		cfg.Guilds = 4
	}
	if cfg.Goroutines == 0 {
		cfg.Goroutines = 64
	}
	if cfg.MaxGrowth == 0 {
		cfg.MaxGrowth = DefaultMaxGrowth
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Minute
	}
	switch {
	case cfg.Plays < 10 || cfg.Plays > 10_000_000:
		return cfg, fmt.Errorf("loadtest: soak of %d plays: want 10 to 10,000,000", cfg.Plays)
	case cfg.Players < 1 || cfg.Players > 100_000:
		return cfg, fmt.Errorf("loadtest: soak over %d players: want 1 to 100,000", cfg.Players)
	case cfg.Guilds < 1 || cfg.Guilds > 1000:
		return cfg, fmt.Errorf("loadtest: soak over %d guilds: want 1 to 1,000", cfg.Guilds)
	case cfg.Goroutines < 1 || cfg.Goroutines > 1024:
		return cfg, fmt.Errorf("loadtest: soak with %d goroutines: want 1 to 1,024", cfg.Goroutines)
	case cfg.MaxGrowth < 1:
		return cfg, fmt.Errorf("loadtest: soak growth limit %v: want at least 1", cfg.MaxGrowth)
	case cfg.Timeout < 0:
		return cfg, errors.New("loadtest: negative soak timeout")
	}
	cfg.Guilds = min(cfg.Guilds, cfg.Players)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Drawer == nil {
		cfg.Drawer = game.SeededDrawer{}
	}
	return cfg, nil
}

// Soak opens the store cfg names (refusing one that holds data unless
// cfg.Force), creates the players, plays a tenth of cfg.Plays cycles,
// reads the heap after runtime.GC, plays the rest, reads it again, audits
// every player's books and removes what it wrote. It returns the report
// (partial if the run failed midway) and ErrGrowth when the end heap is
// over cfg.MaxGrowth times the early one, ErrAudit when the books do not
// balance, or the error that stopped the run.
func Soak(ctx context.Context, cfg SoakConfig) (rep *SoakReport, err error) {
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
	rep = &SoakReport{Store: b.desc, Players: cfg.Players, Goroutines: min(cfg.Goroutines, cfg.Players), MaxGrowth: cfg.MaxGrowth}
	defer func() {
		line, cerr := b.finish(ctx, guilds, log)
		rep.Cleanup = line
		err = errors.Join(err, cerr)
	}()
	players, err := setup(ctx, b.store, base, rcfg)
	if err != nil {
		return rep, err
	}
	st := b.store
	if cfg.Wrap != nil {
		st = cfg.Wrap(st)
	}
	rep.StartHeap = heapAfterGC()
	free := make(chan *player, len(players))
	for _, p := range players {
		free <- p
	}
	var errs errLog
	var chests, nErrs atomic.Int64
	start := time.Now()
	play := func(n int64) int64 {
		var done atomic.Int64
		var claimed atomic.Int64
		var wg sync.WaitGroup
		for range rep.Goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for claimed.Add(1) <= n && ctx.Err() == nil {
					p := <-free
					_, ch, err := DirectCycle(ctx, st, cfg.Drawer, p.id, p.nextOp())
					free <- p
					chests.Add(int64(ch))
					if err != nil {
						errs.add(fmt.Errorf("soak, player %d: %w", p.id.User, err))
						if nErrs.Add(1) > 100 {
							cancel() // a store that fails is not soaking
						}
						continue
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		return done.Load()
	}
	early := int64(max(cfg.Plays/10, 1))
	log.Info("soak: playing", "plays", early, "of", cfg.Plays, "goroutines", rep.Goroutines, "players", len(players))
	rep.EarlyPlays = play(early)
	rep.EarlyHeap = heapAfterGC()
	rep.EarlyServerMemory = b.serverMemory(ctx)
	log.Info("soak: early heap", "plays", rep.EarlyPlays, "heap_bytes", rep.EarlyHeap)
	rep.Plays = rep.EarlyPlays + play(int64(cfg.Plays)-early)
	rep.EndHeap = heapAfterGC()
	// The store the plays went through is live until here, as it is at
	// the early reading: what it holds counts in both.
	runtime.KeepAlive(st)
	rep.EndServerMemory = b.serverMemory(ctx)
	rep.Elapsed = time.Since(start)
	rep.Chests, rep.Errors, rep.FirstErrors = chests.Load(), nErrs.Load(), errs.first
	if rep.EarlyHeap > 0 {
		rep.Ratio = float64(rep.EndHeap) / float64(rep.EarlyHeap)
	}
	log.Info("soak: end heap", "plays", rep.Plays, "heap_bytes", rep.EndHeap, "ratio", rep.Ratio)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: soak stopped after %d of %d plays (%d errors): %w", rep.Plays, cfg.Plays, rep.Errors, err)
	}
	rep.Audit, err = audit(ctx, b.store, players, rep.Plays)
	if err != nil {
		return rep, err
	}
	if rep.Errors > 0 {
		return rep, fmt.Errorf("loadtest: soak: %d plays failed; first: %s", rep.Errors, strings.Join(rep.FirstErrors, "; "))
	}
	if rep.Ratio > cfg.MaxGrowth {
		return rep, fmt.Errorf("%w: %d bytes after %d plays, %d after %d: %.2f× > %.2f×",
			ErrGrowth, rep.EndHeap, rep.Plays, rep.EarlyHeap, rep.EarlyPlays, rep.Ratio, cfg.MaxGrowth)
	}
	return rep, nil
}

// boundsFilled is the plays per player after which a record has filled
// its bounds (64 remembered operations at two or three per cycle, 50
// history lines): past it, a record stops growing.
const boundsFilled = 50

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
func (r *SoakReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: store %s\n", r.Store)
	fmt.Fprintf(&b, "%d plays by %d goroutines over %d players in %s (%.0f cycles/s), %d chests, %d errors\n",
		r.Plays, r.Goroutines, r.Players, round(r.Elapsed), float64(r.Plays)/max(r.Elapsed.Seconds(), 1e-9), r.Chests, r.Errors)
	fmt.Fprintf(&b, "heap after runtime.GC: %s at the start, %s after %d plays (%d per player), %s after %d plays\n",
		mib(r.StartHeap), mib(r.EarlyHeap), r.EarlyPlays, r.EarlyPlays/int64(max(r.Players, 1)), mib(r.EndHeap), r.Plays)
	if r.EarlyPlays < int64(r.Players)*boundsFilled {
		fmt.Fprintf(&b, "  (fewer than %d plays per player at the early reading: the records may still be filling their bounds — remembered operations, history — so the ratio overstates a leak; give more plays or fewer players)\n", boundsFilled)
	}
	verdict := "flat"
	if r.Ratio > r.MaxGrowth {
		verdict = "GROWING"
	}
	fmt.Fprintf(&b, "end / early heap: %.3f× (limit %.2f×): %s\n", r.Ratio, r.MaxGrowth, verdict)
	if r.EarlyServerMemory > 0 {
		fmt.Fprintf(&b, "Redis used_memory (information): %s after %d plays, %s after %d plays (%.3f×)\n",
			mib(r.EarlyServerMemory), r.EarlyPlays, mib(r.EndServerMemory), r.Plays,
			float64(r.EndServerMemory)/float64(r.EarlyServerMemory))
	}
	r.Audit.writeText(&b)
	if r.Cleanup != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.Cleanup)
	}
	for _, e := range r.FirstErrors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the soak's report as indented JSON.
func (r *SoakReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// mib formats bytes in MiB.
func mib(n uint64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
