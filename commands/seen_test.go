package commands

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// otherRow returns a row other than r.
func otherRow(r int) int { return (r + 1) % 3 }

// TestNoViewSpoilsATicket: the store credits a ticket at its draw, but while
// its rows are being revealed /balance, /history, /leaderboard and /limits
// show the figures from before the draw and say that a ticket is being
// revealed, as the card does; once every row is shown they show the real
// ones. /admin player too: it says a ticket is being revealed, never what
// it brings.
func TestNoViewSpoilsATicket(t *testing.T) {
	e := newEnv(t)
	o := storetest.Win(game.TierBomb)
	e.drawer.force(o)
	e.setBalance(bob, 2500) // between alice's balance before the draw and after
	const (
		before    = "19.50 credits" // startCents − the stake
		after     = "29.50 credits" // and the prize
		revealing = "Ticket #1 is being revealed"
	)

	card := e.slash(alice, "en-US", "play")
	p := e.player(alice)
	card = e.click(alice, card.message(), rowID(alice, p.Ticket.ID, otherRow(int(o.Row))))
	p = e.player(alice)
	if !p.Ticket.Drawn || p.Balance != startCents-game.Stake+o.Prize {
		t.Fatalf("after one row: ticket %+v, balance %d: the store credits at the draw", p.Ticket, p.Balance)
	}
	if txt := card.text(); !strings.Contains(txt, before) || strings.Contains(txt, after) {
		t.Fatalf("card after one row shows:\n%s", txt)
	}

	b := e.slash(alice, "en-US", "balance").text()
	for _, want := range []string{"**" + before + "**", revealing, "1 play", "0 winning plays", "Best win: 0.00 credits"} {
		if !strings.Contains(b, want) {
			t.Errorf("/balance while revealing lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, after) || strings.Contains(b, "10.00") {
		t.Errorf("/balance while revealing shows the prize:\n%s", b)
	}

	h := e.slash(alice, "en-US", "history").text()
	if !strings.Contains(h, revealing) || strings.Contains(h, "ticket #1") || !strings.Contains(h, "Nothing yet") {
		t.Errorf("/history while revealing:\n%s", h)
	}

	lb := e.slash(alice, "en-US", "leaderboard").text()
	if !strings.Contains(lb, revealing) || strings.Contains(lb, after) {
		t.Errorf("/leaderboard while revealing:\n%s", lb)
	}
	bobAt, aliceAt := strings.Index(lb, "<@"+strconv.FormatUint(bob, 10)+"> — 25.00 credits"), strings.Index(lb, "<@"+strconv.FormatUint(alice, 10)+"> — "+before)
	if bobAt < 0 || aliceAt < 0 || bobAt > aliceAt {
		t.Errorf("/leaderboard while revealing: want bob (25.00) above alice (%s):\n%s", before, lb)
	}
	if lb := e.slash(bob, "en-US", "leaderboard").text(); strings.Contains(lb, revealing) || strings.Contains(lb, after) {
		t.Errorf("bob's /leaderboard while alice reveals:\n%s", lb)
	}

	if l := e.limits(alice, "en-US", "show").text(); !strings.Contains(l, revealing) || !strings.Contains(l, "Lost: 0.50 credits") {
		t.Errorf("/limits while revealing, want the stake lost and no prize:\n%s", l)
	}

	ad := e.admin(moderator, modPermsSet, "player", opt{"user", optUser, strconv.FormatUint(alice, 10)}).text()
	if !strings.Contains(ad, "**"+before+"**") || !strings.Contains(ad, "Being revealed") ||
		strings.Contains(ad, after) || strings.Contains(ad, "10.00") || !strings.Contains(ad, "No history yet") {
		t.Errorf("/admin player while revealing, want the balance from before and no prize:\n%s", ad)
	}

	// Every row shown: the real figures everywhere.
	card = e.click(alice, card.message(), autoID(alice, p.Ticket.ID))
	if txt := card.text(); !strings.Contains(txt, after) {
		t.Fatalf("finished card:\n%s", txt)
	}
	b = e.slash(alice, "en-US", "balance").text()
	for _, want := range []string{"**" + after + "**", "1 winning play", "Best win: 10.00 credits"} {
		if !strings.Contains(b, want) {
			t.Errorf("/balance once finished lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, revealing) {
		t.Errorf("/balance once finished still says it is revealing:\n%s", b)
	}
	if h := e.slash(alice, "en-US", "history").text(); strings.Contains(h, revealing) || !strings.Contains(h, "ticket #1") {
		t.Errorf("/history once finished:\n%s", h)
	}
	lb = e.slash(alice, "en-US", "leaderboard").text()
	if !strings.Contains(lb, "🥇 <@"+strconv.FormatUint(alice, 10)+"> — "+after) || strings.Contains(lb, revealing) {
		t.Errorf("/leaderboard once finished, want alice first with %s:\n%s", after, lb)
	}
	ad = e.admin(moderator, modPermsSet, "player", opt{"user", optUser, strconv.FormatUint(alice, 10)}).text()
	if strings.Contains(ad, "Being revealed") || !strings.Contains(ad, "**"+after+"**") {
		t.Errorf("/admin player once finished, want %s and no label:\n%s", after, ad)
	}
}

// TestNoViewSpoilsAKey: the key a ticket found shows in /balance once its
// row is shown, as on the card.
func TestNoViewSpoilsAKey(t *testing.T) {
	e := newEnv(t)
	o := storetest.Loss(true)
	keyRow := -1
	for i, s := range o.Grid {
		if s == game.Key {
			keyRow = i / 3
		}
	}
	e.drawer.force(o)
	card := e.slash(alice, "fr", "play")
	p := e.player(alice)
	card = e.click(alice, card.message(), rowID(alice, p.Ticket.ID, otherRow(keyRow)))
	if p = e.player(alice); p.Keys != 1 {
		t.Fatalf("after the draw: %d keys stored, want 1", p.Keys)
	}
	b := e.slash(alice, "fr", "balance").text()
	if !strings.Contains(b, "0 clef sur 3") || !strings.Contains(b, "Ticket n° 1 en cours de révélation") {
		t.Errorf("/solde while the key's row is hidden:\n%s", b)
	}
	e.click(alice, card.message(), rowID(alice, p.Ticket.ID, keyRow))
	b = e.slash(alice, "fr", "balance").text()
	if !strings.Contains(b, "1 clef sur 3") {
		t.Errorf("/solde once the key's row is shown:\n%s", b)
	}
}

// TestNoViewSpoilsADailyBonus: a bonus claimed while a ticket is revealed
// tells the balance without the hidden prize, and /history shows its line
// without the ticket's.
func TestNoViewSpoilsADailyBonus(t *testing.T) {
	e := newEnv(t)
	o := storetest.Win(game.TierBomb)
	e.drawer.force(o)
	card := e.slash(alice, "en-US", "play")
	p := e.player(alice)
	e.click(alice, card.message(), rowID(alice, p.Ticket.ID, otherRow(int(o.Row))))
	const seen, real = "24.50 credits", "34.50 credits" // 20.00 − 0.50 + 5.00 bonus, and + 10.00
	if d := e.slash(alice, "en-US", "daily").text(); !strings.Contains(d, seen) || strings.Contains(d, real) {
		t.Errorf("/daily while revealing, want %s:\n%s", seen, d)
	}
	h := e.slash(alice, "en-US", "history").text()
	if !strings.Contains(h, "daily bonus") || strings.Contains(h, "ticket #1") {
		t.Errorf("/history while revealing, want the bonus and no ticket line:\n%s", h)
	}
	if p := e.player(alice); p.Balance != 3450 {
		t.Errorf("stored balance %d, want 3450", p.Balance)
	}
}

// TestNoExportSpoilsATicket: /fairness export leaves out the line of a
// ticket being revealed, and has it once the ticket is finished.
func TestNoExportSpoilsATicket(t *testing.T) {
	e := newFairEnv(t)
	e.playTicket(alice, "en-US")
	card := e.slash(alice, "en-US", "play")
	p := e.player(alice)
	e.click(alice, card.message(), rowID(alice, p.Ticket.ID, 0))
	lines := func() []uint64 {
		t.Helper()
		name, b := exportFile(t, e.fairness(alice, "en-US", "export"))
		x, err := schema.DecodePublicExport(name, b)
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint64
		for _, h := range x.History {
			if h.Kind == game.KindPlay {
				ids = append(ids, h.TicketID)
			}
		}
		return ids
	}
	if got := lines(); !slices.Equal(got, []uint64{1}) {
		t.Errorf("export while ticket 2 is revealed has the lines of tickets %v, want [1]", got)
	}
	e.click(alice, card.message(), autoID(alice, p.Ticket.ID))
	if got := lines(); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("export once ticket 2 is finished has the lines of tickets %v, want [1 2]", got)
	}
}
