package commands

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// withActivity reopens e's App with Config.Activity set to on.
func (e *env) withActivity(on bool) {
	e.cfg.Activity = on
	e.app = New(e.cfg, e.store)
}

func actID(user uint64) string { return customID{kind: kindActivity, user: user}.format() }

// TestScratchByHandButton: the card has "Scratch by hand" only with the
// Activity, in the row under the arrows (beside the next step once the
// ticket is over), in the player's language, and its owner's press
// launches the Activity (type 12, no data).
func TestScratchByHandButton(t *testing.T) {
	e := newEnv(t)
	if _, ok := e.slash(alice, "en-US", "play").button("v1:act:"); ok {
		t.Fatal("a card without the Activity has the button")
	}

	e.withActivity(true)
	h := e.slash(bob, "fr", "play") // a new ticket, open
	b := h.mustButton("v1:act:")
	if b.Label != "Gratter à la main" || b.CustomID != actID(bob) {
		t.Errorf("button %q %q", b.Label, b.CustomID)
	}
	if rows := h.r.Data.Components; len(rows) != 2 || len(rowButtons(rows[1])) != 1 {
		t.Errorf("an open card's rows: %d, want the arrows then the button alone", len(rows))
	}
	h = e.click(bob, h.message(), autoID(bob, e.player(bob).Ticket.ID)) // over: beside "Play again"
	if rows := h.r.Data.Components; len(rows) != 2 || len(rowButtons(rows[1])) != 2 || rowButtons(rows[1])[1].CustomID != actID(bob) {
		t.Errorf("a finished card's second row: %+v", rowButtons(rows[1]))
	}
	if b := e.slash(alice, "en-US", "play").mustButton("v1:act:"); b.Label != "Scratch by hand" {
		t.Errorf("English label %q", b.Label)
	}

	before := e.player(bob)
	launch := e.click(bob, h.message(), actID(bob))
	if launch.r.Type != InteractionResponseLaunchActivity || launch.r.Data != nil {
		t.Fatalf("press answered type %d with data %+v, want 12 without", launch.r.Type, launch.r.Data)
	}
	if after := e.player(bob); after.Balance != before.Balance || after.Ticket.ID != before.Ticket.ID {
		t.Error("launching changed the player")
	}
	e.click(alice, h.message(), actID(bob)).expectUserError("belong to")

	// The card-button check: an act ID the message does not carry is stale.
	e.handle(e.clickPayload(bob, memberPerms, "en-US", cardWith(autoID(bob, before.Ticket.ID)), actID(bob))).expectUserError("out of date")

	// A card posted before the Activity was turned off.
	e.withActivity(false)
	e.click(bob, h.message(), actID(bob)).expectUserError("out of date")
}

// TestEntryPoint: the entry point exists only with the Activity, global
// Discord-launched "launch"; should Discord ever send its interaction (an
// operator set APP_HANDLER), it is answered with the launch too.
func TestEntryPoint(t *testing.T) {
	e := newEnv(t)
	if e.app.EntryPoint() != nil {
		t.Error("an entry point without the Activity")
	}
	e.withActivity(true)
	ep := e.app.EntryPoint()
	if ep == nil || ep.Type != PrimaryEntryPoint || ep.Handler != HandlerDiscordLaunchActivity || ep.Name != "launch" || ep.Description == "" {
		t.Fatalf("entry point %+v", ep)
	}
	for _, d := range e.app.Definitions() {
		if d.Type == PrimaryEntryPoint {
			t.Errorf("the definitions, which guilds get too, hold the entry point %q", d.Name)
		}
	}
	i := e.slashPayload(alice, memberPerms, "en-US", "lancer", "") // named as the operator chose
	d := i.Data.(discordgo.ApplicationCommandInteractionData)
	d.CommandType = PrimaryEntryPoint
	i.Data = d
	if h := e.handle(i); h.r.Type != InteractionResponseLaunchActivity || h.r.Data != nil {
		t.Errorf("entry point answered type %d", h.r.Type)
	}
}

// TestLaunchAfterDeferral: Discord takes a launch only as the first
// answer; after a deferral (the player's lock held by another of their
// interactions) the player is asked to press again.
func TestLaunchAfterDeferral(t *testing.T) {
	e := newEnv(t)
	e.cfg.DeferAfter = 10 * time.Millisecond
	e.withActivity(true)
	unlock, err := e.app.players.lock(context.Background(), playerKey{testGuild, alice})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	rec := &recorder{onRespond: func() { once.Do(unlock) }} // the deferral frees the lock
	e.app.Handle(context.Background(), rec, e.clickOnCard(alice, actID(alice)))
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("responses %+v, want the deferral alone", rec.responses)
	}
	if len(rec.followups) != 1 || rec.followups[0].Flags&discordgo.MessageFlagsEphemeral == 0 ||
		!strings.Contains(rec.followups[0].Content, "again") {
		t.Fatalf("follow-ups %+v, want an ephemeral \"press again\"", rec.followups)
	}
}
