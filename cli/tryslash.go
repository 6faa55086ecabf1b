package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/text/unicode/norm"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// parseSlash reads a slash command as typed at the prompt of `clefs try`,
// without its "/": the command's name, its subcommand group and subcommand
// if it has them, then its options, in order or as name:value (the names
// Discord shows). Names may be English or French; the options are those
// of cmds, the commands the bot registered. A value for the last option
// left, if it takes text, runs to the end of the line, and so does a
// name:value of a text option, up to the next name:value. Its errors are
// in l and list what would have been valid: the commands, the
// subcommands, an option's choices.
func parseSlash(text string, cmds []*discordgo.ApplicationCommand, l tryLang) (fakediscord.Slash, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return fakediscord.Slash{}, errors.New(l.t("slash_empty", nil))
	}
	var cmd *discordgo.ApplicationCommand
	for _, c := range cmds {
		if named(words[0], c.Name, derefNames(c.NameLocalizations)) {
			cmd = c
			break
		}
	}
	if cmd == nil {
		return fakediscord.Slash{}, errors.New(l.t("slash_unknown", map[string]any{"Command": words[0], "Commands": commandList(cmds, l)}))
	}
	sl := fakediscord.Slash{Name: cmd.Name}
	path := "/" + localName(cmd.Name, derefNames(cmd.NameLocalizations), l)
	defs, words := cmd.Options, words[1:]
	for level := 0; level < 2 && hasSubcommands(defs); level++ {
		var subs []string
		var found *discordgo.ApplicationCommandOption
		for _, o := range defs {
			subs = append(subs, localName(o.Name, o.NameLocalizations, l))
			if len(words) > 0 && named(words[0], o.Name, o.NameLocalizations) {
				found = o
			}
		}
		if found == nil {
			example := path + " " + subs[0]
			if len(words) == 0 {
				return fakediscord.Slash{}, errors.New(l.t("slash_needs", map[string]any{"Path": path, "Subs": strings.Join(subs, ", "), "Example": example}))
			}
			return fakediscord.Slash{}, errors.New(l.t("slash_bad_sub", map[string]any{"Path": path, "Sub": words[0], "Subs": strings.Join(subs, ", "), "Example": example}))
		}
		if found.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			sl.Group = found.Name
		} else {
			sl.Sub = found.Name
		}
		path += " " + localName(found.Name, found.NameLocalizations, l)
		defs, words = found.Options, words[1:]
	}
	opts, err := parseOptions(words, defs, l)
	if err != nil {
		return fakediscord.Slash{}, errors.New(l.t("slash_usage", map[string]any{"Path": path, "Err": err, "Usage": slashUsage(path, defs, l)}))
	}
	sl.Options = opts
	return sl, nil
}

// derefNames is a command's name localizations (a pointer in discordgo,
// where an option's are a map).
func derefNames(locs *map[discordgo.Locale]string) map[discordgo.Locale]string {
	if locs == nil {
		return nil
	}
	return *locs
}

// localName is a command's or an option's name as a Discord client in l
// shows it: its French localization in French, if it has one.
func localName(name string, locs map[discordgo.Locale]string, l tryLang) string {
	if l == langFR && locs[discordgo.French] != "" {
		return locs[discordgo.French]
	}
	return name
}

// commandList is "/play /balance …", the commands' names in l.
func commandList(cmds []*discordgo.ApplicationCommand, l tryLang) string {
	var names []string
	for _, c := range cmds {
		names = append(names, "/"+localName(c.Name, derefNames(c.NameLocalizations), l))
	}
	return strings.Join(names, " ")
}

// named reports whether word is name or one of its localizations, in any
// case and with or without accents.
func named(word, name string, locs map[discordgo.Locale]string) bool {
	w := fold(word)
	if w == fold(name) {
		return true
	}
	for _, l := range locs {
		if w == fold(l) {
			return true
		}
	}
	return false
}

// fold is s lower-cased and without accents ("Réglages" → "reglages"),
// to compare what people type with names and labels.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// hasSubcommands reports whether defs are subcommands or groups.
func hasSubcommands(defs []*discordgo.ApplicationCommandOption) bool {
	return slices.ContainsFunc(defs, func(o *discordgo.ApplicationCommandOption) bool {
		return o.Type == discordgo.ApplicationCommandOptionSubCommand || o.Type == discordgo.ApplicationCommandOptionSubCommandGroup
	})
}

// slashUsage is "/admin grant <user> <amount> [reason…]": required options
// in angle brackets, optional ones in square brackets, their names in l.
func slashUsage(path string, defs []*discordgo.ApplicationCommandOption, l tryLang) string {
	var b strings.Builder
	b.WriteString(path)
	for i, d := range defs {
		name := localName(d.Name, d.NameLocalizations, l)
		if i == len(defs)-1 && d.Type == discordgo.ApplicationCommandOptionString && len(d.Choices) == 0 {
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
func parseOptions(words []string, defs []*discordgo.ApplicationCommandOption, l tryLang) ([]fakediscord.Opt, error) {
	values := make([][]string, len(defs))
	set := make([]bool, len(defs))
	find := func(name string) int {
		return slices.IndexFunc(defs, func(d *discordgo.ApplicationCommandOption) bool {
			return named(name, d.Name, d.NameLocalizations)
		})
	}
	cur := -1 // the text option that takes the words that follow
	for _, w := range words {
		if name, val, ok := strings.Cut(w, ":"); ok {
			if i := find(name); i >= 0 {
				if set[i] {
					return nil, errors.New(l.t("opt_twice", map[string]any{"Option": localName(defs[i].Name, defs[i].NameLocalizations, l)}))
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
		next := slices.Index(set, false)
		if next < 0 {
			return nil, errors.New(l.t("opt_too_many", map[string]any{"Word": w}))
		}
		set[next], values[next] = true, []string{w}
		if defs[next].Type == discordgo.ApplicationCommandOptionString && !slices.Contains(set[next+1:], false) { // the last one left
			cur = next
		}
	}
	var opts []fakediscord.Opt
	for i, d := range defs {
		name := localName(d.Name, d.NameLocalizations, l)
		if !set[i] {
			if d.Required {
				return nil, errors.New(l.t("opt_missing", map[string]any{"Option": name}))
			}
			continue
		}
		v, err := optionValue(d, strings.Join(values[i], " "), l)
		if err != nil {
			return nil, errors.New(l.t("opt_value", map[string]any{"Option": name, "Err": err}))
		}
		opts = append(opts, fakediscord.Opt{Name: d.Name, Value: v})
	}
	return opts, nil
}

// optionValue types a value as the option d takes it, and checks it
// against what Discord's client would let through: its choices, its
// bounds, its length. The errors are in l.
func optionValue(d *discordgo.ApplicationCommandOption, s string, l tryLang) (any, error) {
	if len(d.Choices) > 0 {
		return choiceValue(d, s, l)
	}
	switch d.Type {
	case discordgo.ApplicationCommandOptionInteger, discordgo.ApplicationCommandOptionNumber:
		f, err := strconv.ParseFloat(s, 64)
		v, ok := commands.OptionValue(d.Type, f) // an integer's whole number as the bot reads it
		if err != nil || !ok {
			if d.Type == discordgo.ApplicationCommandOptionInteger {
				return nil, errors.New(l.t("want_int", map[string]any{"Value": s}))
			}
			return nil, errors.New(l.t("want_number", map[string]any{"Value": s}))
		}
		if d.MinValue != nil && f < *d.MinValue || d.MaxValue != 0 && f > d.MaxValue {
			lo, hi := "−∞", "∞"
			if d.MinValue != nil {
				lo = strconv.FormatFloat(*d.MinValue, 'f', -1, 64)
			}
			if d.MaxValue != 0 {
				hi = strconv.FormatFloat(d.MaxValue, 'f', -1, 64)
			}
			return nil, errors.New(l.t("want_range", map[string]any{"Min": lo, "Max": hi, "Value": s}))
		}
		return v, nil
	case discordgo.ApplicationCommandOptionBoolean:
		switch fold(s) {
		case "true", "yes", "oui", "on", "vrai":
			return true, nil
		case "false", "no", "non", "off", "faux":
			return false, nil
		}
		return nil, errors.New(l.t("want_bool", map[string]any{"Value": s}))
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionMentionable:
		id, ok := tryUser(s)
		if !ok {
			return nil, errors.New(l.t("want_user", map[string]any{"Value": s}))
		}
		return id, nil
	case discordgo.ApplicationCommandOptionChannel:
		c := strings.TrimSuffix(strings.TrimPrefix(s, "<#"), ">")
		if strings.EqualFold(c, "here") || strings.EqualFold(c, "ici") {
			return tryChannel, nil
		}
		if _, err := strconv.ParseUint(c, 10, 64); err != nil {
			return nil, errors.New(l.t("want_channel", map[string]any{"Channel": tryChannel, "Value": s}))
		}
		return c, nil
	case discordgo.ApplicationCommandOptionString:
		n, lo, hi := utf8.RuneCountInString(s), 0, d.MaxLength
		if d.MinLength != nil {
			lo = *d.MinLength
		}
		if n < lo || hi > 0 && n > hi {
			return nil, errors.New(l.t("want_length", map[string]any{"Min": lo, "Max": hi, "Length": n}))
		}
	}
	return s, nil
}

// choiceValue is the value of the choice of d that s names: its value
// ("24h", or a number however written) or its name in either language
// ("24 hours", "24 heures"), in any case and with or without accents, as
// the option's type has it (commands.OptionValue: an integer option's
// choices decode from JSON as float64). Else the error lists the choices.
func choiceValue(d *discordgo.ApplicationCommandOption, s string, l tryLang) (any, error) {
	want := fold(strings.TrimSpace(s))
	number, err := strconv.ParseFloat(want, 64)
	for _, c := range d.Choices {
		if want != fold(fmt.Sprint(c.Value)) && !named(s, c.Name, c.NameLocalizations) && (err != nil || c.Value != number) {
			continue
		}
		if typed, ok := commands.OptionValue(d.Type, c.Value); ok {
			return typed, nil
		}
		return c.Value, nil
	}
	return nil, errors.New(l.t("want_choice", map[string]any{"Value": s, "Choices": choiceList(d, l)}))
}

// choiceList is "24h (24 hours), 7d (7 days), …": each choice's value and
// its name in l.
func choiceList(d *discordgo.ApplicationCommandOption, l tryLang) string {
	var out []string
	for _, c := range d.Choices {
		v, name := fmt.Sprint(c.Value), localName(c.Name, c.NameLocalizations, l)
		if fold(name) == fold(v) {
			out = append(out, v)
			continue
		}
		out = append(out, v+" ("+name+")")
	}
	return strings.Join(out, ", ")
}

// helpText is what "help" prints: every command of cmds (those the bot
// registered, so a new one shows at once), then how to type options,
// buttons and the session's own commands. With args ("/admin", "admin
// grant"), only the commands whose path starts so, each option with its
// description.
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
