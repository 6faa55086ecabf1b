package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// buttonAliases are the words that press a kind of button whatever the
// card's language ("yes" on a French card, "ligne 2" on an English one),
// besides its label's first words, by the kind's name in its custom ID
// (commands/customid.go: "v1:<kind>:…", a wire format that never changes).
// A row button is also "row N" and "ligne N".
var buttonAliases = map[string][]string{
	"auto":  {"auto"},
	"again": {"again", "play again", "replay", "rejouer"},
	"chest": {"chest", "open", "open the chest", "coffre", "ouvrir", "ouvrir le coffre"},
	"rg":    {"yes", "oui", "confirm", "confirmer"}, // /admin reset-guild
	"rgx":   {"cancel", "annuler", "no", "non"},
	"pz":    {"yes", "oui", "confirm", "confirmer"}, // /pause
	"pzx":   {"cancel", "annuler", "no", "non"},
}

// words is s folded (fold) and cut into its words of letters and digits:
// "Oui, mettre mon jeu en pause" → [oui mettre mon jeu en pause].
func words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// pressedBy reports whether typed (its words) presses b: one of the
// aliases of b's kind (its custom ID's second field; a row's number, from
// 0, is the last), or the first words of its label as the card shows it
// ("Ouvrir le coffre" by "ouvrir"), in any case, with or without accents.
func pressedBy(typed []string, b *discordgo.Button) bool {
	if len(typed) == 0 {
		return false
	}
	parts := strings.Split(b.CustomID, ":")
	var aliases []string
	switch {
	case len(parts) < 2:
	case parts[1] == "row":
		if n, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			aliases = []string{"row " + strconv.Itoa(n+1), "ligne " + strconv.Itoa(n+1)}
		}
	default:
		aliases = buttonAliases[parts[1]]
	}
	if slices.ContainsFunc(aliases, func(a string) bool { return slices.Equal(words(a), typed) }) {
		return true
	}
	label := words(b.Label)
	return len(typed) <= len(label) && slices.Equal(label[:len(typed)], typed)
}

// isButtonWord reports whether typed is one of the aliases of some kind of
// button, or "row N": a press with nothing to press, not an unknown command.
func isButtonWord(typed []string) bool {
	if len(typed) == 2 && (typed[0] == "row" || typed[0] == "ligne") {
		return true
	}
	for _, as := range buttonAliases {
		if slices.ContainsFunc(as, func(a string) bool { return slices.Equal(words(a), typed) }) {
			return true
		}
	}
	return false
}

// messageButtons are the buttons of m in reading order (commands.Buttons).
func messageButtons(m *discordgo.Message) []*discordgo.Button {
	return slices.Collect(commands.Buttons(m.Components))
}

// cards are the messages of the channel that the acting user sees and
// that have buttons, newest first.
func (s *trySession) cards() []*discordgo.Message {
	msgs := s.srv.Messages(tryChannel)
	var out []*discordgo.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Flags&discordgo.MessageFlagsEphemeral != 0 && (m.Interaction == nil || m.Interaction.User == nil || m.Interaction.User.ID != s.user) {
			continue // someone else's ephemeral message: not on this user's screen
		}
		if len(messageButtons(m)) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// buttonsText lists buttons as the card shows them: "[▶️ Row 1] [⚡ Auto]".
func buttonsText(bs []*discordgo.Button, v view) string {
	var out []string
	for _, b := range bs {
		out = append(out, buttonText(b, v))
	}
	return strings.Join(out, " ")
}

// press presses the button that text names on the newest card that has
// an enabled one, and prints the answer. It returns false when text names
// no button at all (not even a disabled one, nor a known button word), for
// the caller to say the command is unknown; otherwise it has printed what
// happened: the answer, or why nothing was pressed (which buttons exist,
// which are disabled, which a short label could mean).
func (s *trySession) press(ctx context.Context, text string) bool {
	v := s.view()
	typed := words(text)
	if len(typed) == 0 {
		return false
	}
	if typed[0] == "row" || typed[0] == "ligne" {
		if n, err := strconv.Atoi(strings.Join(typed[1:], " ")); err != nil || n < 1 || n > 3 {
			fmt.Fprintln(s.out, v.lang.t("row_usage", nil))
			return true
		}
	}
	cards := s.cards()
	var greyed *discordgo.Button
	for _, m := range cards {
		var enabled []*discordgo.Button
		for _, b := range messageButtons(m) {
			switch {
			case !pressedBy(typed, b):
			case b.Disabled:
				if greyed == nil {
					greyed = b
				}
			default:
				enabled = append(enabled, b)
			}
		}
		switch len(enabled) {
		case 0:
			continue
		case 1:
			p, err := s.srv.Click(ctx, fakediscord.Click{
				Message: m.ID, CustomID: enabled[0].CustomID, User: s.user, Locale: s.locale, Perms: s.perms(),
			})
			s.show(ctx, p, err)
		default:
			fmt.Fprintln(s.out, v.lang.t("press_many", map[string]any{"Label": text, "Buttons": buttonsText(enabled, v)}))
		}
		return true
	}
	switch {
	case greyed != nil:
		fmt.Fprintln(s.out, v.lang.t("press_greyed", map[string]any{"Button": buttonText(greyed, v)}))
	case !isButtonWord(typed):
		return false
	case len(cards) == 0:
		fmt.Fprintln(s.out, v.lang.t("press_nothing", map[string]any{"Label": text}))
	default:
		fmt.Fprintln(s.out, v.lang.t("press_none", map[string]any{"Label": text, "Buttons": buttonsText(messageButtons(cards[0]), v)}))
	}
	return true
}
