package commands

import "github.com/bwmarrin/discordgo"

// MessageUnused reports whether handling i never reads i.Message: a click
// on a card's row, Auto, "Play again" or chest button, all of a game's
// interactions but the slash commands. A decoder may then skip the message, most of a click's
// payload (see wire.Decoder.KeepMessage, used by package bot).
func MessageUnused(i *discordgo.Interaction) bool {
	if i == nil || i.Type != discordgo.InteractionMessageComponent {
		return false
	}
	c, ok := parseCustomID(componentCustomID(i))
	return ok && c.kind != kindResetConfirm && c.kind != kindResetCancel
}
