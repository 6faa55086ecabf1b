package commands

import (
	"iter"

	"github.com/bwmarrin/discordgo"
)

func componentCustomID(i *discordgo.Interaction) (string, discordgo.ComponentType) {
	switch d := i.Data.(type) {
	case discordgo.MessageComponentInteractionData:
		return d.CustomID, d.ComponentType
	case *discordgo.MessageComponentInteractionData:
		if d != nil {
			return d.CustomID, d.ComponentType
		}
	}
	return "", 0
}

// messageHasButton reports whether m carries a button whose custom ID is
// id, anywhere in its components (action rows, sections, containers).
func messageHasButton(m *discordgo.Message, id string) bool {
	if m == nil || id == "" {
		return false
	}
	for b := range Buttons(m.Components) {
		if b.CustomID == id {
			return true
		}
	}
	return false
}

// Buttons yields the buttons of components in the order a reader sees them,
// however nested in rows, sections and containers. A button held as a
// value (not decoded from JSON) is yielded as a pointer to a copy.
func Buttons(components []discordgo.MessageComponent) iter.Seq[*discordgo.Button] {
	return func(yield func(*discordgo.Button) bool) {
		walkButtons(components, yield)
	}
}

// walkButtons yields cs's buttons until yield returns false (it then does).
func walkButtons(cs []discordgo.MessageComponent, yield func(*discordgo.Button) bool) bool {
	for _, c := range cs {
		more := true
		switch c := c.(type) {
		case *discordgo.Button:
			more = c == nil || yield(c)
		case discordgo.Button:
			more = yield(&c)
		case *discordgo.ActionsRow:
			more = c == nil || walkButtons(c.Components, yield)
		case discordgo.ActionsRow:
			more = walkButtons(c.Components, yield)
		case *discordgo.Section:
			more = c == nil || walkButtons(c.Components, yield) && walkButtons([]discordgo.MessageComponent{c.Accessory}, yield)
		case discordgo.Section:
			more = walkButtons(c.Components, yield) && walkButtons([]discordgo.MessageComponent{c.Accessory}, yield)
		case *discordgo.Container:
			more = c == nil || walkButtons(c.Components, yield)
		case discordgo.Container:
			more = walkButtons(c.Components, yield)
		}
		if !more {
			return false
		}
	}
	return true
}
