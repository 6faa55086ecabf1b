package commands

import (
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

func TestMessageUnused(t *testing.T) {
	click := func(id string) *discordgo.Interaction {
		return &discordgo.Interaction{Type: discordgo.InteractionMessageComponent,
			Data: discordgo.MessageComponentInteractionData{CustomID: id}}
	}
	for id, want := range map[string]bool{
		rowID(alice, 7, 2):                  true,
		autoID(alice, 7):                    true,
		againID(alice, 7):                   true,
		chestID(alice, 1):                   true,
		"v1:rg:1000000000000000001:1700000": false, // the reason is in the message
		"v1:row:1:2":                        false, // not a button of ours
		"":                                  false,
	} {
		if got := MessageUnused(click(id)); got != want {
			t.Errorf("MessageUnused(%q) = %v, want %v", id, got, want)
		}
	}
	slash := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand,
		Data: discordgo.ApplicationCommandInteractionData{Name: "play"}}
	if MessageUnused(slash) || MessageUnused(nil) {
		t.Error("a slash command or nil has no message to skip")
	}
}

// TestMessageFreeButtonsIgnoreTheMessage plays the same game twice, with
// the same draws: once clicking with the message attached, as Discord
// sends it, once without (what the bot's decoder leaves when MessageUnused
// says so). Every answer must be the same.
func TestMessageFreeButtonsIgnoreTheMessage(t *testing.T) {
	chests := 0
	play := func(withMessage bool) []string {
		e := newEnv(t)
		var out []string
		record := func(h *handled) *handled {
			b, err := json.Marshal(h.r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
			return h
		}
		msg := func(h *handled) *discordgo.Message {
			if withMessage {
				return h.message()
			}
			return nil
		}
		click := func(card *handled, id string) *handled {
			if !MessageUnused(e.clickPayload(alice, memberPerms, "en-US", nil, id)) {
				t.Fatalf("%q not message-free", id)
			}
			return record(e.click(alice, msg(card), id))
		}
		// Every draw gives a key: the third ticket makes the chest due.
		e.drawer.setWant(func(o game.Outcome) bool { return o.Key })
		card := record(e.slash(alice, "en-US", "play"))
		for round := 0; round < 5; round++ {
			card = click(card, card.mustButton("v1:row:").CustomID)
			card = click(card, card.mustButton("v1:auto:").CustomID)
			if b, ok := card.button("v1:chest:"); ok {
				chests++
				card = click(card, b.CustomID)
				card = click(card, b.CustomID) // a double click shows the same chest
			}
			card = click(card, card.mustButton("v1:again:").CustomID)
		}
		return out
	}
	with, without := play(true), play(false)
	if chests != 2 {
		t.Fatalf("%d chests opened in the two games, want 2", chests)
	}
	if len(with) < 4 || len(with) != len(without) {
		t.Fatalf("%d answers with the message, %d without", len(with), len(without))
	}
	for k := range with {
		if with[k] != without[k] {
			t.Fatalf("answer %d differs:\nwith message:    %s\nwithout message: %s", k, with[k], without[k])
		}
	}
}
