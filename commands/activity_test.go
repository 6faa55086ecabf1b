package commands

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// act runs one Activity step of user in the test guild and channel.
func (e *env) act(user uint64, kind, op string, ticket uint64, row int, chest int64) (ActState, error) {
	e.t.Helper()
	return e.app.Act(context.Background(), Act{
		Kind: kind, Guild: testGuild, Channel: testChannel, User: user, Locale: "en-US",
		Op: op, Ticket: ticket, Row: row, Chest: chest,
	})
}

func (e *env) mustAct(user uint64, kind, op string, ticket uint64, row int, chest int64) ActState {
	e.t.Helper()
	st, err := e.act(user, kind, op, ticket, row, chest)
	if err != nil {
		e.t.Fatalf("Act %s %s: %v", kind, op, err)
	}
	return st
}

// announcements records what Config.Announce is given.
type announcements struct {
	mu   sync.Mutex
	got  []*discordgo.MessageSend
	chs  []uint64
	done chan struct{}
}

func (a *announcements) announce(_ context.Context, ch uint64, m *discordgo.MessageSend) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got, a.chs = append(a.got, m), append(a.chs, ch)
	close(a.done)
	return nil
}

// A ticket bought with /play is finished in the Activity: the page is sent
// the revealed rows only, the balance and keys as the store has them, the
// finished ticket is announced in the channel as its card, and the steps
// are counted as the buttons' are.
func TestActFinishesAPlayTicket(t *testing.T) {
	e := newEnv(t)
	ann := &announcements{done: make(chan struct{})}
	e.cfg.Announce = ann.announce
	e.app = New(e.cfg, e.store)
	e.drawer.force(storetest.Win(game.TierSabre))

	card := e.slash(alice, "en-US", "play")
	id := e.player(alice).Ticket.ID
	st := e.mustAct(alice, ActKindReveal, "reveal-row-one-0001", id, 1, 0)
	if st.Ticket == nil || st.Ticket.ID != id || !st.Ticket.Open || st.Ticket.Rows[0] != nil || st.Ticket.Rows[2] != nil || st.Ticket.Rows[1] == nil {
		t.Fatalf("after revealing row 1: %+v", st.Ticket)
	}
	p := e.player(alice)
	g := p.Ticket.Outcome.Grid
	if *st.Ticket.Rows[1] != [3]int{int(g[3]), int(g[4]), int(g[5])} {
		t.Errorf("row 1 = %v, the store's is %v", *st.Ticket.Rows[1], g[3:6])
	}
	if want := p.Seen(nil).Player.Balance; st.Balance != want {
		t.Errorf("balance %d, want %d as seen", st.Balance, want)
	}
	st = e.mustAct(alice, ActKindReveal, "reveal-auto-00000001", id, ActAuto, 0)
	p = e.player(alice)
	if st.Ticket.Open || st.Ticket.Prize != game.TierSabre.Prize() || st.Balance != p.Balance || st.Balance != startCents-game.Stake+game.TierSabre.Prize() {
		t.Errorf("finished: %+v balance %d, store %d", st.Ticket, st.Balance, p.Balance)
	}
	if !strings.Contains(st.Texts["result"], "You win 5.00") {
		t.Errorf("result text %q", st.Texts["result"])
	}
	<-ann.done
	if m := ann.got[0]; ann.chs[0] != testChannel || len(m.Embeds) != 1 || !strings.Contains(m.Embeds[0].Description, "You win") ||
		m.Content != "<@"+strconv.FormatUint(alice, 10)+"> scratched this ticket by hand:" || m.AllowedMentions == nil || m.AllowedMentions.Parse == nil || len(m.AllowedMentions.Parse) > 0 {
		t.Errorf("announcement in %d: %+v", ann.chs[0], ann.got[0])
	}
	// The card /play showed is now over: its Auto button refreshes it.
	h := e.click(alice, card.message(), card.mustButton("v1:auto:").CustomID)
	if !strings.Contains(h.text(), "You win") {
		t.Errorf("the /play card after the Activity finished it: %s", h.text())
	}
	e.obs.mu.Lock()
	defer e.obs.mu.Unlock()
	if e.obs.interactions["activity reveal ok"] != 2 || e.obs.plays != 1 {
		t.Errorf("observer: %v, plays %d", e.obs.interactions, e.obs.plays)
	}
}

// A ticket bought in the Activity is finished with the buttons (/play
// resumes it), and the Activity then shows it finished.
func TestActTicketFinishedWithButtons(t *testing.T) {
	e := newEnv(t)
	e.drawer.force(storetest.Loss(true))
	st := e.mustAct(alice, ActKindBuy, "buy-from-the-page-01", 0, 0, 0)
	if st.Ticket == nil || !st.Ticket.Open || st.Balance != startCents-game.Stake || st.Ticket.Rows != [3]*[3]int{} {
		t.Fatalf("bought: %+v, balance %d", st.Ticket, st.Balance)
	}
	card := e.slash(alice, "en-US", "play")
	if !strings.Contains(card.text(), "nothing was charged") {
		t.Fatalf("/play did not resume the Activity's ticket: %s", card.text())
	}
	e.click(alice, card.message(), card.mustButton("v1:auto:").CustomID)
	st = e.mustAct(alice, ActKindState, "", 0, 0, 0)
	if st.Ticket.Open || !st.Ticket.Key || st.Keys != 1 || st.Balance != startCents-game.Stake {
		t.Errorf("after the buttons: %+v keys %d balance %d", st.Ticket, st.Keys, st.Balance)
	}
	for r, row := range st.Ticket.Rows {
		if row == nil {
			t.Errorf("row %d not shown on a finished ticket", r)
		}
	}
}

// The page never receives a cell of a hidden row: the JSON of an open
// ticket holds the revealed row's symbols and null for the others.
func TestActStateHidesHiddenRows(t *testing.T) {
	e := newEnv(t)
	e.drawer.force(storetest.Win(game.TierGem))
	st := e.mustAct(alice, ActKindBuy, "buy-hidden-rows-001", 0, 0, 0)
	raw, _ := json.Marshal(st)
	if !strings.Contains(string(raw), `"rows":[null,null,null]`) {
		t.Errorf("undrawn ticket: %s", raw)
	}
	p := e.player(alice)
	o := storetest.Win(game.TierGem)
	hidden := 0
	for r := range 3 {
		if r != int(o.Row) {
			hidden = r
			break
		}
	}
	st = e.mustAct(alice, ActKindReveal, "reveal-hidden-row-01", p.Ticket.ID, hidden, 0)
	raw, _ = json.Marshal(st)
	g := e.player(alice).Ticket.Outcome.Grid
	want := make([]string, 3)
	for r := range 3 {
		want[r] = "null"
		if r == hidden {
			want[r] = "[" + strconv.Itoa(int(g[3*r])) + "," + strconv.Itoa(int(g[3*r+1])) + "," + strconv.Itoa(int(g[3*r+2])) + "]"
		}
	}
	if !strings.Contains(string(raw), `"rows":[`+strings.Join(want, ",")+`]`) {
		t.Errorf("state %s, want rows %v", raw, want)
	}
	// The gem prize is drawn and credited, but its row is hidden: neither
	// the balance nor the ticket tells it.
	if st.Balance != startCents-game.Stake || st.Ticket.Prize != 0 || strings.Contains(string(raw), "result") {
		t.Errorf("a hidden win shows: %s", raw)
	}
}

// A retried request changes nothing and gets the same answer; refusals
// are ActErrors in the player's words with the state; input the page
// could not send is ErrActInput.
func TestActRetriesAndRefusals(t *testing.T) {
	e := newEnv(t)
	first := e.mustAct(alice, ActKindBuy, "buy-retried-000001", 0, 0, 0)
	again := e.mustAct(alice, ActKindBuy, "buy-retried-000001", 0, 0, 0)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	if string(a) != string(b) || e.player(alice).Stats.Plays != 1 {
		t.Errorf("retry: %s then %s, plays %d", a, b, e.player(alice).Stats.Plays)
	}

	e.setBalance(bob, 10)
	_, err := e.act(bob, ActKindBuy, "buy-without-funds-1", 0, 0, 0)
	var ae *ActError
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Code, "funds") || !strings.Contains(ae.Message, "Not enough credits") || ae.State == nil || ae.State.Balance != 10 {
		t.Fatalf("buy without funds: %v %+v", err, ae)
	}
	if strings.Contains(ae.Message, "**") {
		t.Errorf("markup in %q", ae.Message)
	}

	e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000555"})
	_, err = e.act(alice, ActKindDaily, "daily-wrong-channel", 0, 0, 0)
	if err != nil {
		t.Errorf("daily is not bound to the channel: %v", err)
	}
	if _, err = e.act(alice, ActKindBuy, "buy-in-wrong-channel", 0, 0, 0); !errors.As(err, &ae) || ae.Code != "channel" || ae.Message != "On this server, plays happen in the game's channel." {
		t.Errorf("buy in another channel: %v", err)
	}

	for _, bad := range []Act{
		{Kind: "steal", Guild: testGuild, User: alice, Op: "abcdefghijklmnop"},
		{Kind: ActKindBuy, Guild: testGuild, User: alice, Op: "short"},
		{Kind: ActKindBuy, Guild: testGuild, User: alice, Op: "has a space in it!!"},
		{Kind: ActKindReveal, Guild: testGuild, User: alice, Op: "abcdefghijklmnop", Row: 3},
		{Kind: ActKindReveal, Guild: testGuild, User: alice, Op: "abcdefghijklmnop", Row: -2},
		{Kind: ActKindState, User: alice},
	} {
		if _, err := e.app.Act(context.Background(), bad); !errors.Is(err, ErrActInput) {
			t.Errorf("%+v: %v, want ErrActInput", bad, err)
		}
	}
}

// The chest: three keys make it due, the Activity opens it once.
func TestActOpensTheChest(t *testing.T) {
	e := newEnv(t)
	e.drawer.force(storetest.Loss(true), storetest.Loss(true), storetest.Loss(true))
	e.drawer.forceChest(game.LotSilver)
	for i := range 3 {
		st := e.mustAct(alice, ActKindBuy, "buy-for-a-key-00"+strconv.Itoa(i), 0, 0, 0)
		e.mustAct(alice, ActKindReveal, "reveal-for-a-key-0"+strconv.Itoa(i), st.Ticket.ID, ActAuto, 0)
	}
	_, err := e.act(alice, ActKindBuy, "buy-with-chest-due1", 0, 0, 0)
	var ae *ActError
	if !errors.As(err, &ae) || ae.Code != "chest_due" || ae.State == nil || ae.State.ChestDue != 1 || ae.State.Keys != game.MaxKeys {
		t.Fatalf("buy with the chest due: %v %+v %+v", err, ae, ae.State)
	}
	if r := ae.State.Texts["result"]; !strings.Contains(r, "Open the chest") {
		t.Errorf("the third key's ticket, chest due, says %q", r)
	}
	st := e.mustAct(alice, ActKindChest, "open-the-chest-0001", 0, 0, 1)
	if r := st.Texts["result"]; strings.Contains(r, "Open the chest") || !strings.Contains(r, "key") {
		t.Errorf("the third key's ticket, chest opened, says %q", r)
	}
	again := e.mustAct(alice, ActKindChest, "open-the-chest-0001", 0, 0, 1)
	want := startCents - 3*game.Stake + game.LotSilver.Prize()
	if st.Chest == nil || st.Chest.Prize != game.LotSilver.Prize() || st.ChestDue != 0 || st.Balance != want || again.Balance != want || e.player(alice).Balance != want {
		t.Errorf("chest: %+v due %d balance %d/%d, store %d", st.Chest, st.ChestDue, st.Balance, again.Balance, e.player(alice).Balance)
	}
}

func TestPlain(t *testing.T) {
	en, fr := testCatalog(t).forLocale("en-US"), testCatalog(t).forLocale("fr")
	for in, want := range map[string]string{
		"**Three sabres!** You win **5.00**.":       "Three sabres! You win 5.00.",
		"<:clefs_key:123456> **You found a key!**":  "You found a key!",
		"until <t:1764590400:F>, in <#1110000000>.": "until 2025-12-01 12:00 UTC, in the game's channel.",
		"🗝️ plain text":                             "🗝️ plain text",
		"The record of <@100000000000000001> is":    "The record of @100000000000000001 is",
	} {
		if got := plain(en, in); got != want {
			t.Errorf("plain(%q) = %q, want %q", in, got, want)
		}
	}
	if got := plain(fr, fr.T("err_channel", map[string]any{"Channel": channelMention(3001)})); got != "Sur ce serveur, on joue dans le salon du jeu." {
		t.Errorf("the channel refusal in French: %q", got)
	}
}

// The invite link of docs/discord-setup.md asks for what the Activity's
// announcements need: View Channel, Send Messages (a channel message) and
// Embed Links (the card is an embed); docs/activity.md says the same.
func TestSetupAsksTheAnnouncementsPermissions(t *testing.T) {
	want := "permissions=" + strconv.FormatInt(discordgo.PermissionViewChannel|discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks, 10)
	for _, doc := range []string{"../docs/discord-setup.md", "../docs/activity.md"} {
		if b, err := os.ReadFile(doc); err != nil || !strings.Contains(string(b), want+"`") {
			t.Errorf("%s does not give %s: %v", doc, want, err)
		}
	}
}
