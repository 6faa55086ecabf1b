package loadtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Transports.
const (
	Gateway = "gateway" // the fake Discord's gateway to a bot.Gateway, answers over REST
	HTTP    = "http"    // signed POSTs to a bot.Endpoint, answers in the HTTP reply
)

// ErrAudit is returned by Run when, after the load, a player's books do not
// balance or the store counts fewer plays than the cycles completed.
var ErrAudit = errors.New("loadtest: the store's audit failed")

// startBalance is every simulated player's starting balance, in cents:
// enough for 200 million plays.
const startBalance = 10_000_000_000

// Config describes a run. The zero value of a field takes the default
// written beside it.
type Config struct {
	// Store is StoreBolt (default) or StoreRedis.
	Store string
	// RedisURL is the database of StoreRedis. It must hold no key unless
	// Force; the run deletes the keys of its guilds at the end.
	RedisURL string
	// DataPath is the bolt file; "" means a file in a new temporary folder,
	// removed at the end. An existing file must hold no player nor guild
	// unless Force; a file the run creates is removed at the end.
	DataPath string
	// Force runs against a store that already holds data (the run's
	// guilds and players have IDs of their own).
	Force bool

	// Transports are run one after the other, each in a phase of its own:
	// Gateway, HTTP or both (default both).
	Transports []string
	Players    int           // simulated players; default 64
	Guilds     int           // guilds they are spread over; default 4
	Duration   time.Duration // of each measured phase; default 5 s
	Warmup     time.Duration // unmeasured, before each transport's phase; 0: none
	// Rate, when > 0, sends that many interactions per second, evenly
	// spaced, whatever the latency (open loop), with the players free at
	// each moment; 0 means a closed loop: each player sends its next
	// interaction as soon as the last is answered.
	Rate float64
	// SkipCeiling skips the phase that measures the store's own ceiling.
	SkipCeiling bool
	// SkipFloor skips the phase that measures the Redis server's floor
	// (trivial EVALs from as many goroutines as players).
	SkipFloor bool
	// BotBinary, when set, is the bot's binary (`go build` of the
	// module's main package), run as its own process for each transport,
	// pointed at the fake Discord (DISCORD_API_BASE) and the run's store
	// (REDIS_URL): its CPU time is then read apart, from /proc/PID/stat.
	// Only with StoreRedis: a bolt file is locked by the one process
	// that opens it. "" runs the bot in this process.
	BotBinary string
	// BotEnv are variables of the bot's configuration (as config.Load
	// reads them, e.g. APP_EMOJIS=false), for the bot in this process and
	// in its own; those the run sets itself (DISCORD_TOKEN,
	// DISCORD_API_BASE, REDIS_URL, INTERACTIONS_ADDR, DISCORD_PUBLIC_KEY)
	// win. nil: a deployment's defaults.
	BotEnv map[string]string
	// BotOutput receives what the bot process logs (at warning level and
	// above); nil means nowhere (the last lines still show in errors).
	BotOutput io.Writer

	// Logger receives the run's progress; nil means none.
	Logger *slog.Logger
	// BotLogger receives the logs of the bot and its handlers; nil means Logger.
	BotLogger *slog.Logger
	// Drawer draws tickets and chests, for the handlers and the store's
	// ceiling; nil means game.SeededDrawer{}, the bot's verifiable draws
	// (tests force keys to reach the chest).
	Drawer game.Drawer
}

// Phase is the result of one measured phase: a transport's, or the store's
// own ceiling.
type Phase struct {
	// Name is Gateway, HTTP, or "store" for the ceiling.
	Name string `json:"name"`
	// Rate is the open loop's target in interactions per second; 0 for a
	// closed loop.
	Rate    float64       `json:"rate,omitempty"`
	Players int           `json:"players"`
	Elapsed time.Duration `json:"elapsed_ns"`

	Cycles       int64 `json:"cycles"`
	Interactions int64 `json:"interactions,omitempty"`
	StoreCalls   int64 `json:"store_calls,omitempty"` // the ceiling's
	Chests       int64 `json:"chests"`
	Errors       int64 `json:"errors"`
	// SendDelay is the open loop's delay from an interaction's schedule to
	// its send (no player free, or the load generator behind): the part of
	// the latency that is not the bot's.
	SendDelay *Latency `json:"send_delay,omitempty"`

	CyclesPerSec       float64 `json:"cycles_per_sec"`
	InteractionsPerSec float64 `json:"interactions_per_sec,omitempty"`
	// CPU is this process's CPU time (user + system) during the phase:
	// for a transport, the fake Discord and the load generator, and the
	// bot too unless it runs as its own process (BotCPU). ServerCPU is
	// the Redis server's (0 for bolt).
	CPU               time.Duration `json:"cpu_ns"`
	CPUPerCycle       time.Duration `json:"cpu_per_cycle_ns"`
	ServerCPU         time.Duration `json:"server_cpu_ns,omitempty"`
	ServerCPUPerCycle time.Duration `json:"server_cpu_per_cycle_ns,omitempty"`
	// FloorRatio is ServerCPUPerCycle over the floor measured in the same
	// run (Report.Floor.PerCycle: two trivial EVALs); 0 if not measured.
	FloorRatio float64 `json:"floor_ratio,omitempty"`
	// ToServer and FromServer are the bytes the Redis server received
	// and sent during the phase (INFO stats total_net_input_bytes,
	// total_net_output_bytes; every client's), ServerCommands the commands
	// it ran; and the same per cycle.
	ToServer               int64   `json:"to_server_bytes,omitempty"`
	FromServer             int64   `json:"from_server_bytes,omitempty"`
	ServerCommands         int64   `json:"server_commands,omitempty"`
	ToServerPerCycle       float64 `json:"to_server_bytes_per_cycle,omitempty"`
	FromServerPerCycle     float64 `json:"from_server_bytes_per_cycle,omitempty"`
	ServerCommandsPerCycle float64 `json:"server_commands_per_cycle,omitempty"`
	// BotCPU is the bot's own CPU time (user + system, /proc/PID/stat)
	// when it runs as its own process (Config.BotBinary); 0 otherwise.
	BotCPU               time.Duration `json:"bot_cpu_ns,omitempty"`
	BotCPUPerInteraction time.Duration `json:"bot_cpu_per_interaction_ns,omitempty"`

	// Latency is from the interaction's receipt (its dispatch, its POST;
	// its schedule in an open loop) to the bot's answer, per kind and
	// KindAll.
	Latency map[string]Latency `json:"latency,omitempty"`
	// OfCeiling is CyclesPerSec as a fraction of the store's own ceiling
	// measured in the same run (0 if not measured).
	OfCeiling float64 `json:"of_ceiling,omitempty"`
	// Refused lists the first of the bot's calls the fake Discord refused,
	// and interactions it left unanswered past 3 s, since the transport
	// started: warm-up included, unlike Errors.
	Refused []string `json:"refused,omitempty"`
}

// finish computes the phase's rates.
func (p *Phase) finish() {
	if s := p.Elapsed.Seconds(); s > 0 {
		p.CyclesPerSec = float64(p.Cycles) / s
		p.InteractionsPerSec = float64(p.Interactions) / s
	}
	if p.Cycles > 0 {
		p.CPUPerCycle = p.CPU / time.Duration(p.Cycles)
		p.ServerCPUPerCycle = p.ServerCPU / time.Duration(p.Cycles)
		n := float64(p.Cycles)
		p.ToServerPerCycle, p.FromServerPerCycle = float64(p.ToServer)/n, float64(p.FromServer)/n
		p.ServerCommandsPerCycle = float64(p.ServerCommands) / n
	}
	if p.Interactions > 0 {
		p.BotCPUPerInteraction = p.BotCPU / time.Duration(p.Interactions)
	}
}

// Audit is the store's state after the load.
type Audit struct {
	Players int `json:"players"`
	// Plays are the tickets the store counts; Cycles those the load
	// generator completed (every phase, warm-ups included). Plays ≥ Cycles.
	Plays  int64 `json:"plays"`
	Cycles int64 `json:"cycles"`
	Chests int64 `json:"chests"`
	// Unbalanced lists the first players whose balance is not
	// start − staked + won, or who break game.Player.Check.
	Unbalanced []string `json:"unbalanced,omitempty"`
}

// Report is the result of Run.
type Report struct {
	Store string `json:"store"`
	// Path is the bolt file used ("" on Redis).
	Path     string        `json:"path,omitempty"`
	Players  int           `json:"players"`
	Guilds   []uint64      `json:"guilds"`
	Duration time.Duration `json:"duration_ns"`
	Warmup   time.Duration `json:"warmup_ns"`
	// Phases are the transports' phases, in the order run.
	Phases []Phase `json:"phases"`
	// Ceiling is the store's steps issued directly, if measured.
	Ceiling *Phase `json:"ceiling,omitempty"`
	// Floor is the Redis server's cost of trivial EVALs, if measured.
	Floor *Floor `json:"floor,omitempty"`
	// BotProcess is the bot's binary when it ran as its own process.
	BotProcess string `json:"bot_process,omitempty"`
	Audit      Audit  `json:"audit"`
	// Cleanup tells what was removed at the end.
	Cleanup     string   `json:"cleanup"`
	FirstErrors []string `json:"first_errors,omitempty"`
}

// phases returns pointers to the transports' phases.
func (r *Report) phases() []*Phase {
	out := make([]*Phase, len(r.Phases))
	for k := range r.Phases {
		out[k] = &r.Phases[k]
	}
	return out
}

// withDefaults checks cfg and fills its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Store == "" {
		cfg.Store = StoreBolt
	}
	if len(cfg.Transports) == 0 {
		cfg.Transports = []string{Gateway, HTTP}
	}
	for _, t := range cfg.Transports {
		if t != Gateway && t != HTTP {
			return cfg, fmt.Errorf("loadtest: transport %q: want %s or %s", t, Gateway, HTTP)
		}
	}
	if cfg.Players == 0 {
		cfg.Players = 64
	}
	if cfg.Guilds == 0 {
		cfg.Guilds = 4
	}
	if cfg.Duration == 0 {
		cfg.Duration = 5 * time.Second
	}
	switch {
	case cfg.Players < 1 || cfg.Players > 100_000:
		return cfg, fmt.Errorf("loadtest: %d players: want 1 to 100,000", cfg.Players)
	case cfg.Guilds < 1 || cfg.Guilds > 1000:
		return cfg, fmt.Errorf("loadtest: %d guilds: want 1 to 1,000", cfg.Guilds)
	case cfg.Duration < 0 || cfg.Warmup < 0 || cfg.Rate < 0:
		return cfg, errors.New("loadtest: negative duration, warm-up or rate")
	case cfg.BotBinary != "" && cfg.Store != StoreRedis:
		return cfg, errors.New("loadtest: the bot as its own process needs the Redis store (a bolt file is locked by the process that opens it)")
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

// Run opens the store cfg names (refusing one that holds data unless
// cfg.Force), creates the run's guilds and players, runs each transport's
// phase through the real handlers, measures the store's own ceiling, audits
// the store, and finally removes what the run wrote. It returns the report
// (partial if the run failed midway) and an error if the run could not be
// made, if the audit failed (ErrAudit), or if cleaning up failed. Errors of
// single interactions are counted in the report, not returned.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	r, err := prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	b, players := r.b, r.players
	rep = &Report{Store: b.desc, Path: b.path, Players: cfg.Players, Duration: cfg.Duration, Warmup: cfg.Warmup, Guilds: r.guilds}
	defer func() {
		line, cerr := b.finish(ctx, rep.Guilds, log)
		rep.Cleanup = line
		err = errors.Join(err, cerr)
	}()
	log.Info("store", "store", b.desc, "guilds", rep.Guilds)
	var spec *botSpec
	if cfg.BotBinary != "" {
		// The bot as a deployment runs it, on the run's Redis database.
		env := map[string]string{"LOG_LEVEL": "warn"}
		for k, v := range cfg.BotEnv {
			env[k] = v
		}
		env["DISCORD_TOKEN"], env["REDIS_URL"] = token, cfg.RedisURL
		spec = &botSpec{bin: cfg.BotBinary, out: cfg.BotOutput, env: env}
		rep.BotProcess = cfg.BotBinary
	}
	var errs errLog
	for _, tr := range cfg.Transports {
		ph, err := runTransport(ctx, tr, r.app, r.m, spec, players, cfg, b, &errs)
		if err != nil {
			return rep, err
		}
		rep.Phases = append(rep.Phases, ph)
	}
	var directCycles int64
	if !cfg.SkipCeiling && ctx.Err() == nil {
		ph := runCeiling(ctx, players, cfg, b, &errs)
		directCycles = ph.Cycles
		rep.Ceiling = &ph
		for k := range rep.Phases {
			if ph.CyclesPerSec > 0 {
				rep.Phases[k].OfCeiling = rep.Phases[k].CyclesPerSec / ph.CyclesPerSec
			}
		}
	}
	if !cfg.SkipFloor && b.redis != nil && ctx.Err() == nil {
		f, err := runFloor(ctx, b, cfg.Players, cfg.Duration, cfg.Logger)
		if err != nil {
			return rep, err
		}
		rep.Floor = &f
		for _, ph := range append(rep.phases(), rep.Ceiling) {
			if ph != nil && f.PerCycle > 0 {
				ph.FloorRatio = float64(ph.ServerCPUPerCycle) / float64(f.PerCycle)
			}
		}
	}
	rep.FirstErrors = errs.first
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: interrupted: %w", err)
	}
	_, cycles, _, _ := counts(players)
	rep.Audit, err = audit(ctx, b.store, players, cycles+directCycles)
	return rep, err
}

// rig is what a load run and a soak share: the store, the run's guilds
// and players on it, and the handlers as the bot builds them.
type rig struct {
	b       *backend
	guilds  []uint64
	players []*player
	app     *commands.App
	m       *metrics.Metrics
}

// prepare opens the store cfg names (refusing one that holds data unless
// cfg.Force), gives the run's guilds their settings, creates the players,
// and builds the handlers as the bot's composition root does
// (cli.NewHandlers, settings cache included), with metrics, on the
// configuration a deployment gets by default and cfg.BotEnv. The caller
// removes what the run wrote with r.b.finish; prepare does when it fails.
func prepare(ctx context.Context, cfg Config) (*rig, error) {
	b, err := openBackend(ctx, cfg, cfg.Logger)
	if err != nil {
		return nil, err
	}
	base := idBase()
	r := &rig{b: b, guilds: runGuilds(base, cfg.Guilds), m: metrics.New(metrics.NewRegistry())}
	botCfg, err := botConfig(cfg.BotEnv)
	if err == nil {
		r.players, err = setup(ctx, b.store, base, cfg)
	}
	if err != nil {
		_, cerr := b.finish(ctx, r.guilds, cfg.Logger)
		return nil, errors.Join(err, cerr)
	}
	r.app = cli.NewHandlers(botCfg, b.store, r.m, cfg.BotLogger, cli.Hooks{Drawer: cfg.Drawer})
	return r, nil
}

// botConfig is the bot's configuration as config.Load reads it from env
// (nil: no variable) and the fake Discord's token: every other setting
// takes the default a deployment gets.
func botConfig(env map[string]string) (config.Config, error) {
	c, err := config.Load(func(k string) string {
		if k == "DISCORD_TOKEN" {
			return token
		}
		return env[k]
	})
	if err != nil {
		return c, fmt.Errorf("loadtest: the bot's configuration: %w", err)
	}
	return c, nil
}

// idBase returns a snowflake-sized number (below 2^61, so IDs fit an int64
// as Discord's do) unique to this run: the clock in microseconds, shifted
// to leave 2^20 IDs for the guilds, channels and users of the run.
func idBase() uint64 { return 1<<60 + (uint64(time.Now().UnixMicro())%(1<<38))<<20 }

// setup gives the run's guilds a starting balance and creates its players,
// spread over the guilds, one channel per guild.
func setup(ctx context.Context, s storage.Store, base uint64, cfg Config) ([]*player, error) {
	const actor = 1
	now := storage.Timestamp(time.Now())
	start, anywhere := int64(startBalance), uint64(0)
	for g := range cfg.Guilds {
		gid := base + uint64(g)
		_, err := s.RunGuild(ctx, storage.GuildStep{Guild: gid, Op: "loadtest-setup", Now: now,
			Move: game.ChangeSettings{Patch: game.SettingsPatch{StartingBalance: &start, Channel: &anywhere}, Actor: actor, Reason: "loadtest"}})
		if err != nil {
			return nil, fmt.Errorf("loadtest: settings of guild %d: %w", gid, err)
		}
	}
	players := make([]*player, cfg.Players)
	for k := range players {
		g := uint64(k % cfg.Guilds)
		id := storage.PlayerID{Guild: base + g, User: base + 1<<19 + uint64(k)}
		// A step that changes nothing (no limit set) but creates the player.
		_, err := s.Run(ctx, storage.Step{
			ID: id, Op: "loadtest-join", Create: true, Start: startBalance, Seeds: rand.Reader, Now: now,
			Move: game.SetLimits{Reminder: -1},
		})
		if err != nil {
			return nil, fmt.Errorf("loadtest: create player %d/%d: %w", id.Guild, id.User, err)
		}
		players[k] = &player{
			id:      id,
			guild:   strconv.FormatUint(id.Guild, 10),
			channel: strconv.FormatUint(base+1<<18+g, 10),
			user:    strconv.FormatUint(id.User, 10),
		}
	}
	return players, nil
}

// meter measures a phase's CPU times and the store server's counters.
type meter struct {
	server func(context.Context) (ServerStats, error)
	bot    func() (time.Duration, error) // the bot process's CPU; nil when the bot runs in this one
	cpu    time.Duration
	srv    ServerStats
	srvErr error
	botCPU time.Duration
	botErr error
}

func startMeter(ctx context.Context, b *backend, bot func() (time.Duration, error)) meter {
	m := meter{server: b.server, bot: bot}
	if m.server != nil {
		m.srv, m.srvErr = m.server(ctx)
	}
	if bot != nil {
		m.botCPU, m.botErr = bot()
	}
	m.cpu = processCPU()
	return m
}

func (m meter) stop(ctx context.Context, ph *Phase) {
	ph.CPU = processCPU() - m.cpu
	if m.bot != nil && m.botErr == nil {
		if c, err := m.bot(); err == nil {
			ph.BotCPU = c - m.botCPU
		}
	}
	if m.server != nil && m.srvErr == nil {
		if srv, err := m.server(ctx); err == nil {
			d := srv.sub(m.srv)
			ph.ServerCPU, ph.ToServer, ph.FromServer, ph.ServerCommands = d.CPU, d.NetIn, d.NetOut, d.Commands
		}
	}
}

// runTransport starts a transport (the fake Discord and the bot), runs the
// warm-up and the measured phase through it, and stops it.
func runTransport(ctx context.Context, name string, h bot.Handler, obs bot.Observer, spec *botSpec, players []*player, cfg Config, b *backend, errs *errLog) (ph Phase, err error) {
	log := cfg.Logger.With("transport", name)
	var c client
	switch name {
	case Gateway:
		c, err = startGateway(ctx, h, obs, cfg.BotLogger, spec, 0)
	case HTTP:
		c, err = startHTTP(ctx, h, obs, cfg.BotLogger, len(players), spec)
	}
	if err != nil {
		return ph, err
	}
	defer func() { err = errors.Join(err, c.close()) }()
	for _, p := range players { // the messages of another transport are not here
		p.msg, p.next, p.nextKind = nil, "", ""
	}
	drive := func(d time.Duration, rec *recording) {
		if cfg.Rate > 0 {
			openLoop(ctx, c, players, d, cfg.Rate, rec, errs)
			return
		}
		closedLoop(ctx, c, players, d, rec, errs)
	}
	if cfg.Warmup > 0 {
		log.Info("warm-up", "duration", cfg.Warmup)
		drive(cfg.Warmup, nil)
	}
	log.Info("measuring", "duration", cfg.Duration, "players", len(players), "rate", cfg.Rate)
	calls0, cycles0, chests0, errs0 := counts(players)
	rec := newRecording()
	m := startMeter(ctx, b, c.botCPU())
	start := time.Now()
	drive(cfg.Duration, rec)
	ph = Phase{Name: name, Rate: cfg.Rate, Players: len(players), Elapsed: time.Since(start)}
	m.stop(ctx, &ph)
	calls, cycles, chests, nErrs := counts(players)
	ph.Interactions, ph.Cycles, ph.Chests, ph.Errors = calls-calls0, cycles-cycles0, chests-chests0, nErrs-errs0
	ph.Latency = rec.summary()
	if cfg.Rate > 0 {
		sd := rec.sendDelay.summary()
		ph.SendDelay = &sd
	}
	ph.Refused = c.refused()
	ph.finish()
	log.Info("measured", "cycles_per_sec", int(ph.CyclesPerSec), "p99", round(ph.Latency[KindAll].P99), "errors", ph.Errors)
	return ph, nil
}

// runCeiling measures the store's own ceiling: its steps issued directly
// by one goroutine per player, for the same duration.
func runCeiling(ctx context.Context, players []*player, cfg Config, b *backend, errs *errLog) Phase {
	cfg.Logger.Info("measuring the store's own ceiling", "duration", cfg.Duration, "goroutines", len(players))
	before := errs.count()
	m := startMeter(ctx, b, nil)
	start := time.Now()
	d := cfg.Drawer
	if d == nil {
		d = game.SeededDrawer{}
	}
	cycles, calls, chests := directLoop(ctx, b.store, d, players, cfg.Duration, errs)
	ph := Phase{Name: "store", Players: len(players), Elapsed: time.Since(start),
		Cycles: cycles, StoreCalls: calls, Chests: chests, Errors: errs.count() - before}
	m.stop(ctx, &ph)
	ph.finish()
	return ph
}

// audit reads every player of the run and checks its books: balance =
// start − staked + won (no grant nor daily bonus in a load test), the
// other invariants of game.Player.Check, and at least as many plays
// as the cycles completed.
func audit(ctx context.Context, s storage.Store, players []*player, cycles int64) (Audit, error) {
	a := Audit{Players: len(players), Cycles: cycles}
	bad := 0
	for _, pl := range players {
		v, err := s.Load(ctx, pl.id)
		if err != nil {
			return a, fmt.Errorf("loadtest: audit: player %d/%d: %w", pl.id.Guild, pl.id.User, err)
		}
		p := v.Player
		st := p.Stats
		a.Plays += st.Plays
		a.Chests += st.Chests
		if err = p.Check(); err != nil {
			err = fmt.Errorf("player %d/%d: %w", pl.id.Guild, pl.id.User, err)
		}
		if err == nil && (p.StartingBalance != startBalance || p.Balance != startBalance-st.StakedCents+st.WonCents) {
			err = fmt.Errorf("player %d/%d: balance %d ≠ start %d − staked %d + won %d (starting balance %d)",
				pl.id.Guild, pl.id.User, p.Balance, int64(startBalance), st.StakedCents, st.WonCents, p.StartingBalance)
		}
		if err != nil {
			if bad++; bad <= 10 {
				a.Unbalanced = append(a.Unbalanced, err.Error())
			}
		}
	}
	switch {
	case bad > 0:
		return a, fmt.Errorf("%w: %d of %d players do not balance", ErrAudit, bad, len(players))
	case a.Plays < a.Cycles:
		return a, fmt.Errorf("%w: the store counts %d plays, fewer than the %d cycles completed", ErrAudit, a.Plays, a.Cycles)
	}
	return a, nil
}
