package cli

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// The text rendering of `clefs try`: a message of the bot as a terminal
// shows it, close to the mock-up of a card in docs/game.md. Each embed is framed
// by "┃ " on the left (no right border: terminals disagree on the width
// of emoji); the buttons follow in brackets, row by row.

// frame is the left border of an embed.
const frame = "┃ "

// greyed marks a disabled button.
const greyed = " ·greyed"

// onlyYou prefixes an ephemeral message, which only its user sees.
const onlyYou = "(only you) "

// emojiFallback is the Unicode emoji shown for each of the application's
// custom emojis, by name; an unknown custom emoji shows as :name:.
var emojiFallback = map[string]string{
	"clefs_gem":    "💎",
	"clefs_pipe":   "🪈",
	"clefs_bomb":   "💣",
	"clefs_sabre":  "🗡️",
	"clefs_candle": "🕯️",
	"clefs_barrel": "🛢️",
	"clefs_key":    "🗝️",
	"clefs_hidden": "❔",
}

// Discord's markup that a terminal cannot show as such.
var (
	customEmojiRE = regexp.MustCompile(`<a?:([A-Za-z0-9_~]+):\d+>`)
	mentionRE     = regexp.MustCompile(`<@!?(\d+)>`)
	timestampRE   = regexp.MustCompile(`<t:(-?\d+)(?::([tTdDfFR]))?>`)
)

// emojiText is the text of a custom emoji named name.
func emojiText(name string) string {
	if u, ok := emojiFallback[name]; ok {
		return u
	}
	return ":" + name + ":"
}

// plainText turns Discord's markup into terminal text: custom emojis into
// their fallback, mentions into @user<ID> (the fake's default names),
// timestamps into a time (relative to now for style R), bold markers
// removed.
func plainText(s string, now time.Time) string {
	s = customEmojiRE.ReplaceAllStringFunc(s, func(m string) string {
		return emojiText(customEmojiRE.FindStringSubmatch(m)[1])
	})
	s = mentionRE.ReplaceAllString(s, "@user$1")
	s = timestampRE.ReplaceAllStringFunc(s, func(m string) string {
		sm := timestampRE.FindStringSubmatch(m)
		unix, err := strconv.ParseInt(sm[1], 10, 64)
		if err != nil {
			return m
		}
		t := time.Unix(unix, 0)
		if sm[2] == "R" {
			return relative(t.Sub(now))
		}
		return t.Local().Format("2 Jan 2006 15:04")
	})
	return strings.ReplaceAll(s, "**", "")
}

// relative says a duration as "in 3h05m" or "2m ago".
func relative(d time.Duration) string {
	ago := d < 0
	if ago {
		d = -d
	}
	d = d.Round(time.Minute)
	var s string
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		s = strconv.Itoa(int(d/time.Minute)) + "m"
	default:
		s = strconv.Itoa(int(d/time.Hour)) + "h" + twoDigits(int(d%time.Hour/time.Minute)) + "m"
	}
	if ago {
		return s + " ago"
	}
	return "in " + s
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// renderMessage renders a message of the bot as text; ephemeral prefixes
// it with "(only you)". now places relative timestamps.
func renderMessage(m *discordgo.Message, ephemeral bool, now time.Time) string {
	var b strings.Builder
	prefix := ""
	if ephemeral {
		prefix = onlyYou
	}
	if c := strings.TrimSpace(m.Content); c != "" {
		b.WriteString(prefix + plainText(c, now) + "\n")
		prefix = ""
	}
	for _, e := range m.Embeds {
		renderEmbed(&b, e, prefix, now)
		prefix = ""
	}
	if prefix != "" { // nothing at all: still say something
		b.WriteString(prefix + "(an empty message)\n")
	}
	renderButtons(&b, m.Components)
	return b.String()
}

// renderEmbed writes an embed, framed: title, description, fields (inline
// ones side by side), footer.
func renderEmbed(b *strings.Builder, e *discordgo.MessageEmbed, prefix string, now time.Time) {
	line := func(s string) { b.WriteString(strings.TrimRight(frame+s, " ") + "\n") }
	lines := func(s string) {
		for _, l := range strings.Split(strings.TrimRight(plainText(s, now), "\n"), "\n") {
			line(l)
		}
	}
	if prefix != "" {
		b.WriteString(strings.TrimSpace(prefix) + "\n")
	}
	if e.Author != nil && e.Author.Name != "" {
		lines(e.Author.Name)
	}
	if e.Title != "" {
		lines(e.Title)
	}
	if e.Description != "" {
		lines(e.Description)
	}
	if len(e.Fields) > 0 {
		line("")
	}
	var inline []string
	flush := func() {
		if len(inline) > 0 {
			line(strings.Join(inline, "   "))
			inline = nil
		}
	}
	for _, f := range e.Fields {
		name, value := plainText(f.Name, now), strings.TrimRight(plainText(f.Value, now), "\n")
		if f.Inline && !strings.Contains(value, "\n") {
			inline = append(inline, name+": "+value)
			continue
		}
		flush()
		line(name)
		for _, l := range strings.Split(value, "\n") {
			line("  " + l)
		}
	}
	flush()
	if e.Footer != nil && e.Footer.Text != "" {
		lines(e.Footer.Text)
	}
}

// renderButtons writes the buttons row by row, each in brackets with its
// emoji and label, a disabled one marked ·greyed.
func renderButtons(b *strings.Builder, rows []discordgo.MessageComponent) {
	// A message decoded from JSON holds pointers; one the handlers built,
	// values: both render.
	for _, c := range rows {
		var row discordgo.ActionsRow
		switch r := c.(type) {
		case *discordgo.ActionsRow:
			row = *r
		case discordgo.ActionsRow:
			row = r
		default:
			continue
		}
		var out []string
		for _, rc := range row.Components {
			switch btn := rc.(type) {
			case *discordgo.Button:
				out = append(out, buttonText(btn))
			case discordgo.Button:
				out = append(out, buttonText(&btn))
			}
		}
		if len(out) > 0 {
			b.WriteString(strings.Join(out, " ") + "\n")
		}
	}
}

// buttonText is a button as "[🔁 Play again (0.50)]".
func buttonText(btn *discordgo.Button) string {
	var parts []string
	if e := btn.Emoji; e != nil {
		switch {
		case e.ID != "":
			parts = append(parts, emojiText(e.Name))
		case e.Name != "":
			parts = append(parts, e.Name)
		}
	}
	if btn.Label != "" {
		parts = append(parts, plainText(btn.Label, time.Time{}))
	}
	s := "[" + strings.Join(parts, " ")
	if btn.Disabled {
		s += greyed
	}
	return s + "]"
}
