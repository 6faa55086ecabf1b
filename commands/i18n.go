package commands

import (
	"embed"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/lesclefsdutresor/clefs/game"
)

// The message files, in go-i18n's JSON format; a test checks that both
// define the same ids.
//
//go:embed locales/*.json
var localeFS embed.FS

type catalog struct {
	en, fr *lang
}

type lang struct {
	loc *i18n.Localizer
	fr  bool
}

func newCatalog() (*catalog, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, f := range []string{"locales/en.json", "locales/fr.json"} {
		if _, err := b.LoadMessageFileFS(localeFS, f); err != nil {
			return nil, fmt.Errorf("commands: load %s: %w", f, err)
		}
	}
	return &catalog{
		en: &lang{loc: i18n.NewLocalizer(b, "en")},
		fr: &lang{loc: i18n.NewLocalizer(b, "fr"), fr: true},
	}, nil
}

func (c *catalog) forLocale(l discordgo.Locale) *lang {
	if strings.HasPrefix(string(l), "fr") {
		return c.fr
	}
	return c.en
}

// T returns message id with template data (nil when the message has none);
// a missing message yields its id, so that a slip shows rather than crashes.
func (l *lang) T(id string, data map[string]any) string { return l.P(id, nil, data) }

// P returns the plural form of message id for count (an integer, or a
// decimal string such as "12.50"; nil for a message without plural forms),
// with template data.
func (l *lang) P(id string, count any, data map[string]any) string {
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: data})
	if err != nil && s == "" {
		return id
	}
	return s
}

// Credits formats cents as credits with the unit, plural-correct:
// "0.50 credits", "1.00 credit"; "0,50 crédit", "2,00 crédits".
func (l *lang) Credits(cents int64) string {
	return l.P("credits", creditsCount(cents), map[string]any{"Amount": l.Amount(cents)})
}

// creditsCount is the count that chooses the plural form of an amount: its
// decimal writing ("0.50", "12.00"), from which go-i18n reads the CLDR
// form, but 1 for one credit, which CLDR would make plural in English
// ("1.00 credits"). Whole amounts keep their decimals, so that French never
// reads a million as "many" ("… de crédits").
func creditsCount(cents int64) string {
	if cents == 100 || cents == -100 {
		return "1"
	}
	return big.NewRat(cents, 100).FloatString(2)
}

// Signed formats a movement of credits with its sign: "+4.50 credits".
func (l *lang) Signed(cents int64) string {
	if cents > 0 {
		return "+" + l.Credits(cents)
	}
	return l.Credits(cents)
}

// keysLine is the chest's padlocks and the count of keys: "🔓🔒🔒 1 key of 3".
func (l *lang) keysLine(keys int) string {
	keys = min(max(keys, 0), game.MaxKeys)
	return padlocks(keys) + " " + l.P("keys", keys, map[string]any{"Count": keys})
}

// Amount formats cents in the language's convention: "5,000.00", "5 000,00".
func (l *lang) Amount(cents int64) string {
	return formatAmount(cents, l.fr)
}

// formatAmount is game.FormatCents with French's thousands separated by a
// narrow no-break space, which a line never breaks.
func formatAmount(cents int64, fr bool) string {
	if fr {
		return strings.ReplaceAll(game.FormatCents(cents, game.French), " ", "\u202f")
	}
	return game.FormatCents(cents, game.English)
}
