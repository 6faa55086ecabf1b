package commands_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// ExampleButtons lists a message's buttons wherever they sit, in reading
// order: in a row, in a container's section (its accessory), as values or
// as pointers.
func ExampleButtons() {
	components := []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Row 1", CustomID: "v1:row:1"},
			&discordgo.Button{Label: "Auto", CustomID: "v1:auto:1"},
		}},
		&discordgo.Container{Components: []discordgo.MessageComponent{
			&discordgo.TextDisplay{Content: "🗝️"},
			&discordgo.Section{
				Components: []discordgo.MessageComponent{&discordgo.TextDisplay{Content: "The chest"}},
				Accessory:  &discordgo.Button{Label: "Open", CustomID: "v1:chest:1"},
			},
		}},
	}
	for b := range commands.Buttons(components) {
		fmt.Println(b.Label, b.CustomID)
	}
	// Output:
	// Row 1 v1:row:1
	// Auto v1:auto:1
	// Open v1:chest:1
}

func TestButtonsStopsWhenAsked(t *testing.T) {
	var nilRow *discordgo.ActionsRow
	components := []discordgo.MessageComponent{
		nilRow,
		&discordgo.Section{Accessory: &discordgo.Button{CustomID: "a"}},
		&discordgo.ActionsRow{Components: []discordgo.MessageComponent{&discordgo.Button{CustomID: "b"}, &discordgo.Button{CustomID: "c"}}},
		&discordgo.Button{CustomID: "d"},
	}
	var all []string
	for b := range commands.Buttons(components) {
		all = append(all, b.CustomID)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(all, want) {
		t.Fatalf("Buttons: %v, want %v", all, want)
	}
	for stop := range 4 {
		var got []string
		for b := range commands.Buttons(components) {
			if len(got) == stop {
				break // a yield after break would panic
			}
			got = append(got, b.CustomID)
		}
		if !slices.Equal(got, all[:stop]) {
			t.Errorf("stopped after %d: %v", stop, got)
		}
	}
}
