package cli

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// The text rendering of `clefs try`: a message of the bot as a terminal
// shows it, close to the mock-up of a card in docs/game.md. Each embed is framed
// by "┃ " on the left (no right border: terminals disagree on the width
// of emoji); the buttons follow in brackets, row by row.

// frame is the left border of an embed.
const frame = "┃ "

// Discord's markup that a terminal cannot show as such.
var (
	customEmojiRE = regexp.MustCompile(`<a?:([A-Za-z0-9_~]+):\d+>`)
	mentionRE     = regexp.MustCompile(`<@!?(\d+)>`)
	timestampRE   = regexp.MustCompile(`<t:(-?\d+)(?::([tTdDfFR]))?>`)
)

var unicodeEmojis = commands.UnicodeEmojis()

// emojiText shows a custom emoji as its built-in Unicode, an unknown one as :name:.
func emojiText(name string) string {
	return cmp.Or(unicodeEmojis[name], ":"+name+":")
}

// plainText turns Discord's markup into terminal text: custom emojis into
// their fallback, mentions into @user<ID> (the fake's default names),
// timestamps into a time as a Discord client in v's language shows it
// (discordTime), bold markers removed.
func plainText(s string, v view) string {
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
		return discordTime(time.Unix(unix, 0), sm[2], v)
	})
	return strings.ReplaceAll(s, "**", "")
}

// renderMessage renders a message of the bot as text in v's language, its
// buttons last (buttonText); ephemeral prefixes it with "(only you)".
func renderMessage(m *discordgo.Message, ephemeral bool, v view) string {
	var b strings.Builder
	prefix := ""
	if ephemeral {
		prefix = v.lang.t("only_you", nil)
	}
	if c := strings.TrimSpace(m.Content); c != "" {
		b.WriteString(prefix + plainText(c, v) + "\n")
		prefix = ""
	}
	for _, e := range m.Embeds {
		renderEmbed(&b, e, prefix, v)
		prefix = ""
	}
	for _, a := range m.Attachments {
		b.WriteString(prefix + "📎 " + a.Filename + " (" + byteSize(a.Size, v.lang) + ")\n")
		prefix = ""
	}
	if prefix != "" { // nothing at all: still say something
		b.WriteString(prefix + v.lang.t("empty_msg", nil) + "\n")
	}
	for i := range m.Components { // a line per top-level component (an action row, a container)
		if bs := slices.Collect(commands.Buttons(m.Components[i : i+1])); len(bs) > 0 {
			b.WriteString(buttonsText(bs, v) + "\n")
		}
	}
	return b.String()
}

// byteSize is a file's size as people read it: 512 B, 2.1 kB, 3.4 MB
// (powers of 1000, as file managers show them); in French 512 o, 2,1 ko,
// 3,4 Mo.
func byteSize(n int, l tryLang) string {
	units := [3]string{" B", " kB", " MB"}
	if l == langFR {
		units = [3]string{" o", " ko", " Mo"}
	}
	if n < 1000 {
		return strconv.Itoa(n) + units[0]
	}
	f, unit := float64(n)/1000, units[1]
	if n >= 1000*1000 {
		f, unit = f/1000, units[2]
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if l == langFR {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + unit
}

// renderEmbed writes an embed, framed: title, description, fields (inline
// ones side by side), footer.
func renderEmbed(b *strings.Builder, e *discordgo.MessageEmbed, prefix string, v view) {
	line := func(s string) { b.WriteString(strings.TrimRight(frame+s, " ") + "\n") }
	lines := func(s string) {
		for _, l := range strings.Split(strings.TrimRight(plainText(s, v), "\n"), "\n") {
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
		name, value := plainText(f.Name, v), strings.TrimRight(plainText(f.Value, v), "\n")
		if f.Inline && !strings.Contains(value, "\n") {
			inline = append(inline, v.lang.t("field", map[string]any{"Name": name, "Value": value}))
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

// buttonText is a button as "[🔁 Play again (0.50)]", a disabled one
// marked ·greyed in v's language.
func buttonText(btn *discordgo.Button, v view) string {
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
		parts = append(parts, plainText(btn.Label, v))
	}
	s := "[" + strings.Join(parts, " ")
	if btn.Disabled {
		s += v.lang.t("greyed", nil)
	}
	return s + "]"
}

// view is what rendering a message depends on besides the message: the
// session's language and its clock's now (for relative times), whose zone
// is that of the person at the terminal.
type view struct {
	lang tryLang
	now  time.Time
}

// French names of the months and the weekdays (time.Format has the English).
var (
	monthsFR = [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	daysFR   = [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}
)

// discordTime renders t in one of Discord's timestamp styles
// (<t:UNIX:STYLE>: each client renders them itself), as its en-US and
// French clients do:
//
//	t  3:04 PM                              15:04
//	T  3:04:05 PM                           15:04:05
//	d  12/02/2026                           02/12/2026
//	D  December 2, 2026                     2 décembre 2026
//	f  December 2, 2026 3:04 PM             2 décembre 2026 15:04   (also no style)
//	F  Wednesday, December 2, 2026 3:04 PM  mercredi 2 décembre 2026 15:04
//	R  in 3 hours, 5 minutes ago            dans 3 heures, il y a 5 minutes
func discordTime(t time.Time, style string, v view) string {
	if style == "R" {
		return relativeTime(t.Sub(v.now), v.lang)
	}
	t = t.In(v.now.Location())
	short, long := t.Format("3:04 PM"), t.Format("3:04:05 PM")
	date, numeric, weekday := t.Format("January 2, 2006"), t.Format("01/02/2006"), t.Format("Monday, ")
	if v.lang == langFR {
		short, long = t.Format("15:04"), t.Format("15:04:05")
		date = strconv.Itoa(t.Day()) + " " + monthsFR[t.Month()-1] + " " + strconv.Itoa(t.Year())
		numeric, weekday = t.Format("02/01/2006"), daysFR[t.Weekday()]+" "
	}
	switch style {
	case "t":
		return short
	case "T":
		return long
	case "d":
		return numeric
	case "D":
		return date
	case "F":
		return weekday + date + " " + short
	}
	return date + " " + short
}

// relativeTime says a duration from now as Discord's relative timestamps
// do, always with a number: seconds below a minute, minutes below an
// hour, hours below a day, days below a month, months below a year, then
// years; each rounded to the nearest of its unit, and a unit that rounds
// up to the next one's size (59.6 minutes) said in the next one.
func relativeTime(d time.Duration, l tryLang) string {
	sec := math.Abs(d.Seconds())
	const day = 86400.0
	units := []struct {
		size, next float64 // the unit in seconds, and how many make the next
		key        string  // its message, plural
	}{
		{1, 60, "time_seconds"},
		{60, 60, "time_minutes"},
		{3600, 24, "time_hours"},
		{day, 30, "time_days"},
		{day * 365.25 / 12, 12, "time_months"},
		{day * 365.25, math.Inf(1), "time_years"},
	}
	var n int64
	var key string
	for _, u := range units {
		n, key = int64(math.Round(sec/u.size)), u.key
		if float64(n) < u.next {
			break
		}
	}
	if d < 0 {
		return l.t("time_ago", map[string]any{"Span": l.p(key, n)})
	}
	return l.t("time_in", map[string]any{"Span": l.p(key, n)})
}
