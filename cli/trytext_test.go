package cli

import (
	"context"
	"path/filepath"
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

// recorder is a commands.Responder that keeps the message the handlers
// made: the response, then any edit of it.
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

func (r *recorder) EditOriginal(_ context.Context, _ *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.msg == nil {
		r.msg = &discordgo.Message{ID: "5000", ChannelID: "2000"}
	}
	if e.Embeds != nil {
		r.msg.Embeds = *e.Embeds
	}
	if e.Components != nil {
		r.msg.Components = *e.Components
	}
	if e.Content != nil {
		r.msg.Content = *e.Content
	}
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
	got := renderMessage(card, false, time.Now())
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

	// Auto reveals the nine cells: each is one of the symbols' fallbacks,
	// none hidden, and every button of the first row is greyed.
	var auto string
	for _, c := range card.Components {
		for _, b := range c.(discordgo.ActionsRow).Components {
			if id := b.(discordgo.Button).CustomID; buttonIs(id, "auto", -1) {
				auto = id
			}
		}
	}
	if auto == "" {
		t.Fatalf("no auto button: %+v", card.Components)
	}
	done := handle(t, app, &discordgo.Interaction{
		Type:    discordgo.InteractionMessageComponent,
		Message: card,
		Data:    discordgo.MessageComponentInteractionData{CustomID: auto, ComponentType: discordgo.ButtonComponent},
	})
	got = renderMessage(done, false, time.Now())
	symbols := map[string]bool{"💎": true, "🪈": true, "💣": true, "🗡️": true, "🕯️": true, "🛢️": true, "🗝️": true}
	lines := strings.Split(got, "\n")
	cells := 0
	for _, l := range lines[1:4] {
		f := strings.Fields(strings.TrimPrefix(l, frame))
		if len(f) != 4 {
			t.Fatalf("grid line %q: want a marker and 3 cells", l)
		}
		for _, c := range f[1:] {
			if !symbols[c] {
				t.Errorf("cell %q of %q is not a symbol", c, l)
			}
			cells++
		}
	}
	if cells != 9 {
		t.Errorf("%d cells, want 9", cells)
	}
	if !strings.Contains(got, "[▶️ Row 1"+greyed+"] [▶️ Row 2"+greyed+"] [▶️ Row 3"+greyed+"] [⚡ Auto"+greyed+"]") {
		t.Errorf("finished card's arrows not greyed:\n%s", got)
	}
	if strings.Contains(got, "<:") {
		t.Errorf("custom emoji left as markup:\n%s", got)
	}
}

func TestRenderEphemeral(t *testing.T) {
	app := testApp(t)
	rules := handle(t, app, &discordgo.Interaction{
		Type:   discordgo.InteractionApplicationCommand,
		Locale: discordgo.French,
		Data:   discordgo.ApplicationCommandInteractionData{Name: "rules"},
	})
	got := renderMessage(rules, rules.Flags&discordgo.MessageFlagsEphemeral != 0, time.Now())
	if !strings.HasPrefix(got, "(only you)\n┃ ") {
		t.Errorf("ephemeral /rules not marked:\n%s", got)
	}
	if !strings.Contains(got, "Le jeu principal") {
		t.Errorf("French /rules lacks its title:\n%s", got)
	}

	msg := renderMessage(&discordgo.Message{Content: "❌ No."}, true, time.Now())
	if msg != "(only you) ❌ No.\n" {
		t.Errorf("ephemeral content: %q", msg)
	}
}

func TestPlainText(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct{ in, want string }{
		{"<:clefs_gem:1234567890> <:clefs_pipe:1> <:clefs_hidden:9>", "💎 🪈 ❔"},
		{"<a:clefs_key:42> and <:sparkles_x:7>", "🗝️ and :sparkles_x:"},
		{"**Auto** for all", "Auto for all"},
		{"<@42> thanks <@!43>", "@user42 thanks @user43"},
		{"next bonus <t:1700010800:R>", "next bonus in 3h00m"},
		{"claimed <t:1699999880:R>", "claimed 2m ago"},
		{"plain 1 < 2 > 0 <t:x>", "plain 1 < 2 > 0 <t:x>"},
	} {
		if got := plainText(tc.in, now); got != tc.want {
			t.Errorf("plainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestButtonText(t *testing.T) {
	for _, tc := range []struct {
		b    discordgo.Button
		want string
	}{
		{discordgo.Button{Label: "Play again (0.50)", Emoji: &discordgo.ComponentEmoji{Name: "🔁"}}, "[🔁 Play again (0.50)]"},
		{discordgo.Button{Label: "Row 1", Emoji: &discordgo.ComponentEmoji{Name: "▶️"}, Disabled: true}, "[▶️ Row 1" + greyed + "]"},
		{discordgo.Button{Label: "Open", Emoji: &discordgo.ComponentEmoji{Name: "clefs_key", ID: "1"}}, "[🗝️ Open]"},
		{discordgo.Button{Label: "Odd", Emoji: &discordgo.ComponentEmoji{Name: "odd", ID: "1"}}, "[:odd: Odd]"},
	} {
		if got := buttonText(&tc.b); got != tc.want {
			t.Errorf("buttonText(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestRenderAttachments(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 B"}, {999, "999 B"}, {1000, "1.0 kB"}, {2149, "2.1 kB"}, {999_949, "999.9 kB"}, {3_400_000, "3.4 MB"}} {
		if got := byteSize(tc.n); got != tc.want {
			t.Errorf("byteSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	files := []*discordgo.MessageAttachment{{Filename: "clefs-equite-42.json", Size: 2149}, {Filename: "b.txt", Size: 3}}
	got := renderMessage(&discordgo.Message{Content: "Your export", Attachments: files}, true, time.Now())
	if want := "(only you) Your export\n📎 clefs-equite-42.json (2.1 kB)\n📎 b.txt (3 B)\n"; got != want {
		t.Errorf("message with files:\n%q\nwant\n%q", got, want)
	}
	// Nothing but a file is not an empty message.
	got = renderMessage(&discordgo.Message{Attachments: files[1:]}, true, time.Now())
	if want := "(only you) 📎 b.txt (3 B)\n"; got != want {
		t.Errorf("file only: %q, want %q", got, want)
	}
}
