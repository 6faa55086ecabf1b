package commands

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"pgregory.net/rapid"

	"github.com/lesclefsdutresor/clefs/game"
)

// TestLocalesComplete checks that both message files define the same ids,
// with the plural forms each language needs, and that every id the code
// names exists.
func TestLocalesComplete(t *testing.T) {
	files := map[string]map[string]any{"en": localeMessages(t, "en"), "fr": localeMessages(t, "fr")}
	for id, v := range files["en"] {
		fv, ok := files["fr"][id]
		if !ok {
			t.Errorf("fr.json lacks %q", id)
			continue
		}
		if _, plural := v.(map[string]any); plural {
			fp, ok := fv.(map[string]any)
			if !ok {
				t.Errorf("%q is plural in English only", id)
				continue
			}
			for _, form := range []string{"one", "many", "other"} {
				if _, ok := fp[form]; !ok {
					t.Errorf("fr %q lacks the %q form", id, form)
				}
			}
		}
	}
	for id := range files["fr"] {
		if _, ok := files["en"][id]; !ok {
			t.Errorf("en.json lacks %q", id)
		}
	}

	// Ids named in the code: T("id"…), P("id"…), userErr("id"…), and the
	// prefixed families.
	used := map[string]bool{}
	re := regexp.MustCompile(`(?:\.T|\.P|userErr)\("([a-z_]*[a-z])"`)
	srcs, _ := filepath.Glob("*.go")
	for _, f := range srcs {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		raw, _ := os.ReadFile(f)
		for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
			used[m[1]] = true
		}
	}
	for _, id := range []string{"admin_granted", "admin_debited", "admin_set"} {
		used[id] = true
	}
	for s := game.Symbol(0); s < game.NumSymbols; s++ {
		used["sym_"+s.String()] = true
	}
	for l := game.Lot(0); l < game.NumLots; l++ {
		used["lot_"+l.String()] = true
	}
	if len(used) < 50 {
		t.Fatalf("found only %d message ids in the code", len(used))
	}
	var missing []string
	for id := range used {
		if _, ok := files["en"][id]; !ok {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("ids used but not defined: %v", missing)
	}
}

func TestPlurals(t *testing.T) {
	c := testCatalog(t)
	keys := func(l *lang, n int) string { return l.P("keys", n, map[string]any{"Count": n}) }
	// keys and credits at 0, 1 and 2: TestCountedMessages.
	cases := []struct{ got, want string }{
		{keys(c.fr, 3), "3 clefs sur 3"},
		{c.fr.Credits(199), "1,99 crédit"},
		{c.fr.Credits(1250), "12,50 crédits"},
		{c.fr.Credits(500000), "5\u202f000,00 crédits"},
		{c.en.Credits(1250), "12.50 credits"},
		{c.en.Credits(500000), "5,000.00 credits"},
		{c.en.Credits(-50), "-0.50 credits"},
		{c.en.Signed(450), "+4.50 credits"},
		{c.fr.P("stat_plays", 1000000, map[string]any{"Count": 1000000}), "1000000 de parties"},
	}
	for _, cs := range cases {
		if cs.got != cs.want {
			t.Errorf("got %q, want %q", cs.got, cs.want)
		}
	}
}

func TestLocaleChoice(t *testing.T) {
	c := testCatalog(t)
	for loc, fr := range map[discordgo.Locale]bool{
		"fr": true, "fr-CA": true, "en-US": false, "en-GB": false, "de": false, "": false, "xx-garbage": false,
	} {
		if got := c.forLocale(loc).fr; got != fr {
			t.Errorf("locale %q: French=%v, want %v", loc, got, fr)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	cases := []struct {
		cents  int64
		en, fr string
	}{
		{0, "0.00", "0,00"},
		{5, "0.05", "0,05"},
		{1250, "12.50", "12,50"},
		{100000, "1,000.00", "1\u202f000,00"},
		{-123456789, "-1,234,567.89", "-1\u202f234\u202f567,89"},
		{-9223372036854775808, "-92,233,720,368,547,758.08", "-92\u202f233\u202f720\u202f368\u202f547\u202f758,08"},
	}
	for _, c := range cases {
		if got := formatAmount(c.cents, false); got != c.en {
			t.Errorf("en %d: %q, want %q", c.cents, got, c.en)
		}
		if got := formatAmount(c.cents, true); got != c.fr {
			t.Errorf("fr %d: %q, want %q", c.cents, got, c.fr)
		}
	}
}

// TestCreditsPluralForms: in English one whole credit is singular ("1.00
// credit") and every other amount plural ("0.50 credits", "0.00 credits");
// in French the singular goes with an integer part of 0 or 1 ("1,99
// crédit", "2,00 crédits"), per CLDR.
func TestCreditsPluralForms(t *testing.T) {
	c := testCatalog(t)
	rapid.Check(t, func(rt *rapid.T) {
		cents := rapid.OneOf(
			rapid.Int64Range(-25000, 25000),
			rapid.Int64(),
			rapid.SampledFrom([]int64{0, 1, 99, 100, 101, 199, 200, -199, -200, 1<<63 - 1, -1 << 63}),
		).Draw(rt, "cents")
		enUnit := " credits"
		if cents == 100 || cents == -100 {
			enUnit = " credit"
		}
		if got, want := c.en.Credits(cents), formatAmount(cents, false)+enUnit; got != want {
			rt.Fatalf("en Credits(%d) = %q, want %q", cents, got, want)
		}
		unit := " crédits"
		if -200 < cents && cents < 200 {
			unit = " crédit"
		}
		if got, want := c.fr.Credits(cents), formatAmount(cents, true)+unit; got != want {
			rt.Fatalf("fr Credits(%d) = %q, want %q", cents, got, want)
		}
	})
}

// TestCardLines checks the lines of a finished card and of an opened chest,
// word for word, in both languages.
func TestCardLines(t *testing.T) {
	a := New(Config{Logger: discardLogger(), Emoji: [game.NumSymbols]string{game.Key: "<:key:123>"}}, nil)
	win := func(l *lang, s game.Symbol, prize int64) *discordgo.InteractionResponseData {
		o := game.Outcome{Tier: tierOf(t, s), Prize: prize, Row: 0,
			Grid: game.Grid{s, s, s, game.Key, game.Pipe, game.Bomb, game.Sabre, game.Candle, game.Barrel}}
		p := game.Player{Seed: game.Seed{41}, TicketSeq: 41}
		return a.ticketCard(l, &ticketView{user: alice, p: p, t: game.Ticket{ID: 41, Drawn: true, Outcome: o, Revealed: game.AllRows}})
	}
	commitment := game.Seed{41}.Commitment().Short()
	lastLine := func(d *discordgo.InteractionResponseData) string {
		lines := strings.Split(d.Embeds[0].Description, "\n")
		return lines[len(lines)-1]
	}
	cases := []struct {
		got, want string
	}{
		{lastLine(win(a.cat.en, game.Gem, 500000)), "🎉 **Three gems!** You win **5,000.00 credits**."},
		{lastLine(win(a.cat.fr, game.Barrel, 50)), "🎉 **Trois tonneaux !** Vous gagnez **0,50 crédit**."},
		{win(a.cat.en, game.Gem, 500000).Embeds[0].Footer.Text, "Ticket #41 · stake 0.50 credits · seed " + commitment},
		{win(a.cat.fr, game.Gem, 500000).Embeds[0].Footer.Text, "Ticket n° 41 · mise 0,50 crédit · graine " + commitment},
		{chestLine(a.cat.en, game.Chest{Lot: game.LotGold, Prize: 500}), "🪙 You find **one gold coin**: **5.00 credits**!"},
		{chestLine(a.cat.fr, game.Chest{Lot: game.LotThreeGold, Prize: 1000000}),
			"💰 Vous découvrez **trois pièces d'or** : **10\u202f000,00 crédits** !"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	// A key found: the line names the configured emoji.
	o := game.Outcome{Tier: game.TierLoss, Key: true, Row: -1,
		Grid: game.Grid{game.Gem, game.Pipe, game.Gem, game.Bomb, game.Sabre, game.Bomb, game.Sabre, game.Key, game.Barrel}}
	d := a.ticketCard(a.cat.en, &ticketView{user: alice, t: game.Ticket{ID: 2, Drawn: true, Outcome: o, Revealed: game.AllRows}})
	if got, want := lastLine(d), "<:key:123> **You found a key!**"; got != want {
		t.Errorf("key line %q, want %q", got, want)
	}
}

// tierOf is the winning tier of three s.
func tierOf(tb testing.TB, s game.Symbol) game.Tier {
	tb.Helper()
	for tier := game.Tier(0); tier < game.NumTiers; tier++ {
		if tier.Winning() && tier.Symbol() == s {
			return tier
		}
	}
	tb.Fatalf("no tier for %v", s)
	return 0
}
