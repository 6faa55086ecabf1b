package loadtest

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
)

// ErrBreach is returned by Chaos when the books, the draws, the keys or
// the players' results show a breach, or when the fake Discord refused
// something the bot did (ChaosReport.Breaches lists them).
var ErrBreach = errors.New("loadtest: the chaos run found breaches")

// Breach kinds (Breach.Kind).
const (
	BreachCredit      = "credit"      // a credit created or lost
	BreachTicket      = "ticket"      // a ticket drawn twice, lost, or shown with two results
	BreachKey         = "key"         // a key lost or doubled, a chest opened twice or never due
	BreachUnreachable = "unreachable" // a ticket whose result the player can never reach
	BreachDiscord     = "discord"     // a call the fake Discord refused (fakediscord.Failure)
)

// breachKinds are the kinds, in the order reported.
var breachKinds = []string{BreachCredit, BreachTicket, BreachKey, BreachUnreachable, BreachDiscord}

// Breach is one broken promise found by the chaos run's audit.
type Breach struct {
	Kind      string `json:"kind"`
	Transport string `json:"transport,omitempty"`
	Player    string `json:"player,omitempty"` // guild/user
	Detail    string `json:"detail"`
}

func (b Breach) String() string {
	s := b.Kind
	if b.Transport != "" {
		s += " [" + b.Transport + "]"
	}
	if b.Player != "" {
		s += " player " + b.Player
	}
	return s + ": " + b.Detail
}

// chaosKinds are the kinds of REST faults a chaos run may inject: the
// well-formed ones (the malformed 429s and expired tokens have tests of
// their own).
var chaosKinds = []string{"rate_limit", "global_rate_limit", "server_error", "slow", "reset"}

// ChaosConfig describes a chaos run. The zero value of a field takes the
// default written beside it.
type ChaosConfig struct {
	// Store, RedisURL, DataPath and Force choose the store, as in Config
	// (default a temporary bolt file, removed at the end).
	Store    string
	RedisURL string
	DataPath string
	Force    bool

	// Transports run at the same time, each with its own fake Discord,
	// bot and players: Gateway (default), HTTP, or both.
	Transports []string
	Players    int           // simulated players per transport; default 50
	Guilds     int           // guilds they are spread over; default 4
	Duration   time.Duration // of the faults; default 30 s
	// Fraction of the REST calls that get a fault, within [0.01, 0.5];
	// default 0.1.
	Fraction float64
	// Kinds of the REST faults, drawn uniformly: "rate_limit",
	// "global_rate_limit", "server_error", "slow", "reset" (the default:
	// all five; fakediscord's Chaos).
	Kinds []string
	// Seed of the faults' draws; 0: from the clock (reported).
	Seed uint64
	// RetryAfter of the injected 429s; default 500 ms.
	RetryAfter time.Duration
	// GatewayDrops drops the gateway connection this many times during
	// the faults, one every Duration/(GatewayDrops+1); default 3 (-1:
	// none).
	GatewayDrops int
	// Recovery bounds the recovery phase; default 60 s.
	Recovery time.Duration

	// Logger receives the run's progress; nil means none. BotLogger
	// receives the bot's logs; nil means Logger.
	Logger    *slog.Logger
	BotLogger *slog.Logger
	// Drawer draws tickets and chests for the handlers; nil means
	// game.SeededDrawer{}.
	Drawer game.Drawer
	// Wrap, when set, wraps the store the handlers write through (tests
	// give it a store that loses a credit, to see the audit catch it).
	// The audit reads the store itself.
	Wrap func(storage.Store) storage.Store
}

// withDefaults checks cfg and fills its defaults.
func (cfg ChaosConfig) withDefaults() (ChaosConfig, error) {
	if len(cfg.Transports) == 0 {
		cfg.Transports = []string{Gateway}
	}
	for _, t := range cfg.Transports {
		if t != Gateway && t != HTTP {
			return cfg, fmt.Errorf("loadtest: chaos transport %q: want %s or %s", t, Gateway, HTTP)
		}
	}
	if len(cfg.Transports) == 2 && cfg.Transports[0] == cfg.Transports[1] {
		return cfg, fmt.Errorf("loadtest: chaos transport %q given twice", cfg.Transports[0])
	}
	if cfg.Players == 0 {
		cfg.Players = 50
	}
	if cfg.Guilds == 0 {
		cfg.Guilds = 4
	}
	if cfg.Duration == 0 {
		cfg.Duration = 30 * time.Second
	}
	if cfg.Fraction == 0 {
		cfg.Fraction = 0.1
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = 500 * time.Millisecond
	}
	if cfg.GatewayDrops == 0 {
		cfg.GatewayDrops = 3
	}
	if cfg.Recovery == 0 {
		cfg.Recovery = time.Minute
	}
	switch {
	case len(cfg.Transports) > 2:
		return cfg, errors.New("loadtest: chaos: at most the two transports")
	case cfg.Players < 1 || cfg.Players > 10_000:
		return cfg, fmt.Errorf("loadtest: chaos with %d players: want 1 to 10,000", cfg.Players)
	case cfg.Guilds < 1 || cfg.Guilds > 1000:
		return cfg, fmt.Errorf("loadtest: chaos over %d guilds: want 1 to 1,000", cfg.Guilds)
	case cfg.Duration < time.Second || cfg.Duration > time.Hour:
		return cfg, fmt.Errorf("loadtest: chaos for %s: want 1s to 1h", cfg.Duration)
	case !(cfg.Fraction >= 0.01 && cfg.Fraction <= 0.5):
		return cfg, fmt.Errorf("loadtest: chaos fraction %v: want 0.01 to 0.5 (the issue's chaos is 0.05 to 0.2)", cfg.Fraction)
	case cfg.RetryAfter < 10*time.Millisecond || cfg.RetryAfter > 10*time.Second:
		return cfg, fmt.Errorf("loadtest: chaos retry_after %s: want 10ms to 10s", cfg.RetryAfter)
	case cfg.GatewayDrops < -1 || cfg.GatewayDrops > 100:
		return cfg, fmt.Errorf("loadtest: chaos with %d gateway drops: want 0 to 100 (-1: none)", cfg.GatewayDrops)
	case cfg.Recovery < 0:
		return cfg, errors.New("loadtest: negative chaos recovery")
	}
	if cfg.GatewayDrops < 0 {
		cfg.GatewayDrops = 0
	}
	for _, k := range cfg.Kinds {
		if !slices.Contains(chaosKinds, k) {
			return cfg, fmt.Errorf("loadtest: chaos fault kind %q: want one of %v", k, chaosKinds)
		}
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

// ChaosPhase is what one transport saw during a chaos run.
type ChaosPhase struct {
	Transport string `json:"transport"`
	Players   int    `json:"players"`
	// Interactions sent during the faults and in the recovery; Failed
	// those the player saw fail ("This interaction failed", an error, a
	// message that was not the card), each then tried again;
	// NotDelivered the sends the fake could not dispatch (no gateway
	// connection at that moment).
	Interactions         int64 `json:"interactions"`
	Failed               int64 `json:"failed"`
	NotDelivered         int64 `json:"not_delivered"`
	RecoveryInteractions int64 `json:"recovery_interactions"`
	Cycles               int64 `json:"cycles"` // tickets whose result a player saw during the faults
	Chests               int64 `json:"chests"`
	// Faults are the fake's injected faults by kind ("server_error
	// (after)" for one that happened after the call took effect), gateway
	// drops and consequences included.
	Faults      map[string]int `json:"faults"`
	FaultsTotal int            `json:"faults_total"`
	// RESTCalls hit by a fault are FaultsTotal less the gateway's and the
	// consequences.
	RESTFaults int `json:"rest_faults"`
	// Tickets bought, and how each one's result reached the player: shown
	// by an answer during the faults or the recovery, or only in the
	// player's history; Open are left open (each a breach).
	Tickets        int64 `json:"tickets"`
	Seen           int64 `json:"seen"`
	SeenInRecovery int64 `json:"seen_in_recovery"`
	OnlyInHistory  int64 `json:"only_in_history"`
	Open           int64 `json:"open"`
	HistoryReads   int64 `json:"history_reads"`
	ResumedByPlay  int64 `json:"resumed_by_play"` // /play answers that handed back an open ticket the player had seen
	// TimeToResult is, for every action (a /play, a click, and its
	// retries), the time from its first send to the answer that shows the
	// card. TimeToResult429 is that of the Hit429 actions hit by one 429
	// and no other fault, the target (p99 within Bound429 =
	// retry_after + 1 s; Within429 of them are); TimeToResult429Multi of
	// the Hit429Multi hit by two 429s or more (each retry meets a fault
	// with the same probability: n 429s wait n retry_afters) and no other
	// fault; TimeToResult429Mixed of the Hit429Mixed actions hit by a 429
	// and another fault (a 2 s slow answer, a reset) as well.
	TimeToResult         Latency       `json:"time_to_result"`
	Hit429               int           `json:"hit_429"`
	TimeToResult429      Latency       `json:"time_to_result_429"`
	Bound429             time.Duration `json:"bound_429_ns"`
	Within429            int           `json:"within_429"`
	Hit429Multi          int           `json:"hit_429_multi"`
	TimeToResult429Multi Latency       `json:"time_to_result_429_multi"`
	Hit429Mixed          int           `json:"hit_429_mixed"`
	TimeToResult429Mixed Latency       `json:"time_to_result_429_mixed"`
	Failures             []string      `json:"failures,omitempty"` // the fake's refusals (each a breach)
	// Excused are the fake's refusals that are no fault of the bot: 10062
	// on an interaction whose gateway write failed in a drop (LostDispatch
	// of them), which the fake forgot though RESUME replays it; 10015 on
	// the edit after a deferral whose callback an injected fault failed.
	Excused          []string      `json:"excused,omitempty"`
	LostDispatch     int64         `json:"lost_dispatch"`
	RecoveryDuration time.Duration `json:"recovery_ns"`

	finals []game.Player // the players as the audit read them
}

// ChaosReport is the result of Chaos.
type ChaosReport struct {
	Store      string        `json:"store"`
	Players    int           `json:"players"`
	Duration   time.Duration `json:"duration_ns"`
	Fraction   float64       `json:"fraction"`
	Seed       uint64        `json:"seed"`
	Kinds      []string      `json:"kinds"`
	RetryAfter time.Duration `json:"retry_after_ns"`
	Drops      int           `json:"gateway_drops"`
	Phases     []ChaosPhase  `json:"phases"`
	// Books: the sums over every player of the run.
	Balance int64 `json:"balance_cents"`
	Start   int64 `json:"start_cents"`
	Staked  int64 `json:"staked_cents"`
	Won     int64 `json:"won_cents"`
	// Breaches counts them by kind; FirstBreaches lists the first 20.
	Breaches      map[string]int `json:"breaches"`
	BreachTotal   int            `json:"breach_total"`
	FirstBreaches []Breach       `json:"first_breaches,omitempty"`
	Elapsed       time.Duration  `json:"elapsed_ns"`
	Cleanup       string         `json:"cleanup"`
	FirstErrors   []string       `json:"first_errors,omitempty"`
}

// breaches collects the breaches of a run.
type breaches struct {
	mu    sync.Mutex
	count map[string]int
	first []Breach
}

func (b *breaches) add(kind, transport string, id storage.PlayerID, format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.count == nil {
		b.count = map[string]int{}
	}
	b.count[kind]++
	if len(b.first) < 20 {
		var who string
		if id != (storage.PlayerID{}) {
			who = fmt.Sprintf("%d/%d", id.Guild, id.User)
		}
		b.first = append(b.first, Breach{Kind: kind, Transport: transport, Player: who, Detail: fmt.Sprintf(format, args...)})
	}
}

// chaosTransport is one transport under chaos: the fake Discord and the
// bot serving it, in this process.
type chaosTransport struct {
	name  string
	srv   *fakediscord.Server
	close func() error
}

// startChaosTransport starts a fake Discord and the bot (h) on it: a
// bot.Gateway, or a bot.Endpoint to which the fake POSTs the
// interactions (so that the bot's answers after the reply go over REST,
// through the faults, as in production).
func startChaosTransport(ctx context.Context, name string, h bot.Handler, obs bot.Observer, log *slog.Logger, seed uint64) (*chaosTransport, error) {
	srv := fakediscord.New(fakediscord.Options{Token: token, Seed: seed})
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("loadtest: start the fake Discord: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	t := &chaosTransport{name: name, srv: srv}
	t.close = func() error {
		stop()
		err := <-done
		if err != nil {
			err = fmt.Errorf("loadtest: %s: %w", name, err)
		}
		return errors.Join(err, srv.Close())
	}
	fail := func(err error) (*chaosTransport, error) {
		stop()
		srv.Close()
		return nil, err
	}
	switch name {
	case Gateway:
		g, err := bot.NewGateway(bot.GatewayOptions{
			Token: token, APIBase: srv.URL(), ShardCount: 1,
			Logger: log, Observer: obs, LogLevel: discordgo.LogError,
		}, h)
		if err != nil {
			return fail(fmt.Errorf("loadtest: %w", err))
		}
		go func() { done <- g.Run(runCtx) }()
		select {
		case <-g.Ready():
		case err := <-done:
			stop()
			srv.Close()
			return nil, fmt.Errorf("loadtest: the gateway did not start: %w", err)
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), t.close())
		}
	case HTTP:
		pub, err := hex.DecodeString(srv.PublicKeyHex())
		if err != nil {
			return fail(fmt.Errorf("loadtest: the fake's public key: %w", err))
		}
		e, err := bot.NewEndpoint(bot.EndpointOptions{
			Token: token, PublicKey: ed25519.PublicKey(pub), Addr: "127.0.0.1:0", APIBase: srv.URL(),
			Logger: log, Observer: obs, LogLevel: discordgo.LogError,
		}, h)
		if err != nil {
			return fail(fmt.Errorf("loadtest: %w", err))
		}
		addr := make(chan net.Addr, 1)
		go func() { done <- e.Run(runCtx, func(a net.Addr) { addr <- a }) }()
		select {
		case a := <-addr:
			srv.SetInteractionsURL("http://" + a.String() + "/interactions")
		case err := <-done:
			stop()
			srv.Close()
			return nil, fmt.Errorf("loadtest: the interactions endpoint did not start: %w", err)
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), t.close())
		}
		if _, err := srv.WaitCommands(ctx, ""); err != nil {
			return nil, errors.Join(fmt.Errorf("loadtest: the endpoint registered no commands: %w", err), t.close())
		}
	}
	return t, nil
}

// Chaos runs the chaos test: cfg.Players players per transport play
// (/play, Auto, the chest when due) through the real handlers and a real
// transport while the fake Discord injects random faults into
// cfg.Fraction of the REST calls (429s per bucket and global with
// cfg.RetryAfter, 5xx with HTML bodies before and after the call took
// effect, slow answers, connection resets) and drops the gateway
// cfg.GatewayDrops times, for cfg.Duration. A player whose interaction
// fails tries it again, as a person would: the same button on the same
// card, or /play. Then the faults stop and each player recovers: /play,
// and a click through any ticket it hands back (and the chest when due),
// so that every ticket can end.
//
// Then it audits, reading the store itself (and every player's history,
// read during the run often enough that no line is missed): credits
// (game.Player.Check, balance = start − staked + won, each history line's
// balance = the previous one's + its amount), tickets (numbered 1, 2, …
// once each in the history, bought = drawn + open, one result per ticket
// on every card shown, the one recorded), keys (each ticket's keys before
// = the keys after the previous one, back to 0 after the third; a chest
// only when due, once each), and results (every ticket bought or shown
// has its result shown to the player or in its history; none left open).
// The fake's Failures (a retry before retry_after, a second
// acknowledgement, …) are breaches too. It returns the report and
// ErrBreach if any breach was found, or the error that stopped the run.
// Timings are reported, never judged.
func Chaos(ctx context.Context, cfg ChaosConfig) (rep *ChaosReport, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	n := cfg.Players * len(cfg.Transports)
	rcfg := Config{Store: cfg.Store, RedisURL: cfg.RedisURL, DataPath: cfg.DataPath, Force: cfg.Force,
		Players: n, Guilds: cfg.Guilds}
	b, err := openBackend(ctx, rcfg, log)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	base := idBase()
	guilds := runGuilds(base, cfg.Guilds)
	rep = &ChaosReport{Store: b.desc, Players: cfg.Players, Duration: cfg.Duration, Fraction: cfg.Fraction,
		Seed: cfg.Seed, Kinds: cfg.Kinds, RetryAfter: cfg.RetryAfter, Drops: cfg.GatewayDrops}
	if len(rep.Kinds) == 0 {
		rep.Kinds = chaosKinds
	}
	defer func() {
		line, cerr := b.finish(ctx, guilds, log)
		rep.Cleanup = line
		err = errors.Join(err, cerr)
	}()
	players, err := setup(ctx, b.store, base, rcfg)
	if err != nil {
		return rep, err
	}
	botCfg, err := botConfig(nil)
	if err != nil {
		return rep, err
	}
	st := b.store
	if cfg.Wrap != nil {
		st = cfg.Wrap(st)
	}
	m := metrics.New(metrics.NewRegistry())
	app := cli.NewHandlers(botCfg, st, m, cfg.BotLogger, cli.Hooks{Drawer: cfg.Drawer})

	var (
		br    breaches
		errs  errLog
		wg    sync.WaitGroup
		mu    sync.Mutex
		fatal error
	)
	phases := make([]ChaosPhase, len(cfg.Transports))
	for k, name := range cfg.Transports {
		mine := players[k*cfg.Players : (k+1)*cfg.Players]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ph, err := runChaosTransport(ctx, name, app, m, b.store, mine, cfg, &br, &errs)
			phases[k] = ph
			if err != nil {
				mu.Lock()
				fatal = errors.Join(fatal, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Phases = phases
	rep.FirstErrors = errs.first
	if fatal != nil {
		return rep, fatal
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: interrupted: %w", err)
	}
	for _, ph := range phases {
		for _, p := range ph.finals {
			rep.Start += p.StartingBalance
			rep.Balance += p.Balance
			rep.Staked += p.Stats.StakedCents
			rep.Won += p.Stats.WonCents
		}
	}
	if rep.Balance != rep.Start-rep.Staked+rep.Won {
		br.add(BreachCredit, "", storage.PlayerID{}, "over every player: balance %d ≠ start %d − staked %d + won %d",
			rep.Balance, rep.Start, rep.Staked, rep.Won)
	}
	rep.Breaches = map[string]int{}
	for _, k := range breachKinds {
		rep.Breaches[k] = br.count[k]
		rep.BreachTotal += br.count[k]
	}
	rep.FirstBreaches = br.first
	rep.Elapsed = time.Since(start)
	if rep.BreachTotal > 0 {
		return rep, fmt.Errorf("%w: %d (%s)", ErrBreach, rep.BreachTotal, breachSummary(rep.Breaches))
	}
	return rep, nil
}

// breachSummary writes the non-zero counts, e.g. "credit 2, key 1".
func breachSummary(m map[string]int) string {
	var parts []string
	for _, k := range breachKinds {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// runChaosTransport runs one transport's chaos: the faults while its
// players play, the recovery, and the audit of its players.
func runChaosTransport(ctx context.Context, name string, h bot.Handler, obs bot.Observer, st storage.Store, players []*player, cfg ChaosConfig, br *breaches, errs *errLog) (ph ChaosPhase, err error) {
	log := cfg.Logger.With("transport", name)
	ph = ChaosPhase{Transport: name, Players: len(players), Bound429: cfg.RetryAfter + time.Second}
	t, err := startChaosTransport(ctx, name, h, obs, cfg.BotLogger, cfg.Seed)
	if err != nil {
		return ph, err
	}
	defer func() { err = errors.Join(err, t.close()) }()
	cps := make([]*chaosPlayer, len(players))
	for k, p := range players {
		cps[k] = newChaosPlayer(p, t.srv, st, errs)
	}
	drops := 0
	if name == Gateway {
		drops = cfg.GatewayDrops
	}
	var kinds []fakediscord.FaultKind
	for _, k := range cfg.Kinds {
		kinds = append(kinds, fakediscord.FaultKind(k))
	}
	chaos := fakediscord.Chaos{
		Fraction: cfg.Fraction, Kinds: kinds, Seed: cfg.Seed, RetryAfter: cfg.RetryAfter, Delay: 2 * time.Second,
		After: 0.5, GatewayDrops: drops,
	}
	if drops > 0 {
		chaos.GatewayEvery = cfg.Duration / time.Duration(drops+1)
	}
	if err := t.srv.SetChaos(chaos); err != nil {
		return ph, fmt.Errorf("loadtest: chaos: %w", err)
	}
	log.Info("chaos", "duration", cfg.Duration, "players", len(players), "fraction", cfg.Fraction,
		"retry_after", cfg.RetryAfter, "gateway_drops", drops, "seed", cfg.Seed)
	runPlayers(cps, func(p *chaosPlayer) { p.play(ctx, time.Now().Add(cfg.Duration)) })
	t.srv.StopChaos()

	log.Info("recovery", "timeout", cfg.Recovery)
	rstart := time.Now()
	rctx, cancel := context.WithTimeout(ctx, cfg.Recovery)
	defer cancel()
	if name == Gateway {
		if _, err := t.srv.WaitIdentified(rctx); err != nil {
			return ph, fmt.Errorf("loadtest: the gateway did not come back after the faults: %w", err)
		}
	}
	runPlayers(cps, func(p *chaosPlayer) { p.recoverPlay(rctx) })
	ph.RecoveryDuration = time.Since(rstart)
	if err := ctx.Err(); err != nil {
		return ph, err
	}

	// What the fake saw: the faults, the failures, the 429s.
	faults := t.srv.Faults()
	ph.Faults = map[string]int{}
	// The faults of each interaction: a 429, another (a 5xx, a slow
	// answer, a reset).
	hit429, hitOther := map[string]int{}, map[string]bool{}
	for _, f := range faults {
		k := string(f.Kind)
		if f.After {
			k += " (after)"
		}
		ph.Faults[k]++
		ph.FaultsTotal++
		switch f.Kind {
		case fakediscord.FaultGatewayDrop, fakediscord.FaultGatewayReconnect, fakediscord.FaultGatewayInvalidSession,
			fakediscord.FaultHeartbeatAcks, fakediscord.FaultConsequence:
		default:
			ph.RESTFaults++
		}
		switch f.Kind {
		case fakediscord.FaultRateLimit, fakediscord.FaultGlobalRateLimit:
			hit429[f.Interaction]++
		case fakediscord.FaultConsequence:
		default:
			hitOther[f.Interaction] = true
		}
	}
	// Two refusals are no fault of the bot, and are excused (listed apart):
	//   - 10062 Unknown interaction, at most one per send whose gateway
	//     write failed in a drop: the fake forgets that interaction, yet
	//     RESUME replays it to the bot, as Discord would, and the bot
	//     answers it;
	//   - 10015 Unknown Webhook on an interaction that had an injected
	//     fault: its callback failed because of the fault (a consequence
	//     the fake records for 40060, 10062 and 50027, not 10015), so the
	//     edit that follows a deferral finds no message.
	var lost int64
	for _, p := range cps {
		lost += p.lostDispatch
	}
	faulted := map[string]bool{}
	for _, f := range faults {
		if f.Interaction != "" {
			faulted[f.Interaction] = true
		}
	}
	unknown := int64(0)
	for _, f := range t.srv.Failures() {
		switch {
		case f.Code == 10062 && f.Message == "Unknown interaction" && unknown < lost:
			unknown++
			ph.Excused = append(ph.Excused, "replayed after a failed gateway write: "+f.String())
			continue
		case f.Code == 10015 && faulted[f.Interaction]:
			ph.Excused = append(ph.Excused, "after a faulted callback: "+f.String())
			continue
		}
		ph.Failures = append(ph.Failures, f.String())
		br.add(BreachDiscord, name, storage.PlayerID{}, "the fake Discord refused: %s", f)
	}
	all, h429, multi, mixed := &histogram{}, &histogram{}, &histogram{}, &histogram{}
	for _, p := range cps {
		for _, a := range p.actions {
			if !a.ok {
				continue
			}
			d := a.end.Sub(a.start)
			all.add(int64(d))
			n, other := 0, false
			for _, id := range a.ids {
				n += hit429[id]
				other = other || hitOther[id]
			}
			switch {
			case n == 0:
			case other:
				ph.Hit429Mixed++
				mixed.add(int64(d))
			case n > 1:
				ph.Hit429Multi++
				multi.add(int64(d))
			default:
				ph.Hit429++
				h429.add(int64(d))
				if d <= ph.Bound429 {
					ph.Within429++
				}
			}
		}
	}
	ph.TimeToResult, ph.TimeToResult429 = all.summary(), h429.summary()
	ph.TimeToResult429Multi, ph.TimeToResult429Mixed = multi.summary(), mixed.summary()

	// The audit of each player, on the store itself.
	actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer acancel()
	for _, p := range cps {
		if err := p.audit(actx, name, br, &ph); err != nil {
			return ph, err
		}
		ph.Interactions += p.sent
		ph.RecoveryInteractions += p.recoverySent
		ph.Failed += p.failed
		ph.NotDelivered += p.notDelivered
		ph.LostDispatch += p.lostDispatch
		ph.Cycles += p.cycles
		ph.Chests += p.chests
		ph.HistoryReads += p.reads
		ph.ResumedByPlay += p.resumed
		ph.finals = append(ph.finals, p.final)
	}
	log.Info("chaos done", "interactions", ph.Interactions, "faults", ph.FaultsTotal, "failures", len(ph.Failures),
		"hit_429", ph.Hit429, "p99_429", round(ph.TimeToResult429.P99))
	return ph, nil
}

// runPlayers runs f for each player in its own goroutine and waits.
func runPlayers(ps []*chaosPlayer, f func(*chaosPlayer)) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p)
		}()
	}
	wg.Wait()
}

// keysInOrder returns m's keys in order.
func keysInOrder[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
