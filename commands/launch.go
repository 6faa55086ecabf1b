package commands

import (
	"context"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// Launching the Activity: the card's "Scratch by hand" button, and the
// entry-point command, which Discord itself answers. What discordgo v0.29
// does not name:
const (
	// InteractionResponseLaunchActivity is the LAUNCH_ACTIVITY callback,
	// with no data, only as an interaction's first answer.
	InteractionResponseLaunchActivity discordgo.InteractionResponseType = 12
	// PrimaryEntryPoint is the entry-point command's type (global, one).
	PrimaryEntryPoint discordgo.ApplicationCommandType = 4
	// HandlerDiscordLaunchActivity is an entry point's handler when Discord
	// launches the Activity itself (1, APP_HANDLER, would send it to us).
	HandlerDiscordLaunchActivity = 2
)

// Command is an application command with the field discordgo's type
// lacks: an entry point's handler (0, left out, for any other command).
type Command struct {
	discordgo.ApplicationCommand
	Handler int `json:"handler,omitempty"`
}

// EntryPoint returns the entry-point command to create when the
// application has none, or nil when the Activity is off.
func (a *App) EntryPoint() *Command {
	if !a.cfg.Activity {
		return nil
	}
	return &Command{
		ApplicationCommand: discordgo.ApplicationCommand{
			Type:                     PrimaryEntryPoint,
			Name:                     "launch",
			Description:              "Scratch your ticket by hand",
			DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.French: "Gratter votre ticket à la main"},
			Contexts:                 &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
			IntegrationTypes:         &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall},
		},
		Handler: HandlerDiscordLaunchActivity,
	}
}

// ActivityOff takes the Activity off the cards, and answers their "Scratch
// by hand" as out of date: the transports call it when the application has
// no Activities (bot.ErrNoActivities).
func (a *App) ActivityOff() { a.renderer.activity.Store(false) }

// launch returns the handler of "Scratch by hand" and of the entry point:
// LAUNCH_ACTIVITY while the Activity is served.
func launch(activity *atomic.Bool) handlerFunc {
	return func(_ context.Context, rq *request) (reply, error) {
		if !activity.Load() {
			return reply{}, userErr("err_stale_button", nil)
		}
		return reply{launch: true}, nil
	}
}

// afterFirst is rep as it can be sent after the interaction's first
// answer (a deferral, an apology): Discord takes LAUNCH_ACTIVITY only as
// the first, so a launch that comes later asks the player to press again.
func (rep reply) afterFirst(l *lang) reply {
	if rep.launch {
		return ephemeral("✋ " + l.T("launch_again", nil))
	}
	return rep
}
