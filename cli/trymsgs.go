package cli

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/bwmarrin/discordgo"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// The words `clefs try` prints itself (its prompt, help, errors, the lines
// it adds around the bot's messages), in the session's language: the
// language of the interactions it sends, so that a French session reads
// French throughout. They live in locales/en.json and locales/fr.json; the
// bot's own messages come in that language from the bot.

// tryLang is the language of a try session, its code as -lang and "lang"
// take it.
type tryLang string

const (
	langEN tryLang = "en"
	langFR tryLang = "fr"
)

// langOf is the language of a Discord locale: French for fr, else English.
func langOf(l discordgo.Locale) tryLang {
	if strings.HasPrefix(string(l), "fr") {
		return langFR
	}
	return langEN
}

// t is message key in l, with template data (nil when the message has
// none). A missing key shows as itself, so that a slip shows rather than
// crashes; TestTryMessages makes sure none is missing.
func (l tryLang) t(key string, data map[string]any) string {
	return l.localize(&i18n.LocalizeConfig{MessageID: key, TemplateData: data})
}

// p is the plural form of message key in l for count, which the message
// reads as {{.Count}}.
func (l tryLang) p(key string, count int64) string {
	return l.localize(&i18n.LocalizeConfig{MessageID: key, PluralCount: count, TemplateData: map[string]any{"Count": count}})
}

func (l tryLang) localize(c *i18n.LocalizeConfig) string {
	locs, err := tryLocalizers()
	if err != nil {
		return c.MessageID
	}
	c.Funcs = template.FuncMap{"quote": strconv.Quote} // a word the user typed, as %q writes it: "row 9"
	s, err := locs[l].Localize(c)
	if err != nil && s == "" {
		return c.MessageID
	}
	return s
}

// The message files of the session, one per language, in go-i18n's JSON
// format, as commands' are.
//
//go:embed locales/*.json
var tryLocales embed.FS

// tryLocalizers loads the message files once, on first use: a localizer
// per tryLang.
var tryLocalizers = sync.OnceValues(func() (map[tryLang]*i18n.Localizer, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, f := range []string{"locales/en.json", "locales/fr.json"} {
		if _, err := b.LoadMessageFileFS(tryLocales, f); err != nil {
			return nil, fmt.Errorf("try: load %s: %w", f, err)
		}
	}
	return map[tryLang]*i18n.Localizer{langEN: i18n.NewLocalizer(b, "en"), langFR: i18n.NewLocalizer(b, "fr")}, nil
})
