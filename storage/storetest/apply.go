package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// testApplyPlay: a ticket bought, drawn and revealed through Apply; every
// state sound, what Apply returns is what Load reads, a repeated operation
// changes nothing and answers with its first result.
func testApplyPlay(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	d := &Drawer{PlayFunc: func(int) game.Outcome { return Win(game.TierCandle) }}
	now := e.clock.Now()
	buyOp := e.step(id, "buy-1", buy(now))
	a, err := storage.Apply(e.ctx, e.st, buyOp)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Created || a.Repeated || a.Result.Ticket != 1 || a.Result.Amount != -game.Stake || a.Player.Balance != start-game.Stake || len(a.History) != 0 {
		t.Fatalf("first buy: %+v", a)
	}
	sound(t, "after buy", a.Player)
	v := e.load(id)
	if !v.Exists() || !reflect.DeepEqual(v.Player, a.Player) {
		t.Fatalf("Load after buy:\n got %+v\nwant %+v", v.Player, a.Player)
	}
	same(t, "players", playersOf(t, e.st, guild), []uint64{1})

	// The same click again: nothing changes, the first result comes back.
	e.clock.Advance(time.Second)
	again, err := storage.Apply(e.ctx, e.st, buyOp)
	if err != nil || !again.Repeated || again.Created || again.Result != a.Result || len(again.History) != 0 {
		t.Fatalf("repeated buy: %+v, %v", again, err)
	}
	same(t, "state after a repeated buy", e.load(id), v)
	// Another click on Buy resumes the open ticket, charging nothing.
	r := e.must(id, "second buy", buy(e.clock.Now()))
	if !r.Result.Resumed || r.Result.Ticket != 1 || r.Player.Balance != start-game.Stake {
		t.Fatalf("second buy: %+v", r.Result)
	}

	// The first reveal draws and credits; later ones only show rows.
	rev := e.step(id, "reveal-1", reveal(d, 1, 0b001, e.clock.Now()))
	a, err = storage.Apply(e.ctx, e.st, rev)
	if err != nil {
		t.Fatal(err)
	}
	prize := game.TierCandle.Prize()
	if !a.Result.Drawn || a.Player.Balance != start-game.Stake+prize || a.Player.Ticket.Outcome != Win(game.TierCandle) || a.Player.Ticket.Revealed != 0b001 {
		t.Fatalf("first reveal: %+v, ticket %+v", a.Result, a.Player.Ticket)
	}
	wantLine := game.Entry{At: e.clock.Now(), Kind: game.KindPlay, TicketID: 1, Tier: game.TierCandle, Amount: prize - game.Stake, Balance: a.Player.Balance,
		Fair: true, KeysBefore: 0, Grid: Win(game.TierCandle).Grid, Commitment: a.Player.Commitment()}
	if len(a.History) != 1 || a.History[0] != wantLine {
		t.Fatalf("history of the draw: %+v, want %+v", a.History, wantLine)
	}
	sound(t, "after reveal", a.Player)
	if again, err := storage.Apply(e.ctx, e.st, rev); err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated reveal: %+v, %v", again, err)
	}
	a = e.must(id, "reveal all", reveal(d, 1, game.AllRows, e.clock.Now()))
	if a.Result.Drawn || a.Player.Ticket.Open() || d.Plays.Load() != 1 {
		t.Fatalf("last reveal: %+v, %d draws", a.Result, d.Plays.Load())
	}
	h, err := e.st.History(e.ctx, id, 10)
	if err != nil || len(h) != 1 || h[0] != wantLine {
		t.Fatalf("history: %+v, %v", h, err)
	}
	same(t, "Load after the plays", e.load(id).Player, a.Player)

	// A closed ticket: the next buy opens ticket 2.
	a = e.must(id, "buy 2", buy(e.clock.Now()))
	if a.Result.Resumed || a.Result.Ticket != 2 || a.Player.TicketSeq != 2 {
		t.Fatalf("buy after a closed ticket: %+v", a.Result)
	}
	_, err = e.apply(id, reveal(d, 1, game.AllRows, e.clock.Now()))
	wantErr(t, "reveal of the old ticket", err, game.ErrUnknownTicket)
}

// testApplyKeysAndChest: three keys make the chest due; buying is refused
// until it is opened, once, whatever the clicks; then daily claims.
func testApplyKeysAndChest(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	d := &Drawer{PlayFunc: func(int) game.Outcome { return Loss(true) }, ChestFunc: func() game.Chest { return Chest(game.LotGold) }}
	for k := 1; k <= game.MaxKeys; k++ {
		a := e.play(id, d)
		if k < game.MaxKeys && (a.Player.Keys != k || a.Player.ChestDue) {
			t.Fatalf("after key %d: %d keys, chest due %v", k, a.Player.Keys, a.Player.ChestDue)
		}
	}
	v := e.load(id)
	if !v.Player.ChestDue || v.Player.Keys != 0 || v.Player.Stats.Keys != game.MaxKeys {
		t.Fatalf("after %d keys: %+v", game.MaxKeys, v.Player)
	}
	_, err := e.apply(id, buy(e.clock.Now()))
	wantErr(t, "buy with a chest due", err, game.ErrChestDue)
	same(t, "a refused buy changed the player", e.load(id), v)

	open1 := e.step(id, "chest-1", openChest(d, 1, e.clock.Now()))
	a, err := storage.Apply(e.ctx, e.st, open1)
	if err != nil || !a.Result.Opened || a.Result.Chest != Chest(game.LotGold) || a.Player.Balance != v.Player.Balance+game.LotGold.Prize() || a.Player.ChestDue {
		t.Fatalf("open chest: %+v, %v", a, err)
	}
	sound(t, "after the chest", a.Player)
	after := e.load(id)
	// The same click, and a new click on the same chest: paid once.
	if again, err := storage.Apply(e.ctx, e.st, open1); err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated open: %+v, %v", again, err)
	}
	if b := e.must(id, "chest again", openChest(d, 1, e.clock.Now())); b.Result.Opened || b.Result.Chest != a.Result.Chest || b.Player.Balance != a.Player.Balance {
		t.Fatalf("second click on the chest: %+v", b.Result)
	}
	if d.Chests.Load() != 1 {
		t.Fatalf("%d chest draws, want 1", d.Chests.Load())
	}
	if p := e.load(id).Player; p.Balance != after.Player.Balance || p.ChestSeq != 1 || p.Stats.Chests != 1 {
		t.Fatalf("after the clicks: %+v", p)
	}
	_, err = e.apply(id, openChest(d, 2, e.clock.Now()))
	wantErr(t, "open a chest not due", err, game.ErrNoChest)

	// Daily: credited, then refused until the cooldown has passed.
	daily := func(p game.Player) (game.Step, error) { return p.ClaimDaily(25, time.Hour, e.clock.Now()) }
	b := e.must(id, "daily", daily)
	if b.Result.Amount != 25 || b.Player.Stats.DailyCents != 25 {
		t.Fatalf("daily: %+v", b.Result)
	}
	e.clock.Advance(time.Hour - time.Millisecond)
	_, err = e.apply(id, daily)
	var cd *game.CooldownError
	if !errors.As(err, &cd) || !cd.Next.Equal(b.Player.LastDaily.Add(time.Hour)) {
		t.Fatalf("daily within the cooldown: %v", err)
	}
	e.clock.Advance(time.Millisecond)
	e.must(id, "daily after the cooldown", daily)
	if p := e.load(id).Player; p.Stats.DailyCents != 50 {
		t.Fatalf("daily total %d, want 50", p.Stats.DailyCents)
	}
	if h, _ := e.st.History(e.ctx, id, 10); len(h) != game.MaxKeys+3 || h[0].Kind != game.KindDaily || h[2].Kind != game.KindChest {
		t.Fatalf("history: %+v", h)
	}
}

// testApplyModerator: grant, set balance and reset with their audit
// entries, each written with the step or not at all.
func testApplyModerator(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	mod1 := func(action, reason string) func(game.Step) *game.AuditEntry {
		return func(s game.Step) *game.AuditEntry {
			return &game.AuditEntry{At: e.clock.Now(), Guild: guild, Actor: mod, Target: id.User, Action: action, Amount: s.Result.Amount, Reason: reason}
		}
	}
	do := func(op string, f func(game.Player) (game.Step, error), audit func(game.Step) *game.AuditEntry) (storage.Applied, error) {
		return storage.Apply(e.ctx, e.st, storage.Step{ID: id, Op: op, Create: true, Start: start, Seeds: e.seeds, Now: e.clock.Now(), Do: f, Audit: audit})
	}
	e.play(id, RandomDrawer(3))
	a, err := do("g1", grant(250, e.clock.Now()), mod1("grant", "gift"))
	if err != nil || a.Result.Amount != 250 {
		t.Fatalf("grant: %+v, %v", a, err)
	}
	if a2, err := do("g1", grant(250, e.clock.Now()), mod1("grant", "gift")); err != nil || !a2.Repeated {
		t.Fatalf("repeated grant: %+v, %v", a2, err)
	}
	_, err = do("g2", grant(-1_000_000, e.clock.Now()), mod1("grant", "too much"))
	wantErr(t, "a grant below zero", err, game.ErrInvalid)
	a, err = do("s1", setBalance(123, e.clock.Now()), mod1("set-balance", "fix"))
	if err != nil || a.Player.Balance != 123 {
		t.Fatalf("set balance: %+v, %v", a, err)
	}
	sound(t, "after set balance", a.Player)
	e.clock.Advance(time.Minute)
	before := e.load(id).Player
	a, err = do("r1", func(p game.Player) (game.Step, error) { return p.Reset(2000, e.clock.Now()) }, mod1("reset", "again"))
	if err != nil {
		t.Fatal(err)
	}
	p := e.load(id).Player
	if p.Balance != 2000 || p.StartingBalance != 2000 || p.Stats != (game.Stats{}) || p.TicketSeq != before.TicketSeq || p.Seed != before.Seed || !p.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("after reset: %+v", p)
	}
	sound(t, "after reset", p)
	audit, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil || len(audit) != 3 || audit[0].Action != "reset" || audit[1].Action != "set-balance" || audit[2].Action != "grant" || audit[2].Amount != 250 || audit[0].Amount != 2000-123 {
		t.Fatalf("audit: %+v, %v", audit, err)
	}
	h, _ := e.st.History(e.ctx, id, 10)
	if len(h) != 4 || h[0].Kind != game.KindReset || h[1].Kind != game.KindSet || h[2].Kind != game.KindGrant || h[3].Kind != game.KindPlay {
		t.Fatalf("history: %+v", h)
	}
}

// testApplyErrors: a step refused writes nothing, creates nobody; a step
// without Create on a player never written is ErrNoPlayer.
func testApplyErrors(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	ctx := e.ctx
	now := e.clock.Now()
	_, err := storage.Apply(ctx, e.st, storage.Step{ID: pid(1), Op: "x", Now: now, Do: grant(1, now)})
	wantErr(t, "Apply without Create on a player never written", err, storage.ErrNoPlayer)
	_, err = storage.Apply(ctx, e.st, storage.Step{ID: pid(2), Op: "x", Create: true, Start: 0, Seeds: e.seeds, Now: now, Do: buy(now)})
	wantErr(t, "buy with nothing", err, game.ErrInsufficientFunds)
	_, err = storage.Apply(ctx, e.st, storage.Step{ID: pid(3), Op: "", Create: true, Start: start, Seeds: e.seeds, Now: now, Do: buy(now)})
	wantErr(t, "empty operation", err, game.ErrInvalid)
	if users := playersOf(t, e.st, guild); len(users) != 0 {
		t.Fatalf("refused steps created players %v", users)
	}
	if b, _ := e.st.Leaderboard(ctx, guild, 10, 0); b.Players != 0 || len(b.Top) != 0 {
		t.Fatalf("refused steps reached the leaderboard: %+v", b)
	}

	// A draw that fails, or gives what the rules forbid, writes nothing.
	id := pid(4)
	a := e.must(id, "buy", buy(now))
	v := e.load(id)
	d := &Drawer{}
	d.Fail.Store(true)
	_, err = e.apply(id, reveal(d, a.Result.Ticket, 1, now))
	wantErr(t, "failing draw", err, ErrDraw)
	same(t, "after a failing draw", e.load(id), v)
	bad := &Drawer{PlayFunc: func(int) game.Outcome { o := Win(game.TierGem); o.Prize++; return o }}
	got, err := e.apply(id, reveal(bad, a.Result.Ticket, 1, now))
	wantErr(t, "invalid draw", err, game.ErrInvalid)
	same(t, "after an invalid draw", e.load(id), v)
	same(t, "the player Apply returns with an error", got.Player, v.Player)
	// Without Create, an existing player is stepped.
	if _, err := storage.Apply(ctx, e.st, storage.Step{ID: id, Op: "y", Now: now, Do: grant(5, now)}); err != nil {
		t.Fatal(err)
	}
	if h, _ := e.st.History(ctx, id, 10); len(h) != 1 || h[0].Kind != game.KindGrant {
		t.Fatalf("history after refusals: %+v", h)
	}
}

// testSeededDraws: the store keeps the player's seed, so that every draw
// made with game.SeededDrawer can be recomputed from what Load reads.
func testSeededDraws(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	var d game.SeededDrawer
	for range 20 {
		before := e.load(id).Player
		a := e.play(id, d)
		tk := a.Player.Ticket
		seed := e.load(id).Player.Seed
		if before.Seed != (game.Seed{}) && seed != before.Seed {
			t.Fatal("the seed changed")
		}
		o, err := d.Ticket(seed, a.Player.ClientSeed, tk.ID, tk.KeysBefore())
		if err != nil || o != tk.Outcome {
			t.Fatalf("ticket %d drawn %+v, recomputed %+v (%v)", tk.ID, tk.Outcome, o, err)
		}
		if a.Player.ChestDue {
			c := e.must(id, "chest", openChest(d, a.Player.ChestSeq+1, e.clock.Now()))
			want, err := d.Chest(seed, c.Player.ClientSeed, c.Player.ChestSeq)
			if err != nil || want != c.Result.Chest {
				t.Fatalf("chest %d: %+v, recomputed %+v", c.Player.ChestSeq, c.Result.Chest, want)
			}
		}
	}
}

func testCanceledContext(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	e.must(pid(1), "grant", grant(1, e.clock.Now()))
	before := e.load(pid(1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	if _, err := e.st.Update(ctx, pid(1), "", func(v storage.Versioned) (storage.Write, error) {
		calls++
		s, err := v.Player.Grant(1, e.clock.Now())
		return storage.Write{Player: s.Player}, err
	}); err == nil {
		t.Fatal("Update with a canceled context succeeded")
	}
	same(t, "after a canceled Update", e.load(pid(1)), before)
	if _, err := e.st.Load(ctx, pid(1)); err == nil {
		t.Fatal("Load with a canceled context succeeded")
	}
}

func testClosed(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	e.must(pid(1), "grant", grant(1, e.clock.Now()))
	if err := e.st.Ping(e.ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := e.st.Load(e.ctx, pid(1))
	wantErr(t, "Load after Close", err, storage.ErrClosed)
	_, err = e.apply(pid(1), grant(1, e.clock.Now()))
	wantErr(t, "Apply after Close", err, storage.ErrClosed)
	_, err = e.st.Guild(e.ctx, guild)
	wantErr(t, "Guild after Close", err, storage.ErrClosed)
	wantErr(t, "Ping after Close", e.st.Ping(e.ctx), storage.ErrClosed)
	if err := e.st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
