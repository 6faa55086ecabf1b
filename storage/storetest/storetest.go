package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// OpenFunc opens a fresh, empty store with opts for the test t and arranges
// for it to be closed at t's cleanup.
type OpenFunc func(t *testing.T, opts storage.Options) storage.Store

// Default settings of the stores the suite opens, unless a test says otherwise.
var defaults = storage.Settings{StartingBalance: 1000, DailyAmount: 0, DailyCooldown: time.Hour}

const (
	guild  = 111
	guild2 = 222
	mod    = 999
)

func pid(user uint64) storage.PlayerID { return storage.PlayerID{Guild: guild, User: user} }

// env is one test's store with its injected clock and drawer.
type env struct {
	t     *testing.T
	ctx   context.Context
	st    storage.Store
	clock *Clock
	draw  *Drawer
}

func newEnv(t *testing.T, open OpenFunc, d *Drawer, set storage.Settings) *env {
	t.Helper()
	if d == nil {
		d = &Drawer{}
	}
	c := NewClock()
	st := open(t, storage.Options{Now: c.Now, Drawer: d, Defaults: set})
	return &env{t: t, ctx: context.Background(), st: st, clock: c, draw: d}
}

func (e *env) player(id storage.PlayerID) storage.Player {
	e.t.Helper()
	p, err := e.st.Player(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Player(%v): %v", id, err)
	}
	return p
}

func (e *env) buy(id storage.PlayerID) (storage.Player, storage.Ticket) {
	e.t.Helper()
	p, t, resumed, err := e.st.Buy(e.ctx, id)
	if err != nil || resumed {
		e.t.Fatalf("Buy(%v) = resumed %v, %v; want a new ticket", id, resumed, err)
	}
	return p, t
}

func (e *env) reveal(id storage.PlayerID, tid uint64, rows storage.RowMask) (storage.Player, storage.Ticket) {
	e.t.Helper()
	p, t, err := e.st.Reveal(e.ctx, id, tid, rows)
	if err != nil {
		e.t.Fatalf("Reveal(%v, %d, %03b): %v", id, tid, rows, err)
	}
	return p, t
}

func (e *env) play(id storage.PlayerID) (storage.Player, storage.Ticket) {
	e.t.Helper()
	_, t := e.buy(id)
	return e.reveal(id, t.ID, storage.AllRows)
}

// sound fails the test if p breaks the invariant.
func sound(t *testing.T, p storage.Player) {
	t.Helper()
	if err := storage.CheckInvariant(p); err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func samePlayer(t *testing.T, what string, got, want storage.Player) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: player changed:\n got %+v\nwant %+v", what, got, want)
	}
}

// Run runs the whole conformance suite against the stores open gives.
func Run(t *testing.T, open OpenFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open OpenFunc)
	}{
		{"NewPlayer", testNewPlayer},
		{"InvalidIDs", testInvalidIDs},
		{"Buy", testBuy},
		{"InsufficientFunds", testInsufficientFunds},
		{"Reveal", testReveal},
		{"RevealErrors", testRevealErrors},
		{"DrawUsesKeysHeld", testDrawUsesKeysHeld},
		{"Win", testWin},
		{"KeysAndChest", testKeysAndChest},
		{"FailingDrawCommitsNothing", testFailingDraw},
		{"InvalidDrawCommitsNothing", testInvalidDraw},
		{"Daily", testDaily},
		{"Grant", testGrant},
		{"SetBalance", testSetBalance},
		{"ResetPlayer", testResetPlayer},
		{"ResetGuild", testResetGuild},
		{"History", testHistory},
		{"Leaderboard", testLeaderboard},
		{"Settings", testSettings},
		{"AuditLog", testAuditLog},
		{"ExportImport", testExportImport},
		{"ImportAllOrNothing", testImportAllOrNothing},
		{"CanceledContext", testCanceledContext},
		{"Closed", testClosed},
		{"SameTicketDrawnOnce", testSameTicketDrawnOnce},
		{"SameChestOpenedOnce", testSameChestOpenedOnce},
		{"ConcurrentOnePlayer", testConcurrentOnePlayer},
		{"ConcurrentManyPlayers", testConcurrentManyPlayers},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func testNewPlayer(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	p := e.player(pid(1))
	want := storage.Player{ID: pid(1), StartingBalance: 1000, Balance: 1000, CreatedAt: e.clock.Now()}
	samePlayer(t, "new player", p, want)
	e.clock.Advance(time.Minute)
	samePlayer(t, "second read", e.player(pid(1)), want)

	// A guild's own starting balance applies to players created afterwards.
	if err := e.st.SetSettings(e.ctx, mod, guild2, storage.Settings{StartingBalance: 777}, ""); err != nil {
		t.Fatal(err)
	}
	if p := e.player(storage.PlayerID{Guild: guild2, User: 1}); p.Balance != 777 || p.StartingBalance != 777 {
		t.Fatalf("player of guild2 starts with %d/%d, want 777", p.Balance, p.StartingBalance)
	}
	if p := e.player(pid(1)); p.Balance != 1000 {
		t.Fatalf("existing player changed to %d by another guild's settings", p.Balance)
	}
}

func testInvalidIDs(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	for _, id := range []storage.PlayerID{{}, {Guild: guild}, {User: 1}} {
		_, err := e.st.Player(e.ctx, id)
		wantErr(t, fmt.Sprintf("Player(%v)", id), err, storage.ErrInvalid)
		_, _, _, err = e.st.Buy(e.ctx, id)
		wantErr(t, fmt.Sprintf("Buy(%v)", id), err, storage.ErrInvalid)
		_, _, err = e.st.Reveal(e.ctx, id, 1, storage.AllRows)
		wantErr(t, fmt.Sprintf("Reveal(%v)", id), err, storage.ErrInvalid)
		_, err = e.st.Grant(e.ctx, mod, id, 10, "")
		wantErr(t, fmt.Sprintf("Grant(%v)", id), err, storage.ErrInvalid)
	}
	_, err := e.st.Settings(e.ctx, 0)
	wantErr(t, "Settings(0)", err, storage.ErrInvalid)
	_, err = e.st.ResetGuild(e.ctx, mod, 0, "")
	wantErr(t, "ResetGuild(0)", err, storage.ErrInvalid)
	_, err = e.st.History(e.ctx, pid(1), -1)
	wantErr(t, "History(-1)", err, storage.ErrInvalid)
}

func testBuy(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	p, tk := e.buy(pid(1))
	if p.Balance != 1000-game.Stake || p.Stats.Plays != 1 || p.Stats.StakedCents != game.Stake {
		t.Fatalf("after buy: balance %d, plays %d, staked %d", p.Balance, p.Stats.Plays, p.Stats.StakedCents)
	}
	want := storage.Ticket{ID: 1, BoughtAt: e.clock.Now()}
	if !reflect.DeepEqual(tk, want) || p.Ticket == nil || !reflect.DeepEqual(*p.Ticket, want) || p.TicketSeq != 1 {
		t.Fatalf("ticket %+v (player's %+v, seq %d), want %+v", tk, p.Ticket, p.TicketSeq, want)
	}
	sound(t, p)
	// A second buy resumes the open ticket and charges nothing.
	for range 3 {
		p2, t2, resumed, err := e.st.Buy(e.ctx, pid(1))
		if err != nil || !resumed || !reflect.DeepEqual(t2, tk) {
			t.Fatalf("second Buy = %+v, resumed %v, %v; want the open ticket", t2, resumed, err)
		}
		samePlayer(t, "resumed buy", p2, p)
	}
	// A partly revealed ticket is still open and still resumed.
	e.reveal(pid(1), tk.ID, 0b010)
	_, t3, resumed, err := e.st.Buy(e.ctx, pid(1))
	if err != nil || !resumed || t3.ID != 1 || t3.Revealed != 0b010 || !t3.Drawn {
		t.Fatalf("Buy after a partial reveal = %+v, resumed %v, %v", t3, resumed, err)
	}
	// Once all rows are shown, the next buy opens ticket 2.
	e.reveal(pid(1), tk.ID, storage.AllRows)
	p, tk = e.buy(pid(1))
	if tk.ID != 2 || p.Balance != 1000-2*game.Stake {
		t.Fatalf("next ticket %d, balance %d", tk.ID, p.Balance)
	}
}

func testInsufficientFunds(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, storage.Settings{StartingBalance: game.Stake + game.Stake - 1})
	e.play(pid(1))
	before := e.player(pid(1))
	p, _, _, err := e.st.Buy(e.ctx, pid(1))
	wantErr(t, "Buy with 49 cents", err, storage.ErrInsufficientFunds)
	samePlayer(t, "refused buy (returned)", p, before)
	samePlayer(t, "refused buy (stored)", e.player(pid(1)), before)

	e0 := newEnv(t, open, nil, storage.Settings{StartingBalance: 0})
	_, _, _, err = e0.st.Buy(e0.ctx, pid(2))
	wantErr(t, "Buy of a new player with nothing", err, storage.ErrInsufficientFunds)
	if p := e0.player(pid(2)); p.Balance != 0 || p.Stats.Plays != 0 || p.Ticket != nil {
		t.Fatalf("refused buy changed the player: %+v", p)
	}
}

func testReveal(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, &Drawer{PlayFunc: func(int) game.Outcome { return Loss(false) }}, defaults)
	_, tk := e.buy(pid(1))
	e.clock.Advance(time.Second)
	// rows 0 draws without revealing.
	p, t0 := e.reveal(pid(1), tk.ID, 0)
	if !t0.Drawn || t0.Revealed != 0 || !reflect.DeepEqual(t0.Outcome, Loss(false)) || t0.KeysAfter != 0 || t0.Chest {
		t.Fatalf("drawn ticket %+v", t0)
	}
	if !t0.DrawnNow {
		t.Fatalf("the call that drew the ticket was not told so: %+v", t0)
	}
	stored := t0
	stored.DrawnNow = false
	if p.Ticket == nil || !reflect.DeepEqual(*p.Ticket, stored) {
		t.Fatalf("player's ticket %+v, want %+v", p.Ticket, stored)
	}
	steps := []struct {
		rows, want storage.RowMask
	}{{0b001, 0b001}, {0b001, 0b001}, {0b100, 0b101}, {0b011, 0b111}, {0b010, 0b111}}
	for _, s := range steps {
		p2, t2 := e.reveal(pid(1), tk.ID, s.rows)
		if t2.Revealed != s.want || !reflect.DeepEqual(t2.Outcome, t0.Outcome) {
			t.Fatalf("reveal %03b: revealed %03b (want %03b), outcome %+v", s.rows, t2.Revealed, s.want, t2.Outcome)
		}
		if p2.Balance != p.Balance || p2.Stats != p.Stats {
			t.Fatalf("reveal %03b changed the credits or stats: %+v → %+v", s.rows, p.Stats, p2.Stats)
		}
	}
	// The last ticket stays readable, unchanged, after it is closed.
	closed := e.player(pid(1))
	p3, t3 := e.reveal(pid(1), tk.ID, storage.AllRows)
	samePlayer(t, "reveal of a closed ticket", p3, closed)
	if t3.Open() || t3.ID != tk.ID {
		t.Fatalf("closed ticket %+v", t3)
	}
	h, err := e.st.History(e.ctx, pid(1), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].Kind != storage.KindPlay || h[0].TicketID != 1 || h[0].Amount != -game.Stake {
		t.Fatalf("history after one play: %+v", h)
	}
	if d := e.draw.Plays.Load(); d == 0 {
		t.Fatal("the drawer was never called")
	}
}

func testRevealErrors(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	_, _, err := e.st.Reveal(e.ctx, pid(1), 1, storage.AllRows)
	wantErr(t, "Reveal before any buy", err, storage.ErrUnknownTicket)
	_, tk := e.buy(pid(1))
	before := e.player(pid(1))
	cases := []struct {
		id   uint64
		rows storage.RowMask
		want error
	}{
		{tk.ID + 1, storage.AllRows, storage.ErrUnknownTicket},
		{0, storage.AllRows, storage.ErrUnknownTicket},
		{tk.ID, 0b1000, storage.ErrInvalid},
		{tk.ID, 0xff, storage.ErrInvalid},
	}
	for _, c := range cases {
		_, _, err := e.st.Reveal(e.ctx, pid(1), c.id, c.rows)
		wantErr(t, fmt.Sprintf("Reveal(%d, %b)", c.id, c.rows), err, c.want)
		samePlayer(t, "failed reveal", e.player(pid(1)), before)
	}
	e.reveal(pid(1), tk.ID, storage.AllRows)
	e.buy(pid(1))
	_, _, err = e.st.Reveal(e.ctx, pid(1), tk.ID, storage.AllRows)
	wantErr(t, "Reveal of the previous ticket", err, storage.ErrUnknownTicket)
}

// testDrawUsesKeysHeld checks that the draw is made with the keys held at
// the first click: a drawer whose result depends on them shows which.
func testDrawUsesKeysHeld(t *testing.T, open OpenFunc) {
	byKeys := func(k int) game.Outcome {
		switch k {
		case 0:
			return Loss(true)
		case 1:
			return Win(game.TierBarrel, 50)
		}
		return Win(game.TierCandle, 100)
	}
	e := newEnv(t, open, &Drawer{PlayFunc: byKeys}, defaults)
	_, t1 := e.play(pid(1))
	if !reflect.DeepEqual(t1.Outcome, Loss(true)) || t1.KeysAfter != 1 {
		t.Fatalf("first play (0 keys): %+v", t1)
	}
	p, t2 := e.play(pid(1))
	if !reflect.DeepEqual(t2.Outcome, Win(game.TierBarrel, 50)) || t2.KeysAfter != 1 || p.Keys != 1 {
		t.Fatalf("second play (1 key): %+v, keys %d", t2, p.Keys)
	}
}

func testWin(t *testing.T, open OpenFunc) {
	prizes := []int64{500, 100_000, 1000}
	var mu sync.Mutex
	n := 0
	e := newEnv(t, open, &Drawer{PlayFunc: func(int) game.Outcome {
		mu.Lock()
		defer mu.Unlock()
		return Win(game.TierSabre, prizes[n%len(prizes)])
	}}, defaults)
	balance := int64(1000)
	var won, best int64
	for i, prize := range prizes {
		mu.Lock()
		n = i
		mu.Unlock()
		p, tk := e.play(pid(1))
		balance += prize - game.Stake
		won += prize
		best = max(best, prize)
		if tk.Outcome.Prize != prize || p.Balance != balance || p.Stats.WonCents != won || p.Stats.Wins != int64(i+1) || p.Stats.BestWinCents != best || p.Keys != 0 {
			t.Fatalf("after win %d of %d: ticket %+v, player %+v", i, prize, tk, p)
		}
		sound(t, p)
	}
}

func testKeysAndChest(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, &Drawer{
		PlayFunc:  func(int) game.Outcome { return Loss(true) },
		ChestFunc: func() game.Chest { return Chest(game.LotGold, 500) },
	}, defaults)
	id := pid(1)
	for k := 1; k <= 2; k++ {
		p, tk := e.play(id)
		if p.Keys != k || tk.KeysAfter != k || tk.Chest || p.ChestPending || p.Stats.Keys != int64(k) {
			t.Fatalf("after key %d: keys %d, ticket %+v, pending %v", k, p.Keys, tk, p.ChestPending)
		}
	}
	_, tk := e.buy(id)
	p, tk := e.reveal(id, tk.ID, 0b001) // the draw, at the first click, gives the third key
	if p.Keys != 0 || !p.ChestPending || !tk.Chest || tk.KeysAfter != 0 || p.Stats.Keys != 3 || p.ChestSeq != 0 {
		t.Fatalf("after the third key: keys %d, pending %v, ticket %+v", p.Keys, p.ChestPending, tk)
	}
	// The ticket stays open and resumable while the chest is due.
	if _, t2, resumed, err := e.st.Buy(e.ctx, id); err != nil || !resumed || t2.ID != tk.ID {
		t.Fatalf("Buy with an open ticket and a chest due: %+v, %v, %v", t2, resumed, err)
	}
	e.reveal(id, tk.ID, storage.AllRows)
	before := e.player(id)
	bp, _, _, err := e.st.Buy(e.ctx, id)
	wantErr(t, "Buy with a chest due", err, storage.ErrChestDue)
	samePlayer(t, "Buy with a chest due (returned)", bp, before)
	samePlayer(t, "Buy with a chest due", e.player(id), before)
	for _, seq := range []int64{0, 2, -1} {
		_, _, _, err := e.st.OpenChest(e.ctx, id, seq)
		wantErr(t, fmt.Sprintf("OpenChest(%d)", seq), err, storage.ErrNoChest)
		samePlayer(t, "wrong chest seq", e.player(id), before)
	}
	e.clock.Advance(time.Second)
	p, c, opened, err := e.st.OpenChest(e.ctx, id, 1)
	if err != nil || c != Chest(game.LotGold, 500) || !opened {
		t.Fatalf("OpenChest(1) = %+v, opened %v, %v", c, opened, err)
	}
	if p.ChestPending || p.ChestSeq != 1 || p.Balance != before.Balance+500 || p.Stats.Chests != 1 ||
		p.Stats.WonCents != before.Stats.WonCents+500 || p.LastChest == nil || *p.LastChest != c {
		t.Fatalf("after the chest: %+v", p)
	}
	sound(t, p)
	// A double click pays once and shows the same chest.
	for range 2 {
		p2, c2, opened, err := e.st.OpenChest(e.ctx, id, 1)
		if err != nil || c2 != c || opened {
			t.Fatalf("repeated OpenChest(1) = %+v, opened %v, %v", c2, opened, err)
		}
		samePlayer(t, "repeated OpenChest", p2, p)
	}
	_, _, _, err = e.st.OpenChest(e.ctx, id, 2)
	wantErr(t, "OpenChest(2) with none due", err, storage.ErrNoChest)
	if p, tk := e.play(id); tk.ID != 4 || p.Keys != 1 {
		t.Fatalf("play after the chest: ticket %d, keys %d", tk.ID, p.Keys)
	}
	h, err := e.st.History(e.ctx, id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[1].Kind != storage.KindChest || h[1].Lot != game.LotGold || h[1].Amount != 500 {
		t.Fatalf("history: %+v", h)
	}
}

func testFailingDraw(t *testing.T, open OpenFunc) {
	d := &Drawer{PlayFunc: func(int) game.Outcome { return Loss(true) }}
	e := newEnv(t, open, d, defaults)
	id := pid(1)
	e.play(id)
	e.play(id)
	_, tk := e.buy(id)
	before := e.player(id)
	hist, _ := e.st.History(e.ctx, id, 50)
	d.Fail.Store(true)
	for _, rows := range []storage.RowMask{0, 1, storage.AllRows} {
		_, _, err := e.st.Reveal(e.ctx, id, tk.ID, rows)
		wantErr(t, "Reveal with a failing draw", err, ErrDraw)
		samePlayer(t, "failing draw", e.player(id), before)
	}
	if h, _ := e.st.History(e.ctx, id, 50); !reflect.DeepEqual(h, hist) {
		t.Fatalf("failing draw changed the history: %+v", h)
	}
	d.Fail.Store(false)
	p, tk := e.reveal(id, tk.ID, storage.AllRows)
	if !p.ChestPending || !tk.Drawn {
		t.Fatalf("draw after the failure: %+v", p)
	}
	// Once drawn, a failing drawer does not matter: nothing is drawn again.
	d.Fail.Store(true)
	if !tk.DrawnNow {
		t.Fatalf("the call that drew the ticket was not told so: %+v", tk)
	}
	tk.DrawnNow = false
	if _, t2, err := e.st.Reveal(e.ctx, id, tk.ID, storage.AllRows); err != nil || !reflect.DeepEqual(t2, tk) {
		t.Fatalf("Reveal of a drawn ticket with a failing drawer: %+v, %v", t2, err)
	}
	before = e.player(id)
	_, _, _, err := e.st.OpenChest(e.ctx, id, 1)
	wantErr(t, "OpenChest with a failing draw", err, ErrDraw)
	samePlayer(t, "failing chest", e.player(id), before)
	d.Fail.Store(false)
	if p, _, _, err := e.st.OpenChest(e.ctx, id, 1); err != nil || p.ChestPending {
		t.Fatalf("OpenChest after the failure: %v", err)
	}
}

func testInvalidDraw(t *testing.T, open OpenFunc) {
	bad := Loss(false)
	bad.Prize = 100 // a loss that pays: a broken drawer
	e := newEnv(t, open, &Drawer{PlayFunc: func(int) game.Outcome { return bad }}, defaults)
	_, tk := e.buy(pid(1))
	before := e.player(pid(1))
	_, _, err := e.st.Reveal(e.ctx, pid(1), tk.ID, storage.AllRows)
	if err == nil {
		t.Fatal("Reveal accepted an inconsistent outcome")
	}
	samePlayer(t, "invalid draw", e.player(pid(1)), before)
}

func testDaily(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults) // daily disabled
	_, err := e.st.ClaimDaily(e.ctx, pid(1))
	wantErr(t, "ClaimDaily when disabled", err, storage.ErrInvalid)

	e = newEnv(t, open, nil, storage.Settings{StartingBalance: 1000, DailyAmount: 250, DailyCooldown: 20 * time.Hour})
	id := pid(1)
	p, err := e.st.ClaimDaily(e.ctx, id)
	if err != nil || p.Balance != 1250 || p.Stats.DailyCents != 250 || !p.LastDaily.Equal(e.clock.Now()) {
		t.Fatalf("first claim: %+v, %v", p, err)
	}
	sound(t, p)
	e.clock.Advance(20*time.Hour - time.Millisecond)
	p2, err := e.st.ClaimDaily(e.ctx, id)
	wantErr(t, "claim within the cooldown", err, storage.ErrDailyCooldown)
	samePlayer(t, "claim within the cooldown (returned)", p2, p)
	samePlayer(t, "claim within the cooldown", e.player(id), p)
	e.clock.Advance(time.Millisecond)
	p, err = e.st.ClaimDaily(e.ctx, id)
	if err != nil || p.Balance != 1500 || p.Stats.DailyCents != 500 {
		t.Fatalf("claim after the cooldown: %+v, %v", p, err)
	}
	// The guild's settings override the defaults.
	if err := e.st.SetSettings(e.ctx, mod, guild, storage.Settings{StartingBalance: 10, DailyAmount: 7, DailyCooldown: 0}, ""); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p, err = e.st.ClaimDaily(e.ctx, id)
		if err != nil || p.Balance != 1500+7*int64(i+1) {
			t.Fatalf("claim %d with no cooldown: %d, %v", i, p.Balance, err)
		}
	}
	h, _ := e.st.History(e.ctx, id, 1)
	if len(h) != 1 || h[0].Kind != storage.KindDaily || h[0].Amount != 7 || h[0].Balance != p.Balance {
		t.Fatalf("history: %+v", h)
	}
}

func testGrant(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	id := pid(1)
	e.clock.Advance(time.Hour)
	p, err := e.st.Grant(e.ctx, mod, id, 2500, "tournament prize")
	if err != nil || p.Balance != 3500 || p.Stats.GrantedCents != 2500 {
		t.Fatalf("Grant(+2500) = %+v, %v", p, err)
	}
	p, err = e.st.Grant(e.ctx, mod, id, -3000, "")
	if err != nil || p.Balance != 500 || p.Stats.GrantedCents != -500 {
		t.Fatalf("Grant(-3000) = %+v, %v", p, err)
	}
	sound(t, p)
	for _, c := range []struct {
		amount int64
		reason string
	}{
		{-501, ""},
		{0, ""},
		{storage.MaxGrant + 1, ""},
		{-storage.MaxGrant - 1, ""},
		{10, strings.Repeat("é", storage.MaxReason+1)},
		{10, "\xff"},
	} {
		_, err := e.st.Grant(e.ctx, mod, id, c.amount, c.reason)
		wantErr(t, fmt.Sprintf("Grant(%d, %d chars)", c.amount, len(c.reason)), err, storage.ErrInvalid)
		samePlayer(t, "refused grant", e.player(id), p)
	}
	if _, err := e.st.Grant(e.ctx, mod, id, 10, strings.Repeat("é", storage.MaxReason)); err != nil {
		t.Fatalf("Grant with a %d-character reason: %v", storage.MaxReason, err)
	}
	// Up to MaxBalance, not beyond.
	p, err = e.st.SetBalance(e.ctx, mod, id, storage.MaxBalance-10, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.st.Grant(e.ctx, mod, id, 11, "")
	wantErr(t, "Grant past MaxBalance", err, storage.ErrInvalid)
	a, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 4 {
		t.Fatalf("%d audit entries, want 4: %+v", len(a), a)
	}
	want := storage.AuditEntry{At: e.clock.Now(), Guild: guild, Actor: mod, Target: 1, Action: "grant", Amount: 2500, Reason: "tournament prize"}
	if !reflect.DeepEqual(a[3], want) {
		t.Fatalf("audit entry %+v, want %+v", a[3], want)
	}
	h, _ := e.st.History(e.ctx, id, 10)
	if len(h) != 4 || h[3].Kind != storage.KindGrant || h[3].Amount != 2500 || h[3].Balance != 3500 {
		t.Fatalf("history: %+v", h)
	}
	// A refused grant to an unknown player creates nothing visible to the leaderboard.
	_, err = e.st.Grant(e.ctx, mod, pid(2), -1001, "")
	wantErr(t, "negative grant to a new player", err, storage.ErrInvalid)
}

func testSetBalance(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	id := pid(1)
	e.play(id)
	p, err := e.st.SetBalance(e.ctx, mod, id, 5000, "fix")
	if err != nil || p.Balance != 5000 || p.Stats.GrantedCents != 5000-950 {
		t.Fatalf("SetBalance(5000) = %+v, %v", p, err)
	}
	sound(t, p)
	p, err = e.st.SetBalance(e.ctx, mod, id, 0, "")
	if err != nil || p.Balance != 0 {
		t.Fatalf("SetBalance(0) = %+v, %v", p, err)
	}
	sound(t, p)
	for _, b := range []int64{-1, storage.MaxBalance + 1} {
		_, err := e.st.SetBalance(e.ctx, mod, id, b, "")
		wantErr(t, fmt.Sprintf("SetBalance(%d)", b), err, storage.ErrInvalid)
		samePlayer(t, "refused set", e.player(id), p)
	}
	a, _ := e.st.Audit(e.ctx, guild, 1)
	if len(a) != 1 || a[0].Action != "set-balance" || a[0].Amount != 0 || a[0].Target != 1 {
		t.Fatalf("audit: %+v", a)
	}
}

func testResetPlayer(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, &Drawer{PlayFunc: func(int) game.Outcome { return Loss(true) }}, storage.Settings{StartingBalance: 1000, DailyAmount: 5})
	id := pid(1)
	e.play(id)
	if _, err := e.st.ClaimDaily(e.ctx, id); err != nil {
		t.Fatal(err)
	}
	_, tk := e.buy(id) // left open: the reset drops it, the stake stays spent
	if tk.ID != 2 {
		t.Fatalf("ticket %d", tk.ID)
	}
	if err := e.st.SetSettings(e.ctx, mod, guild, storage.Settings{StartingBalance: 300}, ""); err != nil {
		t.Fatal(err)
	}
	old := e.player(id)
	e.clock.Advance(time.Millisecond)
	p, err := e.st.ResetPlayer(e.ctx, mod, id, "cheating")
	if err != nil {
		t.Fatal(err)
	}
	want := storage.Player{ID: id, StartingBalance: 300, Balance: 300, TicketSeq: 2, CreatedAt: old.CreatedAt}
	samePlayer(t, "reset player", p, want)
	samePlayer(t, "reset player (stored)", e.player(id), want)
	_, _, err = e.st.Reveal(e.ctx, id, tk.ID, storage.AllRows)
	wantErr(t, "Reveal of a ticket dropped by a reset", err, storage.ErrUnknownTicket)
	if _, t3 := e.buy(id); t3.ID != 3 {
		t.Fatalf("ticket after a reset: %d, want 3 (ids never reused)", t3.ID)
	}
	a, _ := e.st.Audit(e.ctx, guild, 1)
	if len(a) != 1 || a[0].Action != "reset" || a[0].Reason != "cheating" || a[0].Target != 1 {
		t.Fatalf("audit: %+v", a)
	}
	_, err = e.st.ResetPlayer(e.ctx, mod, id, strings.Repeat("x", storage.MaxReason+1))
	wantErr(t, "reset with a long reason", err, storage.ErrInvalid)
}

func testResetGuild(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	for u := uint64(1); u <= 5; u++ {
		e.play(pid(u))
	}
	other := storage.PlayerID{Guild: guild2, User: 1}
	e.play(other)
	n, err := e.st.ResetGuild(e.ctx, mod, guild, "new season")
	if err != nil || n != 5 {
		t.Fatalf("ResetGuild = %d, %v; want 5", n, err)
	}
	for u := uint64(1); u <= 5; u++ {
		if p := e.player(pid(u)); p.Balance != 1000 || p.Stats != (storage.Stats{}) || p.Ticket != nil {
			t.Fatalf("player %d after the guild reset: %+v", u, p)
		}
	}
	if p := e.player(other); p.Balance != 950 {
		t.Fatalf("other guild's player touched: %+v", p)
	}
	a, _ := e.st.Audit(e.ctx, guild, 10)
	if len(a) != 1 || a[0].Action != "reset-guild" || a[0].Reason != "new season" || a[0].Target != 0 {
		t.Fatalf("audit: %+v", a)
	}
	if n, err := e.st.ResetGuild(e.ctx, mod, 333, ""); err != nil || n != 0 {
		t.Fatalf("ResetGuild of an empty guild = %d, %v", n, err)
	}
}

func testHistory(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, storage.Settings{StartingBalance: 100_000})
	id := pid(1)
	if h, err := e.st.History(e.ctx, id, 10); err != nil || len(h) != 0 {
		t.Fatalf("history of a new player: %+v, %v", h, err)
	}
	total := storage.HistoryLimit + 7
	for range total {
		e.clock.Advance(time.Second)
		e.play(id)
	}
	h, err := e.st.History(e.ctx, id, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != storage.HistoryLimit {
		t.Fatalf("%d entries kept, want %d", len(h), storage.HistoryLimit)
	}
	for i, x := range h {
		if want := uint64(total - i); x.TicketID != want || !x.At.Equal(e.clock.Now().Add(-time.Duration(i)*time.Second)) {
			t.Fatalf("entry %d: ticket %d at %v, want ticket %d", i, x.TicketID, x.At, want)
		}
	}
	if h3, _ := e.st.History(e.ctx, id, 3); !reflect.DeepEqual(h3, h[:3]) {
		t.Fatalf("History(3) = %+v, want the 3 latest", h3)
	}
	if h0, err := e.st.History(e.ctx, id, 0); err != nil || len(h0) != 0 {
		t.Fatalf("History(0) = %+v, %v", h0, err)
	}
}

func testLeaderboard(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	balances := map[uint64]int64{1: 300, 2: 5000, 3: 300, 4: 10, 5: 999}
	for u, b := range balances {
		if _, err := e.st.SetBalance(e.ctx, mod, pid(u), b, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.st.SetBalance(e.ctx, mod, storage.PlayerID{Guild: guild2, User: 9}, 1_000_000, ""); err != nil {
		t.Fatal(err)
	}
	lb, err := e.st.Leaderboard(e.ctx, guild, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []storage.LeaderboardEntry{{User: 2, Balance: 5000}, {User: 5, Balance: 999}, {User: 1, Balance: 300}, {User: 3, Balance: 300}}
	if !reflect.DeepEqual(lb, want) {
		t.Fatalf("leaderboard %+v, want %+v", lb, want)
	}
	if lb, _ := e.st.Leaderboard(e.ctx, 333, 10); len(lb) != 0 {
		t.Fatalf("leaderboard of an empty guild: %+v", lb)
	}
	_, err = e.st.Leaderboard(e.ctx, guild, -1)
	wantErr(t, "Leaderboard(-1)", err, storage.ErrInvalid)
}

func testSettings(t *testing.T, open OpenFunc) {
	def := storage.Settings{StartingBalance: 1234, DailyAmount: 100, DailyCooldown: 24 * time.Hour, PublicPlays: true}
	e := newEnv(t, open, nil, def)
	if s, err := e.st.Settings(e.ctx, guild); err != nil || s != def {
		t.Fatalf("Settings of a new guild = %+v, %v; want the defaults", s, err)
	}
	s := storage.Settings{StartingBalance: 50, DailyAmount: 0, DailyCooldown: 90 * time.Minute, Channel: 1 << 60}
	if err := e.st.SetSettings(e.ctx, mod, guild, s, "quieter"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.st.Settings(e.ctx, guild); err != nil || got != s {
		t.Fatalf("Settings = %+v, %v; want %+v", got, err, s)
	}
	if got, _ := e.st.Settings(e.ctx, guild2); got != def {
		t.Fatalf("other guild's settings %+v", got)
	}
	for _, bad := range []storage.Settings{
		{StartingBalance: -1},
		{StartingBalance: storage.MaxBalance + 1},
		{DailyAmount: -5},
		{DailyAmount: storage.MaxDailyAmount + 1},
		{DailyCooldown: -time.Second},
		{DailyCooldown: storage.MaxCooldown + time.Hour},
		{DailyCooldown: time.Microsecond},
	} {
		err := e.st.SetSettings(e.ctx, mod, guild, bad, "")
		wantErr(t, fmt.Sprintf("SetSettings(%+v)", bad), err, storage.ErrInvalid)
	}
	if got, _ := e.st.Settings(e.ctx, guild); got != s {
		t.Fatalf("refused settings changed them: %+v", got)
	}
	a, _ := e.st.Audit(e.ctx, guild, 10)
	if len(a) != 1 || a[0].Action != "settings" || a[0].Reason != "quieter" || a[0].Actor != mod {
		t.Fatalf("audit: %+v", a)
	}
}

func testAuditLog(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	for i := range 5 {
		e.clock.Advance(time.Second)
		if _, err := e.st.Grant(e.ctx, mod, pid(uint64(i%2+1)), int64(i+1), fmt.Sprint("r", i)); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(time.Second)
	if err := e.st.SetSettings(e.ctx, mod+1, guild, defaults, "s"); err != nil {
		t.Fatal(err)
	}
	a, err := e.st.Audit(e.ctx, guild, 4)
	if err != nil || len(a) != 4 {
		t.Fatalf("Audit(4) = %d entries, %v", len(a), err)
	}
	if a[0].Action != "settings" || a[0].Actor != mod+1 {
		t.Fatalf("newest entry %+v", a[0])
	}
	for i := 1; i < 4; i++ {
		want := int64(5 - i + 1)
		if a[i].Amount != want || a[i].Reason != fmt.Sprint("r", want-1) || !a[i].At.Before(a[i-1].At) {
			t.Fatalf("entry %d: %+v, want the grant of %d", i, a[i], want)
		}
	}
	if a, _ := e.st.Audit(e.ctx, guild2, 10); len(a) != 0 {
		t.Fatalf("other guild's audit: %+v", a)
	}
}

// populate puts a bit of everything in a store.
func populate(t *testing.T, e *env) {
	t.Helper()
	for u := uint64(1); u <= 6; u++ {
		id := pid(u)
		if u == 6 {
			id.Guild = guild2
		}
		for range int(u) * 3 {
			e.clock.Advance(time.Second)
			_, _, _, err := e.st.Buy(e.ctx, id)
			if errors.Is(err, storage.ErrChestDue) {
				p := e.player(id)
				if _, _, _, err := e.st.OpenChest(e.ctx, id, p.ChestSeq+1); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			p := e.player(id)
			e.reveal(id, p.Ticket.ID, storage.AllRows)
		}
	}
	_, tk := e.buy(pid(2)) // an open ticket, drawn and partly shown
	e.reveal(pid(2), tk.ID, 0b100)
	if p := e.player(pid(3)); !p.ChestPending {
		e.buy(pid(3)) // an open ticket, not drawn
	}
	if _, err := e.st.Grant(e.ctx, mod, pid(1), 777, "gift « ünïcode »"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.ClaimDaily(e.ctx, pid(4)); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetSettings(e.ctx, mod, guild2, storage.Settings{StartingBalance: 5, DailyAmount: 10, DailyCooldown: 36 * time.Hour, PublicPlays: true, Channel: 42}, ""); err != nil {
		t.Fatal(err)
	}
	e.player(pid(7)) // a player who never played
}

func dump(t *testing.T, st storage.Store) *storage.Dump {
	t.Helper()
	d, ok := st.(storage.Dumper)
	if !ok {
		t.Fatalf("%T does not implement storage.Dumper", st)
	}
	out, err := storage.ExportDump(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func testExportImport(t *testing.T, open OpenFunc) {
	set := storage.Settings{StartingBalance: 2000, DailyAmount: 100, DailyCooldown: time.Hour}
	e := newEnv(t, open, RandomDrawer(7), set)
	populate(t, e)
	d1 := dump(t, e.st)
	if len(d1.Players) != 7 || len(d1.Guilds) != 2 {
		t.Fatalf("dump of %d players, %d guilds; want 7, 2", len(d1.Players), len(d1.Guilds))
	}
	for i := 1; i < len(d1.Players); i++ {
		a, b := d1.Players[i-1], d1.Players[i]
		if a.GuildID > b.GuildID || a.GuildID == b.GuildID && a.UserID >= b.UserID {
			t.Fatalf("players not ordered by guild, user: %d/%d before %d/%d", a.GuildID, a.UserID, b.GuildID, b.UserID)
		}
	}
	for _, r := range d1.Players {
		p, _, err := r.Player()
		if err != nil {
			t.Fatal(err)
		}
		if live := e.player(p.ID); !reflect.DeepEqual(live, p) {
			t.Fatalf("exported player differs from the store:\n got %+v\nwant %+v", p, live)
		}
	}
	e2 := newEnv(t, open, nil, set)
	dd := dump(t, e2.st)
	if len(dd.Players) != 0 || len(dd.Guilds) != 0 {
		t.Fatalf("fresh store is not empty: %+v", dd)
	}
	if err := e2.st.(storage.Dumper).Import(e2.ctx, d1); err != nil {
		t.Fatal(err)
	}
	d2 := dump(t, e2.st)
	if !storage.EqualDumps(d1, d2) {
		t.Fatalf("export → import → export differs:\n%+v\n%+v", d1, d2)
	}
	// The imported store works: the open tickets resume, history continues.
	_, tk, resumed, err := e2.st.Buy(e2.ctx, pid(2))
	if err != nil || !resumed || tk.Revealed != 0b100 {
		t.Fatalf("Buy after import: %+v, %v, %v", tk, resumed, err)
	}
	p, _ := e2.reveal(pid(2), tk.ID, storage.AllRows)
	sound(t, p)
	if a, _ := e2.st.Audit(e2.ctx, guild, 10); len(a) != 1 || a[0].Reason != "gift « ünïcode »" {
		t.Fatalf("audit after import: %+v", a)
	}
	if s, _ := e2.st.Settings(e2.ctx, guild2); s.Channel != 42 || s.DailyCooldown != 36*time.Hour {
		t.Fatalf("settings after import: %+v", s)
	}
}

func testImportAllOrNothing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, RandomDrawer(9), storage.Settings{StartingBalance: 1000, DailyAmount: 10})
	populate(t, e)
	d := dump(t, e.st)
	target := newEnv(t, open, nil, defaults)
	im := target.st.(storage.Dumper)
	if _, err := target.st.Grant(target.ctx, mod, pid(5), 1, ""); err != nil { // pid(5) is in the dump
		t.Fatal(err)
	}
	before := dump(t, target.st)

	clone := func() *storage.Dump {
		c := *d
		c.Players = append([]storage.Record(nil), d.Players...)
		c.Guilds = append([]storage.GuildRecord(nil), d.Guilds...)
		return &c
	}
	cases := []struct {
		name   string
		edit   func(d *storage.Dump)
		want   error
		naming string
	}{
		{"already in the store", func(*storage.Dump) {}, storage.ErrDuplicate, "players[4]"},
		{"twice in the dump", func(d *storage.Dump) { d.Players[6] = d.Players[0] }, storage.ErrDuplicate, "players[6]"},
		{"balance altered", func(d *storage.Dump) { d.Players[5].BalanceCents++ }, storage.ErrInvalid, "players[5]"},
		{"no user", func(d *storage.Dump) { d.Players[3].UserID = 0 }, storage.ErrInvalid, "players[3]"},
		{"keys out of range", func(d *storage.Dump) { d.Players[2].Keys = 3 }, storage.ErrInvalid, "players[2]"},
		{"bad grid", func(d *storage.Dump) {
			r := d.Players[0] // user 1: three plays, the last one closed
			tr := *r.LastTicket
			o := *tr.Outcome
			o.Grid = "GGGXXXGGG"
			tr.Outcome = &o
			r.LastTicket = &tr
			d.Players[0] = r
		}, storage.ErrInvalid, "players[0]"},
		{"bad cooldown", func(d *storage.Dump) {
			g := d.Guilds[1]
			s := *g.Settings
			s.DailyCooldown = "soon"
			g.Settings = &s
			d.Guilds[1] = g
		}, storage.ErrInvalid, "guilds[1]"},
		{"version", func(d *storage.Dump) { d.Version = 2 }, storage.ErrInvalid, "version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dd := clone()
			c.edit(dd)
			err := im.Import(target.ctx, dd)
			wantErr(t, "Import", err, c.want)
			if !strings.Contains(err.Error(), c.naming) {
				t.Fatalf("error %q does not name %s", err, c.naming)
			}
			if after := dump(t, target.st); !storage.EqualDumps(before, after) {
				t.Fatalf("a refused import changed the store")
			}
		})
	}
}

func testCanceledContext(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	before := e.player(pid(1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := e.st.Buy(ctx, pid(1)); err == nil {
		t.Fatal("Buy with a canceled context succeeded")
	}
	samePlayer(t, "canceled buy", e.player(pid(1)), before)
}

func testClosed(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, nil, defaults)
	e.player(pid(1))
	if err := e.st.Ping(e.ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := e.st.Player(e.ctx, pid(1))
	wantErr(t, "Player after Close", err, storage.ErrClosed)
	_, _, _, err = e.st.Buy(e.ctx, pid(1))
	wantErr(t, "Buy after Close", err, storage.ErrClosed)
	wantErr(t, "Ping after Close", e.st.Ping(e.ctx), storage.ErrClosed)
	if err := e.st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// testSameTicketDrawnOnce has 64 goroutines click the same fresh ticket at
// once; every draw the drawer makes differs, so a second draw would show.
func testSameTicketDrawnOnce(t *testing.T, open OpenFunc) {
	var mu sync.Mutex
	var n int64
	d := &Drawer{PlayFunc: func(int) game.Outcome {
		mu.Lock()
		defer mu.Unlock()
		n++
		return Win(game.TierBomb, 1000+n)
	}}
	e := newEnv(t, open, d, defaults)
	for round := range 5 {
		_, tk := e.buy(pid(1))
		start := make(chan struct{})
		results := make([]storage.Ticket, 64)
		errs := make([]error, 64)
		var wg sync.WaitGroup
		for g := range 64 {
			wg.Go(func() {
				<-start
				_, results[g], errs[g] = e.st.Reveal(e.ctx, pid(1), tk.ID, storage.RowMask(1<<(g%3)))
			})
		}
		close(start)
		wg.Wait()
		drew := 0
		for g := range 64 {
			if errs[g] != nil {
				t.Fatalf("round %d, goroutine %d: %v", round, g, errs[g])
			}
			if results[g].DrawnNow {
				drew++
			}
			if !reflect.DeepEqual(results[g].Outcome, results[0].Outcome) {
				t.Fatalf("round %d: goroutine %d saw %+v, goroutine 0 saw %+v", round, g, results[g].Outcome, results[0].Outcome)
			}
		}
		if drew != 1 {
			t.Fatalf("round %d: %d callers were told they drew the ticket, want exactly 1", round, drew)
		}
		p := e.player(pid(1))
		if p.Ticket.DrawnNow {
			t.Fatalf("round %d: a read says the ticket was drawn now", round)
		}
		if p.Stats.Wins != int64(round+1) || p.Ticket.Outcome != results[0].Outcome || p.Ticket.Revealed != storage.AllRows {
			t.Fatalf("round %d: player %+v", round, p)
		}
		sound(t, p)
		h, _ := e.st.History(e.ctx, pid(1), 50)
		if len(h) != round+1 {
			t.Fatalf("round %d: %d history entries", round, len(h))
		}
	}
}

// testSameChestOpenedOnce has 64 goroutines open the same due chest at
// once: one of them opens it, the others see the same chest, and the prize
// is paid once.
func testSameChestOpenedOnce(t *testing.T, open OpenFunc) {
	var mu sync.Mutex
	var n int64
	e := newEnv(t, open, &Drawer{
		PlayFunc: func(int) game.Outcome { return Loss(true) },
		ChestFunc: func() game.Chest { // every draw differs, so a second one would show
			mu.Lock()
			defer mu.Unlock()
			n++
			return Chest(game.LotGold, 100*n)
		},
	}, defaults)
	id := pid(1)
	for round := range 3 {
		for range 3 {
			e.play(id)
		}
		before := e.player(id)
		if !before.ChestPending {
			t.Fatalf("round %d: no chest due after three keys: %+v", round, before)
		}
		seq := before.ChestSeq + 1
		start := make(chan struct{})
		chests := make([]game.Chest, 64)
		opened := make([]bool, 64)
		errs := make([]error, 64)
		var wg sync.WaitGroup
		for g := range 64 {
			wg.Go(func() {
				<-start
				_, chests[g], opened[g], errs[g] = e.st.OpenChest(e.ctx, id, seq)
			})
		}
		close(start)
		wg.Wait()
		first := 0
		for g := range 64 {
			if errs[g] != nil {
				t.Fatalf("round %d, goroutine %d: %v", round, g, errs[g])
			}
			if opened[g] {
				first++
			}
			if chests[g] != chests[0] {
				t.Fatalf("round %d: goroutine %d saw %+v, goroutine 0 saw %+v", round, g, chests[g], chests[0])
			}
		}
		if first != 1 {
			t.Fatalf("round %d: %d callers were told they opened the chest, want exactly 1", round, first)
		}
		p := e.player(id)
		if p.ChestPending || p.ChestSeq != seq || p.Balance != before.Balance+chests[0].Prize || p.Stats.Chests != int64(round+1) {
			t.Fatalf("round %d: after the chest %+v (before %+v)", round, p, before)
		}
		sound(t, p)
	}
}

func testConcurrentOnePlayer(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, RandomDrawer(1), storage.Settings{StartingBalance: 1_000_000, DailyAmount: 30})
	if err := CheckConcurrency(e.ctx, e.st, []storage.PlayerID{pid(1)}, 64, 200); err != nil {
		t.Fatal(err)
	}
}

func testConcurrentManyPlayers(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, RandomDrawer(2), storage.Settings{StartingBalance: 20_000, DailyAmount: 30, DailyCooldown: time.Millisecond})
	ids := make([]storage.PlayerID, 64)
	for i := range ids {
		ids[i] = storage.PlayerID{Guild: uint64(guild + i%3), User: uint64(1000 + i)}
	}
	if err := CheckConcurrency(e.ctx, e.st, ids, 64, 200); err != nil {
		t.Fatal(err)
	}
}
