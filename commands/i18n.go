package commands

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/lesclefsdutresor/clefs/game"
)

// The message files, one per language, in go-i18n's JSON format. A message
// with plural forms is an object {"one": …, "other": …}; a test checks that
// both files define the same ids.
//
//go:embed locales/*.json
var localeFS embed.FS

// catalog holds the two localizers built once in New. go-i18n caches the
// parsed templates, so a lookup costs a map access and, for messages with
// arguments, one template execution.
type catalog struct {
	bundle *i18n.Bundle
	en, fr *lang
}

// lang is one language of the catalog.
type lang struct {
	loc *i18n.Localizer
	fr  bool
	// plain caches the messages without arguments nor plural forms,
	// localized once by go-i18n when the catalog is built: most of a card's
	// words, read without a template execution.
	plain map[string]string
	// Strings every card shows, localized once: the arrows' labels ("Row
	// 1"…), "Play again (0.50)", the chest's line for 0..3 keys with its
	// padlocks, and the footer's "#{ticket} · stake 0.50 credits" around the
	// ticket number.
	rowLabels    [3]string
	againLabel   string
	keysLines    [game.MaxKeys + 1]string
	footerPrefix string
	footerSuffix string
	// credits: the words around a non-negative amount ("", " crédits"),
	// per integer part below len(creditSmall) and for any larger one, taken
	// from go-i18n once; creditFast is false if the language's plural rules
	// turned out to depend on more than that (then go-i18n is asked each time).
	creditSmall [100]affix
	creditLarge affix
	creditFast  bool
	// card holds the fixed words of the ticket and chest cards.
	card cardWords
	// The App's lines of a finished card: a win per symbol around the
	// prize, and the key found. Set by App.localizeCard.
	win      [game.NumSymbols]affix
	keyFound string
	// chestOpened is the opened chest's line per lot around its prize:
	// "🪙 You find **one gold coin**: **" … "**!".
	chestOpened [game.NumLots]affix
}

// cardWords are the fixed words of the cards, read once from the plain
// messages rather than looked up by id on every card.
type cardWords struct {
	title, hint, loss, chestWon, resumed string
	fieldChest, fieldBalance             string
	auto, chest, chestTitle, chestClosed string
}

// affix is the text around a value, localized once with a marker in its place.
type affix struct{ prefix, suffix string }

func (f affix) wrap(b []byte, v string) []byte {
	return append(append(append(b, f.prefix...), v...), f.suffix...)
}

// footerMark stands for the ticket number while the footer is localized once.
const footerMark = "\x00"

func newCatalog() (*catalog, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, f := range []string{"locales/en.json", "locales/fr.json"} {
		if _, err := b.LoadMessageFileFS(localeFS, f); err != nil {
			return nil, fmt.Errorf("commands: load %s: %w", f, err)
		}
	}
	c := &catalog{
		bundle: b,
		en:     &lang{loc: i18n.NewLocalizer(b, "en")},
		fr:     &lang{loc: i18n.NewLocalizer(b, "fr"), fr: true},
	}
	for _, l := range []*lang{c.en, c.fr} {
		l.plain = map[string]string{}
		for _, f := range []string{"locales/en.json"} {
			raw, err := localeFS.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("commands: read %s: %w", f, err)
			}
			var msgs map[string]any
			if err := json.Unmarshal(raw, &msgs); err != nil {
				return nil, fmt.Errorf("commands: parse %s: %w", f, err)
			}
			for id, m := range msgs {
				if s, ok := m.(string); ok && !strings.Contains(s, "{{") {
					if l.plain[id], err = l.loc.Localize(&i18n.LocalizeConfig{MessageID: id}); err != nil {
						return nil, fmt.Errorf("commands: message %q: %w", id, err)
					}
				}
			}
		}
		for r := range l.rowLabels {
			l.rowLabels[r] = l.T("btn_row", map[string]any{"N": r + 1})
		}
		l.againLabel = l.T("btn_again", map[string]any{"Stake": l.Amount(game.Stake)})
		for k := range l.keysLines {
			l.keysLines[k] = padlocks(k) + " " + l.P("keys", k, map[string]any{"Count": k})
		}
		l.card = cardWords{
			title: l.T("card_title", nil), hint: l.T("card_hint", nil), loss: l.T("card_loss", nil),
			chestWon: l.T("card_chest_won", nil), resumed: l.T("card_resumed", nil),
			fieldChest: l.T("field_chest", nil), fieldBalance: l.T("field_balance", nil),
			auto: l.T("btn_auto", nil), chest: l.T("btn_chest", nil),
			chestTitle: l.T("chest_title", nil), chestClosed: l.T("chest_closed", nil),
		}
		if err := l.initCredits(); err != nil {
			return nil, err
		}
		for lot := range game.Lot(game.NumLots) {
			f, err := l.affixOf("chest_opened", nil, map[string]any{"Lot": l.T("lot_"+lot.String(), nil)}, "Prize")
			if err != nil {
				return nil, err
			}
			f.prefix = lotEmoji[lot] + " " + f.prefix
			l.chestOpened[lot] = f
		}
		footer := l.T("card_footer", map[string]any{"Ticket": footerMark, "Stake": l.Credits(game.Stake)})
		var found bool
		if l.footerPrefix, l.footerSuffix, found = strings.Cut(footer, footerMark); !found {
			return nil, fmt.Errorf("commands: card_footer has no ticket number: %q", footer)
		}
	}
	return c, nil
}

// forLocale returns French for a locale starting with "fr", English otherwise.
func (c *catalog) forLocale(l discordgo.Locale) *lang {
	if strings.HasPrefix(string(l), "fr") {
		return c.fr
	}
	return c.en
}

// T returns message id with template data (nil when the message has none).
// A missing message yields its id, so that a slip shows rather than crashes;
// TestLocalesComplete makes sure none is missing.
func (l *lang) T(id string, data map[string]any) string {
	if data == nil {
		if s, ok := l.plain[id]; ok {
			return s
		}
	}
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil && s == "" {
		return id
	}
	return s
}

// P returns the plural form of message id for count (an integer, or a
// decimal string such as "12.50"), with template data.
func (l *lang) P(id string, count any, data map[string]any) string {
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: data})
	if err != nil && s == "" {
		return id
	}
	return s
}

// Credits formats an amount of cents as credits with the unit, plural-correct:
// "0.50 credits", "1,00 crédit", "12,50 crédits".
func (l *lang) Credits(cents int64) string {
	if !l.creditFast || cents < 0 {
		return l.localizeCredits(cents)
	}
	var b [64]byte
	return string(l.appendCredits(b[:0], cents))
}

// appendCredits appends Credits(cents) to b.
func (l *lang) appendCredits(b []byte, cents int64) []byte {
	if !l.creditFast || cents < 0 {
		return append(b, l.localizeCredits(cents)...)
	}
	f := l.creditLarge
	if i := cents / 100; i < int64(len(l.creditSmall)) {
		f = l.creditSmall[i]
	}
	b = append(b, f.prefix...)
	b = l.appendAmount(b, cents)
	return append(b, f.suffix...)
}

// localizeCredits is Credits through go-i18n: the plural form from the
// amount's operands, then the template.
func (l *lang) localizeCredits(cents int64) string {
	return l.P("credits", plainAmount(cents), map[string]any{"Amount": l.Amount(cents)})
}

// affixOf localizes message id with the marker as data[key] (and count as
// the plural count, if not nil) and returns the text around the marker.
func (l *lang) affixOf(id string, count any, data map[string]any, key string) (affix, error) {
	if data == nil {
		data = map[string]any{}
	}
	data[key] = footerMark
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: data})
	if err != nil {
		return affix{}, fmt.Errorf("commands: message %q: %w", id, err)
	}
	pre, suf, ok := strings.Cut(s, footerMark)
	if !ok {
		return affix{}, fmt.Errorf("commands: message %q does not show {{.%s}}: %q", id, key, s)
	}
	return affix{pre, suf}, nil
}

// initCredits localizes the credits' plural forms once: per integer part
// below 100, and one for larger amounts. It checks, on samples, that the
// form depends on nothing else (the decimals, which integer part above 99);
// true of English and French, whose forms differ only for 0 and 1. If a
// sample disagrees, Credits asks go-i18n each time.
func (l *lang) initCredits() error {
	form := func(count string) (affix, error) { return l.affixOf("credits", count, nil, "Amount") }
	l.creditFast = true
	for i := range l.creditSmall {
		var err error
		n := strconv.Itoa(i)
		if l.creditSmall[i], err = form(n + ".00"); err != nil {
			return err
		}
		for _, dec := range []string{".01", ".10", ".50", ".99"} {
			f, err := form(n + dec)
			if err != nil {
				return err
			}
			l.creditFast = l.creditFast && f == l.creditSmall[i]
		}
	}
	var err error
	if l.creditLarge, err = form("100.00"); err != nil {
		return err
	}
	for _, n := range []string{"100.01", "101.00", "101.50", "102.00", "111.00", "121.00", "200.00",
		"1000.00", "1001.00", "100000.00", "1000000.00", "1000001.00", "12345678.90",
		"1000000000.00", "92233720368547758.07"} {
		f, err := form(n)
		if err != nil {
			return err
		}
		l.creditFast = l.creditFast && f == l.creditLarge
	}
	return nil
}

// Signed formats a movement of credits with its sign: "+4.50 credits",
// "-0.50 credits".
func (l *lang) Signed(cents int64) string {
	if cents > 0 {
		return "+" + l.Credits(cents)
	}
	return l.Credits(cents)
}

// keysLine is the chest's padlocks and the count of keys: "🔓🔒🔒 1 key of 3".
func (l *lang) keysLine(keys int) string {
	return l.keysLines[min(max(keys, 0), game.MaxKeys)]
}

// Amount formats cents with two decimals and thousands separators in the
// language's convention: "5,000.00" or "5 000,00".
func (l *lang) Amount(cents int64) string {
	return formatAmount(cents, l.fr)
}

// appendAmount appends Amount(cents) to b.
func (l *lang) appendAmount(b []byte, cents int64) []byte {
	if l.fr {
		return appendAmount(b, cents, "\u202f", ",")
	}
	return appendAmount(b, cents, ",", ".")
}

// plainAmount is cents as a decimal string with a dot ("-12.50"), the form
// go-i18n reads plural operands from.
func plainAmount(cents int64) string {
	var b [24]byte
	return string(appendAmount(b[:0], cents, "", "."))
}

// formatAmount formats cents in English or French convention.
func formatAmount(cents int64, fr bool) string {
	var b [40]byte
	if fr {
		return string(appendAmount(b[:0], cents, "\u202f", ","))
	}
	return string(appendAmount(b[:0], cents, ",", "."))
}

// appendAmount appends cents as units with two decimals, grouping thousands
// with sep and separating the decimals with dec.
func appendAmount(b []byte, cents int64, sep, dec string) []byte {
	u := uint64(cents)
	if cents < 0 {
		b = append(b, '-')
		u = uint64(-(cents + 1)) + 1 // no overflow for MinInt64
	}
	units, frac := u/100, u%100
	var digits [20]byte
	n := len(digits)
	for {
		n--
		digits[n] = byte('0' + units%10)
		units /= 10
		if units == 0 {
			break
		}
	}
	for i := n; i < len(digits); i++ {
		if i > n && (len(digits)-i)%3 == 0 {
			b = append(b, sep...)
		}
		b = append(b, digits[i])
	}
	b = append(b, dec...)
	return append(b, byte('0'+frac/10), byte('0'+frac%10))
}
