package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
)

// runRegister registers the slash commands over REST, as the bot does at
// start-up, and exits: for an HTTP interactions endpoint deployed before
// Discord may call it, or after a change of DISCORD_GUILD_ID. It reads
// DISCORD_TOKEN, DISCORD_API_BASE and DISCORD_GUILD_ID like the bot.
func runRegister(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("register", stderr, "Usage: clefs register [-guild ID]\n\nRegisters the bot's slash commands (a bulk overwrite) and exits.\n")
	guild := fs.String("guild", "", "register on this guild only (default: DISCORD_GUILD_ID; empty: globally)")
	if err := parseFlags(fs, "register", args, 0); err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	*guild = cmp.Or(*guild, cfg.GuildID)
	s, err := bot.NewSession(cfg.Token, cfg.APIBase, bot.TransportOptions{})
	if err != nil {
		return err
	}
	appID, activities, err := bot.Application(s)
	if err != nil {
		return fmt.Errorf("register: %w", err)
	}
	app := commands.New(commands.Config{Activity: cfg.ActivityEnabled()}, nil) // the entry point to create if none
	n, err := bot.Register(ctx, s, appID, *guild, app.Definitions(), app.EntryPoint(), activities)
	if errors.Is(err, bot.ErrNoActivities) {
		fmt.Fprintf(stderr, "warning: the Activity is configured but cannot start: %v\n", err)
	} else if err != nil {
		return fmt.Errorf("register: %w", err)
	}
	scope := "globally"
	if *guild != "" {
		scope = "on guild " + *guild
	}
	fmt.Fprintf(stdout, "registered %d commands %s for application %s\n", n, scope, appID)
	return nil
}
