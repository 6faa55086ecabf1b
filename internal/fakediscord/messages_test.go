package fakediscord

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// roundTrip is what toDiscordgo must equal: the message as discordgo
// decodes wire's JSON of it.
func roundTrip(s *Server, m message) *discordgo.Message {
	b, err := json.Marshal(s.wire(m))
	if err != nil {
		return nil
	}
	var out discordgo.Message
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return &out
}

func TestToDiscordgo(t *testing.T) {
	s := New(Options{Token: "t"})
	slash := &interaction{id: "1001", kind: discordgo.InteractionApplicationCommand, name: "play",
		guild: "111", channel: "222", user: "333", username: "alice"}
	source := &message{id: "2002", channel: "222", guild: "111", interaction: slash}
	click := &interaction{id: "1003", kind: discordgo.InteractionMessageComponent, name: "play",
		guild: "111", channel: "222", user: "333", username: "alice", source: source}
	dm := &interaction{id: "1004", kind: discordgo.InteractionApplicationCommand, name: "help",
		channel: "444", user: "555", username: "bob"}
	created := time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.FixedZone("CET", 3600))
	edited := created.Add(1500 * time.Millisecond)
	buttons := json.RawMessage(`[{"type":1,"components":[{"type":2,"style":1,"label":"A","custom_id":"a"},{"type":2,"style":5,"label":"L","url":"https://example.com","disabled":true}]}]`)
	v2 := json.RawMessage(`[{"type":10,"content":"# Trésor"},{"type":17,"accent_color":255,"components":[{"type":9,"components":[{"type":10,"content":"x"}],"accessory":{"type":2,"style":2,"label":"B","custom_id":"b"}}]}]`)
	embeds := json.RawMessage(`[{"title":"T","description":"D","color":123,"fields":[{"name":"n","value":"v","inline":true}],"footer":{"text":"f"}}]`)
	for name, m := range map[string]message{
		"response": {id: "3001", channel: "222", guild: "111", typ: 20, content: "grid", embeds: embeds, components: buttons, created: created, interaction: slash},
		"update":   {id: "2002", channel: "222", guild: "111", typ: 19, content: "", embeds: json.RawMessage(`[]`), components: v2, flags: flagComponentsV2, created: created, edited: &edited, interaction: click},
		"loading":  {id: "3003", channel: "222", guild: "111", typ: 20, flags: flagEphemeral | flagLoading, created: created, interaction: slash},
		"dm":       {id: "3004", channel: "444", content: "hi", embeds: json.RawMessage(`null`), created: created, edited: &edited, interaction: dm, flags: flagEphemeral},
		"no owner": {id: "3005", channel: "444", content: "x", created: created},
		"bad type": {id: "3006", channel: "444", content: "x", components: json.RawMessage(`[{"type":99}]`), created: created},
		"file": {id: "3008", channel: "444", created: created, flags: flagEphemeral, attachments: []*attachment{
			{id: "4001", channel: "444", filename: "clefs équité.json", contentType: "application/json", data: []byte("{}\n"), ephemeral: true},
			{id: "4002", channel: "444", filename: "b.txt", contentType: "text/plain", data: []byte("b")},
		}},
		"bad embed": {id: "3007", channel: "444", content: "x", embeds: json.RawMessage(`[1]`), created: created},
	} {
		got, want := s.toDiscordgo(m), roundTrip(s, m)
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s: toDiscordgo\n got %s\nwant %s", name, g, w)
		}
		if got != nil && !reflect.DeepEqual(got.Components, want.Components) {
			t.Errorf("%s: components %#v, want %#v", name, got.Components, want.Components)
		}
	}
}
