package commands

import (
	"context"

	"github.com/bwmarrin/discordgo"
)

// messageFree routes the buttons whose handlers never read the message the
// button is on: a card's rows, Auto, "Play again" and the chest work from
// the custom ID and the store alone. The reset-guild confirmation (its
// reason is in the message) is not here.
var messageFree = func() router {
	var r router
	none := func(context.Context, *request) (reply, error) { return reply{}, nil }
	for _, p := range []string{patRow, patAuto, patAgain, patChest} {
		r.add(p, "", none)
	}
	return r
}()

// MessageUnused reports whether handling i never reads i.Message: a click
// on a card's row, Auto, "Play again" or chest button, all of a game's
// interactions but the slash commands. A decoder may then skip the message, most of a click's
// payload (see wire.Decoder.KeepMessage, used by package bot).
func MessageUnused(i *discordgo.Interaction) bool {
	if i == nil || i.Type != discordgo.InteractionMessageComponent {
		return false
	}
	_, _, ok := messageFree.match(customID(i))
	return ok
}

// customID is the custom ID of a component interaction's data, "" if none.
func customID(i *discordgo.Interaction) string {
	switch d := i.Data.(type) {
	case discordgo.MessageComponentInteractionData:
		return d.CustomID
	case *discordgo.MessageComponentInteractionData:
		if d != nil {
			return d.CustomID
		}
	}
	return ""
}
