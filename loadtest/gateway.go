package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// token is the bot token the fake Discord expects from the bot.
const token = "loadtest-token"

// startFake starts the in-repo fake Discord on loopback. keep > 0 bounds
// the interactions it remembers (fakediscord.Options.KeepInteractions),
// for soaks; 0 keeps them all.
func startFake(keep int) (*fakediscord.Server, error) {
	srv := fakediscord.New(fakediscord.Options{Token: token, KeepInteractions: keep})
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("loadtest: start the fake Discord: %w", err)
	}
	return srv, nil
}

// botRun is the fake Discord of a transport and the bot that talks to
// it: in this process (stop, done) or as its own (proc).
type botRun struct {
	srv  *fakediscord.Server
	stop context.CancelFunc
	done chan error
	proc *botProc
}

// runInProcess runs the bot in this process, until closeBot.
func (b *botRun) runInProcess(run func(context.Context) error) {
	ctx, stop := context.WithCancel(context.Background())
	b.stop, b.done = stop, make(chan error, 1)
	go func() { b.done <- run(ctx) }()
}

// refused lists the first calls the fake Discord refused.
func (b *botRun) refused() []string {
	var out []string
	for _, f := range b.srv.Failures() {
		if len(out) == 10 {
			break
		}
		out = append(out, f.String())
	}
	return out
}

// botCPU reads the bot process's CPU time; nil when the bot runs in this
// process.
func (b *botRun) botCPU() func() (time.Duration, error) {
	if b.proc == nil {
		return nil
	}
	return b.proc.cpu
}

// closeBot stops the bot (it waits for the interactions in progress),
// then the fake Discord; what names the bot's transport in errors.
func (b *botRun) closeBot(what string) error {
	var err error
	if b.proc != nil {
		err = b.proc.stop()
	} else {
		b.stop()
		if err = <-b.done; err != nil {
			err = fmt.Errorf("loadtest: %s: %w", what, err)
		}
	}
	return errors.Join(err, b.srv.Close())
}

// gatewayClient plays through the gateway: the fake Discord dispatches
// INTERACTION_CREATE over its websocket to a real bot.Gateway (one
// discordgo session, its real decoding), which answers over REST to the
// fake. The bot runs in this process, or as its own.
type gatewayClient struct{ botRun }

// botSpec says how to run the bot as its own process: the binary, the
// environment common to both transports (the store), and where its output
// goes.
type botSpec struct {
	bin string
	env map[string]string
	out io.Writer
}

// with returns the environment plus the variables given.
func (b *botSpec) with(kv ...string) map[string]string {
	env := make(map[string]string, len(b.env)+len(kv)/2)
	for k, v := range b.env {
		env[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

// startGateway starts the fake Discord and a bot.Gateway serving h against
// it, and returns once the bot is connected and its commands registered.
// With spec, the bot is spec's binary in a process of its own instead, and
// h and obs are not used. keep is startFake's.
func startGateway(ctx context.Context, h bot.Handler, obs bot.Observer, log *slog.Logger, spec *botSpec, keep int) (*gatewayClient, error) {
	if spec != nil {
		return startGatewayProcess(ctx, spec)
	}
	srv, err := startFake(keep)
	if err != nil {
		return nil, err
	}
	g, err := bot.NewGateway(bot.GatewayOptions{
		Token: token, APIBase: srv.URL(), ShardCount: 1,
		Logger: log, Observer: obs, LogLevel: discordgo.LogError,
	}, h)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	c := &gatewayClient{botRun{srv: srv}}
	c.runInProcess(g.Run)
	select {
	case <-g.Ready():
	case err := <-c.done:
		c.stop()
		srv.Close()
		return nil, fmt.Errorf("loadtest: the gateway did not start: %w", err)
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), c.close())
	}
	return c, nil
}

// startGatewayProcess starts the fake Discord and the bot's binary
// against it (DISCORD_API_BASE, one shard), and returns once the bot has
// registered its commands and identified on the gateway.
func startGatewayProcess(ctx context.Context, spec *botSpec) (*gatewayClient, error) {
	srv, err := startFake(0)
	if err != nil {
		return nil, err
	}
	p, err := startBot(spec.bin, spec.with("DISCORD_API_BASE", srv.URL(), "SHARD_COUNT", "1"), spec.out)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c := &gatewayClient{botRun{srv: srv, proc: p}}
	err = p.await(ctx, "commands registered, gateway identified", func(ctx context.Context) error {
		if _, err := srv.WaitCommands(ctx, ""); err != nil {
			return err
		}
		_, err := srv.WaitIdentified(ctx)
		return err
	})
	if err != nil {
		return nil, errors.Join(err, c.close())
	}
	return c, nil
}

func (c *gatewayClient) slash(ctx context.Context, p *player) (answer, error) {
	start := time.Now()
	pd, err := c.srv.Slash(ctx, fakediscord.Slash{Guild: p.guild, Channel: p.channel, User: p.user, Name: "play"})
	if err != nil {
		return answer{}, err
	}
	return wait(ctx, pd, start)
}

func (c *gatewayClient) click(ctx context.Context, p *player, customID string) (answer, error) {
	if p.msg == nil {
		return answer{}, errors.New("no message to click on")
	}
	start := time.Now()
	pd, err := c.srv.Click(ctx, fakediscord.Click{Message: p.msg.ID, CustomID: customID, User: p.user})
	if err != nil {
		return answer{}, err
	}
	return wait(ctx, pd, start)
}

// wait waits for the bot's answer to the interaction sent at start. The
// answer's time is start plus the fake's latency, from its dispatch to the
// bot's callback: the fake's own work before the dispatch is not counted.
func wait(ctx context.Context, pd *fakediscord.Pending, start time.Time) (answer, error) {
	r, err := pd.Wait(ctx)
	if err != nil {
		return answer{}, err
	}
	if r.Message == nil {
		return answer{}, fmt.Errorf("answer of type %d shows no message", r.Type)
	}
	return answer{msg: r.Message, at: start.Add(r.Latency)}, nil
}

// close stops the bot, then the fake Discord.
func (c *gatewayClient) close() error { return c.closeBot("gateway") }
