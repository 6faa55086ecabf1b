package e2e_test

import (
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// TestScratchByHand runs the whole bot with the Activity configured and its
// commands registered globally: the application's entry point is kept as
// Discord created it, and the /play card's "Scratch by hand" launches the
// Activity. (bot's tests cover the HTTP endpoint and the shapes sent.)
func TestScratchByHand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"PUBLIC_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret, "DISCORD_GUILD_ID": ""})
	ep, _ := h.srv.EntryPoint()
	h.start()
	<-h.public
	if got, handler := h.srv.EntryPoint(); ep == nil || got == nil || got.ID != ep.ID || handler != commands.HandlerDiscordLaunchActivity {
		t.Errorf("entry point %+v (handler %d) after a global registration, want Discord's %+v", got, handler, ep)
	}
	if n, want := len(h.srv.Commands("")), len(commands.New(commands.Config{}, nil).Definitions())+1; n != want {
		t.Errorf("%d global commands, want the bot's and the entry point: %d", n, want)
	}
	card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	p, err := h.srv.Click(h.ctx(), fakediscord.Click{Message: card.ID, CustomID: button(t, card, "v1:act:"+alice), User: alice})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := p.Wait(h.ctx()); err != nil || r.Type != commands.InteractionResponseLaunchActivity {
		t.Fatalf("press answered %+v, %v", r, err)
	}
	if l := h.srv.Launches(); len(l) != 1 || l[0].User != alice || l[0].Channel != chan1 {
		t.Errorf("launches %+v", l)
	}
	h.noFailures()
}

// noActivities, set in newHarness's env, leaves the application's
// Activities off in the Developer Portal (the fake's), whatever the bot's
// configuration; the bot never reads it.
const noActivities = "TEST_NO_ACTIVITIES"

// TestActivityNotEnabled: the Activity configured on an application whose
// Activities are off (Discord refuses the entry point's handler, 50035
// APPLICATION_COMMAND_HANDLER_INVALID): the bot starts all the same, warns
// once of what to enable, registers every other command and answers /play
// with a card that offers no Activity Discord would not launch.
func TestActivityNotEnabled(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"PUBLIC_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret, "DISCORD_GUILD_ID": "", noActivities: "1"})
	h.start()
	<-h.public
	if got, _ := h.srv.EntryPoint(); got != nil || len(h.srv.Commands("")) != len(commands.New(commands.Config{}, nil).Definitions()) {
		t.Errorf("entry point %+v, %d global commands", got, len(h.srv.Commands("")))
	}
	if card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message; card == nil || len(card.Embeds) == 0 || hasButton(card, "v1:act:") {
		t.Errorf("/play answered %+v, want a card without \"Scratch by hand\"", card)
	}
	if n := strings.Count(h.logs.String(), "enable Activities (Activities → Settings)"); n != 1 {
		t.Errorf("%d warnings naming what to enable, want 1:\n%s", n, h.logs.String())
	}
	h.noFailures()
}
