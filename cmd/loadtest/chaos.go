package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lesclefsdutresor/clefs/loadtest"
)

// chaosUsage is the -h paragraph of -chaos.
const chaosUsage = `-chaos D instead runs the chaos test for D (e.g. 30s), on the gateway unless
-transport says otherwise (both: the two at the same time, each with its own
fake Discord and bot): -players (50 unless given) per transport play
through the real handlers while the fake Discord injects random faults
into -chaos-fraction (0.1) of the REST calls (429s per bucket and global
with a retry_after of -chaos-retry-after, 5xx with HTML bodies before and
after the call took effect, slow answers, connection resets;
-chaos-kinds chooses among them) and drops the gateway -chaos-drops (3)
times. Then the faults stop, each player sends /play and clicks through
any ticket it hands back, and the store is audited. It exits 1 on any
breach: a credit created or lost, a ticket drawn twice or lost, a key lost
or doubled, a ticket whose result the player can never reach, or a call
the fake Discord refused (a retry before retry_after, a second
acknowledgement). It reports the faults by kind and, for the actions hit
by 429s, the time until the player sees the result (p50, p99) beside
retry_after + 1 s. The bot runs in this process.

`

// chaosOptions are the flags of -chaos.
type chaosOptions struct {
	fs         *flag.FlagSet
	duration   time.Duration
	fraction   float64
	seed       uint64
	retryAfter time.Duration
	drops      int
	kinds      string
}

// chaosFlags defines the flags of -chaos on fs.
func chaosFlags(fs *flag.FlagSet, c *chaosOptions) {
	c.fs = fs
	fs.DurationVar(&c.duration, "chaos", 0, "instead of the measured phases: run the chaos test for this long (e.g. 30s); exits 1 on any breach")
	fs.Float64Var(&c.fraction, "chaos-fraction", 0.1, "with -chaos: the fraction of REST calls that get a fault (0.05 to 0.2 in the issue's test)")
	fs.Uint64Var(&c.seed, "chaos-seed", 0, "with -chaos: the seed of the faults (0: from the clock; the report gives it)")
	fs.DurationVar(&c.retryAfter, "chaos-retry-after", 500*time.Millisecond, "with -chaos: the retry_after of the injected 429s")
	fs.IntVar(&c.drops, "chaos-drops", 3, "with -chaos: gateway drops during the faults (0: none)")
	fs.StringVar(&c.kinds, "chaos-kinds", "", "with -chaos: the kinds of REST faults, comma-separated, among rate_limit, global_rate_limit, server_error, slow, reset (default: all)")
}

// config returns the chaos run's configuration from the options.
func (c chaosOptions) config(o options) (loadtest.ChaosConfig, error) {
	players, explicit, transports := 50, false, []string{loadtest.Gateway}
	c.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "players":
			explicit = true
		case "transport":
			transports = o.cfg.Transports
		}
	})
	if explicit {
		players = o.cfg.Players
		if players < 1 {
			return loadtest.ChaosConfig{}, fmt.Errorf("-players %d: want at least 1", players)
		}
	}
	if o.botSetExp && o.botProcess {
		return loadtest.ChaosConfig{}, errors.New("-chaos runs the bot in this process: -bot-process does not apply")
	}
	drops := c.drops
	if drops == 0 {
		drops = -1 // none
	}
	var kinds []string
	if c.kinds != "" {
		kinds = strings.Split(c.kinds, ",")
	}
	cfg := o.cfg
	return loadtest.ChaosConfig{
		Kinds: kinds,
		Store: cfg.Store, RedisURL: cfg.RedisURL, DataPath: cfg.DataPath, Force: cfg.Force,
		Transports: transports, Players: players, Guilds: cfg.Guilds, Duration: c.duration,
		Fraction: c.fraction, Seed: c.seed, RetryAfter: c.retryAfter, GatewayDrops: drops,
		Logger: cfg.Logger, BotLogger: cfg.BotLogger,
	}, nil
}

// runChaos runs loadtest.Chaos and prints its report; a breach, or a run
// that could not be made, exits 1.
func runChaos(ctx context.Context, o options, stdout, stderr io.Writer) int {
	cfg, err := o.chaos.config(o)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 2
	}
	rep, err := loadtest.Chaos(ctx, cfg)
	if rep != nil {
		err = errors.Join(err, o.write(stdout, rep.WriteText, rep.WriteJSON))
	}
	return o.exit("chaos test failed", err)
}
