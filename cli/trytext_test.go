package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
)

// The English rendering's marks, and a view at a fixed time in UTC.
var (
	onlyYou = langEN.t("only_you", nil)
	greyed  = langEN.t("greyed", nil)
	enView  = view{lang: langEN, now: tryTestNow}
)

// recorder is a commands.Responder that keeps the message of the
// handlers' response (the tests' commands answer in one response, never
// edited nor followed up).
type recorder struct {
	mu  sync.Mutex
	msg *discordgo.Message
}

func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := resp.Data; d != nil {
		r.msg = &discordgo.Message{ID: "5000", ChannelID: "2000", Content: d.Content, Embeds: d.Embeds, Components: d.Components, Flags: d.Flags}
	}
	return nil
}

func (r *recorder) EditOriginal(context.Context, *discordgo.Interaction, *discordgo.WebhookEdit) error {
	return nil
}

func (r *recorder) FollowUp(context.Context, *discordgo.Interaction, *discordgo.WebhookParams) error {
	return nil
}

// testApp is the real handlers on an embedded store of the test's own,
// with the application's custom emojis for the symbols and the hidden cell.
func testApp(t *testing.T) *commands.App {
	t.Helper()
	st, err := backend.Open(context.Background(), "", filepath.Join(t.TempDir(), "clefs.db"), storage.Options{
		Defaults: game.Settings{StartingBalance: 2000, DailyAmount: 100, DailyCooldown: 24 * time.Hour, PublicPlays: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var emoji [game.NumSymbols]string
	for i, name := range []string{"gem", "pipe", "bomb", "sabre", "candle", "barrel", "key"} {
		emoji[i] = "<:clefs_" + name + ":12345678901234567" + string(rune('0'+i)) + ">"
	}
	return commands.New(commands.Config{
		Emoji: emoji, Hidden: "<:clefs_hidden:123456789012345679>", Seeds: seededReader(1),
	}, st)
}

// ids numbers the interactions of handle.
var ids atomic.Int64

// handle runs one interaction through the handlers and returns the message
// they made.
func handle(t *testing.T, app *commands.App, i *discordgo.Interaction) *discordgo.Message {
	t.Helper()
	// Each interaction its own ID: the handlers answer a repeated one with
	// its first result.
	i.GuildID, i.ChannelID, i.ID, i.Token, i.AppID = "1000", "2000", strconv.FormatInt(600000+ids.Add(1), 10), "tok", "900"
	if i.Member == nil {
		i.Member = &discordgo.Member{User: &discordgo.User{ID: "42", Username: "user42"}, Permissions: 0}
	}
	rec := &recorder{}
	app.Handle(context.Background(), rec, i)
	if rec.msg == nil {
		t.Fatalf("no message for %+v", i.Data)
	}
	return rec.msg
}

func TestRenderTicketCard(t *testing.T) {
	app := testApp(t)
	card := handle(t, app, &discordgo.Interaction{
		Type: discordgo.InteractionApplicationCommand,
		Data: discordgo.ApplicationCommandInteractionData{Name: "play"},
	})
	got := renderMessage(card, false, enView)
	for _, want := range []string{
		"┃ 🗝️ Les Clefs du Trésor\n",
		"┃ ▶️ ❔ ❔ ❔\n┃ ▶️ ❔ ❔ ❔\n┃ ▶️ ❔ ❔ ❔\n",
		"Auto for all", // bold markers gone
		"┃ Chest: 🔒🔒🔒 0 keys of 3   Balance: 19.50 credits\n",
		"┃ Ticket #1 · stake 0.50 credits · seed ",
		"[▶️ Row 1] [▶️ Row 2] [▶️ Row 3] [⚡ Auto]\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("card lacks %q:\n%s", want, got)
		}
	}
	for _, never := range []string{"<:", "**", greyed, onlyYou} {
		if strings.Contains(got, never) {
			t.Errorf("card shows %q:\n%s", never, got)
		}
	}

	// An ephemeral answer is marked so.
	rules := handle(t, app, &discordgo.Interaction{
		Type:   discordgo.InteractionApplicationCommand,
		Locale: discordgo.French,
		Data:   discordgo.ApplicationCommandInteractionData{Name: "rules"},
	})
	got = renderMessage(rules, rules.Flags&discordgo.MessageFlagsEphemeral != 0, enView)
	if !strings.HasPrefix(got, "(only you)\n┃ ") {
		t.Errorf("ephemeral /rules not marked:\n%s", got)
	}
	if !strings.Contains(got, "Le jeu principal") {
		t.Errorf("French /rules lacks its title:\n%s", got)
	}

	msg := renderMessage(&discordgo.Message{Content: "❌ No."}, true, enView)
	if msg != "(only you) ❌ No.\n" {
		t.Errorf("ephemeral content: %q", msg)
	}
}

// TestRenderText checks the text of Discord's markup, of buttons and of
// file sizes.
func TestRenderText(t *testing.T) {
	v := view{lang: langEN, now: time.Unix(1_700_000_000, 0).UTC()}
	emoji := func(name, id string) *discordgo.ComponentEmoji { return &discordgo.ComponentEmoji{Name: name, ID: id} }
	for i, tc := range []struct{ got, want string }{
		{plainText("<:clefs_gem:1234567890> <:clefs_pipe:1> <:clefs_hidden:9>", v), "💎 🪈 ❔"},
		{plainText("<a:clefs_key:42> and <:sparkles_x:7>", v), "🗝️ and :sparkles_x:"},
		{plainText("**Auto** for all", v), "Auto for all"},
		{plainText("<@42> thanks <@!43>", v), "@user42 thanks @user43"},
		{plainText("next bonus <t:1700010800:R>", v), "next bonus in 3 hours"},
		{plainText("claimed <t:1699999880:R>", v), "claimed 2 minutes ago"},
		{plainText("on <t:1700010800:f>, <t:1700010800>", v), "on November 15, 2023 1:13 AM, November 15, 2023 1:13 AM"},
		{plainText("plain 1 < 2 > 0 <t:x>", v), "plain 1 < 2 > 0 <t:x>"},
		{buttonText(&discordgo.Button{Label: "Play again (0.50)", Emoji: emoji("🔁", "")}, enView), "[🔁 Play again (0.50)]"},
		{buttonText(&discordgo.Button{Label: "Row 1", Emoji: emoji("▶️", ""), Disabled: true}, enView), "[▶️ Row 1" + greyed + "]"},
		{buttonText(&discordgo.Button{Label: "Open", Emoji: emoji("clefs_key", "1")}, enView), "[🗝️ Open]"},
		{buttonText(&discordgo.Button{Label: "Odd", Emoji: emoji("odd", "1")}, enView), "[:odd: Odd]"},
		{byteSize(0, langEN), "0 B"}, {byteSize(999, langEN), "999 B"}, {byteSize(1000, langEN), "1.0 kB"},
		{byteSize(2149, langEN), "2.1 kB"}, {byteSize(999_949, langEN), "999.9 kB"}, {byteSize(3_400_000, langEN), "3.4 MB"},
	} {
		if tc.got != tc.want {
			t.Errorf("case %d: %q, want %q", i, tc.got, tc.want)
		}
	}
}

func TestRenderAttachments(t *testing.T) {
	files := []*discordgo.MessageAttachment{{Filename: "clefs-equite-42.json", Size: 2149}, {Filename: "b.txt", Size: 3}}
	got := renderMessage(&discordgo.Message{Content: "Your export", Attachments: files}, true, enView)
	if want := "(only you) Your export\n📎 clefs-equite-42.json (2.1 kB)\n📎 b.txt (3 B)\n"; got != want {
		t.Errorf("message with files:\n%q\nwant\n%q", got, want)
	}
	frView := enView
	frView.lang = langFR
	got = renderMessage(&discordgo.Message{Content: "Votre export", Attachments: files}, true, frView)
	if want := "(vous seul) Votre export\n📎 clefs-equite-42.json (2,1 ko)\n📎 b.txt (3 o)\n"; got != want {
		t.Errorf("French message with files:\n%q\nwant\n%q", got, want)
	}
	// Nothing but a file is not an empty message.
	got = renderMessage(&discordgo.Message{Attachments: files[1:]}, true, enView)
	if want := "(only you) 📎 b.txt (3 B)\n"; got != want {
		t.Errorf("file only: %q, want %q", got, want)
	}
}

func TestTimeRelative(t *testing.T) {
	for _, tc := range []struct {
		d      time.Duration
		en, fr string
	}{
		{0, "in 0 seconds", "dans 0 seconde"},
		{time.Second, "in 1 second", "dans 1 seconde"},
		{5 * time.Second, "in 5 seconds", "dans 5 secondes"},
		{-5 * time.Second, "5 seconds ago", "il y a 5 secondes"},
		{59 * time.Second, "in 59 seconds", "dans 59 secondes"},
		{59*time.Second + 600*time.Millisecond, "in 1 minute", "dans 1 minute"}, // rounds up to the next unit
		{90 * time.Second, "in 2 minutes", "dans 2 minutes"},
		{3 * time.Minute, "in 3 minutes", "dans 3 minutes"},
		{-5 * time.Minute, "5 minutes ago", "il y a 5 minutes"},
		{59*time.Minute + 40*time.Second, "in 1 hour", "dans 1 heure"},
		{3*time.Hour + 10*time.Minute, "in 3 hours", "dans 3 heures"},
		{3*time.Hour + 32*time.Minute, "in 4 hours", "dans 4 heures"},
		{-23 * time.Hour, "23 hours ago", "il y a 23 heures"},
		{23*time.Hour + 40*time.Minute, "in 1 day", "dans 1 jour"},
		{2 * 24 * time.Hour, "in 2 days", "dans 2 jours"},
		{29 * 24 * time.Hour, "in 29 days", "dans 29 jours"},
		{30 * 24 * time.Hour, "in 1 month", "dans 1 mois"},
		{-92 * 24 * time.Hour, "3 months ago", "il y a 3 mois"},
		{183 * 24 * time.Hour, "in 6 months", "dans 6 mois"},
		{365 * 24 * time.Hour, "in 1 year", "dans 1 an"},
		{-3 * 365 * 24 * time.Hour, "3 years ago", "il y a 3 ans"},
	} {
		for l, want := range map[tryLang]string{langEN: tc.en, langFR: tc.fr} {
			if got := relativeTime(tc.d, l); got != want {
				t.Errorf("relativeTime(%v, %s) = %q, want %q", tc.d, l, got, want)
			}
		}
	}
}

func TestTimeStyles(t *testing.T) {
	at := time.Date(2026, 12, 2, 15, 4, 5, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600) // no tz database: the same offset in December
	}
	for _, tc := range []struct {
		style, en, fr string
		loc           *time.Location
	}{
		{"t", "3:04 PM", "15:04", time.UTC},
		{"T", "3:04:05 PM", "15:04:05", time.UTC},
		{"d", "12/02/2026", "02/12/2026", time.UTC},
		{"D", "December 2, 2026", "2 décembre 2026", time.UTC},
		{"f", "December 2, 2026 3:04 PM", "2 décembre 2026 15:04", time.UTC},
		{"", "December 2, 2026 3:04 PM", "2 décembre 2026 15:04", time.UTC}, // no style: f
		{"F", "Wednesday, December 2, 2026 3:04 PM", "mercredi 2 décembre 2026 15:04", time.UTC},
		{"t", "4:04 PM", "16:04", paris}, // the viewer's time zone
		{"R", "in 3 hours", "dans 3 heures", time.UTC},
	} {
		for l, want := range map[tryLang]string{langEN: tc.en, langFR: tc.fr} {
			v := view{lang: l, now: at.Add(-3 * time.Hour).In(tc.loc)}
			if got := discordTime(at, tc.style, v); got != want {
				t.Errorf("discordTime(%q, %s, %v) = %q, want %q", tc.style, l, tc.loc, got, want)
			}
		}
	}
	// Through the markup, as the bot writes it (commands/render.go).
	fr := view{lang: langFR, now: at}
	if got := plainText("repart <t:1796256000:R>, le <t:1796256000:f>", fr); got != "repart dans 9 heures, le 3 décembre 2026 00:00" {
		t.Errorf("French timestamps: %q", got)
	}
}

// TestTryMessages checks that both message files load and hold the same
// messages with the same template fields, that the code names no message
// they lack, and that a missing key shows as itself.
func TestTryMessages(t *testing.T) {
	if _, err := tryLocalizers(); err != nil {
		t.Fatal(err)
	}
	// Each message as its text, a plural one as its forms (CLDR's: one and
	// other in English, one, many and other in French) one after the other.
	files := map[string]map[string]string{}
	for l, forms := range map[string][]string{"en": {"one", "other"}, "fr": {"one", "many", "other"}} {
		raw, err := os.ReadFile(filepath.Join("locales", l+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s.json: %v", l, err)
		}
		files[l] = map[string]string{}
		for id, v := range m {
			switch v := v.(type) {
			case string:
				files[l][id] = v
			case map[string]any:
				if len(v) != len(forms) {
					t.Errorf("%s %q: forms %v, want %v", l, id, v, forms)
				}
				for _, f := range forms {
					text, ok := v[f].(string)
					if !ok {
						t.Errorf("%s %q lacks the %q form", l, id, f)
					}
					files[l][id] += text
				}
			default:
				t.Errorf("%s %q: %T", l, id, v)
			}
		}
	}
	fields := regexp.MustCompile(`{{[^}]*}}`)
	for id, en := range files["en"] {
		fr, ok := files["fr"][id]
		if !ok {
			t.Errorf("fr.json lacks %q", id)
			continue
		}
		ef, ff := fields.FindAllString(en, -1), fields.FindAllString(fr, -1)
		slices.Sort(ef)
		slices.Sort(ff)
		if ef, ff = slices.Compact(ef), slices.Compact(ff); !slices.Equal(ef, ff) {
			t.Errorf("%s: English takes %v, French %v", id, ef, ff)
		}
	}
	for id := range files["fr"] {
		if _, ok := files["en"][id]; !ok {
			t.Errorf("en.json lacks %q", id)
		}
	}
	srcs, err := filepath.Glob("try*.go")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("the session's sources: %v %v", srcs, err)
	}
	used := regexp.MustCompile(`\.[tp]\("([a-z_]+)"|"(time_[a-z]+)"`)
	named := map[string]bool{}
	for _, f := range srcs {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllStringSubmatch(string(src), -1) {
			id := m[1] + m[2]
			named[id] = true
			if _, ok := files["en"][id]; !ok {
				t.Errorf("%s names message %q, which the files lack", f, id)
			}
		}
	}
	for id := range files["en"] {
		if !named[id] {
			t.Errorf("%q is in the files but no code names it", id)
		}
	}
	if got := langFR.t("no such key", nil); got != "no such key" {
		t.Errorf("a missing key: %q", got)
	}
	if got, want := langFR.t("want_range", map[string]any{"Min": "0", "Max": "9", "Value": `a"b`}), `un nombre de 0 à 9, pas "a\"b"`; got != want {
		t.Errorf("want_range in French: %q, want %q", got, want)
	}
}

// TestHelp checks that help lists every command and subcommand the bot
// registers, with its options and their choices, in each language.
func TestHelp(t *testing.T) {
	defs := testApp(t).Definitions()
	en, fr := helpText(defs, "", langEN), helpText(defs, "", langFR)
	var leaves int
	for _, c := range defs {
		if !hasSubcommands(c.Options) {
			leaves++
			continue
		}
		for _, sub := range c.Options {
			leaves++
			if want := "  /" + c.Name + " " + sub.Name; !strings.Contains(en, want) {
				t.Errorf("English help lacks %q", want)
			}
			if want := "  /" + (*c.NameLocalizations)[discordgo.French] + " " + sub.NameLocalizations[discordgo.French]; !strings.Contains(fr, want) {
				t.Errorf("French help lacks %q", want)
			}
		}
	}
	for _, h := range []string{en, fr} {
		if n := strings.Count(h, "\n  /"); n != leaves {
			t.Errorf("%d entries, want one per command or subcommand (%d):\n%s", n, leaves, h)
		}
	}
	for help, wants := range map[string][]string{
		en: {
			"  /limits show\n", "  /limits set [stake-day] [stake-week] [loss-day] [loss-week] [reminder]\n",
			"  /pause <length>\n      Take a break", "      length: 24h (24 hours), 7d (7 days), 30d (30 days), 6m (6 months)\n",
			"  /admin grant <user> <amount> [reason…]\n      (moderators) Add",
			"  /fairness verify <ticket>", "row 2", "as <user>",
		},
		fr: {
			"  /limites regler [mises-jour]", "  /pause <duree>\n      Faire une pause",
			"      duree : 24h (24 heures), 7d (7 jours), 30d (30 jours), 6m (6 mois)\n",
			"  /admin crediter <joueur> <montant> [raison…]\n      (modérateurs) Ajouter", "ligne 2", "Session :",
		},
	} {
		for _, want := range wants {
			if !strings.Contains(help, want) {
				t.Errorf("help lacks %q:\n%s", want, help)
			}
		}
	}
	if strings.Contains(fr, "Options go") || strings.Contains(en, "Les options") {
		t.Error("help mixes the languages")
	}

	// help /cmd: that command only, each option described.
	one := helpText(defs, "/admin grant", langEN)
	if !strings.HasPrefix(one, "  /admin grant <user> <amount> [reason…]\n") || !strings.Contains(one, "      amount: Credits, e.g. 12.50 or -5\n") ||
		strings.Contains(one, "/admin reset") {
		t.Errorf("help /admin grant:\n%s", one)
	}
	if one := helpText(defs, "equite", langFR); !strings.Contains(one, "  /equite verifier <ticket>\n") || strings.Contains(one, "/jouer") {
		t.Errorf("help equite:\n%s", one)
	}
	if got := helpText(defs, "/dance", langFR); got != "help : pas de commande /dance ; help seul les liste\n" {
		t.Errorf("help /dance: %q", got)
	}
	want := "  /pause <duree>\n      Faire une pause : ni parties ni bonus quotidien pendant un temps (avec confirmation)\n" +
		"      duree : Combien de temps : impossible d'écourter une fois confirmé\n        24h (24 heures), 7d (7 jours), 30d (30 jours), 6m (6 mois)\n"
	if got := helpText(defs, "pause", langFR); got != want {
		t.Errorf("help pause:\n%s\nwant\n%s", got, want)
	}
}

// TestParseSlashChoices checks that a bad choice lists the valid ones: an
// unknown command, subcommand or option value, in each language.
func TestParseSlashChoices(t *testing.T) {
	defs := testApp(t).Definitions()
	for _, tc := range []struct {
		text string
		l    tryLang
		want string
	}{
		{"dance", langEN, "unknown command /dance: the bot has /play /balance /rules /leaderboard /daily /history /fairness /limits /pause /admin"},
		{"dance", langFR, "commande inconnue /dance : le bot a /jouer /solde /regles /classement /bonus /historique /equite /limites /pause /admin"},
		{"fairness", langEN, "/fairness needs one of: show, seed, rotate, verify, export (e.g. /fairness show)"},
		{"equite bogus", langFR, `/equite n'a pas de "bogus" : l'une de afficher, graine, reveler, verifier, exporter (par ex. /equite afficher)`},
		{"pause 2h", langEN, `/pause: length: "2h" is not a choice: want one of 24h (24 hours), 7d (7 days), 30d (30 days), 6m (6 months); usage: /pause <length>`},
		{"pause 2h", langFR, `/pause : duree : "2h" n'est pas un choix : l'un de 24h (24 heures), 7d (7 jours), 30d (30 jours), 6m (6 mois) ; usage : /pause <duree>`},
		{"pause", langFR, "/pause : option duree manquante ; usage : /pause <duree>"},
		{"admin grant @42 x y", langEN, ""}, // amounts are text: the bot checks them
		{"admin settings min-interval:4000", langEN, `/admin settings: min-interval: want a number from 0 to 3600, got "4000"`},
		{"limites regler rappel:abc", langFR, `/limites regler : rappel : un nombre entier, pas "abc"`},
	} {
		_, err := parseSlash(tc.text, defs, tc.l)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("/%s: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("/%s (%s):\n got %v\nwant %s", tc.text, tc.l, err, tc.want)
		}
	}
	// A choice by its value or its name in either language, in any case
	// and with or without accents.
	for _, text := range []string{"pause 7d", "pause 7D", "pause 7 days", "pause 7 JOURS", "pause duree:7d", "pause durée:7 jours"} {
		sl, err := parseSlash(text, defs, langEN)
		if err != nil || len(sl.Options) != 1 || sl.Options[0].Value != "7d" {
			t.Errorf("/%s: %+v %v", text, sl.Options, err)
		}
	}
	if sl, err := parseSlash("Équité Vérifier 3", defs, langFR); err != nil || sl.Name != "fairness" || sl.Sub != "verify" || sl.Options[0].Value != int64(3) {
		t.Errorf("accented French names: %+v %v", sl, err)
	}
}

// TestPressedBy checks which words press which button.
func TestPressedBy(t *testing.T) {
	btn := func(id, label string) *discordgo.Button { return &discordgo.Button{CustomID: id, Label: label} }
	confirmFR := btn("v1:pz:42:0:1796256000", "Oui, mettre mon jeu en pause")
	cancelFR := btn("v1:pzx:42:0:1796256000", "Annuler")
	row2 := btn("v1:row:42:1:1", "Row 2")
	chestFR := btn("v1:chest:42:1", "Ouvrir le coffre")
	again := btn("v1:again:42:1", "Rejouer (0,50)")
	for _, tc := range []struct {
		typed string
		b     *discordgo.Button
		want  bool
	}{
		{"oui", confirmFR, true}, {"yes", confirmFR, true}, {"Oui, mettre", confirmFR, true}, {"confirm", confirmFR, true},
		{"annuler", confirmFR, false}, {"ANNULER", cancelFR, true}, {"cancel", cancelFR, true}, {"non", cancelFR, true},
		{"row 2", row2, true}, {"ligne 2", row2, true}, {"Row 3", row2, false}, {"row", row2, true},
		{"open", chestFR, true}, {"ouvrir", chestFR, true}, {"ouvrir le coffre", chestFR, true}, {"le coffre", chestFR, false},
		{"rejouer", again, true}, {"play again", again, true}, {"again", again, true}, {"réjouer", again, true},
		{"", again, false}, {"auto", again, false},
	} {
		if got := pressedBy(words(tc.typed), tc.b); got != tc.want {
			t.Errorf("pressedBy(%q, %q) = %v, want %v", tc.typed, tc.b.Label, got, tc.want)
		}
	}
}
