package bot

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestInteractionProviderInstalled checks that INTERACTION_CREATE decodes
// through wire, the way discordgo's gateway decodes an event's data, and
// that the other events keep discordgo's providers.
func TestInteractionProviderInstalled(t *testing.T) {
	if p := discordgo.EventProvider("READY"); p == nil {
		t.Fatal("no READY provider")
	} else if _, ok := p.New().(*discordgo.Ready); !ok {
		t.Fatalf("READY provider makes %T", p.New())
	}
	p := discordgo.EventProvider(interactionCreate)
	if _, ok := p.(interactionProvider); !ok {
		t.Fatalf("INTERACTION_CREATE provider is %T", p)
	}
	v := p.New()
	raw := `{"id":"5","application_id":"1","type":3,"token":"tok","guild_id":"2","data":{"custom_id":"v1:auto:3:1","component_type":2},"member":{"user":{"id":"3"},"permissions":"0"}}`
	if err := discordgo.UnmarshalEvent([]byte(raw), v); err != nil { // what discordgo's onEvent does
		t.Fatal(err)
	}
	ev := v.(*InteractionEvent)
	if ev.Err != nil || ev.Interaction.ID != "5" || ev.Interaction.MessageComponentData().CustomID != "v1:auto:3:1" {
		t.Fatalf("decoded %+v, err %v", ev.Interaction, ev.Err)
	}
	if err := discordgo.UnmarshalEvent([]byte(`{"id":5}`), v); err != nil || ev.Err == nil {
		t.Fatalf("a bad payload: Unmarshal %v, Err %v; want nil and an error kept for the handler", err, ev.Err)
	}
}

// TestProviderSkipsUnusedMessages: a click on a card's Auto or chest button
// arrives without its message (commands.MessageUnused), a click on the
// reset-guild confirmation with it (its reason is in the message).
func TestProviderSkipsUnusedMessages(t *testing.T) {
	const msg = `"message":{"id":"9","components":[{"type":1,"components":[{"type":2,"label":"x","custom_id":"c"}]}]}`
	for id, wantMessage := range map[string]bool{"v1:auto:3:1": false, "v1:chest:3:1": false, "v1:rg:3:1700000": true} {
		raw := `{"id":"5","application_id":"1","type":3,"token":"tok","guild_id":"2",` + msg +
			`,"data":{"custom_id":"` + id + `","component_type":2},"member":{"user":{"id":"3"},"permissions":"0"}}`
		v := discordgo.EventProvider(interactionCreate).New()
		if err := discordgo.UnmarshalEvent([]byte(raw), v); err != nil {
			t.Fatal(err)
		}
		ev := v.(*InteractionEvent)
		if ev.Err != nil || (ev.Interaction.Message != nil) != wantMessage {
			t.Errorf("%s: message %+v (err %v), want message: %v", id, ev.Interaction.Message, ev.Err, wantMessage)
		}
	}
}
