package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// parseSlash reads a slash command as typed at the prompt of `clefs try`,
// without its "/": the command's name, its subcommand group and subcommand
// if it has them, then its options, in order or as name:value (the names
// Discord shows). Names may be English or French; the options are those
// of cmds, the commands the bot registered. A value for the last option
// left, if it takes text, runs to the end of the line, and so does a
// name:value of a text option, up to the next name:value.
func parseSlash(text string, cmds []*discordgo.ApplicationCommand) (fakediscord.Slash, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return fakediscord.Slash{}, fmt.Errorf("type a command after the /, e.g. /play")
	}
	var cmd *discordgo.ApplicationCommand
	for _, c := range cmds {
		if named(words[0], c.Name, c.NameLocalizations) {
			cmd = c
			break
		}
	}
	if cmd == nil {
		var names []string
		for _, c := range cmds {
			names = append(names, "/"+c.Name)
		}
		return fakediscord.Slash{}, fmt.Errorf("unknown command /%s: the bot has %s", words[0], strings.Join(names, " "))
	}
	sl := fakediscord.Slash{Name: cmd.Name}
	path := "/" + cmd.Name
	defs, words := cmd.Options, words[1:]
	for level := 0; level < 2 && hasSubcommands(defs); level++ {
		var subs []string
		var found *discordgo.ApplicationCommandOption
		for _, o := range defs {
			subs = append(subs, o.Name)
			if len(words) > 0 && named(words[0], o.Name, &o.NameLocalizations) {
				found = o
			}
		}
		if found == nil {
			return fakediscord.Slash{}, fmt.Errorf("%s needs one of: %s (e.g. %s %s)", path, strings.Join(subs, ", "), path, subs[0])
		}
		if found.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			sl.Group = found.Name
		} else {
			sl.Sub = found.Name
		}
		path += " " + found.Name
		defs, words = found.Options, words[1:]
	}
	opts, err := parseOptions(words, defs)
	if err != nil {
		return fakediscord.Slash{}, fmt.Errorf("%s: %w; usage: %s", path, err, slashUsage(path, defs))
	}
	sl.Options = opts
	return sl, nil
}

// named reports whether word is name or one of its localizations.
func named(word, name string, locs *map[discordgo.Locale]string) bool {
	if strings.EqualFold(word, name) {
		return true
	}
	if locs != nil {
		for _, l := range *locs {
			if strings.EqualFold(word, l) {
				return true
			}
		}
	}
	return false
}

// hasSubcommands reports whether defs are subcommands or groups.
func hasSubcommands(defs []*discordgo.ApplicationCommandOption) bool {
	for _, o := range defs {
		if o.Type == discordgo.ApplicationCommandOptionSubCommand || o.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			return true
		}
	}
	return false
}

// slashUsage is "/admin grant <user> <amount> <reason…>": required options
// in angle brackets, optional ones in square brackets.
func slashUsage(path string, defs []*discordgo.ApplicationCommandOption) string {
	var b strings.Builder
	b.WriteString(path)
	for i, d := range defs {
		name := d.Name
		if i == len(defs)-1 && d.Type == discordgo.ApplicationCommandOptionString {
			name += "…"
		}
		if d.Required {
			b.WriteString(" <" + name + ">")
		} else {
			b.WriteString(" [" + name + "]")
		}
	}
	return b.String()
}

// parseOptions assigns words to the options defs and types their values.
func parseOptions(words []string, defs []*discordgo.ApplicationCommandOption) ([]fakediscord.Opt, error) {
	values := make([][]string, len(defs))
	set := make([]bool, len(defs))
	find := func(name string) int {
		for i, d := range defs {
			if named(name, d.Name, &d.NameLocalizations) {
				return i
			}
		}
		return -1
	}
	cur := -1 // the text option that takes the words that follow
	for _, w := range words {
		if name, val, ok := strings.Cut(w, ":"); ok {
			if i := find(name); i >= 0 {
				if set[i] {
					return nil, fmt.Errorf("%s given twice", defs[i].Name)
				}
				set[i], values[i], cur = true, []string{val}, -1
				if defs[i].Type == discordgo.ApplicationCommandOptionString {
					cur = i
				}
				continue
			}
		}
		if cur >= 0 {
			values[cur] = append(values[cur], w)
			continue
		}
		next := -1
		for i := range defs {
			if !set[i] {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, fmt.Errorf("too many values (from %q on)", w)
		}
		set[next], values[next] = true, []string{w}
		last := true
		for i := next + 1; i < len(defs); i++ {
			last = last && set[i]
		}
		if last && defs[next].Type == discordgo.ApplicationCommandOptionString {
			cur = next
		}
	}
	var opts []fakediscord.Opt
	for i, d := range defs {
		if !set[i] {
			if d.Required {
				return nil, fmt.Errorf("%s is missing", d.Name)
			}
			continue
		}
		v, err := optionValue(d, strings.Join(values[i], " "))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		opts = append(opts, fakediscord.Opt{Name: d.Name, Value: v})
	}
	return opts, nil
}

// optionValue types a value as the option d takes it.
func optionValue(d *discordgo.ApplicationCommandOption, s string) (any, error) {
	switch d.Type {
	case discordgo.ApplicationCommandOptionInteger:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number, got %q", s)
		}
		return n, nil
	case discordgo.ApplicationCommandOptionNumber:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %q", s)
		}
		return f, nil
	case discordgo.ApplicationCommandOptionBoolean:
		switch strings.ToLower(s) {
		case "true", "yes", "oui", "on":
			return true, nil
		case "false", "no", "non", "off":
			return false, nil
		}
		return nil, fmt.Errorf("want true or false, got %q", s)
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionMentionable:
		id, ok := tryUser(s)
		if !ok {
			return nil, fmt.Errorf("want a user (@42, 42 or @mod), got %q", s)
		}
		return id, nil
	case discordgo.ApplicationCommandOptionChannel:
		c := strings.TrimSuffix(strings.TrimPrefix(s, "<#"), ">")
		if strings.EqualFold(c, "here") {
			return tryChannel, nil
		}
		if _, err := strconv.ParseUint(c, 10, 64); err != nil {
			return nil, fmt.Errorf("want a channel: here or its ID (this one is %s), got %q", tryChannel, s)
		}
		return c, nil
	}
	return s, nil
}
