package commands

import "github.com/bwmarrin/discordgo"

// slash builds a guild-only chat command with an English name and
// description and their French localizations.
func slash(name, frName, desc, frDesc string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Type:                     discordgo.ChatApplicationCommand,
		Name:                     name,
		NameLocalizations:        &map[discordgo.Locale]string{discordgo.French: frName},
		Description:              desc,
		DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.French: frDesc},
		//lint:ignore SA1019 deprecated by Contexts, still honoured by older clients; both are set.
		DMPermission:     new(false),
		Contexts:         &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
		IntegrationTypes: &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall},
		Options:          opts,
	}
}

// option builds a command option with its French localizations.
func option(typ discordgo.ApplicationCommandOptionType, name, frName, desc, frDesc string, required bool) *discordgo.ApplicationCommandOption {
	return &discordgo.ApplicationCommandOption{
		Type:                     typ,
		Name:                     name,
		NameLocalizations:        map[discordgo.Locale]string{discordgo.French: frName},
		Description:              desc,
		DescriptionLocalizations: map[discordgo.Locale]string{discordgo.French: frDesc},
		Required:                 required,
	}
}

// subcommand builds a subcommand option with its own options.
func subcommand(name, frName, desc, frDesc string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
	o := option(discordgo.ApplicationCommandOptionSubCommand, name, frName, desc, frDesc, false)
	o.Options = opts
	return o
}
