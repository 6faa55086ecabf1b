package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/lesclefsdutresor/clefs/game"
)

// The words tests: every counted message and every message that takes an
// amount is rendered in both languages at the counts where grammar changes,
// and compared with the text written here, word for word. French takes the
// singular at 0 and 1 (« 0 crédit », « 0,50 crédit », « 1,99 crédit ») and
// the plural from 2; English the singular at 1 only ("1 key", "1.00
// credit"), the plural at 0, 2 and any fraction ("0.50 credits").

// localeMessages reads locales/<lang>.json: message id → its text, or its
// plural forms.
func localeMessages(tb testing.TB, lang string) map[string]any {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("locales", lang+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("%s.json: %v", lang, err)
	}
	return m
}

func enMessages(tb testing.TB) map[string]any { return localeMessages(tb, "en") }

// placeholders lists the template fields of a message, in all its forms.
func placeholders(v any) []string {
	raw, _ := json.Marshal(v)
	var out []string
	for _, m := range regexp.MustCompile(`\{\{\.(\w+)\}\}`).FindAllStringSubmatch(string(raw), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// amountFields are the template fields the code fills with l.Credits or
// l.Signed: an amount with its unit.
var amountFields = []string{"Amount", "Balance", "Cap", "Daily", "Day", "Net", "NetDay", "NetWeek", "Prize", "Stake", "Used", "Week"}

// countFields are the template fields that hold a count.
var countFields = []string{"Count", "Hours", "Max", "Min", "Minutes", "Plays", "Seconds"}

// notAgreeing are the messages with an amount or count field that need no
// agreement, with the reason; every other one is in a table below.
var notAgreeing = map[string]string{
	"btn_again":           "the stake without its unit: “Play again (0.50)”",
	"err_reason_long":     "a fixed maximum of characters (« 200 caractères au plus »)",
	"err_client_seed":     "a fixed maximum of bytes",
	"err_reminder":        "minutes from 5 to 1440",
	"err_limit_amount":    "a fixed maximum amount",
	"err_setting_range":   "a range of settings, never one",
	"err_amount_range":    "the typed value, always more than 10^10 credits",
	"rg_ask":              "a fixed 14 minutes",
	"pause_ask":           "a fixed number of minutes",
	"reality_every":       "minutes from 5 to 1440",
	"limits_reminder_own": "minutes from 5 to 1440",
	"limits_reminder_now": "minutes from 5 to 1440",
	"reality_line":        "hours and minutes abbreviated (h, min); its tickets come from reality_tickets",
	"house_interval":      "seconds abbreviated (s)",
	"seconds":             "seconds abbreviated (s)",
}

// fixedData fills the fields of a message that are neither amounts nor
// counts with short values, in the reader's language.
func fixedData(l *lang) map[string]any {
	dec := "24.1"
	if l.fr {
		dec = "24,1"
	}
	return map[string]any{
		"Limit": l.T("limit_stake-day", nil), "Reset": "<t:9:R>", "When": "<t:9:R>", "Until": "<t:9:F>", "User": "@u",
		"Ticket": 7, "Symbols": "💎💎💎", "Name": l.T("sym_gem", nil), "Lot": l.T("lot_gold", nil), "Emoji": "🪙",
		"Rank": 3, "OneIn": 9, "Commitment": "`54dc888e`", "RTP": "72 %",
		"Text": l.T("reality_off", nil), "Interval": l.T("interval_none", nil), "Reality": l.T("reality_off", nil),
		"Main": dec, "Chest": dec, "PerChest": "9", "PerPlay": dec, "Hours": 1, "Minutes": 5, "Key": " 🗝️",
	}
}

// renderCount renders a plural message at count n.
func renderCount(l *lang, id string, n int) string {
	if id == "credits" {
		return l.Credits(int64(n))
	}
	data := fixedData(l)
	data["Count"] = n
	return l.P(id, n, data)
}

// renderAmount renders a message with every amount field at cents.
func renderAmount(l *lang, id string, cents int64) string {
	data := fixedData(l)
	for _, f := range amountFields {
		data[f] = l.Credits(cents)
	}
	return l.T(id, data)
}

// TestCountedMessages renders every plural message at 0, 1 and 2, and
// credits at 0, 0.01, 0.50, 1.00, 1.50, 2.00 and below zero, in both
// languages, and checks that the table leaves out no plural message.
func TestCountedMessages(t *testing.T) {
	c := testCatalog(t)
	seen := map[string]bool{}
	for _, tc := range countedTable {
		seen[tc.id+"/"+tc.lang] = true
		if got := renderCount(c.forLocale(discordgo.Locale(tc.lang)), tc.id, tc.n); got != tc.want {
			t.Errorf("%s %s at %d:\n got  %q\n want %q", tc.lang, tc.id, tc.n, got, tc.want)
		}
	}
	for id, v := range enMessages(t) {
		if _, plural := v.(map[string]any); !plural {
			continue
		}
		for _, lg := range []string{"en", "fr"} {
			if !seen[id+"/"+lg] {
				t.Errorf("plural message %q has no %s line in countedTable", id, lg)
			}
		}
	}
}

// TestAmountMessages renders every message taking an amount at 0.50, 1.00
// and 2.00 credits in both languages, and checks that every message with an
// amount or a count field is in a table or in notAgreeing.
func TestAmountMessages(t *testing.T) {
	c := testCatalog(t)
	seen := map[string]bool{}
	for _, tc := range amountTable {
		seen[tc.id+"/"+tc.lang] = true
		for i, cents := range []int64{50, 100, 200} {
			if got := renderAmount(c.forLocale(discordgo.Locale(tc.lang)), tc.id, cents); got != tc.want[i] {
				t.Errorf("%s %s at %d cents:\n got  %q\n want %q", tc.lang, tc.id, cents, got, tc.want[i])
			}
		}
	}
	for id, v := range enMessages(t) {
		if _, plural := v.(map[string]any); plural || notAgreeing[id] != "" {
			continue
		}
		for _, f := range placeholders(v) {
			switch {
			case slices.Contains(amountFields, f):
				for _, lg := range []string{"en", "fr"} {
					if !seen[id+"/"+lg] {
						t.Errorf("message %q takes the amount %s but has no %s line in amountTable", id, f, lg)
					}
				}
			case slices.Contains(countFields, f):
				t.Errorf("message %q takes the count %s without plural forms: make it plural, or say in notAgreeing why it needs none", id, f)
			}
		}
	}
	for id := range notAgreeing {
		if _, ok := enMessages(t)[id]; !ok {
			t.Errorf("notAgreeing names %q, which en.json does not define", id)
		}
	}
}

// sameInBothLanguages are the messages French writes as English does:
// emoji, proper nouns, words French shares.
var sameInBothLanguages = map[string]bool{
	"card_title":  true, // the game's name
	"btn_auto":    true, // « Auto »
	"sym_pipe":    true, // « pipes »
	"sym_sabre":   true, // « sabres »
	"seconds":     true, // « 30 s »
	"field_pause": true, // « Pause »
	"hist_pause":  true, // « ⏸️ pause »
	// « 1 ticket », « 2 tickets »
	"fair_count": true, "reality_tickets": true,
}

// TestFrenchNeverFallsBack: every message of en.json exists in fr.json, is
// translated (or listed in sameInBothLanguages), and the French localizer
// finds it in French, in every plural form, rather than falling back to
// English, go-i18n's default, which l.T would show without a word.
func TestFrenchNeverFallsBack(t *testing.T) {
	c := testCatalog(t)
	fr := localeMessages(t, "fr")
	for id, v := range enMessages(t) {
		fv, ok := fr[id]
		if !ok {
			t.Errorf("fr.json lacks %q", id)
			continue
		}
		if sameText(v, fv) != sameInBothLanguages[id] {
			if sameInBothLanguages[id] {
				t.Errorf("%q is listed as the same in both languages but is not: drop it from the list", id)
			} else {
				t.Errorf("%q is English in fr.json: %v", id, fv)
			}
		}
		counts := []any{nil}
		if _, plural := v.(map[string]any); plural {
			counts = []any{0, 1, 2, "0.50", 1000000}
		}
		for _, n := range counts {
			s, tag, err := c.fr.loc.LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id, PluralCount: n, TemplateData: map[string]any{}})
			if base, _ := tag.Base(); err != nil || base.String() != "fr" || s == "" {
				t.Errorf("French %q (count %v) comes from %v: %q, %v", id, n, tag, s, err)
			}
		}
	}
	// And the check does catch a fallback: a message defined in English only.
	b := i18n.NewBundle(language.English)
	b.MustAddMessages(language.English, &i18n.Message{ID: "only_en", Other: "English"})
	b.MustAddMessages(language.French, &i18n.Message{ID: "both", Other: "Français"})
	if _, tag, err := i18n.NewLocalizer(b, "fr").LocalizeWithTag(&i18n.LocalizeConfig{MessageID: "only_en"}); err == nil && tag != language.English {
		t.Errorf("a fallback to English is not seen: tag %v, error %v", tag, err)
	}
}

// sameText tells whether French writes message en as English does: the same
// text, or the same text in each of English's plural forms.
func sameText(en, fr any) bool {
	em, ok := en.(map[string]any)
	fm, ok2 := fr.(map[string]any)
	if !ok || !ok2 {
		return reflect.DeepEqual(en, fr)
	}
	for form, v := range em {
		if fm[form] != v {
			return false
		}
	}
	return true
}

// TestChestTextsNameTheButton: the third key makes the chest ready and the
// player opens it with its button; every text that says so names the
// button by its label, and none says the key opens it by itself.
func TestChestTextsNameTheButton(t *testing.T) {
	c := testCatalog(t)
	for _, l := range []*lang{c.en, c.fr} {
		button := "**" + l.T("btn_chest", nil) + "**"
		for _, id := range []string{"card_chest_won", "chest_closed", "balance_chest_due", "rules_keys_reading", "rules_chest_intro", "player_chest_due"} {
			s := l.T(id, map[string]any{"RTP": "72 %"})
			if !strings.Contains(s, button) {
				t.Errorf("%q does not name the button %s: %q", id, button, s)
			}
		}
		for id := range enMessages(t) {
			s := strings.ToLower(l.T(id, nil))
			for _, bad := range []string{"opens the treasure chest at once", "opens the chest at once", "three keys open", "ouvre aussitôt", "trois clefs ouvrent"} {
				if strings.Contains(s, bad) {
					t.Errorf("%q says %q: %q", id, bad, s)
				}
			}
		}
	}
}

// secondPerson finds a word addressing the reader as the player.
var secondPerson = regexp.MustCompile(`(?i)\b(you|your|yours|vous|vos|votre|vôtre)\b`)

// TestAdminPlayerSpeaksOfThePlayer: a moderator's view of a player names
// the player (by the name Discord resolved, Markdown escaped) and never says
// "you" to the moderator, in either language; without a resolved name it
// says "this player".
func TestAdminPlayerSpeaksOfThePlayer(t *testing.T) {
	e := newEnv(t)
	e.limits(bob, "en-US", "set", opt{"stake-day", optString, "4"})
	e.playTicket(bob, "en-US")
	e.confirmPause(bob, "en-US", e.pauseAsk(bob, "en-US", "7d"))
	bobID := opt{"user", optUser, "1000000000000000002"}
	for _, tc := range []struct {
		locale, nick            string
		limits, history, paused string // field names, and the pause's value
	}{
		{"en-US", "Bob_the*Builder", `🛡️ Limits of Bob\_the\*Builder`, `History of Bob\_the\*Builder`, "⏸️ Paused until"},
		{"fr", "Bob_the*Builder", `🛡️ Limites de Bob\_the\*Builder`, `Historique de Bob\_the\*Builder`, "⏸️ En pause jusqu'au"},
		{"en-US", "", "🛡️ Limits of this player", "History of this player", "⏸️ Paused until"},
		{"fr", "", "🛡️ Limites de ce joueur", "Historique de ce joueur", "⏸️ En pause jusqu'au"},
	} {
		i := e.slashPayload(moderator, modPermsSet, tc.locale, "admin", "player", bobID)
		if tc.nick != "" {
			d := i.Data.(discordgo.ApplicationCommandInteractionData)
			d.Resolved = &discordgo.ApplicationCommandInteractionDataResolved{
				Users:   map[string]*discordgo.User{"1000000000000000002": {ID: "1000000000000000002", Username: "bob", GlobalName: "Bobby"}},
				Members: map[string]*discordgo.Member{"1000000000000000002": {Nick: tc.nick}},
			}
			i.Data = d
		}
		s := e.handle(i).text()
		for _, want := range []string{"\n" + tc.limits + ": ", "\n" + tc.history + ": ", ": " + tc.paused} {
			if !strings.Contains(s, want) {
				t.Errorf("/admin player (%s) lacks %q:\n%s", tc.locale, want, s)
			}
		}
		if m := secondPerson.FindString(s); m != "" {
			t.Errorf("/admin player (%s) says %q to the moderator:\n%s", tc.locale, m, s)
		}
	}
}

// TestLimitsReminderConfirmed: /limits set reminder says what it did, like
// a limit does, with its ✅ line; 0 gives the server's back.
func TestLimitsReminderConfirmed(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ locale, minutes, want string }{
		{"en-US", "30", "✅ Reality check: every 30 minutes of a session, from now on."},
		{"fr", "45", "✅ Point sur la session : toutes les 45 minutes de session, dès maintenant."},
		{"en-US", "0", "✅ Reality check: the server's (off), from now on."},
		{"fr", "0", "✅ Point sur la session : celui du serveur (jamais), dès maintenant."},
	} {
		m, _ := strconv.Atoi(tc.minutes)
		if s := e.limits(alice, tc.locale, "set", opt{"reminder", optInt, m}).text(); !strings.Contains(s, tc.want) {
			t.Errorf("/limits set reminder:%s (%s) lacks %q:\n%s", tc.minutes, tc.locale, tc.want, s)
		}
	}
}

// TestRealityLineCountsTickets: the reality check counts its tickets with
// the plural forms ("1 ticket", not "1 tickets").
func TestRealityLineCountsTickets(t *testing.T) {
	c := testCatalog(t)
	for _, tc := range []struct {
		l     *lang
		plays int64
		want  string
	}{
		{c.en, 1, "⏱️ **Reality check:** you have played for 0 h 5 min in this session: 1 ticket, net result -0.50 credits."},
		{c.en, 2, "⏱️ **Reality check:** you have played for 0 h 5 min in this session: 2 tickets, net result -1.00 credit."},
		{c.fr, 1, "⏱️ **Point sur votre session :** vous jouez depuis 0 h 5 min : 1 ticket, résultat net -0,50 crédit."},
		{c.fr, 2, "⏱️ **Point sur votre session :** vous jouez depuis 0 h 5 min : 2 tickets, résultat net -1,00 crédit."},
	} {
		got := realityLine(tc.l, &game.Reality{Played: 5 * time.Minute, Plays: tc.plays, Net: -50 * tc.plays})
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("reality line:\n got  %q\n want %q…", got, tc.want)
		}
	}
}

// countedTable: every plural message at the counts where grammar changes;
// credits at amounts in cents. reality_plays is never 0 (0 is "no check",
// written reality_off).
var countedTable = []struct {
	id, lang string
	n        int
	want     string
}{
	{"audit_rg_running", "en", 0, "**Server reset in progress**: 0 players reset so far, started by @u <t:9:R>"},
	{"audit_rg_running", "en", 1, "**Server reset in progress**: 1 player reset so far, started by @u <t:9:R>"},
	{"audit_rg_running", "en", 2, "**Server reset in progress**: 2 players reset so far, started by @u <t:9:R>"},
	{"audit_rg_running", "fr", 0, "**Réinitialisation du serveur en cours** : 0 joueur réinitialisé pour l'instant, lancée par @u <t:9:R>"},
	{"audit_rg_running", "fr", 1, "**Réinitialisation du serveur en cours** : 1 joueur réinitialisé pour l'instant, lancée par @u <t:9:R>"},
	{"audit_rg_running", "fr", 2, "**Réinitialisation du serveur en cours** : 2 joueurs réinitialisés pour l'instant, lancée par @u <t:9:R>"},
	{"credits", "en", 0, "0.00 credits"},
	{"credits", "en", 1, "0.01 credits"},
	{"credits", "en", 50, "0.50 credits"},
	{"credits", "en", 100, "1.00 credit"},
	{"credits", "en", 150, "1.50 credits"},
	{"credits", "en", 200, "2.00 credits"},
	{"credits", "en", -50, "-0.50 credits"},
	{"credits", "en", -100, "-1.00 credit"},
	{"credits", "fr", 0, "0,00 crédit"},
	{"credits", "fr", 1, "0,01 crédit"},
	{"credits", "fr", 50, "0,50 crédit"},
	{"credits", "fr", 100, "1,00 crédit"},
	{"credits", "fr", 150, "1,50 crédit"},
	{"credits", "fr", 200, "2,00 crédits"},
	{"credits", "fr", -50, "-0,50 crédit"},
	{"credits", "fr", -100, "-1,00 crédit"},
	{"fair_count", "en", 0, "0 tickets"},
	{"fair_count", "en", 1, "1 ticket"},
	{"fair_count", "en", 2, "2 tickets"},
	{"fair_count", "fr", 0, "0 ticket"},
	{"fair_count", "fr", 1, "1 ticket"},
	{"fair_count", "fr", 2, "2 tickets"},
	{"keys", "en", 0, "0 keys of 3"},
	{"keys", "en", 1, "1 key of 3"},
	{"keys", "en", 2, "2 keys of 3"},
	{"keys", "fr", 0, "0 clef sur 3"},
	{"keys", "fr", 1, "1 clef sur 3"},
	{"keys", "fr", 2, "2 clefs sur 3"},
	{"leader_players", "en", 0, "0 players"},
	{"leader_players", "en", 1, "1 player"},
	{"leader_players", "en", 2, "2 players"},
	{"leader_players", "fr", 0, "0 joueur"},
	{"leader_players", "fr", 1, "1 joueur"},
	{"leader_players", "fr", 2, "2 joueurs"},
	{"reality_plays", "en", 1, "after every play"},
	{"reality_plays", "en", 2, "every 2 plays"},
	{"reality_plays", "fr", 1, "à chaque partie"},
	{"reality_plays", "fr", 2, "toutes les 2 parties"},
	{"audit_players", "en", 0, "0 players"},
	{"audit_players", "en", 1, "1 player"},
	{"audit_players", "en", 2, "2 players"},
	{"audit_players", "fr", 0, "0 joueur"},
	{"audit_players", "fr", 1, "1 joueur"},
	{"audit_players", "fr", 2, "2 joueurs"},
	{"reality_tickets", "en", 0, "0 tickets"},
	{"reality_tickets", "en", 1, "1 ticket"},
	{"reality_tickets", "en", 2, "2 tickets"},
	{"reality_tickets", "fr", 0, "0 ticket"},
	{"reality_tickets", "fr", 1, "1 ticket"},
	{"reality_tickets", "fr", 2, "2 tickets"},
	{"rg_done", "en", 0, "0 players were reset."},
	{"rg_done", "en", 1, "1 player was reset."},
	{"rg_done", "en", 2, "2 players were reset."},
	{"rg_done", "fr", 0, "0 joueur a été réinitialisé."},
	{"rg_done", "fr", 1, "1 joueur a été réinitialisé."},
	{"rg_done", "fr", 2, "2 joueurs ont été réinitialisés."},
	{"rg_running", "en", 0, "Resetting… 0 players so far."},
	{"rg_running", "en", 1, "Resetting… 1 player so far."},
	{"rg_running", "en", 2, "Resetting… 2 players so far."},
	{"rg_running", "fr", 0, "Réinitialisation en cours… 0 joueur pour l'instant."},
	{"rg_running", "fr", 1, "Réinitialisation en cours… 1 joueur pour l'instant."},
	{"rg_running", "fr", 2, "Réinitialisation en cours… 2 joueurs pour l'instant."},
	{"rules_key_line", "en", 0, "holding 0 keys: 1 chance in 9"},
	{"rules_key_line", "en", 1, "holding 1 key: 1 chance in 9"},
	{"rules_key_line", "en", 2, "holding 2 keys: 1 chance in 9"},
	{"rules_key_line", "fr", 0, "avec 0 clef : 1 chance sur 9"},
	{"rules_key_line", "fr", 1, "avec 1 clef : 1 chance sur 9"},
	{"rules_key_line", "fr", 2, "avec 2 clefs : 1 chance sur 9"},
	{"stat_chests", "en", 0, "0 chests opened"},
	{"stat_chests", "en", 1, "1 chest opened"},
	{"stat_chests", "en", 2, "2 chests opened"},
	{"stat_chests", "fr", 0, "0 coffre ouvert"},
	{"stat_chests", "fr", 1, "1 coffre ouvert"},
	{"stat_chests", "fr", 2, "2 coffres ouverts"},
	{"stat_plays", "en", 0, "0 plays"},
	{"stat_plays", "en", 1, "1 play"},
	{"stat_plays", "en", 2, "2 plays"},
	{"stat_plays", "fr", 0, "0 partie"},
	{"stat_plays", "fr", 1, "1 partie"},
	{"stat_plays", "fr", 2, "2 parties"},
	{"stat_wins", "en", 0, "0 winning plays"},
	{"stat_wins", "en", 1, "1 winning play"},
	{"stat_wins", "en", 2, "2 winning plays"},
	{"stat_wins", "fr", 0, "0 partie gagnante"},
	{"stat_wins", "fr", 1, "1 partie gagnante"},
	{"stat_wins", "fr", 2, "2 parties gagnantes"},
}

// amountTable: every message taking an amount, with each amount field at
// 0.50, 1.00 and 2.00 credits. 0.00 takes the form of 0.50 in both
// languages (countedTable shows it), so it adds nothing here.
var amountTable = []struct {
	id, lang string
	want     [3]string
}{
	{"admin_debited", "en", [3]string{"@u lost 0.50 credits. New balance: 0.50 credits.",
		"@u lost 1.00 credit. New balance: 1.00 credit.",
		"@u lost 2.00 credits. New balance: 2.00 credits."}},
	{"admin_debited", "fr", [3]string{"@u a perdu 0,50 crédit. Nouveau solde : 0,50 crédit.",
		"@u a perdu 1,00 crédit. Nouveau solde : 1,00 crédit.",
		"@u a perdu 2,00 crédits. Nouveau solde : 2,00 crédits."}},
	{"admin_granted", "en", [3]string{"@u received 0.50 credits. New balance: 0.50 credits.",
		"@u received 1.00 credit. New balance: 1.00 credit.",
		"@u received 2.00 credits. New balance: 2.00 credits."}},
	{"admin_granted", "fr", [3]string{"@u a reçu 0,50 crédit. Nouveau solde : 0,50 crédit.",
		"@u a reçu 1,00 crédit. Nouveau solde : 1,00 crédit.",
		"@u a reçu 2,00 crédits. Nouveau solde : 2,00 crédits."}},
	{"admin_reset", "en", [3]string{"@u was reset. Balance: 0.50 credits.",
		"@u was reset. Balance: 1.00 credit.",
		"@u was reset. Balance: 2.00 credits."}},
	{"admin_reset", "fr", [3]string{"@u a été réinitialisé. Solde : 0,50 crédit.",
		"@u a été réinitialisé. Solde : 1,00 crédit.",
		"@u a été réinitialisé. Solde : 2,00 crédits."}},
	{"admin_set", "en", [3]string{"@u's balance is now 0.50 credits.",
		"@u's balance is now 1.00 credit.",
		"@u's balance is now 2.00 credits."}},
	{"admin_set", "fr", [3]string{"Le solde de @u est maintenant de 0,50 crédit.",
		"Le solde de @u est maintenant de 1,00 crédit.",
		"Le solde de @u est maintenant de 2,00 crédits."}},
	{"card_footer", "en", [3]string{"Ticket #7 · stake 0.50 credits · seed `54dc888e`",
		"Ticket #7 · stake 1.00 credit · seed `54dc888e`",
		"Ticket #7 · stake 2.00 credits · seed `54dc888e`"}},
	{"card_footer", "fr", [3]string{"Ticket n° 7 · mise 0,50 crédit · graine `54dc888e`",
		"Ticket n° 7 · mise 1,00 crédit · graine `54dc888e`",
		"Ticket n° 7 · mise 2,00 crédits · graine `54dc888e`"}},
	{"card_win", "en", [3]string{"🎉 **Three gems!** You win **0.50 credits**.",
		"🎉 **Three gems!** You win **1.00 credit**.",
		"🎉 **Three gems!** You win **2.00 credits**."}},
	{"card_win", "fr", [3]string{"🎉 **Trois pierres précieuses !** Vous gagnez **0,50 crédit**.",
		"🎉 **Trois pierres précieuses !** Vous gagnez **1,00 crédit**.",
		"🎉 **Trois pierres précieuses !** Vous gagnez **2,00 crédits**."}},
	{"chest_opened", "en", [3]string{"You find **one gold coin**: **0.50 credits**!",
		"You find **one gold coin**: **1.00 credit**!",
		"You find **one gold coin**: **2.00 credits**!"}},
	{"chest_opened", "fr", [3]string{"Vous découvrez **une pièce d'or** : **0,50 crédit** !",
		"Vous découvrez **une pièce d'or** : **1,00 crédit** !",
		"Vous découvrez **une pièce d'or** : **2,00 crédits** !"}},
	{"daily_ok", "en", [3]string{"You received **0.50 credits**. Balance: **0.50 credits**.",
		"You received **1.00 credit**. Balance: **1.00 credit**.",
		"You received **2.00 credits**. Balance: **2.00 credits**."}},
	{"daily_ok", "fr", [3]string{"Vous avez reçu **0,50 crédit**. Solde : **0,50 crédit**.",
		"Vous avez reçu **1,00 crédit**. Solde : **1,00 crédit**.",
		"Vous avez reçu **2,00 crédits**. Solde : **2,00 crédits**."}},
	{"err_funds", "en", [3]string{"Not enough credits: you have 0.50 credits and a ticket costs 0.50 credits.",
		"Not enough credits: you have 1.00 credit and a ticket costs 1.00 credit.",
		"Not enough credits: you have 2.00 credits and a ticket costs 2.00 credits."}},
	{"err_funds", "fr", [3]string{"Crédits insuffisants : vous avez 0,50 crédit et un ticket coûte 0,50 crédit.",
		"Crédits insuffisants : vous avez 1,00 crédit et un ticket coûte 1,00 crédit.",
		"Crédits insuffisants : vous avez 2,00 crédits et un ticket coûte 2,00 crédits."}},
	{"err_funds_daily", "en", [3]string{"Not enough credits: you have 0.50 credits and a ticket costs 0.50 credits. Your daily bonus is ready: try /daily.",
		"Not enough credits: you have 1.00 credit and a ticket costs 1.00 credit. Your daily bonus is ready: try /daily.",
		"Not enough credits: you have 2.00 credits and a ticket costs 2.00 credits. Your daily bonus is ready: try /daily."}},
	{"err_funds_daily", "fr", [3]string{"Crédits insuffisants : vous avez 0,50 crédit et un ticket coûte 0,50 crédit. Votre bonus quotidien est prêt : essayez /bonus.",
		"Crédits insuffisants : vous avez 1,00 crédit et un ticket coûte 1,00 crédit. Votre bonus quotidien est prêt : essayez /bonus.",
		"Crédits insuffisants : vous avez 2,00 crédits et un ticket coûte 2,00 crédits. Votre bonus quotidien est prêt : essayez /bonus."}},
	{"err_limit", "en", [3]string{"This play would cross one of your limits, **Stakes per day: 0.50 credits** (0.50 credits so far). It resets <t:9:R>. Nothing was charged.",
		"This play would cross one of your limits, **Stakes per day: 1.00 credit** (1.00 credit so far). It resets <t:9:R>. Nothing was charged.",
		"This play would cross one of your limits, **Stakes per day: 2.00 credits** (2.00 credits so far). It resets <t:9:R>. Nothing was charged."}},
	{"err_limit", "fr", [3]string{"Cette partie dépasserait l'une de vos limites, **Mises par jour : 0,50 crédit** (0,50 crédit jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité.",
		"Cette partie dépasserait l'une de vos limites, **Mises par jour : 1,00 crédit** (1,00 crédit jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité.",
		"Cette partie dépasserait l'une de vos limites, **Mises par jour : 2,00 crédits** (2,00 crédits jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité."}},
	{"err_limit_house", "en", [3]string{"This play would cross this server's limit of 0.50 credits staked per day (0.50 credits so far). It resets <t:9:R>. Nothing was charged.",
		"This play would cross this server's limit of 1.00 credit staked per day (1.00 credit so far). It resets <t:9:R>. Nothing was charged.",
		"This play would cross this server's limit of 2.00 credits staked per day (2.00 credits so far). It resets <t:9:R>. Nothing was charged."}},
	{"err_limit_house", "fr", [3]string{"Cette partie dépasserait la limite de mise de ce serveur, 0,50 crédit par jour (0,50 crédit jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité.",
		"Cette partie dépasserait la limite de mise de ce serveur, 1,00 crédit par jour (1,00 crédit jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité.",
		"Cette partie dépasserait la limite de mise de ce serveur, 2,00 crédits par jour (2,00 crédits jusqu'ici). Le compteur repart à zéro <t:9:R>. Rien n'a été débité."}},
	{"fair_chest", "en", [3]string{"Recomputed: one gold coin, 0.50 credits.",
		"Recomputed: one gold coin, 1.00 credit.",
		"Recomputed: one gold coin, 2.00 credits."}},
	{"fair_chest", "fr", [3]string{"Recalculé : une pièce d'or, 0,50 crédit.",
		"Recalculé : une pièce d'or, 1,00 crédit.",
		"Recalculé : une pièce d'or, 2,00 crédits."}},
	{"hist_chest", "en", [3]string{"chest: one gold coin 0.50 credits",
		"chest: one gold coin 1.00 credit",
		"chest: one gold coin 2.00 credits"}},
	{"hist_chest", "fr", [3]string{"coffre : une pièce d'or 0,50 crédit",
		"coffre : une pièce d'or 1,00 crédit",
		"coffre : une pièce d'or 2,00 crédits"}},
	{"hist_daily", "en", [3]string{"daily bonus 0.50 credits",
		"daily bonus 1.00 credit",
		"daily bonus 2.00 credits"}},
	{"hist_daily", "fr", [3]string{"bonus quotidien 0,50 crédit",
		"bonus quotidien 1,00 crédit",
		"bonus quotidien 2,00 crédits"}},
	{"hist_grant", "en", [3]string{"moderator adjustment 0.50 credits (balance 0.50 credits)",
		"moderator adjustment 1.00 credit (balance 1.00 credit)",
		"moderator adjustment 2.00 credits (balance 2.00 credits)"}},
	{"hist_grant", "fr", [3]string{"ajustement par la modération 0,50 crédit (solde 0,50 crédit)",
		"ajustement par la modération 1,00 crédit (solde 1,00 crédit)",
		"ajustement par la modération 2,00 crédits (solde 2,00 crédits)"}},
	{"hist_loss", "en", [3]string{"ticket #7: no win 0.50 credits",
		"ticket #7: no win 1.00 credit",
		"ticket #7: no win 2.00 credits"}},
	{"hist_loss", "fr", [3]string{"ticket n° 7 : perdu 0,50 crédit",
		"ticket n° 7 : perdu 1,00 crédit",
		"ticket n° 7 : perdu 2,00 crédits"}},
	{"hist_other", "en", [3]string{"0.50 credits (balance 0.50 credits)",
		"1.00 credit (balance 1.00 credit)",
		"2.00 credits (balance 2.00 credits)"}},
	{"hist_other", "fr", [3]string{"0,50 crédit (solde 0,50 crédit)",
		"1,00 crédit (solde 1,00 crédit)",
		"2,00 crédits (solde 2,00 crédits)"}},
	{"hist_reset", "en", [3]string{"reset (balance 0.50 credits)",
		"reset (balance 1.00 credit)",
		"reset (balance 2.00 credits)"}},
	{"hist_reset", "fr", [3]string{"réinitialisation (solde 0,50 crédit)",
		"réinitialisation (solde 1,00 crédit)",
		"réinitialisation (solde 2,00 crédits)"}},
	{"hist_win", "en", [3]string{"ticket #7: 💎💎💎 prize 0.50 credits (0.50 credits net of the stake)",
		"ticket #7: 💎💎💎 prize 1.00 credit (1.00 credit net of the stake)",
		"ticket #7: 💎💎💎 prize 2.00 credits (2.00 credits net of the stake)"}},
	{"hist_win", "fr", [3]string{"ticket n° 7 : 💎💎💎 gain 0,50 crédit (0,50 crédit net de la mise)",
		"ticket n° 7 : 💎💎💎 gain 1,00 crédit (1,00 crédit net de la mise)",
		"ticket n° 7 : 💎💎💎 gain 2,00 crédits (2,00 crédits net de la mise)"}},
	{"house_stake_day", "en", [3]string{"At most 0.50 credits staked per day.",
		"At most 1.00 credit staked per day.",
		"At most 2.00 credits staked per day."}},
	{"house_stake_day", "fr", [3]string{"Mise maximale : 0,50 crédit par jour.",
		"Mise maximale : 1,00 crédit par jour.",
		"Mise maximale : 2,00 crédits par jour."}},
	{"house_text", "en", [3]string{"Stake cap per day: 0.50 credits · minimum interval: none · reality check: off",
		"Stake cap per day: 1.00 credit · minimum interval: none · reality check: off",
		"Stake cap per day: 2.00 credits · minimum interval: none · reality check: off"}},
	{"house_text", "fr", [3]string{"Mise maximale par jour : 0,50 crédit · intervalle minimal : aucun · point sur la session : jamais",
		"Mise maximale par jour : 1,00 crédit · intervalle minimal : aucun · point sur la session : jamais",
		"Mise maximale par jour : 2,00 crédits · intervalle minimal : aucun · point sur la session : jamais"}},
	{"leader_you", "en", [3]string{"#3 you — 0.50 credits",
		"#3 you — 1.00 credit",
		"#3 you — 2.00 credits"}},
	{"leader_you", "fr", [3]string{"#3 vous — 0,50 crédit",
		"#3 vous — 1,00 crédit",
		"#3 vous — 2,00 crédits"}},
	{"limits_lost", "en", [3]string{"Lost: 0.50 credits · resets <t:9:R>",
		"Lost: 1.00 credit · resets <t:9:R>",
		"Lost: 2.00 credits · resets <t:9:R>"}},
	{"limits_lost", "fr", [3]string{"Perdu : 0,50 crédit · repart <t:9:R>",
		"Perdu : 1,00 crédit · repart <t:9:R>",
		"Perdu : 2,00 crédits · repart <t:9:R>"}},
	{"limits_now", "en", [3]string{"Stakes per day: 0.50 credits, in force now.",
		"Stakes per day: 1.00 credit, in force now.",
		"Stakes per day: 2.00 credits, in force now."}},
	{"limits_now", "fr", [3]string{"Mises par jour : 0,50 crédit, en vigueur dès maintenant.",
		"Mises par jour : 1,00 crédit, en vigueur dès maintenant.",
		"Mises par jour : 2,00 crédits, en vigueur dès maintenant."}},
	{"limits_pending", "en", [3]string{"→ 0.50 credits from <t:9:R>",
		"→ 1.00 credit from <t:9:R>",
		"→ 2.00 credits from <t:9:R>"}},
	{"limits_pending", "fr", [3]string{"→ 0,50 crédit à partir du <t:9:R>",
		"→ 1,00 crédit à partir du <t:9:R>",
		"→ 2,00 crédits à partir du <t:9:R>"}},
	{"limits_raised", "en", [3]string{"Stakes per day: 0.50 credits from <t:9:R> (a raise or removal waits 24 hours).",
		"Stakes per day: 1.00 credit from <t:9:R> (a raise or removal waits 24 hours).",
		"Stakes per day: 2.00 credits from <t:9:R> (a raise or removal waits 24 hours)."}},
	{"limits_raised", "fr", [3]string{"Mises par jour : 0,50 crédit à partir du <t:9:R> (une hausse ou une suppression attend 24 heures).",
		"Mises par jour : 1,00 crédit à partir du <t:9:R> (une hausse ou une suppression attend 24 heures).",
		"Mises par jour : 2,00 crédits à partir du <t:9:R> (une hausse ou une suppression attend 24 heures)."}},
	{"limits_used", "en", [3]string{"Staked: 0.50 credits · resets <t:9:R>",
		"Staked: 1.00 credit · resets <t:9:R>",
		"Staked: 2.00 credits · resets <t:9:R>"}},
	{"limits_used", "fr", [3]string{"Misé : 0,50 crédit · repart <t:9:R>",
		"Misé : 1,00 crédit · repart <t:9:R>",
		"Misé : 2,00 crédits · repart <t:9:R>"}},
	{"player_granted", "en", [3]string{"Granted: 0.50 credits · daily bonuses: 0.50 credits",
		"Granted: 1.00 credit · daily bonuses: 1.00 credit",
		"Granted: 2.00 credits · daily bonuses: 2.00 credits"}},
	{"player_granted", "fr", [3]string{"Crédité : 0,50 crédit · bonus quotidiens : 0,50 crédit",
		"Crédité : 1,00 crédit · bonus quotidiens : 1,00 crédit",
		"Crédité : 2,00 crédits · bonus quotidiens : 2,00 crédits"}},
	{"player_limit", "en", [3]string{"Stakes per day: 0.50 credits",
		"Stakes per day: 1.00 credit",
		"Stakes per day: 2.00 credits"}},
	{"player_limit", "fr", [3]string{"Mises par jour : 0,50 crédit",
		"Mises par jour : 1,00 crédit",
		"Mises par jour : 2,00 crédits"}},
	{"player_spend", "en", [3]string{"Staked today: 0.50 credits, net 0.50 credits · this week: 0.50 credits, net 0.50 credits",
		"Staked today: 1.00 credit, net 1.00 credit · this week: 1.00 credit, net 1.00 credit",
		"Staked today: 2.00 credits, net 2.00 credits · this week: 2.00 credits, net 2.00 credits"}},
	{"player_spend", "fr", [3]string{"Mises du jour : 0,50 crédit, net 0,50 crédit · de la semaine : 0,50 crédit, net 0,50 crédit",
		"Mises du jour : 1,00 crédit, net 1,00 crédit · de la semaine : 1,00 crédit, net 1,00 crédit",
		"Mises du jour : 2,00 crédits, net 2,00 crédits · de la semaine : 2,00 crédits, net 2,00 crédits"}},
	{"rules_lot_line", "en", [3]string{"🪙 one gold coin **0.50 credits** · 1 chance in 9",
		"🪙 one gold coin **1.00 credit** · 1 chance in 9",
		"🪙 one gold coin **2.00 credits** · 1 chance in 9"}},
	{"rules_lot_line", "fr", [3]string{"🪙 une pièce d'or **0,50 crédit** · 1 chance sur 9",
		"🪙 une pièce d'or **1,00 crédit** · 1 chance sur 9",
		"🪙 une pièce d'or **2,00 crédits** · 1 chance sur 9"}},
	{"rules_main_intro", "en", [3]string{"A ticket costs 0.50 credits. Reveal the three rows one by one with the arrows, or all at once with Auto: the result is drawn once, at your first click. Three identical symbols on one row win (keys never do):",
		"A ticket costs 1.00 credit. Reveal the three rows one by one with the arrows, or all at once with Auto: the result is drawn once, at your first click. Three identical symbols on one row win (keys never do):",
		"A ticket costs 2.00 credits. Reveal the three rows one by one with the arrows, or all at once with Auto: the result is drawn once, at your first click. Three identical symbols on one row win (keys never do):"}},
	{"rules_main_intro", "fr", [3]string{"Un ticket coûte 0,50 crédit. Découvrez les trois lignes une à une avec les flèches, ou toutes d'un coup avec Auto : le résultat est tiré une seule fois, à votre premier clic. Trois symboles identiques sur une même ligne gagnent (jamais les clefs) :",
		"Un ticket coûte 1,00 crédit. Découvrez les trois lignes une à une avec les flèches, ou toutes d'un coup avec Auto : le résultat est tiré une seule fois, à votre premier clic. Trois symboles identiques sur une même ligne gagnent (jamais les clefs) :",
		"Un ticket coûte 2,00 crédits. Découvrez les trois lignes une à une avec les flèches, ou toutes d'un coup avec Auto : le résultat est tiré une seule fois, à votre premier clic. Trois symboles identiques sur une même ligne gagnent (jamais les clefs) :"}},
	{"rules_rtp", "en", [3]string{"Per play, the main game pays 24.1 cents on average, and a chest (24.1 cents on average) comes every 9 plays on average: 24.1 cents for a stake of 0.50 credits, that is **72 %** returned. Credits are virtual: nothing to cash out.",
		"Per play, the main game pays 24.1 cents on average, and a chest (24.1 cents on average) comes every 9 plays on average: 24.1 cents for a stake of 1.00 credit, that is **72 %** returned. Credits are virtual: nothing to cash out.",
		"Per play, the main game pays 24.1 cents on average, and a chest (24.1 cents on average) comes every 9 plays on average: 24.1 cents for a stake of 2.00 credits, that is **72 %** returned. Credits are virtual: nothing to cash out."}},
	{"rules_rtp", "fr", [3]string{"Par partie, le jeu principal rapporte 24,1 centimes en moyenne, et un coffre (24,1 centimes en moyenne) vient toutes les 9 parties en moyenne : 24,1 centimes pour une mise de 0,50 crédit, soit **72 %** redistribués. Les crédits sont virtuels : rien à encaisser.",
		"Par partie, le jeu principal rapporte 24,1 centimes en moyenne, et un coffre (24,1 centimes en moyenne) vient toutes les 9 parties en moyenne : 24,1 centimes pour une mise de 1,00 crédit, soit **72 %** redistribués. Les crédits sont virtuels : rien à encaisser.",
		"Par partie, le jeu principal rapporte 24,1 centimes en moyenne, et un coffre (24,1 centimes en moyenne) vient toutes les 9 parties en moyenne : 24,1 centimes pour une mise de 2,00 crédits, soit **72 %** redistribués. Les crédits sont virtuels : rien à encaisser."}},
	{"rules_tier_line", "en", [3]string{"💎💎💎 **0.50 credits** · 1 chance in 9",
		"💎💎💎 **1.00 credit** · 1 chance in 9",
		"💎💎💎 **2.00 credits** · 1 chance in 9"}},
	{"rules_tier_line", "fr", [3]string{"💎💎💎 **0,50 crédit** · 1 chance sur 9",
		"💎💎💎 **1,00 crédit** · 1 chance sur 9",
		"💎💎💎 **2,00 crédits** · 1 chance sur 9"}},
	{"stat_best", "en", [3]string{"Best win: 0.50 credits",
		"Best win: 1.00 credit",
		"Best win: 2.00 credits"}},
	{"stat_best", "fr", [3]string{"Meilleur gain : 0,50 crédit",
		"Meilleur gain : 1,00 crédit",
		"Meilleur gain : 2,00 crédits"}},
	{"stat_staked", "en", [3]string{"Staked: 0.50 credits",
		"Staked: 1.00 credit",
		"Staked: 2.00 credits"}},
	{"stat_staked", "fr", [3]string{"Misé : 0,50 crédit",
		"Misé : 1,00 crédit",
		"Misé : 2,00 crédits"}},
	{"stat_won", "en", [3]string{"Won: 0.50 credits",
		"Won: 1.00 credit",
		"Won: 2.00 credits"}},
	{"stat_won", "fr", [3]string{"Gagné : 0,50 crédit",
		"Gagné : 1,00 crédit",
		"Gagné : 2,00 crédits"}},
}
