package loadtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// token is the bot token the fake Discord expects from the bot.
const token = "loadtest-token"

// startFake starts the in-repo fake Discord on loopback.
func startFake() (*fakediscord.Server, error) {
	srv := fakediscord.New(fakediscord.Options{Token: token})
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("loadtest: start the fake Discord: %w", err)
	}
	return srv, nil
}

// refusals lists the first calls the fake Discord refused.
func refusals(srv *fakediscord.Server) []string {
	var out []string
	for _, f := range srv.Failures() {
		if len(out) == 10 {
			break
		}
		out = append(out, f.String())
	}
	return out
}

// gatewayClient plays through the gateway: the fake Discord dispatches
// INTERACTION_CREATE over its websocket to a real bot.Gateway (one
// discordgo session, its real decoding), which answers over REST to the
// fake.
type gatewayClient struct {
	srv  *fakediscord.Server
	stop context.CancelFunc
	done chan error
}

// startGateway starts the fake Discord and a bot.Gateway serving h against
// it, and returns once the bot is connected and its commands registered.
func startGateway(ctx context.Context, h bot.Handler, obs bot.Observer, log *slog.Logger) (*gatewayClient, error) {
	srv, err := startFake()
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
	runCtx, stop := context.WithCancel(context.Background())
	c := &gatewayClient{srv: srv, stop: stop, done: make(chan error, 1)}
	go func() { c.done <- g.Run(runCtx) }()
	select {
	case <-g.Ready():
	case err := <-c.done:
		stop()
		srv.Close()
		return nil, fmt.Errorf("loadtest: the gateway did not start: %w", err)
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), c.close())
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

func (c *gatewayClient) refused() []string { return refusals(c.srv) }

// close stops the bot (it waits for the interactions in progress), then
// the fake Discord.
func (c *gatewayClient) close() error {
	c.stop()
	err := <-c.done
	if err != nil {
		err = fmt.Errorf("loadtest: gateway: %w", err)
	}
	return errors.Join(err, c.srv.Close())
}
