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

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Transports.
const (
	Gateway = "gateway" // the fake Discord's gateway to a bot.Gateway, answers over REST
	HTTP    = "http"    // the fake Discord's signed POSTs to a bot.Endpoint, answers in the reply
)

// ErrAudit is returned by Run when, after the load, a player's books do not
// balance or the store counts fewer plays than the tickets finished.
var ErrAudit = errors.New("loadtest: the store's audit failed")

// startBalance is every simulated player's starting balance, in cents:
// enough for 200 million plays.
const startBalance = 10_000_000_000

// Config describes a run. The zero value of a field takes the default
// written beside it.
type Config struct {
	// RedisURL, when set, is the store: an empty Redis database on
	// loopback, whose run's keys are deleted at the end. "" means a
	// temporary bolt file, removed at the end.
	RedisURL string
	// Transports are run one after the other, each in a phase of its own:
	// Gateway, HTTP or both (default both).
	Transports []string
	Players    int           // simulated players; default 64
	Duration   time.Duration // of each measured phase; default 5 s
	Warmup     time.Duration // unmeasured, before each measured phase; 0: none
	// Rate, when > 0, sends that many interactions per second, evenly
	// spaced, whatever the latency (open loop), with the players free at
	// each moment; 0 means a closed loop: each player sends its next
	// interaction as soon as the last is answered.
	Rate float64
	// SkipPlays, SkipActivity, SkipCeiling and SkipFloor skip the phases
	// of play cycles only and of the Activity, the store's own ceiling and
	// the Redis floor.
	SkipPlays, SkipActivity, SkipCeiling, SkipFloor bool
	// BotBinary, when set, is the bot's binary (`go build` of the
	// module's main package), run as its own process for each transport:
	// its CPU time is then read apart, from /proc/PID/stat. Only on Redis
	// (a bolt file is locked by the one process that opens it). "" runs
	// the bot in this process.
	BotBinary string
	// BotEnv are variables of the bot's configuration (as config.Load
	// reads them, e.g. APP_EMOJIS=false); those the run sets itself win.
	BotEnv map[string]string
	// BotOutput receives what the bot process logs (warnings and above).
	BotOutput io.Writer
	// Logger receives the run's progress (nil: none), BotLogger the bot's
	// in this process (nil: Logger).
	Logger, BotLogger *slog.Logger
	// Drawer draws tickets and chests for the bot in this process and the
	// store's ceiling; nil means game.SeededDrawer{}, the verifiable draws.
	Drawer game.Drawer
}

// Phase is the result of one measured phase: through a transport's bot,
// every command (Mix), play cycles only (/play, Auto, the chest), or the
// Activity; or the store's ceiling.
type Phase struct {
	// Name is the transport's (Gateway, HTTP), + "-plays" or "-activity";
	// or "store".
	Name    string        `json:"name"`
	Rate    float64       `json:"rate,omitempty"` // open loop's, interactions/s
	Players int           `json:"players"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Cycles are the tickets finished; Interactions the interactions
	// answered (the Activity: its requests); Reveals the Activity's.
	Cycles       int64 `json:"cycles"`
	Interactions int64 `json:"interactions,omitempty"`
	Reveals      int64 `json:"reveals,omitempty"`
	StoreCalls   int64 `json:"store_calls,omitempty"` // the ceiling's
	Chests       int64 `json:"chests"`
	Errors       int64 `json:"errors"`
	// SendDelay is the open loop's delay from an interaction's schedule to
	// its send: the part of the latency that is not the bot's.
	SendDelay *Latency `json:"send_delay,omitempty"`

	CyclesPerSec       float64 `json:"cycles_per_sec"`
	InteractionsPerSec float64 `json:"interactions_per_sec,omitempty"`
	// CPU is this process's CPU time: the fake Discord and the load
	// generator, and the bot unless it runs as its own process (BotCPU).
	CPU         time.Duration `json:"cpu_ns"`
	CPUPerCycle time.Duration `json:"cpu_per_cycle_ns"`
	// ServerCPU is the Redis server's (INFO cpu), 0 on bolt; FloorRatio
	// its CPU per cycle over Report.Floor.PerCycle.
	ServerCPU         time.Duration `json:"server_cpu_ns,omitempty"`
	ServerCPUPerCycle time.Duration `json:"server_cpu_per_cycle_ns,omitempty"`
	FloorRatio        float64       `json:"floor_ratio,omitempty"`
	// ToServer and FromServer are the bytes the Redis server received and
	// sent (INFO stats, every client's), ServerCommands the commands it
	// ran; and the same per cycle.
	ToServer               int64   `json:"to_server_bytes,omitempty"`
	FromServer             int64   `json:"from_server_bytes,omitempty"`
	ServerCommands         int64   `json:"server_commands,omitempty"`
	ToServerPerCycle       float64 `json:"to_server_bytes_per_cycle,omitempty"`
	FromServerPerCycle     float64 `json:"from_server_bytes_per_cycle,omitempty"`
	ServerCommandsPerCycle float64 `json:"server_commands_per_cycle,omitempty"`
	// BotCPU is the bot process's CPU time (user + system), with
	// Config.BotBinary; per interaction (an Activity request), and per
	// Activity reveal (the whole phase's over its reveals).
	BotCPU               time.Duration `json:"bot_cpu_ns,omitempty"`
	BotCPUPerInteraction time.Duration `json:"bot_cpu_per_interaction_ns,omitempty"`
	BotCPUPerReveal      time.Duration `json:"bot_cpu_per_reveal_ns,omitempty"`
	// Latency is from the interaction's dispatch (its schedule in an open
	// loop; an Activity request's send) to the bot's answer, per kind and
	// KindAll: its N counts the kind's answers.
	Latency map[string]Latency `json:"latency,omitempty"`
	// Refused lists the first of the bot's calls the fake Discord refused
	// and interactions it left unanswered, warm-up included.
	Refused []string `json:"refused,omitempty"`
}

// finish computes the phase's rates.
func (p *Phase) finish() {
	if s := p.Elapsed.Seconds(); s > 0 {
		p.CyclesPerSec, p.InteractionsPerSec = float64(p.Cycles)/s, float64(p.Interactions)/s
	}
	if n := p.Cycles; n > 0 {
		p.CPUPerCycle, p.ServerCPUPerCycle = p.CPU/time.Duration(n), p.ServerCPU/time.Duration(n)
		p.ToServerPerCycle, p.FromServerPerCycle = float64(p.ToServer)/float64(n), float64(p.FromServer)/float64(n)
		p.ServerCommandsPerCycle = float64(p.ServerCommands) / float64(n)
	}
	if p.Interactions > 0 {
		p.BotCPUPerInteraction = p.BotCPU / time.Duration(p.Interactions)
	}
	if p.Reveals > 0 {
		p.BotCPUPerReveal = p.BotCPU / time.Duration(p.Reveals)
	}
}

// Audit is the store's state after the load.
type Audit struct {
	Players int `json:"players"`
	// Plays are the tickets the store counts; Cycles those the load
	// generator finished (every phase, warm-ups included). Plays ≥ Cycles.
	Plays  int64 `json:"plays"`
	Cycles int64 `json:"cycles"`
	Chests int64 `json:"chests"`
	// Unbalanced lists the first players who break game.Player.Check
	// (their balance is start + granted + won + daily − staked) or whose
	// starting balance changed.
	Unbalanced []string `json:"unbalanced,omitempty"`
}

// Report is the result of Run.
type Report struct {
	Store    string        `json:"store"`
	Players  int           `json:"players"`
	Guilds   []uint64      `json:"guilds"`
	Duration time.Duration `json:"duration_ns"`
	Warmup   time.Duration `json:"warmup_ns"`
	// Phases are the transports' phases, in the order run.
	Phases  []Phase `json:"phases"`
	Ceiling *Phase  `json:"ceiling,omitempty"`
	Floor   *Floor  `json:"floor,omitempty"`
	// BotProcess is the bot's binary when it ran as its own process.
	BotProcess  string   `json:"bot_process,omitempty"`
	Audit       Audit    `json:"audit"`
	Cleanup     string   `json:"cleanup"` // what was removed at the end
	FirstErrors []string `json:"first_errors,omitempty"`
}

// withDefaults checks cfg and fills its defaults.
func (cfg Config) withDefaults() (Config, error) {
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
	if cfg.Duration == 0 {
		cfg.Duration = 5 * time.Second
	}
	switch {
	case cfg.Players < 1 || cfg.Players > 100_000:
		return cfg, fmt.Errorf("loadtest: %d players: want 1 to 100,000", cfg.Players)
	case cfg.Duration < 0 || cfg.Warmup < 0 || cfg.Rate < 0:
		return cfg, errors.New("loadtest: negative duration, warm-up or rate")
	case cfg.BotBinary != "" && cfg.RedisURL == "":
		return cfg, errors.New("loadtest: the bot as its own process needs the Redis store (a bolt file is locked by the process that opens it)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BotLogger == nil {
		cfg.BotLogger = cfg.Logger
	}
	return cfg, nil
}

// Run opens the store (refusing one that holds data), creates the run's
// guilds and players, runs each transport's phases through the bot,
// measures the store's own ceiling and the Redis floor, audits the store,
// and removes what the run wrote. It returns the report (partial if the
// run failed midway) and an error if the run could not be made, if the
// audit failed (ErrAudit), or if cleaning up failed. Errors of single
// interactions are counted in the report, not returned.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r, err := prepare(ctx, cfg, 0)
	if err != nil {
		return nil, err
	}
	rep = &Report{Store: r.b.desc, Players: cfg.Players, Duration: cfg.Duration, Warmup: cfg.Warmup, Guilds: r.guilds, BotProcess: cfg.BotBinary}
	defer func() {
		rep.Cleanup, err = r.close(ctx, cfg.Logger, err)
	}()
	var errs errLog
	for _, tr := range cfg.Transports {
		phs, err := runTransport(ctx, tr, r, cfg, &errs)
		rep.Phases = append(rep.Phases, phs...)
		if err != nil {
			return rep, err
		}
	}
	var directCycles int64
	if !cfg.SkipCeiling && ctx.Err() == nil {
		ph := runCeiling(ctx, r, cfg, &errs)
		directCycles, rep.Ceiling = ph.Cycles, &ph
	}
	if !cfg.SkipFloor && r.b.redis != nil && ctx.Err() == nil {
		f, err := runFloor(ctx, r.b, cfg.Players, cfg.Duration, cfg.Logger)
		if err != nil {
			return rep, err
		}
		rep.Floor = &f
		for k := range rep.Phases {
			rep.Phases[k].FloorRatio = float64(rep.Phases[k].ServerCPUPerCycle) / float64(max(f.PerCycle, 1))
		}
		if c := rep.Ceiling; c != nil {
			c.FloorRatio = float64(c.ServerCPUPerCycle) / float64(max(f.PerCycle, 1))
		}
	}
	rep.FirstErrors = errs.first
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: interrupted: %w", err)
	}
	rep.Audit, err = audit(ctx, r.b.store, r.players, sum(r.players, cyclesOf)+directCycles)
	return rep, err
}

// rig is what a load run and a soak share: the store, the run's guilds
// and players on it, the handlers as the bot builds them, and the fake
// Discord every transport talks to.
type rig struct {
	b       *backend
	guilds  []uint64
	players []*player
	app     *commands.App
	m       *metrics.Metrics
	srv     *fakediscord.Server
}

// prepare opens the store (refusing one that holds data), gives the run's
// guilds their settings, creates the players, starts the fake Discord
// (keeping its last keep interactions; 0: all) and builds the handlers as
// the bot's composition root does (cli.NewHandlers), on the configuration
// a deployment gets by default, with the Activity on, and cfg.BotEnv. The
// caller ends with r.close; prepare does when it fails.
func prepare(ctx context.Context, cfg Config, keep int) (*rig, error) {
	r := &rig{m: metrics.New(metrics.NewRegistry())}
	r.srv = fakediscord.New(fakediscord.Options{Token: token, KeepInteractions: keep, Activities: true})
	if err := r.srv.Start(); err != nil {
		return nil, fmt.Errorf("loadtest: start the fake Discord: %w", err)
	}
	botCfg, err := config.Load(func(k string) string { return r.env(cfg.BotEnv, "PUBLIC_ADDR", "127.0.0.1:0")[k] })
	if err == nil { // a new guild's settings, as the bot's composition root gives them
		r.b, err = openBackend(ctx, cfg, game.Settings{StartingBalance: botCfg.StartingBalance, DailyAmount: botCfg.DailyAmount,
			DailyCooldown: botCfg.DailyCooldown, PublicPlays: botCfg.PublicPlays, House: game.DefaultHouse})
	}
	if err != nil {
		return nil, errors.Join(err, r.srv.Close())
	}
	base := idBase()
	for g := range min(4, cfg.Players) {
		r.guilds = append(r.guilds, base+uint64(g))
	}
	if r.players, err = setup(ctx, r.b.store, base, cfg); err != nil {
		_, err = r.close(ctx, cfg.Logger, err)
		return nil, err
	}
	r.app = cli.NewHandlers(botCfg, r.b.store, r.m, cfg.BotLogger, cli.Hooks{Drawer: cfg.Drawer})
	return r, nil
}

// env is the bot's environment: extra, then the fake Discord and the
// Activity's secret, then kv (pairs of name and value).
func (r *rig) env(extra map[string]string, kv ...string) map[string]string {
	env := map[string]string{"LOG_LEVEL": "warn"}
	for k, v := range extra {
		env[k] = v
	}
	env["DISCORD_TOKEN"], env["DISCORD_API_BASE"] = token, r.srv.URL()
	env["DISCORD_CLIENT_SECRET"] = fakediscord.TestClientSecret
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

// close stops the fake Discord, removes what the run wrote and closes the
// store, even when ctx was cancelled (Ctrl-C), and logs it; it returns what
// was removed and err joined with its own errors.
func (r *rig) close(ctx context.Context, log *slog.Logger, err error) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	line, cerr := r.b.cleanup(ctx, r.guilds)
	log.Info("cleaned up", "what", line)
	return line, errors.Join(err, r.srv.Close(), cerr)
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
	for g := range min(4, cfg.Players) {
		gid := base + uint64(g)
		_, err := s.RunGuild(ctx, storage.GuildStep{Guild: gid, Op: "loadtest-setup", Now: now,
			Move: game.ChangeSettings{Patch: game.SettingsPatch{StartingBalance: &start, Channel: &anywhere}, Actor: actor, Reason: "loadtest"}})
		if err != nil {
			return nil, fmt.Errorf("loadtest: settings of guild %d: %w", gid, err)
		}
	}
	players := make([]*player, cfg.Players)
	for k := range players {
		g := uint64(k % min(4, cfg.Players))
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
			target:  strconv.FormatUint(base+1<<17+g, 10),
			mod:     uint64(k) == g,
		}
	}
	return players, nil
}

// audit reads every player of the run and checks its books
// (game.Player.Check), its starting balance, and that the store counts at
// least as many plays as the tickets finished.
func audit(ctx context.Context, s storage.Store, players []*player, cycles int64) (Audit, error) {
	a := Audit{Players: len(players), Cycles: cycles}
	bad := 0
	for _, pl := range players {
		v, err := s.Load(ctx, pl.id)
		if err != nil {
			return a, fmt.Errorf("loadtest: audit: player %d/%d: %w", pl.id.Guild, pl.id.User, err)
		}
		p := v.Player
		a.Plays += p.Stats.Plays
		a.Chests += p.Stats.Chests
		if err = p.Check(); err == nil && p.StartingBalance != startBalance {
			err = fmt.Errorf("starting balance %d, want %d", p.StartingBalance, int64(startBalance))
		}
		if err != nil {
			if bad++; bad <= 10 {
				a.Unbalanced = append(a.Unbalanced, fmt.Sprintf("player %d/%d: %v", pl.id.Guild, pl.id.User, err))
			}
		}
	}
	switch {
	case bad > 0:
		return a, fmt.Errorf("%w: %d of %d players do not balance", ErrAudit, bad, len(players))
	case a.Plays < a.Cycles:
		return a, fmt.Errorf("%w: the store counts %d plays, fewer than the %d tickets finished", ErrAudit, a.Plays, a.Cycles)
	}
	return a, nil
}
