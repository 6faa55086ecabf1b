package commands

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

var nameRE = regexp.MustCompile(`^[-_\p{Ll}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// TestDefinitions checks the commands against Discord's rules: names and
// localizations, description lengths, guild-only contexts, /admin's default
// permission. (Which commands, and their French names: ExampleApp_Definitions.)
func TestDefinitions(t *testing.T) {
	for _, d := range New(Config{Logger: discardLogger()}, nil).Definitions() {
		checkName(t, d.Name, *d.NameLocalizations, d.Description, *d.DescriptionLocalizations)
		if d.Contexts == nil || len(*d.Contexts) != 1 || (*d.Contexts)[0] != discordgo.InteractionContextGuild {
			t.Errorf("/%s: contexts %v, want guild only", d.Name, d.Contexts)
		}
		//lint:ignore SA1019 the definitions set both DMPermission and Contexts.
		if d.DMPermission == nil || *d.DMPermission {
			t.Errorf("/%s: DM permission not false", d.Name)
		}
		if len(d.Options) > 25 {
			t.Errorf("/%s: %d options", d.Name, len(d.Options))
		}
		for _, o := range d.Options {
			checkOption(t, d.Name, o)
		}
		admin := d.DefaultMemberPermissions != nil && *d.DefaultMemberPermissions == discordgo.PermissionManageGuild
		if admin != (d.Name == "admin") {
			t.Errorf("/%s: default member permissions %v", d.Name, d.DefaultMemberPermissions)
		}
	}
}

func checkOption(t *testing.T, cmd string, o *discordgo.ApplicationCommandOption) {
	t.Helper()
	checkName(t, cmd+" "+o.Name, o.NameLocalizations, o.Description, o.DescriptionLocalizations)
	seenOptional := false
	for _, s := range o.Options {
		checkOption(t, cmd+" "+o.Name, s)
		if s.Required && seenOptional {
			t.Errorf("%s %s: required option %s after an optional one", cmd, o.Name, s.Name)
		}
		seenOptional = seenOptional || !s.Required
	}
}

func checkName(t *testing.T, what string, names map[discordgo.Locale]string, desc string, descs map[discordgo.Locale]string) {
	t.Helper()
	if names[discordgo.French] == "" || descs[discordgo.French] == "" {
		t.Errorf("%s: missing French localization", what)
	}
	for _, n := range []string{what[strings.LastIndexByte(what, ' ')+1:], names[discordgo.French]} {
		if !nameRE.MatchString(n) {
			t.Errorf("%s: bad name %q", what, n)
		}
	}
	for _, d := range []string{desc, descs[discordgo.French]} {
		if n := utf8.RuneCountInString(d); n < 1 || n > 100 {
			t.Errorf("%s: description %q of %d characters", what, d, n)
		}
	}
}
