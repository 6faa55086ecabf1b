package cli

import (
	"strings"

	"github.com/bwmarrin/discordgo"
)

// The help of `clefs try`, made from the commands the bot registered (the
// definitions of commands/, as the fake Discord holds them): every command
// and subcommand with its options, in the session's language. Nothing is
// listed by hand, so a new command or option shows at once.

// helpText is what "help" prints: every command of cmds, then how to type
// options, buttons and the session's own commands. With args ("/admin",
// "admin grant"), only the commands whose path starts so, each option
// with its description.
func helpText(cmds []*discordgo.ApplicationCommand, args string, l tryLang) string {
	filter := strings.Fields(strings.TrimPrefix(strings.TrimSpace(args), "/"))
	var b strings.Builder
	found := false
	for _, c := range cmds {
		if len(filter) > 0 && !named(filter[0], c.Name, derefNames(c.NameLocalizations)) {
			continue
		}
		mods := c.DefaultMemberPermissions != nil && *c.DefaultMemberPermissions != 0
		path := "/" + localName(c.Name, derefNames(c.NameLocalizations), l)
		desc := localName(c.Description, derefNames(c.DescriptionLocalizations), l)
		if !found && len(filter) == 0 {
			b.WriteString(l.t("help_title", nil))
		}
		found = true
		helpEntries(&b, path, desc, c.Options, mods, filter[min(len(filter), 1):], len(filter) > 0, l)
	}
	if !found {
		return l.t("help_no_such", map[string]any{"Command": strings.Join(filter, " ")}) + "\n"
	}
	if len(filter) == 0 {
		b.WriteString(l.t("help_options_tip", map[string]any{"Command": "admin"}) + "\n")
		b.WriteString(l.t("help_rest", nil))
	}
	return b.String()
}

// helpEntries writes the entries under path: itself if it takes options
// (or none), else each of its subcommands (filter keeps those named so).
// detailed adds each option's description.
func helpEntries(b *strings.Builder, path, desc string, opts []*discordgo.ApplicationCommandOption, mods bool, filter []string, detailed bool, l tryLang) {
	if hasSubcommands(opts) {
		for _, o := range opts {
			if len(filter) > 0 && !named(filter[0], o.Name, o.NameLocalizations) {
				continue
			}
			helpEntries(b, path+" "+localName(o.Name, o.NameLocalizations, l),
				localName(o.Description, o.DescriptionLocalizations, l), o.Options, mods, filter[min(len(filter), 1):], detailed, l)
		}
		return
	}
	b.WriteString("  " + slashUsage(path, opts, l) + "\n")
	if mods {
		desc = l.t("help_mods", nil) + desc
	}
	b.WriteString("      " + desc + "\n")
	for _, o := range opts {
		name := localName(o.Name, o.NameLocalizations, l)
		switch {
		case detailed:
			b.WriteString("      " + l.t("help_choices", map[string]any{"Name": name, "Text": localName(o.Description, o.DescriptionLocalizations, l)}) + "\n")
			if len(o.Choices) > 0 {
				b.WriteString("        " + choiceList(o, l) + "\n")
			}
		case len(o.Choices) > 0:
			b.WriteString("      " + l.t("help_choices", map[string]any{"Name": name, "Text": choiceList(o, l)}) + "\n")
		}
	}
}
