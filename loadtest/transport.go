package loadtest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/activity"
	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// token is the bot token the fake Discord expects from the bot.
const token = "loadtest-token"

// botRun is the bot of one transport, talking to the run's fake Discord:
// in this process (stop, done) or as its own (proc). activity is its
// Activity's base URL, "http://host:port/activity/".
type botRun struct {
	srv      *fakediscord.Server
	stop     context.CancelFunc
	done     chan error
	proc     *botProc
	activity string
	public   *httptest.Server // the Activity of the bot in this process
	failures int              // the fake's failures before this bot started
}

// startBot starts the bot of transport name against the run's fake
// Discord, its interactions delivered over the gateway or to its HTTP
// endpoint, and returns once it serves them and its Activity. With
// cfg.BotBinary the bot is that binary in a process of its own; otherwise
// h serves in this process.
func startBot(ctx context.Context, name string, r *rig, h bot.Handler, cfg Config) (*botRun, error) {
	b := &botRun{srv: r.srv, failures: len(r.srv.Failures())}
	if cfg.BotBinary != "" {
		if err := b.startOwn(ctx, name, r, cfg); err != nil {
			return nil, err
		}
		return b, nil
	}
	log, url := cfg.BotLogger, "" // url: the HTTP endpoint's, once started
	var started <-chan struct{}
	var run func(context.Context) error
	switch name {
	case Gateway:
		g, err := bot.NewGateway(bot.GatewayOptions{
			Options: bot.Options{Token: token, APIBase: r.srv.URL(), Logger: log, Observer: r.m, LogLevel: discordgo.LogError}, ShardCount: 1,
		}, h)
		if err != nil {
			return nil, fmt.Errorf("loadtest: %w", err)
		}
		started, run = g.Ready(), g.Run
	case HTTP:
		key, _ := hex.DecodeString(r.srv.PublicKeyHex())
		e, err := bot.NewEndpoint(bot.EndpointOptions{
			Options: bot.Options{Token: token, APIBase: r.srv.URL(), Logger: log, Observer: r.m}, PublicKey: key, Addr: "127.0.0.1:0",
		}, h)
		if err != nil {
			return nil, fmt.Errorf("loadtest: %w", err)
		}
		ch := make(chan struct{})
		started, run = ch, func(ctx context.Context) error {
			return e.Run(ctx, func(a net.Addr) { url = "http://" + a.String() + "/interactions"; close(ch) })
		}
	}
	bctx, stop := context.WithCancel(context.Background())
	b.stop, b.done = stop, make(chan error, 1)
	go func() { b.done <- run(bctx) }()
	select {
	case <-started:
		r.srv.SetInteractionsURL(url)
	case err := <-b.done:
		stop()
		return nil, fmt.Errorf("loadtest: the %s did not start: %w", name, err)
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), b.close())
	}
	act, err := activity.New(activity.Options{
		Game: r.app, AppID: r.srv.AppID(), ClientSecret: fakediscord.TestClientSecret, Token: token, APIBase: r.srv.URL(), Logger: log,
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("loadtest: %w", err), b.close())
	}
	b.public = httptest.NewServer(act)
	b.activity = b.public.URL + "/activity/"
	return b, nil
}

// startOwn starts the bot's binary against the fake Discord
// (DISCORD_API_BASE), its public listener (PUBLIC_ADDR) and, for HTTP, its
// endpoint (INTERACTIONS_ADDR, DISCORD_PUBLIC_KEY) on free loopback ports,
// and returns once it has identified on the gateway or its endpoint
// accepts connections, its commands are registered, and its public
// listener accepts connections.
func (b *botRun) startOwn(ctx context.Context, name string, r *rig, cfg Config) error {
	public, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	kv := []string{"PUBLIC_ADDR", public, "SHARD_COUNT", "1", "REDIS_URL", r.b.url}
	var endpoint string
	if name == HTTP {
		if endpoint, err = freeLoopbackAddr(); err != nil {
			return err
		}
		kv = append(kv, "INTERACTIONS_ADDR", endpoint, "DISCORD_PUBLIC_KEY", r.srv.PublicKeyHex())
	}
	if b.proc, err = startProcess(cfg.BotBinary, r.env(cfg.BotEnv, kv...), cfg.BotOutput); err != nil {
		return err
	}
	b.activity = "http://" + public + "/activity/"
	err = b.proc.await(ctx, name+" serving, public listener on "+public, func(ctx context.Context) error {
		if name == Gateway {
			if _, err := r.srv.WaitIdentified(ctx); err != nil {
				return err
			}
		} else if err := waitListening(ctx, endpoint); err != nil {
			return err
		}
		for !slices.ContainsFunc(r.srv.Commands(""), func(c *discordgo.ApplicationCommand) bool { return c.Name == "play" }) { // registered: the endpoint may listen before
			select {
			case <-ctx.Done():
				return fmt.Errorf("no command registered: %w", ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
		return waitListening(ctx, public)
	})
	if err != nil {
		return errors.Join(err, b.close())
	}
	url := ""
	if name == HTTP {
		url = "http://" + endpoint + "/interactions"
	}
	r.srv.SetInteractionsURL(url)
	return nil
}

// refused lists the first calls the fake Discord refused since the bot
// started.
func (b *botRun) refused() (out []string) {
	for _, f := range b.srv.Failures()[b.failures:] {
		out = append(out, f.String())
	}
	return out[:min(len(out), 10)]
}

// close stops the bot: it waits for the interactions in progress.
func (b *botRun) close() error {
	if b.public != nil {
		b.public.Close()
	}
	if b.proc != nil {
		return b.proc.stop()
	}
	b.stop()
	if err := <-b.done; err != nil {
		return fmt.Errorf("loadtest: the bot: %w", err)
	}
	return nil
}

// send sends one interaction through the fake Discord (a slash command
// when sl.Name is set, else the click c) and waits for the bot's answer.
// Its time is start plus the fake's latency, from its dispatch to the
// bot's callback: the fake's own work before the dispatch is not counted.
func (b *botRun) send(ctx context.Context, sl fakediscord.Slash, c fakediscord.Click) (answer, error) {
	start := time.Now()
	var pd *fakediscord.Pending
	var err error
	if sl.Name != "" {
		pd, err = b.srv.Slash(ctx, sl)
	} else {
		pd, err = b.srv.Click(ctx, c)
	}
	if err != nil {
		return answer{}, err
	}
	r, err := pd.Wait(ctx)
	if err != nil {
		return answer{}, err
	}
	if r.Message == nil && r.Type != launchActivity {
		return answer{}, fmt.Errorf("answer of type %d shows no message", r.Type)
	}
	return answer{msg: r.Message, at: start.Add(r.Latency)}, nil
}

// launchActivity is the LAUNCH_ACTIVITY callback's type: no message.
const launchActivity = 12

// runTransport starts the bot of a transport and runs through it the
// warm-up and the measured phase of every command, then of play cycles
// only and of the Activity (unless skipped); then stops it.
func runTransport(ctx context.Context, name string, r *rig, cfg Config, errs *errLog) (phs []Phase, err error) {
	log := cfg.Logger.With("transport", name)
	b, err := startBot(ctx, name, r, r.app, cfg)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, b.close()) }()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: len(r.players)}}
	defer hc.CloseIdleConnections()
	var cpu func() (time.Duration, error) // the bot process's CPU; nil when the bot runs in this one
	if b.proc != nil {
		cpu = b.proc.cpu
	}
	for _, p := range r.players { // a new card, a new session
		p.msg, p.pos, p.chest, p.replay = nil, 0, "", false
		p.session, p.state, p.bought, p.daily = "", commands.ActState{}, 0, false
	}
	play := func(p *player, sched time.Time, rec *recording) error { return p.step(ctx, b, sched, rec) }
	measure := func(name string, rate float64, play func(*player, time.Time, *recording) error) Phase {
		if cfg.Warmup > 0 {
			log.Info("warm-up", "phase", name, "duration", cfg.Warmup)
			drive(ctx, r.players, cfg.Warmup, rate, nil, errs, play)
		}
		log.Info("measuring", "phase", name, "duration", cfg.Duration, "players", len(r.players), "rate", rate)
		for _, p := range r.players {
			p.rounds = 0 // in a closed loop, each plays at least a whole round in the phase
		}
		cycles0, chests0, errs0 := sum(r.players, cyclesOf), sum(r.players, chestsOf), sum(r.players, errorsOf)
		rec := &recording{kinds: map[string][]time.Duration{}}
		stop := meter(ctx, r.b, cpu)
		start := time.Now()
		drive(ctx, r.players, cfg.Duration, rate, rec, errs, play)
		ph := Phase{Name: name, Rate: rate, Players: len(r.players), Elapsed: time.Since(start)}
		stop(&ph)
		ph.Cycles, ph.Chests = sum(r.players, cyclesOf)-cycles0, sum(r.players, chestsOf)-chests0
		ph.Errors = sum(r.players, errorsOf) - errs0
		var sd Latency
		ph.Latency, ph.Interactions, sd = rec.summary()
		ph.Reveals = int64(ph.Latency[KindActivityReveal].N)
		if rate > 0 {
			ph.SendDelay = &sd
		}
		ph.Refused = b.refused()
		ph.finish()
		log.Info("measured", "phase", name, "interactions_per_sec", int(ph.InteractionsPerSec), "p99", round(ph.Latency[KindAll].P99), "errors", ph.Errors)
		return ph
	}
	phs = append(phs, measure(name, cfg.Rate, play))
	if !cfg.SkipPlays && ctx.Err() == nil {
		for _, p := range r.players {
			p.mix, p.pos, p.replay = playCycle, 0, false
		}
		phs = append(phs, measure(name+"-plays", cfg.Rate, play))
		for _, p := range r.players {
			p.mix = nil
		}
	}
	if !cfg.SkipActivity && ctx.Err() == nil {
		a := &activityClient{base: b.activity, hc: hc, srv: r.srv}
		phs = append(phs, measure(name+"-activity", 0, func(p *player, _ time.Time, rec *recording) error {
			return a.step(ctx, p, rec)
		}))
	}
	return phs, nil
}

// meter reads this process's CPU time, the bot process's (bot; nil when
// the bot runs in this one) and the store server's counters, and returns
// a function that writes their growth since into a phase.
func meter(ctx context.Context, b *backend, bot func() (time.Duration, error)) func(*Phase) {
	read := func() (cpu, botCPU time.Duration, srv ServerStats, err error) {
		cpu = processCPU()
		if bot != nil {
			botCPU, err = bot()
		}
		if b.server != nil && err == nil {
			srv, err = b.server(ctx)
		}
		return cpu, botCPU, srv, err
	}
	cpu0, bot0, srv0, err0 := read()
	return func(ph *Phase) {
		cpu, botCPU, srv, err := read()
		ph.CPU = cpu - cpu0
		if err = errors.Join(err0, err); err == nil {
			d := srv.sub(srv0)
			ph.BotCPU, ph.ServerCPU, ph.ToServer, ph.FromServer, ph.ServerCommands = botCPU-bot0, d.CPU, d.NetIn, d.NetOut, d.Commands
		}
	}
}

// runCeiling measures the store's own ceiling: its steps issued directly
// by one goroutine per player, for the same duration.
func runCeiling(ctx context.Context, r *rig, cfg Config, errs *errLog) Phase {
	cfg.Logger.Info("measuring the store's own ceiling", "duration", cfg.Duration, "goroutines", len(r.players))
	before := errs.count()
	stop := meter(ctx, r.b, nil)
	start := time.Now()
	d := cfg.Drawer
	if d == nil {
		d = game.SeededDrawer{}
	}
	cycles, calls, chests := directLoop(ctx, r.b.store, d, r.players, cfg.Duration, errs)
	ph := Phase{Name: "store", Players: len(r.players), Elapsed: time.Since(start),
		Cycles: cycles, StoreCalls: calls, Chests: chests, Errors: errs.count() - before}
	stop(&ph)
	ph.finish()
	return ph
}
