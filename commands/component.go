package commands

import "github.com/bwmarrin/discordgo"

// componentCustomID is the custom ID of a component interaction's data and
// the kind of component that sent it ("" and 0 if none).
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
	return m != nil && id != "" && anyHasButton(m.Components, id)
}

func anyHasButton(cs []discordgo.MessageComponent, id string) bool {
	for _, c := range cs {
		if hasButton(c, id) {
			return true
		}
	}
	return false
}

// hasButton reports whether component c is, or holds, a button with custom
// ID id. Components decoded from JSON are pointers; those built in memory may
// be values.
func hasButton(c discordgo.MessageComponent, id string) bool {
	switch c := c.(type) {
	case *discordgo.Button:
		return c != nil && c.CustomID == id
	case discordgo.Button:
		return c.CustomID == id
	case *discordgo.ActionsRow:
		return c != nil && anyHasButton(c.Components, id)
	case discordgo.ActionsRow:
		return anyHasButton(c.Components, id)
	case *discordgo.Section:
		return c != nil && (anyHasButton(c.Components, id) || hasButton(c.Accessory, id))
	case discordgo.Section:
		return anyHasButton(c.Components, id) || hasButton(c.Accessory, id)
	case *discordgo.Container:
		return c != nil && anyHasButton(c.Components, id)
	case discordgo.Container:
		return anyHasButton(c.Components, id)
	}
	return false
}
