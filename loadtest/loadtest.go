package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Handler handles one Discord interaction; *commands.App satisfies it.
type Handler interface {
	Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction)
}

// Config describes a load test. Store is required; the zero value of every
// other field takes the default written beside it.
type Config struct {
	// Store is the store under test. Run does not close it.
	Store storage.Store
	// NewHandler builds the interaction handlers over the store it is given
	// (the store under test wrapped in a TimedStore). Nil means the
	// handlers as the bot configures them, metrics included:
	// commands.New(commands.Config{Observer: metrics.New(…)}, s).
	NewHandler func(s storage.Store) Handler

	Players  int           // concurrent simulated players; default 64
	Guilds   int           // guilds the players are spread over; default 4
	Duration time.Duration // measured phase; default 10s (ignored when Cycles > 0)
	Warmup   time.Duration // unmeasured phase before it; 0 means none
	Cycles   int           // when > 0, each player plays exactly this many cycles instead of Duration
	// Calibrate is the length of a phase with a single player, run after the
	// measured one, that gives the handler overhead without CPU contention.
	// The player first plays unmeasured for a quarter of it (at most 1 s).
	// 0 means none.
	Calibrate time.Duration
	// Balance is the balance each player gets before playing, in cents;
	// default 10^10 (100,000,000.00 credits).
	Balance int64
	// Populate, when > 0, creates that many extra players (directly through
	// the store, concurrently) before the load, to measure memory.
	Populate int
	// IDBase makes guild and user ids unique to the run; 0 derives it from
	// the clock, so that runs against a persistent store do not collide.
	IDBase uint64
	// Command is the slash command that buys a ticket; default "play".
	Command string
	// Locale of the simulated users; default "en-US".
	Locale string

	// RoundTrips, if set, returns a running count of the store's network
	// round trips (see RoundTripCounter); Run reports round trips per cycle.
	RoundTrips func() int64
	// Direct, if true, adds a phase where the same players issue the store's
	// steps directly (Buy, Reveal all, OpenChest when due) for the same
	// duration, without the handlers: the store's own ceiling.
	Direct bool
	// Rounds splits the measured duration into that many rounds, each
	// running the handlers, then the direct steps, then the raw round trips
	// for Duration/Rounds: the phases then share whatever else the machine
	// is doing. 0 or 1 means one round.
	Rounds int
	// RawRoundTrip, if set, adds a phase where the same number of goroutines
	// call it for the same duration: the backend's pure round-trip capacity
	// (e.g. TrivialScript).
	RawRoundTrip func(ctx context.Context) error

	// ServerCPU, if set, returns the store server's CPU time so far (e.g.
	// RedisCPU); Run reports it per cycle.
	ServerCPU func(ctx context.Context) (time.Duration, error)

	// CPUProfile, if set, receives a CPU profile of the measured phase
	// (with its direct and raw slices, if any).
	CPUProfile io.Writer
	// Log, if set, receives a line at the start of each phase.
	Log io.Writer
}

// Interaction kinds, as reported.
const (
	KindPlay  = "play"  // the slash command: buys a ticket, shows the hidden grid
	KindAuto  = "auto"  // the Auto button: draws and reveals all
	KindChest = "chest" // the "open the chest" button
)

var kinds = []string{KindPlay, KindAuto, KindChest}

// KindReport holds the latencies of one kind of interaction.
type KindReport struct {
	// Total is the time from the raw JSON to the end of Handle: unmarshal,
	// handler, store calls, response marshalling.
	Total Latency
	// Store is the part of Total spent inside store calls.
	Store Latency
	// Overhead is Total minus Store per interaction: everything but the
	// store and the network.
	Overhead Latency
	// Decode is the part of Overhead spent unmarshalling the interaction's
	// JSON (discordgo's types, as for a gateway INTERACTION_CREATE), and
	// Handler the rest: Handle minus the store, response marshalling included.
	Decode, Handler Latency
	// StoreCalls is the mean number of store calls per interaction.
	StoreCalls float64
}

// Phase is the throughput of one phase.
type Phase struct {
	Workers    int
	Elapsed    time.Duration
	Cycles     int64 // play cycles completed (buy, draw, reveal all)
	Calls      int64 // interactions (handler phases) or calls (raw phase)
	Chests     int64
	Errors     int64
	RoundTrips int64 // when counted
	// CPU is the CPU time (user + system) this process used during the
	// phase, and ServerCPU the store server's (Redis), when known.
	CPU, ServerCPU time.Duration
}

// CPUPerCycle returns this process's CPU time per cycle.
func (p Phase) CPUPerCycle() time.Duration { return perCycle(p.CPU, p.Cycles) }

// ServerCPUPerCycle returns the store server's CPU time per cycle.
func (p Phase) ServerCPUPerCycle() time.Duration { return perCycle(p.ServerCPU, p.Cycles) }

func perCycle(d time.Duration, n int64) time.Duration {
	if n == 0 {
		return 0
	}
	return d / time.Duration(n)
}

// add accumulates o (a later slice of the same phase) into p.
func (p *Phase) add(o Phase) {
	p.Workers = o.Workers
	p.Elapsed += o.Elapsed
	p.Cycles += o.Cycles
	p.Calls += o.Calls
	p.Chests += o.Chests
	p.Errors += o.Errors
	p.RoundTrips += o.RoundTrips
	p.CPU += o.CPU
	p.ServerCPU += o.ServerCPU
}

// CyclesPerSec returns the cycles per second of the phase.
func (p Phase) CyclesPerSec() float64 { return perSec(p.Cycles, p.Elapsed) }

// CallsPerSec returns the interactions (or calls) per second of the phase.
func (p Phase) CallsPerSec() float64 { return perSec(p.Calls, p.Elapsed) }

// RoundTripsPerSec returns the round trips per second of the phase.
func (p Phase) RoundTripsPerSec() float64 { return perSec(p.RoundTrips, p.Elapsed) }

// RoundTripsPerCycle returns the round trips per play cycle of the phase.
func (p Phase) RoundTripsPerCycle() float64 {
	if p.Cycles == 0 {
		return 0
	}
	return float64(p.RoundTrips) / float64(p.Cycles)
}

func perSec(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Report is the result of Run.
type Report struct {
	Config Config
	// Load is the measured phase through the handlers.
	Load Phase
	// Kinds holds the latencies of the measured phase per interaction kind
	// (KindPlay, KindAuto, KindChest), and All over every interaction.
	Kinds map[string]KindReport
	All   KindReport
	// Steps holds the latency of each store method called by the handlers
	// during the measured phase, by method name.
	Steps map[string]Latency
	// Isolated holds the latencies of the calibration phase (one player), if any.
	Isolated *KindReport
	// Direct is the phase of store steps issued directly, if any.
	Direct *Phase
	// Raw is the phase of trivial round trips, if any.
	Raw *Phase
	// Memory at the start, after populating (if any) and after the load.
	MemStart, MemPopulated, MemEnd Mem
	// PopulateElapsed is the time taken to create Config.Populate players.
	PopulateElapsed time.Duration
	// Players lists the simulated players' ids.
	Players []storage.PlayerID
	// FirstErrors holds up to ten error messages seen.
	FirstErrors []string
	// TotalCycles and TotalChests count every cycle played, through the
	// handlers (warm-up, measured, calibration) or directly, for checking
	// the store afterwards.
	TotalCycles, TotalChests int64
}

// CeilingFromScripts is the cycles per second the store allows through the
// handlers, from the direct phase: round trips per second issued directly,
// divided by the handler path's round trips per cycle. Without round-trip
// counts it is the direct phase's cycles per second.
func (r *Report) CeilingFromScripts() float64 {
	if r.Direct == nil {
		return 0
	}
	if r.Direct.RoundTrips > 0 && r.Load.RoundTrips > 0 {
		return r.Direct.RoundTripsPerSec() / r.Load.RoundTripsPerCycle()
	}
	return r.Direct.CyclesPerSec()
}

// CeilingFromRoundTrips is the cycles per second that pure round trips
// allow: raw round trips per second divided by the handler path's round
// trips per cycle.
func (r *Report) CeilingFromRoundTrips() float64 {
	if r.Raw == nil || r.Load.RoundTrips == 0 {
		return 0
	}
	return r.Raw.CallsPerSec() / r.Load.RoundTripsPerCycle()
}

// errLog collects the first errors of a run.
type errLog struct {
	mu    sync.Mutex
	first []string
}

func (l *errLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.first) < 10 {
		l.first = append(l.first, err.Error())
	}
}

// Run runs the load test described by cfg and reports its figures. It
// returns an error if the setup fails or if no cycle completes; errors of
// single interactions are counted and reported.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Store == nil {
		return nil, errors.New("loadtest: no store")
	}
	setDefaults(&cfg)
	rep := &Report{Config: cfg, Kinds: map[string]KindReport{}}
	rep.MemStart = ReadMem()

	steps := &StepTimes{}
	timed := TimedStore{Store: cfg.Store, Steps: steps}
	h := cfg.NewHandler(timed)
	var errs errLog

	players, err := setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, p := range players {
		p.h, p.errs, p.steps = h, &errs, steps
		rep.Players = append(rep.Players, p.id)
	}

	if cfg.Populate > 0 {
		cfg.logf("populating %d players", cfg.Populate)
		start := time.Now()
		if err := Populate(ctx, cfg.Store, cfg.IDBase, cfg.Guilds, cfg.Populate, cfg.Players); err != nil {
			return nil, err
		}
		rep.PopulateElapsed = time.Since(start)
		rep.MemPopulated = ReadMem()
	}

	if cfg.Warmup > 0 {
		cfg.logf("warm-up %s, %d players", cfg.Warmup, len(players))
		runPlayers(ctx, players, cfg.Warmup, 0, nil)
	}

	rounds := cfg.Rounds
	if rounds <= 0 || cfg.Cycles > 0 || !cfg.Direct && cfg.RawRoundTrip == nil {
		rounds = 1
	}
	slice := cfg.Duration / time.Duration(rounds)
	cfg.logf("measuring %s in %d round(s), %d players", cfg.Duration, rounds, len(players))
	if cfg.CPUProfile != nil {
		if err := pprof.StartCPUProfile(cfg.CPUProfile); err != nil {
			return nil, fmt.Errorf("loadtest: cpu profile: %w", err)
		}
	}
	var direct, raw Phase
	measured := newRecording()
	steps.Reset()
	for r := 1; r <= rounds && ctx.Err() == nil; r++ {
		m := cfg.meter(ctx)
		ph := runPlayers(ctx, players, slice, cfg.Cycles, measured)
		m.stop(ctx, &ph)
		rep.Load.add(ph)
		msg := fmt.Sprintf("round %d/%d: handlers %.0f cycles/s", r, rounds, ph.CyclesPerSec())
		if cfg.Direct && ctx.Err() == nil {
			m := cfg.meter(ctx)
			ph := runDirect(ctx, cfg.Store, players, slice, cfg.Cycles, &errs)
			m.stop(ctx, &ph)
			direct.add(ph)
			msg += fmt.Sprintf(", store steps directly %.0f cycles/s", ph.CyclesPerSec())
		}
		if cfg.RawRoundTrip != nil && ctx.Err() == nil {
			m := cfg.meter(ctx)
			ph := runRaw(ctx, cfg.RawRoundTrip, len(players), slice, &errs)
			m.stop(ctx, &ph)
			ph.RoundTrips = ph.Calls
			raw.add(ph)
			msg += fmt.Sprintf(", trivial round trips %.0f/s", ph.CallsPerSec())
		}
		cfg.logf("%s", msg)
	}
	if cfg.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	if cfg.Direct {
		rep.Direct = &direct
	}
	if cfg.RawRoundTrip != nil {
		rep.Raw = &raw
	}
	rep.Kinds, rep.All = measured.report()
	rep.Steps = steps.Summary()

	if cfg.Calibrate > 0 && len(players) > 0 && ctx.Err() == nil {
		cfg.logf("calibrating %s, 1 player", cfg.Calibrate)
		// Unmeasured first, so that what the load left behind (Redis's
		// backlog, a collection of the load's garbage) is not measured.
		runPlayers(ctx, players[:1], min(cfg.Calibrate/4, time.Second), 0, nil)
		iso := newRecording()
		runPlayers(ctx, players[:1], cfg.Calibrate, 0, iso)
		_, r := iso.report()
		rep.Isolated = &r
	}
	for _, p := range players {
		rep.TotalCycles += p.cycles
		rep.TotalChests += p.chests
	}
	rep.TotalCycles += direct.Cycles
	rep.TotalChests += direct.Chests

	rep.MemEnd = ReadMem()
	rep.FirstErrors = errs.first
	if rep.Load.Cycles == 0 {
		if len(errs.first) > 0 {
			return rep, fmt.Errorf("loadtest: no cycle completed; first error: %s", errs.first[0])
		}
		return rep, errors.New("loadtest: no cycle completed")
	}
	return rep, ctx.Err()
}

func setDefaults(cfg *Config) {
	if cfg.NewHandler == nil {
		cfg.NewHandler = func(s storage.Store) Handler {
			// As the bot runs them: with the metrics observer.
			return commands.New(commands.Config{Observer: metrics.New(metrics.NewRegistry())}, s)
		}
	}
	if cfg.Players <= 0 {
		cfg.Players = 64
	}
	if cfg.Guilds <= 0 {
		cfg.Guilds = 4
	}
	if cfg.Guilds > cfg.Players {
		cfg.Guilds = cfg.Players
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Balance <= 0 {
		cfg.Balance = 10_000_000_000
	}
	if cfg.IDBase == 0 {
		// A snowflake-sized number (below 2^61, so ids fit an int64 as
		// Discord's do) unique to this run: the clock in microseconds,
		// shifted to leave 2^20 ids for guild and user offsets.
		cfg.IDBase = 1<<60 + (uint64(time.Now().UnixMicro())%(1<<38))<<20
	}
	if cfg.Command == "" {
		cfg.Command = "play"
	}
	if cfg.Locale == "" {
		cfg.Locale = "en-US"
	}
}

func (cfg *Config) logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "loadtest: "+format+"\n", args...)
	}
}

// meter measures a phase's round trips and CPU times.
type meter struct {
	cfg       *Config
	rt        int64
	cpu, srv  time.Duration
	srvFailed bool
}

func (cfg *Config) meter(ctx context.Context) meter {
	m := meter{cfg: cfg}
	if cfg.ServerCPU != nil { // first: its own round trip is not the phase's
		var err error
		if m.srv, err = cfg.ServerCPU(ctx); err != nil {
			m.srvFailed = true
		}
	}
	m.rt, m.cpu = cfg.roundTrips(), processCPU()
	return m
}

func (m meter) stop(ctx context.Context, ph *Phase) {
	if m.cfg.RoundTrips != nil {
		ph.RoundTrips = m.cfg.roundTrips() - m.rt
	}
	ph.CPU = processCPU() - m.cpu
	if m.cfg.ServerCPU != nil && !m.srvFailed {
		if srv, err := m.cfg.ServerCPU(ctx); err == nil {
			ph.ServerCPU = srv - m.srv
		}
	}
}

func (cfg *Config) roundTrips() int64 {
	if cfg.RoundTrips == nil {
		return 0
	}
	return cfg.RoundTrips()
}

// GuildID returns the id of guild g (0-based) of a run with this IDBase.
func GuildID(base uint64, g int) uint64 { return base + uint64(g) }

// UserID returns the id of player k (0-based) of a run with this IDBase.
func UserID(base uint64, k int) uint64 { return base + 1<<19 + uint64(k) }

// setup gives the run's guilds a large starting balance and creates its
// players (topping up any that already existed).
func setup(ctx context.Context, cfg Config) ([]*player, error) {
	const actor = 1
	for g := 0; g < cfg.Guilds; g++ {
		gid := GuildID(cfg.IDBase, g)
		st, err := cfg.Store.Settings(ctx, gid)
		if err != nil {
			return nil, fmt.Errorf("loadtest: settings of guild %d: %w", gid, err)
		}
		st.StartingBalance = cfg.Balance
		st.Channel = 0
		if err := cfg.Store.SetSettings(ctx, actor, gid, st, "loadtest"); err != nil {
			return nil, fmt.Errorf("loadtest: set settings of guild %d: %w", gid, err)
		}
	}
	players := make([]*player, cfg.Players)
	for k := range players {
		g := k % cfg.Guilds
		id := storage.PlayerID{Guild: GuildID(cfg.IDBase, g), User: UserID(cfg.IDBase, k)}
		p, err := cfg.Store.Player(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("loadtest: create player %v: %w", id, err)
		}
		if p.Balance < cfg.Balance/2 {
			if _, err := cfg.Store.Grant(ctx, actor, id, cfg.Balance-p.Balance, "loadtest"); err != nil {
				return nil, fmt.Errorf("loadtest: grant to player %v: %w", id, err)
			}
		}
		pl := &player{
			id: id,
			pay: payloads{
				guild:   strconv.FormatUint(id.Guild, 10),
				channel: strconv.FormatUint(id.Guild+1<<18, 10),
				user:    strconv.FormatUint(id.User, 10),
				locale:  cfg.Locale,
				command: cfg.Command,
				buf:     make([]byte, 0, 4096),
			},
			msgSeq: 1<<61 + uint64(k)<<32, // message snowflakes of this player
		}
		pl.ctx = WithStoreTimer(ctx, &pl.timer)
		players[k] = pl
	}
	return players, nil
}

// player is one simulated player: its payloads, its responder, its timer.
type player struct {
	id       storage.PlayerID
	h        Handler
	errs     *errLog
	ctx      context.Context // carries timer
	timer    StoreTimer
	steps    *StepTimes // where timer's latencies by method go; nil: nowhere
	rec      recorder
	pay      payloads
	msg      []byte // JSON of the message last shown to this player
	msgSeq   uint64 // message ids
	msgID    uint64
	frame    []byte // the gateway frame of the interaction being played
	frameSeq uint64

	recd *recording // where interactions are recorded; nil: not recorded

	cycles, chests, calls int64
}

// interact runs one interaction through the handler and records its timings.
func (p *player) interact(kind string, raw []byte) error {
	p.timer.Reset()
	p.rec.reset()
	p.frameSeq++
	p.frame = appendFrame(p.frame[:0], p.frameSeq, raw)
	start := time.Now()
	i, err := decodeFrame(p.frame)
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	decoded := time.Now()
	p.h.Handle(p.ctx, &p.rec, i)
	end := time.Now()
	total, decode := end.Sub(start), decoded.Sub(start)
	store := p.timer.Elapsed()
	p.timer.Flush(p.steps)
	p.calls++
	if p.rec.deferred() {
		select {
		case <-p.rec.edited:
		case <-time.After(5 * time.Second):
			return fmt.Errorf("%s: deferred response never edited", kind)
		}
	}
	if p.recd != nil {
		p.recd.kinds[kind].add(total, store, decode, p.timer.Calls())
	}
	if p.rec.err != nil {
		return fmt.Errorf("%s: %w", kind, p.rec.err)
	}
	if p.rec.typ == 0 && p.rec.edit == nil {
		return fmt.Errorf("%s: interaction not answered", kind)
	}
	// Keep the message shown, for the next click.
	if body := p.rec.messageBody(); body != nil {
		if p.rec.typ == discordgo.InteractionResponseChannelMessageWithSource ||
			p.rec.typ == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			p.msgSeq++
			p.msgID = p.msgSeq
		}
		p.msg = message(p.msg[:0], p.msgID, p.pay.channel, body)
	}
	return nil
}

// click presses the button with that custom ID on the message last shown.
func (p *player) click(kind, customID string) error {
	return p.interact(kind, p.pay.click(customID, p.msg))
}

// cycle plays one cycle: /play, Auto, and the chest when it is due.
func (p *player) cycle() (completed bool, err error) {
	if err := p.interact(KindPlay, p.pay.slash()); err != nil {
		return false, err
	}
	cs := p.rec.components()
	auto, ok := findButton(cs, buttonAuto)
	if !ok {
		if chest, ok := findButton(cs, buttonChest); ok {
			// A chest due is shown before any new ticket.
			if err := p.click(KindChest, chest); err != nil {
				return false, err
			}
			p.chests++
			return false, nil
		}
		return false, fmt.Errorf("/%s showed no Auto button (buttons %q): %s", p.pay.command, buttonLabels(cs), p.rec.text())
	}
	if err := p.click(KindAuto, auto); err != nil {
		return false, err
	}
	if chest, ok := findButton(p.rec.components(), buttonChest); ok {
		if err := p.click(KindChest, chest); err != nil {
			return false, err
		}
		p.chests++
	}
	p.cycles++
	return true, nil
}

// runPlayers runs every player's cycles until d has passed (or each has
// played n cycles when n > 0), recording latencies in rec if not nil, and
// returns the phase's throughput.
func runPlayers(ctx context.Context, players []*player, d time.Duration, n int, rec *recording) Phase {
	var stop atomic.Bool
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	before := make([][3]int64, len(players))
	for k, p := range players {
		p.recd = rec
		before[k] = [3]int64{p.cycles, p.chests, p.calls}
	}
	var errCount atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	if n <= 0 {
		t := time.AfterFunc(d, func() { stop.Store(true) })
		defer t.Stop()
	}
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			consecutive := 0
			for done := 0; ctx.Err() == nil; {
				if n > 0 && done >= n || n <= 0 && stop.Load() {
					return
				}
				ok, err := p.cycle()
				if err != nil {
					errCount.Add(1)
					p.errs.add(fmt.Errorf("player %d: %w", p.id.User, err))
					if consecutive++; consecutive >= 20 {
						p.errs.add(fmt.Errorf("player %d: stopped after %d errors in a row", p.id.User, consecutive))
						return
					}
					continue
				}
				consecutive = 0
				if ok {
					done++
				}
			}
		}()
	}
	wg.Wait()
	ph := Phase{Workers: len(players), Elapsed: time.Since(start), Errors: errCount.Load()}
	for k, p := range players {
		ph.Cycles += p.cycles - before[k][0]
		ph.Chests += p.chests - before[k][1]
		ph.Calls += p.calls - before[k][2]
	}
	return ph
}

// runDirect plays cycles by calling the store's steps directly.
func runDirect(ctx context.Context, s storage.Store, players []*player, d time.Duration, n int, errs *errLog) Phase {
	var stop atomic.Bool
	var cycles, calls, chests, errCount atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	if n <= 0 {
		t := time.AfterFunc(d, func() { stop.Store(true) })
		defer t.Stop()
	}
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; ctx.Err() == nil; done++ {
				if n > 0 && done >= n || n <= 0 && stop.Load() {
					return
				}
				c, ch, err := DirectCycle(ctx, s, p.id)
				calls.Add(int64(c))
				chests.Add(int64(ch))
				if err != nil {
					errs.add(fmt.Errorf("direct, player %d: %w", p.id.User, err))
					if errCount.Add(1) > 1000 {
						return
					}
					continue
				}
				cycles.Add(1)
			}
		}()
	}
	wg.Wait()
	return Phase{Workers: len(players), Elapsed: time.Since(start), Cycles: cycles.Load(),
		Calls: calls.Load(), Chests: chests.Load(), Errors: errCount.Load()}
}

// DirectCycle plays one cycle on the store without the handlers: Buy,
// Reveal of all rows, and OpenChest when a chest is due (before or after).
// It returns the number of store calls made and of chests opened.
func DirectCycle(ctx context.Context, s storage.Store, id storage.PlayerID) (calls, chests int, err error) {
	_, t, _, err := s.Buy(ctx, id)
	calls++
	if errors.Is(err, storage.ErrChestDue) {
		p, perr := s.Player(ctx, id)
		calls++
		if perr != nil {
			return calls, chests, perr
		}
		if _, _, _, cerr := s.OpenChest(ctx, id, p.ChestSeq+1); cerr != nil {
			return calls + 1, chests, cerr
		}
		calls++
		chests++
		_, t, _, err = s.Buy(ctx, id)
		calls++
	}
	if err != nil {
		return calls, chests, err
	}
	p, _, err := s.Reveal(ctx, id, t.ID, storage.AllRows)
	calls++
	if err != nil {
		return calls, chests, err
	}
	if p.ChestPending {
		_, _, _, err := s.OpenChest(ctx, id, p.ChestSeq+1)
		calls++
		if err != nil {
			return calls, chests, err
		}
		chests++
	}
	return calls, chests, nil
}

// runRaw calls rt from w goroutines for d.
func runRaw(ctx context.Context, rt func(context.Context) error, w int, d time.Duration, errs *errLog) Phase {
	var stop atomic.Bool
	var calls, errCount atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				if err := rt(ctx); err != nil {
					errs.add(fmt.Errorf("raw round trip: %w", err))
					if errCount.Add(1) > 1000 {
						return
					}
					continue
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return Phase{Workers: w, Elapsed: el, Calls: calls.Load(), RoundTrips: calls.Load(), Errors: errCount.Load()}
}
