package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// noHandler serves nothing: the state machine needs no interaction.
type noHandler struct{}

func (noHandler) Definitions() []*discordgo.ApplicationCommand { return nil }
func (noHandler) EntryPoint() *commands.Command                { return nil }
func (noHandler) Handle(context.Context, commands.Responder, *discordgo.Interaction) {
}

// TestGatewayHealthStates walks the shards' health through its states on an
// injected clock: starting until every shard's first READY, healthy while
// a shard is down for less than the grace, unhealthy past it, healthy again
// once it resumes.
func TestGatewayHealthStates(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)}
	g, err := NewGateway(GatewayOptions{Options: Options{Token: "t", Now: clk.Now}}, noHandler{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	starting := func(what string) {
		t.Helper()
		err := g.Health(ctx)
		if !errors.Is(err, ErrStarting) {
			t.Fatalf("%s: Health = %v, want ErrStarting", what, err)
		}
		var s interface{ Starting() bool }
		if !errors.As(err, &s) || !s.Starting() {
			t.Fatalf("%s: Health's error %v has no Starting() true", what, err)
		}
	}
	healthy := func(what string) {
		t.Helper()
		if err := g.Health(ctx); err != nil {
			t.Fatalf("%s: Health = %v, want nil", what, err)
		}
	}
	unhealthy := func(what, names string) {
		t.Helper()
		err := g.Health(ctx)
		if err == nil || errors.Is(err, ErrStarting) || !strings.Contains(err.Error(), names) {
			t.Fatalf("%s: Health = %v, want an error naming %q, not starting", what, err, names)
		}
	}

	starting("before Run")
	s0, s1 := &shard{id: 0}, &shard{id: 1}
	g.shards = []*shard{s0, s1}
	starting("shards known, none ready")
	g.shardUp(s0, true)
	starting("shard 1 still waiting")
	if err := g.Health(ctx); !strings.Contains(err.Error(), "READY: 1 of 2") {
		t.Errorf("Health = %v, want it to name shard 1", err)
	}
	clk.add(time.Hour) // waiting is not a disconnection, however long
	starting("shard 1 waiting an hour")
	g.shardUp(s1, true)
	healthy("both ready")

	g.shardDown(s1)
	healthy("shard 1 just dropped")
	clk.add(DefaultDisconnectGrace)
	healthy("shard 1 down for exactly the grace")
	g.shardDown(s1) // a failed attempt to reconnect keeps the first drop's time
	clk.add(time.Second)
	unhealthy("shard 1 down for the grace and a second", "more than 30s: 1 (for 31s) of 2")
	g.shardUp(s1, false) // RESUMED
	healthy("shard 1 resumed")

	g.shardDown(s0)
	clk.add(10 * time.Second)
	g.shardUp(s0, false) // a short drop that resumes
	clk.add(time.Minute)
	healthy("a 10 s drop, resumed a minute ago")
	g.shardDown(s0)
	clk.add(5 * time.Second)
	healthy("a new drop counts from its own start")
	clk.add(DefaultDisconnectGrace)
	unhealthy("shard 0 down 35 s", "0 (for 35s) of 2")
	g.shardUp(s0, true) // identified again (op 9, session not resumable)
	healthy("shard 0 identified again")
}

func TestGatewayDisconnectGraceOption(t *testing.T) {
	clk := &fakeClock{now: time.Unix(0, 0)}
	g, err := NewGateway(GatewayOptions{Options: Options{Token: "t", Now: clk.Now}, DisconnectGrace: 2 * time.Second}, noHandler{})
	if err != nil {
		t.Fatal(err)
	}
	sh := &shard{id: 3}
	g.shards = []*shard{sh}
	g.shardUp(sh, true)
	g.shardDown(sh)
	clk.add(2 * time.Second)
	if err := g.Health(context.Background()); err != nil {
		t.Errorf("down for the 2 s grace: %v", err)
	}
	clk.add(time.Millisecond)
	if err := g.Health(context.Background()); err == nil || !strings.Contains(err.Error(), "more than 2s: 3") {
		t.Errorf("down past the 2 s grace: %v", err)
	}
}
