package commands

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

// gridRows returns the three rows of the card's grid as cells.
func gridRows(tb testing.TB, h *handled) [3][3]string {
	tb.Helper()
	var rows [3][3]string
	n := 0
	for _, line := range strings.Split(h.r.Data.Embeds[0].Description, "\n") {
		if !(strings.HasPrefix(line, arrowMark) || strings.HasPrefix(line, shownMark) || strings.HasPrefix(line, winMark)) {
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 4 || n == 3 {
			tb.Fatalf("bad grid line %q", line)
		}
		copy(rows[n][:], f[1:])
		n++
	}
	if n != 3 {
		tb.Fatalf("card shows %d grid rows:\n%s", n, h.text())
	}
	return rows
}

// checkTruthful checks that alice's card shows exactly the stored ticket:
// the revealed rows' symbols, hidden cells elsewhere, the revealed rows'
// buttons disabled, and the balance the credits paid imply.
func checkTruthful(tb testing.TB, a *App, h *handled, p game.Player) {
	tb.Helper()
	t := p.Ticket
	if t == nil {
		tb.Fatal("player has no ticket")
	}
	rows := gridRows(tb, h)
	for r := 0; r < 3; r++ {
		shown := t.Drawn && t.Revealed&(1<<r) != 0
		for c := 0; c < 3; c++ {
			want := a.glyphs().hidden
			if shown {
				want = a.glyphs().sym[t.Outcome.Grid[3*r+c]]
			}
			if rows[r][c] != want {
				tb.Errorf("row %d col %d shows %q, stored %q (ticket %+v)", r, c, rows[r][c], want, t)
			}
		}
		b := h.mustButton(rowID(alice, t.ID, r))
		if b.Disabled != shown {
			tb.Errorf("row %d button disabled=%v, row shown=%v", r, b.Disabled, shown)
		}
	}
	// Credits: the card's balance is the stored one once all is shown.
	if !t.Open() {
		txt := h.text()
		if !strings.Contains(txt, formatAmount(p.Balance, false)) {
			tb.Errorf("card does not show balance %s:\n%s", formatAmount(p.Balance, false), txt)
		}
		if t.Outcome.Tier.Winning() && !strings.Contains(txt, formatAmount(t.Outcome.Prize, false)) {
			tb.Errorf("card does not show prize %d:\n%s", t.Outcome.Prize, txt)
		}
		if !t.Outcome.Tier.Winning() && !strings.Contains(txt, "No winning row") {
			tb.Errorf("losing card does not say so:\n%s", txt)
		}
	}
}

func TestPlayRowByRow(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	if h.r.Type != discordgo.InteractionResponseChannelMessageWithSource || h.ephemeral() {
		t.Fatalf("/play: type %d ephemeral %v, want a public message", h.r.Type, h.ephemeral())
	}
	p := e.player(alice)
	if p.Balance != startCents-game.Stake || p.Ticket == nil || p.Ticket.Drawn {
		t.Fatalf("after /play: balance %d ticket %+v", p.Balance, p.Ticket)
	}
	checkTruthful(t, e.app, h, p)
	if _, ok := h.button("v1:again:"); ok {
		t.Fatal("Play again shown before the end")
	}
	if !strings.Contains(h.text(), formatAmount(startCents-game.Stake, false)) {
		t.Errorf("hidden card does not show the balance after the stake:\n%s", h.text())
	}

	for k, r := range []int{1, 0, 2} {
		id := rowID(alice, p.Ticket.ID, r)
		h = e.click(alice, h.message(), id)
		if h.r.Type != discordgo.InteractionResponseUpdateMessage {
			t.Fatalf("click %s: type %d, want UPDATE_MESSAGE", id, h.r.Type)
		}
		p = e.player(alice)
		if !p.Ticket.Drawn || p.Ticket.Revealed != revealedAfter(k, []int{1, 0, 2}) {
			t.Fatalf("after %d clicks: ticket %+v", k+1, p.Ticket)
		}
		checkTruthful(t, e.app, h, p)
	}
	o := p.Ticket.Outcome
	if p.Balance != startCents-game.Stake+o.Prize {
		t.Errorf("balance %d, want %d - %d + %d", p.Balance, startCents, game.Stake, o.Prize)
	}
	h.mustButton(againID(alice, p.Ticket.ID))
	if e.obs.plays != 1 || e.obs.purchases != 1 {
		t.Errorf("observer: %d plays, %d purchases, want 1 and 1", e.obs.plays, e.obs.purchases)
	}
}

func revealedAfter(k int, order []int) game.RowMask {
	var m game.RowMask
	for _, r := range order[:k+1] {
		m |= 1 << r
	}
	return m
}

func TestPlayAutoAndPlayAgain(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	want := startCents - game.Stake
	for n := 1; n <= 12; n++ {
		p := e.player(alice)
		h = e.click(alice, h.message(), autoID(alice, p.Ticket.ID))
		p = e.player(alice)
		want += p.Ticket.Outcome.Prize
		if p.Balance != want {
			t.Fatalf("play %d: balance %d, want %d", n, p.Balance, want)
		}
		checkTruthful(t, e.app, h, p)
		if p.ChestDue {
			h = e.click(alice, h.message(), h.mustButton("v1:chest:").CustomID)
			p = e.player(alice)
			want += p.LastChest.Prize
			if p.Balance != want {
				t.Fatalf("chest: balance %d, want %d", p.Balance, want)
			}
		}
		h = e.click(alice, h.message(), h.mustButton("v1:again:").CustomID)
		// Plays are public here: the finished card stays, the next ticket is a new message.
		if h.r.Type != discordgo.InteractionResponseChannelMessageWithSource || h.ephemeral() {
			t.Fatalf("play again: type %d, ephemeral %v; want a new public message", h.r.Type, h.ephemeral())
		}
		p = e.player(alice)
		want -= game.Stake
		if p.Balance != want || p.Stats.Plays != int64(n+1) {
			t.Fatalf("after play again %d: balance %d (want %d), plays %d", n, p.Balance, want, p.Stats.Plays)
		}
	}
	if err := e.player(alice).Check(); err != nil {
		t.Fatal(err)
	}
}

func TestDoubleClickDrawsAndPaysOnce(t *testing.T) {
	for _, kind := range []string{"auto", "row", "again"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			e.drawer.setWant(func(o game.Outcome) bool { return o.Tier.Winning() })
			h := e.slash(alice, "en-US", "play")
			p := e.player(alice)
			id := autoID(alice, p.Ticket.ID)
			if kind == "row" {
				id = rowID(alice, p.Ticket.ID, 0)
			}
			if kind == "again" {
				h = e.click(alice, h.message(), id)
				id = againID(alice, p.Ticket.ID)
			}
			results := e.clickAtOnce(8, h.message(), id)
			for _, r := range results[1:] {
				if r.text() != results[0].text() {
					t.Fatalf("double click rendered different cards:\n%s\n---\n%s", results[0].text(), r.text())
				}
			}
			p = e.player(alice)
			switch kind {
			case "again":
				if p.Stats.Plays != 2 || p.Balance != startCents-2*game.Stake+p.Stats.WonCents {
					t.Fatalf("8 clicks on Play again: plays %d, balance %d", p.Stats.Plays, p.Balance)
				}
			default:
				if p.Stats.Plays != 1 || p.Stats.Wins != 1 || p.Balance != startCents-game.Stake+p.Ticket.Outcome.Prize {
					t.Fatalf("8 clicks: plays %d wins %d balance %d", p.Stats.Plays, p.Stats.Wins, p.Balance)
				}
			}
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			e.obs.mu.Lock()
			plays := e.obs.plays
			e.obs.mu.Unlock()
			drawn := int(p.Stats.Plays)
			if !p.Ticket.Drawn {
				drawn-- // Play again's new ticket is not drawn yet
			}
			if plays != drawn {
				t.Fatalf("metrics counted %d draws for %d drawn tickets", plays, drawn)
			}
		})
	}
}

var payloadMu sync.Mutex

// clickOnCard builds, from any goroutine, a click on id from a card that
// carries that button.
func (e *env) clickOnCard(user uint64, id string) *discordgo.Interaction {
	return e.clickPayloadLocked(user, cardWith(id), id)
}

// clickAtOnce has alice click id on msg n times at once, and returns the
// first response of each click.
func (e *env) clickAtOnce(n int, msg *discordgo.Message, id string) []*handled {
	res := make([]*handled, n)
	var wg sync.WaitGroup
	for k := range res {
		wg.Go(func() {
			rec := &recorder{}
			e.app.Handle(context.Background(), rec, e.clickPayloadLocked(alice, msg, id))
			res[k] = &handled{t: e.t, rec: rec, r: rec.responses[0]}
		})
	}
	wg.Wait()
	return res
}

func (e *env) clickPayloadLocked(user uint64, msg *discordgo.Message, id string) *discordgo.Interaction {
	payloadMu.Lock()
	defer payloadMu.Unlock()
	return e.clickPayload(user, memberPerms, "en-US", msg, id)
}

func TestSomeoneElsesButtons(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	p := e.player(alice)
	// The arrows on the card itself, and Play again and the chest from
	// cards of alice's that carry them.
	for _, c := range []struct {
		msg *discordgo.Message
		id  string
	}{
		{h.message(), rowID(alice, p.Ticket.ID, 0)},
		{h.message(), autoID(alice, p.Ticket.ID)},
		{cardWith(againID(alice, p.Ticket.ID)), againID(alice, p.Ticket.ID)},
		{cardWith(chestID(alice, 1)), chestID(alice, 1)},
	} {
		e.click(bob, c.msg, c.id).expectUserError("belong to <@1000000000000000001>")
	}
	if q := e.player(alice); q.Ticket.Drawn || q.Balance != p.Balance {
		t.Fatalf("someone else's click changed the ticket: %+v", q.Ticket)
	}
	if q := e.player(bob); q.Stats.Plays != 0 {
		t.Fatal("bob bought a ticket")
	}
	// In the clicker's language, pinging nobody.
	r := e.handle(e.clickPayload(bob, memberPerms, "fr", h.message(), autoID(alice, p.Ticket.ID)))
	r.expectUserError("Ces boutons appartiennent à <@1000000000000000001>")
	if r.r.Data.AllowedMentions == nil || len(r.r.Data.AllowedMentions.Parse) != 0 {
		t.Fatal("the refusal would ping the ticket's owner")
	}
}

func TestStaleAndTamperedButtons(t *testing.T) {
	e := newEnv(t)
	e.slash(alice, "en-US", "play")
	p := e.player(alice)
	tk := p.Ticket.ID
	a := "1000000000000000001"
	// What the parser refuses (TestParseCustomIDRejects has them all) is
	// out of date; the handlers' own refusals say why.
	cases := []struct{ id, want string }{
		{"", "out of date"},
		{"v1:row:" + a + ":1:3", "out of date"},
		{"v1:row:" + a + ":01:1", "out of date"},
		{"v2:auto:" + a + ":1", "out of date"},
		{"v1:auto:" + a + ":" + strings.Repeat("9", 90), "out of date"},
		{"v1:auto:" + a + ":99", "ticket is over"},
		{"v1:chest:" + a + ":1", "already open"},
		{"v1:chest:" + a + ":0", "out of date"},
		{"v1:rg:" + a + ":1", "Only moderators"},
		{"v1:again:" + a + ":77", "ticket is over"},
		{"\x00\xff", "out of date"},
	}
	for _, c := range cases {
		// Each ID sits on the card clicked, so that the parser and the
		// handlers' own checks answer, not the check against the card.
		r := e.click(alice, cardWith(c.id), c.id)
		r.expectUserError(c.want)
	}
	if q := e.player(alice); q.Ticket.ID != tk || q.Ticket.Drawn || q.Balance != p.Balance || q.Stats.Plays != 1 {
		t.Fatalf("a bad button changed the state: %+v", q)
	}
}

// TestButtonMustBeOnItsCard: a click counts only if the message it comes
// from carries a button with exactly that custom ID. A forged ID — the
// reset-guild "cancel" sent from a ticket card, which would replace the card
// with "Cancelled", another ticket's arrow, a button the card does not show
// yet — gets the stale-button refusal and changes nothing.
func TestButtonMustBeOnItsCard(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	card := h.message()
	p := e.player(alice)
	tk := p.Ticket.ID
	now := e.clock.Now().Unix()
	cases := []struct {
		name string
		msg  *discordgo.Message
		id   string
	}{
		{"reset-guild cancel on a ticket card", card, customID{kind: kindResetCancel, user: alice, ts: now}.format()},
		{"reset-guild confirm on a ticket card", card, customID{kind: kindResetConfirm, user: alice, ts: now}.format()},
		{"another ticket's arrow", card, rowID(alice, tk+1, 0)},
		{"Play again before the end", card, againID(alice, tk)},
		{"a chest the card does not offer", card, chestID(alice, 1)},
		{"no message", nil, autoID(alice, tk)},
		{"a message without components", &discordgo.Message{ID: "1310000000000000001"}, autoID(alice, tk)},
		{"a prefix of a button's ID", cardWith(autoID(alice, tk*10)), autoID(alice, tk)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			i := e.clickPayload(alice, memberPerms, "en-US", c.msg, c.id)
			if c.msg == nil {
				i.Message = nil
			}
			r := e.handle(i)
			r.expectUserError("out of date")
			if r.r.Type == discordgo.InteractionResponseUpdateMessage {
				t.Fatal("the card was replaced")
			}
		})
	}
	e.t = t
	if q := e.player(alice); q.Ticket.ID != tk || q.Ticket.Drawn || q.Balance != p.Balance {
		t.Fatalf("a forged button changed the state: %+v", q)
	}
	// The same custom IDs work from the cards that carry them.
	e.click(alice, card, autoID(alice, tk))
	if q := e.player(alice); !q.Ticket.Drawn || q.Ticket.Open() {
		t.Fatalf("Auto from its card did not reveal the ticket: %+v", q.Ticket)
	}
	nested := &discordgo.Message{ID: "1310000000000000002", Components: []discordgo.MessageComponent{
		&discordgo.Container{Components: []discordgo.MessageComponent{
			&discordgo.Section{Accessory: &discordgo.Button{Label: "x", CustomID: cases[0].id}},
		}},
	}}
	if !messageHasButton(nested, cases[0].id) || messageHasButton(nested, cases[1].id) {
		t.Fatal("a button nested in a container's section is not found exactly")
	}
}

func TestOpenTicketIsResumed(t *testing.T) {
	e := newEnv(t)
	e.slash(alice, "en-US", "play")
	h := e.slash(alice, "en-US", "play")
	if !strings.Contains(h.text(), "nothing was charged") {
		t.Fatalf("resumed card does not say so:\n%s", h.text())
	}
	if p := e.player(alice); p.Balance != startCents-game.Stake || p.Stats.Plays != 1 {
		t.Fatalf("second /play charged again: %+v", p)
	}
}

func TestChestFlow(t *testing.T) {
	e := newEnv(t)
	e.drawer.setWant(func(o game.Outcome) bool { return o.Key })
	h := e.slash(alice, "en-US", "play")
	for n := 1; n <= 3; n++ {
		p := e.player(alice)
		h = e.click(alice, h.message(), autoID(alice, p.Ticket.ID))
		p = e.player(alice)
		checkTruthful(t, e.app, h, p)
		if n < 3 {
			if p.Keys != n || !strings.Contains(h.text(), strings.Repeat(padOpen, n)+strings.Repeat(padClosed, 3-n)) {
				t.Fatalf("after %d keys: keys %d, card:\n%s", n, p.Keys, h.text())
			}
			h = e.click(alice, h.message(), h.mustButton("v1:again:").CustomID)
		}
	}
	p := e.player(alice)
	if !p.ChestDue || !strings.Contains(h.text(), padOpen+padOpen+padOpen) {
		t.Fatalf("third key: chest pending %v, card:\n%s", p.ChestDue, h.text())
	}
	if _, ok := h.button("v1:again:"); ok {
		t.Fatal("Play again offered while the chest is due")
	}
	chestBtn := h.mustButton(chestID(alice, p.ChestSeq+1))

	// A due chest comes before any new ticket.
	h2 := e.slash(alice, "en-US", "play")
	h2.mustButton(chestBtn.CustomID)
	if q := e.player(alice); q.Stats.Plays != 3 || q.Balance != p.Balance {
		t.Fatalf("/play with a chest due bought a ticket: %+v", q)
	}

	// Open it twice at once: paid once, same card.
	before := p.Balance
	res := e.clickAtOnce(4, h.message(), chestBtn.CustomID)
	p = e.player(alice)
	if p.ChestDue || p.LastChest == nil || p.Balance != before+p.LastChest.Prize || p.Stats.Chests != 1 {
		t.Fatalf("after opening: %+v", p)
	}
	for _, r := range res {
		if r.r.Type != discordgo.InteractionResponseUpdateMessage || r.text() != res[0].text() {
			t.Fatalf("chest double click: type %d\n%s\n---\n%s", r.r.Type, r.text(), res[0].text())
		}
	}
	e.obs.mu.Lock()
	counted := e.obs.chests
	e.obs.mu.Unlock()
	if counted != 1 {
		t.Fatalf("four clicks on one chest counted %d chests in metrics, want 1", counted)
	}
	if !strings.Contains(res[0].text(), formatAmount(p.LastChest.Prize, false)) {
		t.Fatalf("chest card does not show the prize:\n%s", res[0].text())
	}
	// Play again from the chest card buys the next ticket.
	h = e.click(alice, res[0].message(), res[0].mustButton("v1:again:").CustomID)
	if q := e.player(alice); q.Stats.Plays != 4 || q.Balance != p.Balance-game.Stake {
		t.Fatalf("play again after the chest: %+v", q)
	}
	checkTruthful(t, e.app, h, e.player(alice))
}

func TestInsufficientFunds(t *testing.T) {
	e := newEnv(t)
	e.setBalance(alice, 20)
	h := e.handle(e.slashPayload(alice, memberPerms, "fr", "play", ""))
	h.expectUserError("Crédits insuffisants : vous avez 0,20 crédit et un ticket coûte 0,50 crédit")
	if p := e.player(alice); p.Balance != 20 || p.Ticket != nil {
		t.Fatalf("state changed: %+v", p)
	}
}

func TestDirectMessageRefused(t *testing.T) {
	e := newEnv(t)
	for _, file := range []string{"dm_play.json"} {
		i := loadPayload(t, file, nil)
		h := e.handle(i)
		h.expectUserError("pas en messages privés")
	}
	// A button pressed outside a guild is refused too.
	i := loadPayload(t, "button_click.json", func(m map[string]any) {
		delete(m, "guild_id")
		m["user"] = m["member"].(map[string]any)["user"]
		delete(m, "member")
	})
	e.handle(i).expectUserError("not in direct messages")
}

func TestChannelRestrictionAndEphemeralPlays(t *testing.T) {
	e := newEnv(t)
	set := e.settings()
	set.Channel = 1110000000000000555
	set.PublicPlays = false
	e.store.setSettings(t, testGuild, set)
	e.slash(alice, "en-US", "play").expectUserError("plays happen in <#1110000000000000555>")
	if p := e.player(alice); p.Ticket != nil {
		t.Fatal("a ticket was bought in the wrong channel")
	}
	set.Channel = testChannel
	e.store.setSettings(t, testGuild, set)
	// Changed in the store behind the App's back, as another process would:
	// the App reads the store on every play.
	h := e.slash(alice, "en-US", "play")
	if !h.ephemeral() || len(h.buttons()) != 4 {
		t.Fatalf("ephemeral plays: ephemeral=%v buttons=%d", h.ephemeral(), len(h.buttons()))
	}
	// "Play again" replaces the private card instead of piling up messages
	// only the player sees.
	h = e.click(alice, h.message(), autoID(alice, e.player(alice).Ticket.ID))
	if b, ok := h.button("v1:chest:"); ok {
		h = e.click(alice, h.message(), b.CustomID)
	}
	h = e.click(alice, h.message(), h.mustButton("v1:again:").CustomID)
	if h.r.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("play again, private: type %d, want an update of the card", h.r.Type)
	}
}

func TestRestartKeepsButtonsWorking(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	p := e.player(alice)
	h = e.click(alice, h.message(), rowID(alice, p.Ticket.ID, 0))
	e.restart()
	h2 := e.click(alice, h.message(), rowID(alice, p.Ticket.ID, 0))
	if h2.text() != h.text() {
		t.Fatalf("after a restart the same click shows another card:\n%s\n---\n%s", h.text(), h2.text())
	}
	h3 := e.click(alice, h2.message(), autoID(alice, p.Ticket.ID))
	p = e.player(alice)
	checkTruthful(t, e.app, h3, p)
	if p.Ticket.Open() {
		t.Fatal("ticket still open after Auto")
	}
}

// TestChestDueWithRowsHidden: the third key is drawn at the first click, so
// the chest is due while the ticket still has hidden rows. The card does not
// give it away; the ticket can be finished, the chest opened, and play go on,
// charging exactly one stake per ticket.
func TestChestDueWithRowsHidden(t *testing.T) {
	e := newEnv(t)
	e.drawer.setWant(func(o game.Outcome) bool { return o.Key })
	h := e.slash(alice, "en-US", "play")
	for n := 1; n <= 2; n++ {
		p := e.player(alice)
		h = e.click(alice, h.message(), autoID(alice, p.Ticket.ID))
		h = e.click(alice, h.message(), h.mustButton("v1:again:").CustomID)
	}
	p := e.player(alice)
	h = e.click(alice, h.message(), rowID(alice, p.Ticket.ID, 0))
	p = e.player(alice)
	if !p.ChestDue || !p.Ticket.Open() {
		t.Fatalf("want the chest due with rows hidden: %+v %+v", p, p.Ticket)
	}
	// The padlocks count the key once its row is shown, not before; the
	// result line waits for the last row.
	keyRow := slices.Index(p.Ticket.Outcome.Grid[:], game.Key) / 3
	if all := strings.Contains(h.text(), padOpen+padOpen+padOpen); all != (keyRow == 0) || strings.Contains(h.text(), "key!") {
		t.Fatalf("key in row %d, row 0 shown: the card tells more or less than its rows show:\n%s", keyRow, h.text())
	}
	if _, ok := h.button("v1:chest:"); ok {
		t.Fatal("chest button before the end of the ticket")
	}
	// /play now: whatever the store prefers (resume or chest), the player
	// can always go on, and nothing is charged.
	h2 := e.slash(alice, "en-US", "play")
	if b, ok := h2.button("v1:chest:"); ok {
		h2 = e.click(alice, h2.message(), b.CustomID)
		h2 = e.click(alice, h2.message(), h2.mustButton("v1:again:").CustomID)
	}
	q := e.player(alice)
	if q.Stats.Plays != 3 {
		t.Fatalf("plays %d, want 3 (nothing bought)", q.Stats.Plays)
	}
	h2 = e.click(alice, h2.message(), autoID(alice, p.Ticket.ID))
	if q = e.player(alice); q.Ticket.Open() || q.Ticket.ID != p.Ticket.ID {
		t.Fatalf("ticket not finished: %+v", q.Ticket)
	}
	if q.ChestDue {
		h2 = e.click(alice, h2.message(), h2.mustButton("v1:chest:").CustomID)
	}
	h2 = e.click(alice, h2.message(), h2.mustButton("v1:again:").CustomID)
	checkTruthful(t, e.app, h2, e.player(alice))
	if q = e.player(alice); q.Stats.Plays != 4 || q.Stats.Chests != 1 {
		t.Fatalf("after the chest: %+v", q.Stats)
	}
	if err := q.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestConfiguredEmoji(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	for s := range cfg.Emoji {
		cfg.Emoji[s] = "<:s" + string(rune('a'+s)) + ":12345>"
	}
	cfg.Hidden = "⬛"
	e.app = New(cfg, e.store)
	h := e.slash(alice, "en-US", "play")
	if rows := gridRows(t, h); rows[0][0] != "⬛" {
		t.Fatalf("hidden cell %q", rows[0][0])
	}
	p := e.player(alice)
	h = e.click(alice, h.message(), autoID(alice, p.Ticket.ID))
	p = e.player(alice)
	checkTruthful(t, e.app, h, p)
	if rows := gridRows(t, h); rows[1][2] != cfg.Emoji[p.Ticket.Outcome.Grid[5]] {
		t.Fatalf("cell shows %q, want the configured %q", rows[1][2], cfg.Emoji[p.Ticket.Outcome.Grid[5]])
	}
}

// TestComponentMustBeAButton: every custom ID of the bot's is a button's;
// the same ID sent by a select menu (or any other component) is forged,
// even when the card carries that button: refused, nothing changed. The
// same button clicked as a button works.
func TestComponentMustBeAButton(t *testing.T) {
	e := newEnv(t)
	h := e.slash(alice, "en-US", "play")
	card := h.message()
	auto := h.mustButton("v1:auto:").CustomID
	before := e.player(alice)
	for _, ct := range []discordgo.ComponentType{discordgo.SelectMenuComponent, discordgo.UserSelectMenuComponent, discordgo.TextInputComponent, 0} {
		i := e.clickPayload(alice, memberPerms, "en-US", card, auto)
		d := i.Data.(discordgo.MessageComponentInteractionData)
		d.ComponentType = ct
		i.Data = d
		e.handle(i).expectUserError("out of date")
	}
	if p := e.player(alice); p.Ticket.Drawn || p.Balance != before.Balance {
		t.Fatalf("a forged component drew the ticket: %+v", p.Ticket)
	}
	if r := e.click(alice, card, auto); r.r.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("the button itself: response type %d, want the card updated", r.r.Type)
	}
	if p := e.player(alice); !p.Ticket.Drawn {
		t.Fatal("the button itself did not draw the ticket")
	}
}
