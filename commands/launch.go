package commands

import (
	"context"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// Launching the Activity (the card scratched by hand, package activity):
// the card's "Scratch by hand" button, and the application's entry-point
// command, which Discord itself answers.

// What discordgo v0.29 does not name.
const (
	// InteractionResponseLaunchActivity is the LAUNCH_ACTIVITY callback:
	// Discord opens the application's Activity for the user. It has no
	// data, and only an application command's or a component's first
	// answer may be one.
	InteractionResponseLaunchActivity discordgo.InteractionResponseType = 12
	// PrimaryEntryPoint is the entry-point command's type: global only, at
	// most one per application.
	PrimaryEntryPoint discordgo.ApplicationCommandType = 4
	// HandlerDiscordLaunchActivity is an entry point's handler when
	// Discord launches the Activity itself (no interaction reaches the bot);
	// 1, APP_HANDLER, would send it the interaction.
	HandlerDiscordLaunchActivity = 2
)

// Command is an application command with the field discordgo's type
// lacks: an entry point's handler (0, left out, for any other command).
type Command struct {
	discordgo.ApplicationCommand
	Handler int `json:"handler,omitempty"`
}

// EntryPoint returns the entry-point command to create when the
// application has none, or nil when the Activity is off (Config.Activity).
// Registration never sends it to a guild, and keeps the application's own
// entry point, once it has one, rather than this one.
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

// activityButton launches the Activity.
func activityButton(l *lang, user uint64) discordgo.Button {
	return discordgo.Button{
		Label:    l.T("btn_activity", nil),
		Emoji:    &discordgo.ComponentEmoji{Name: "✋"},
		Style:    discordgo.SecondaryButton,
		CustomID: customID{kind: kindActivity, user: user}.format(),
	}
}

// ActivityOff takes the Activity off the cards from now on, and answers
// their "Scratch by hand" as out of date: the transports call it when the
// application has no Activities (bot.ErrNoActivities), which Discord
// would not launch.
func (a *App) ActivityOff() { a.renderer.activity.Store(false) }

// launch returns the handler of "Scratch by hand", and of the entry-point
// command should Discord ever send it: LAUNCH_ACTIVITY while the Activity
// is served, else the button is out of date.
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
