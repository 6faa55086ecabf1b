package storetest

import (
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// The scenarios of game's rules through storage.Apply depend on no store:
// they run once, here, on the embedded store in a temporary file. Run
// holds every store to the contract they rely on (compare-and-set,
// operations, lists, dumps).

func openBolt(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, open OpenFunc)
	}{
		{"ApplyPlay", testApplyPlay},
		{"ApplyKeysAndChest", testApplyKeysAndChest},
		{"ApplyModerator", testApplyModerator},
		{"ApplyErrors", testApplyErrors},
		{"CareLimitRace", testCareLimitRace},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, openBolt) })
	}
}

// testApplyPlay: a ticket bought, drawn and revealed through Apply; every
// state sound, what Apply returns is what Load reads, a repeated operation
// changes nothing and answers with its first result.
func testApplyPlay(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	d := &Drawer{PlayFunc: func(int) game.Outcome { return Win(game.TierCandle) }}
	buyOp := e.step(id, "buy-1", game.Buy{})
	a, err := e.st.Run(e.ctx, buyOp)
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
	again, err := e.st.Run(e.ctx, buyOp)
	if err != nil || !again.Repeated || again.Created || again.Result != a.Result || len(again.History) != 0 {
		t.Fatalf("repeated buy: %+v, %v", again, err)
	}
	same(t, "state after a repeated buy", e.load(id), v)
	// Another click on Buy resumes the open ticket, charging nothing.
	r := e.must(id, "second buy", game.Buy{})
	if !r.Result.Resumed || r.Result.Ticket != 1 || r.Player.Balance != start-game.Stake {
		t.Fatalf("second buy: %+v", r.Result)
	}

	// The first reveal draws and credits; later ones only show rows.
	rev := e.step(id, "reveal-1", reveal(d, 1, 0b001))
	a, err = e.st.Run(e.ctx, rev)
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
	if again, err := e.st.Run(e.ctx, rev); err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated reveal: %+v, %v", again, err)
	}
	a = e.must(id, "reveal all", reveal(d, 1, game.AllRows))
	if a.Result.Drawn || a.Player.Ticket.Open() || d.Plays.Load() != 1 {
		t.Fatalf("last reveal: %+v, %d draws", a.Result, d.Plays.Load())
	}
	h, err := e.st.History(e.ctx, id, 10)
	if err != nil || len(h) != 1 || h[0] != wantLine {
		t.Fatalf("history: %+v, %v", h, err)
	}
	same(t, "Load after the plays", e.load(id).Player, a.Player)

	// A closed ticket: the next buy opens ticket 2.
	a = e.must(id, "buy 2", game.Buy{})
	if a.Result.Resumed || a.Result.Ticket != 2 || a.Player.TicketSeq != 2 {
		t.Fatalf("buy after a closed ticket: %+v", a.Result)
	}
	_, err = e.apply(id, reveal(d, 1, game.AllRows))
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
	_, err := e.apply(id, game.Buy{})
	wantErr(t, "buy with a chest due", err, game.ErrChestDue)
	same(t, "a refused buy changed the player", e.load(id), v)

	open1 := e.step(id, "chest-1", openChest(d, 1))
	a, err := e.st.Run(e.ctx, open1)
	if err != nil || !a.Result.Opened || a.Result.Chest != Chest(game.LotGold) || a.Player.Balance != v.Player.Balance+game.LotGold.Prize() || a.Player.ChestDue {
		t.Fatalf("open chest: %+v, %v", a, err)
	}
	sound(t, "after the chest", a.Player)
	after := e.load(id)
	// The same click, and a new click on the same chest: paid once.
	if again, err := e.st.Run(e.ctx, open1); err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated open: %+v, %v", again, err)
	}
	if b := e.must(id, "chest again", openChest(d, 1)); b.Result.Opened || b.Result.Chest != a.Result.Chest || b.Player.Balance != a.Player.Balance {
		t.Fatalf("second click on the chest: %+v", b.Result)
	}
	if d.Chests.Load() != 1 {
		t.Fatalf("%d chest draws, want 1", d.Chests.Load())
	}
	if p := e.load(id).Player; p.Balance != after.Player.Balance || p.ChestSeq != 1 || p.Stats.Chests != 1 {
		t.Fatalf("after the clicks: %+v", p)
	}
	_, err = e.apply(id, openChest(d, 2))
	wantErr(t, "open a chest not due", err, game.ErrNoChest)

	// Daily: credited, then refused until the cooldown has passed.
	daily := game.ClaimDaily{Amount: 25, Cooldown: time.Hour}
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
	by := func(reason string) game.Moderator {
		return game.Moderator{Guild: guild, Actor: mod, Target: id.User, Reason: reason}
	}
	do := func(op string, m game.Move) (storage.Applied, error) { return e.st.Run(e.ctx, e.step(id, op, m)) }
	e.play(id, RandomDrawer(3))
	a, err := do("g1", game.Grant{Amount: 250, By: by("gift")})
	if err != nil || a.Result.Amount != 250 || a.Audit == nil || a.Audit.Reason != "gift" {
		t.Fatalf("grant: %+v, %v", a, err)
	}
	if a2, err := do("g1", game.Grant{Amount: 250, By: by("gift")}); err != nil || !a2.Repeated || a2.Audit != nil {
		t.Fatalf("repeated grant: %+v, %v", a2, err)
	}
	_, err = do("g2", game.Grant{Amount: -1_000_000, By: by("too much")})
	wantErr(t, "a grant below zero", err, game.ErrInvalid)
	a, err = do("s1", game.Grant{Amount: 123, Set: true, By: by("fix")})
	if err != nil || a.Player.Balance != 123 {
		t.Fatalf("set balance: %+v, %v", a, err)
	}
	sound(t, "after set balance", a.Player)
	e.clock.Advance(time.Minute)
	before := e.load(id).Player
	a, err = do("r1", game.Reset{Start: 2000, By: by("again")})
	if err != nil {
		t.Fatal(err)
	}
	p := e.load(id).Player
	if p.Balance != 2000 || p.StartingBalance != 2000 || p.Stats != (game.Stats{}) || p.TicketSeq != before.TicketSeq || p.Seed != before.Seed || !p.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("after reset: %+v", p)
	}
	sound(t, "after reset", p)
	audit, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil || len(audit) != 3 || audit[0].Action != "reset" || audit[1].Action != "set-balance" || audit[2].Action != "grant" || audit[2].Amount != 250 || audit[1].Amount != 123 || audit[0].Amount != 2000 {
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
	_, err := e.st.Run(ctx, storage.Step{ID: pid(1), Op: "x", Now: now, Move: grant(1)})
	wantErr(t, "Apply without Create on a player never written", err, storage.ErrNoPlayer)
	_, err = e.st.Run(ctx, storage.Step{ID: pid(2), Op: "x", Create: true, Start: 0, Seeds: e.seeds, Now: now, Move: game.Buy{}})
	wantErr(t, "buy with nothing", err, game.ErrInsufficientFunds)
	_, err = e.st.Run(ctx, storage.Step{ID: pid(3), Op: "", Create: true, Start: start, Seeds: e.seeds, Now: now, Move: game.Buy{}})
	wantErr(t, "empty operation", err, game.ErrInvalid)
	if users := playersOf(t, e.st, guild); len(users) != 0 {
		t.Fatalf("refused steps created players %v", users)
	}
	if b, _ := e.st.Leaderboard(ctx, guild, 10, 0); b.Players != 0 || len(b.Top) != 0 {
		t.Fatalf("refused steps reached the leaderboard: %+v", b)
	}

	// A draw that fails, or gives what the rules forbid, writes nothing.
	id := pid(4)
	a := e.must(id, "buy", game.Buy{})
	v := e.load(id)
	d := &Drawer{}
	d.Fail.Store(true)
	_, err = e.apply(id, reveal(d, a.Result.Ticket, 1))
	wantErr(t, "failing draw", err, ErrDraw)
	same(t, "after a failing draw", e.load(id), v)
	bad := &Drawer{PlayFunc: func(int) game.Outcome { o := Win(game.TierGem); o.Prize++; return o }}
	got, err := e.apply(id, reveal(bad, a.Result.Ticket, 1))
	wantErr(t, "invalid draw", err, game.ErrInvalid)
	same(t, "after an invalid draw", e.load(id), v)
	same(t, "the player Apply returns with an error", got.Player, v.Player)
	// Without Create, an existing player is stepped.
	if _, err := e.st.Run(ctx, storage.Step{ID: id, Op: "y", Now: now, Move: grant(5)}); err != nil {
		t.Fatal(err)
	}
	if h, _ := e.st.History(ctx, id, 10); len(h) != 1 || h[0].Kind != game.KindGrant {
		t.Fatalf("history after refusals: %+v", h)
	}
}

func buyIn(h game.House, now time.Time) game.Move {
	return game.Buy{House: h}
}

// raceBuys has n goroutines buy tickets for id under house h and reveal
// them with d, through Apply with operation IDs of their own, until Buy
// refuses them with game.ErrLimitReached: every goroutine ends on such a
// refusal, so the refusals come at least n times. It returns the tickets
// bought (not resumed) and one of the refusals.
func raceBuys(t *testing.T, e *env, id storage.PlayerID, h game.House, d game.Drawer, n int) (int, *game.LimitError) {
	t.Helper()
	now := e.clock.Now()
	var (
		bought  atomic.Int64
		mu      sync.Mutex
		refusal *game.LimitError
		wg      sync.WaitGroup
	)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				a, err := e.apply(id, buyIn(h, now))
				var le *game.LimitError
				switch {
				case errors.As(err, &le):
					mu.Lock()
					refusal = le
					mu.Unlock()
					return
				case err != nil:
					t.Errorf("goroutine %d: buy: %v", g, err)
					return
				}
				if !a.Result.Resumed {
					bought.Add(1)
				}
				_, err = e.apply(id, reveal(d, a.Result.Ticket, game.AllRows))
				if err != nil && !errors.Is(err, game.ErrUnknownTicket) {
					t.Errorf("goroutine %d: reveal %d: %v", g, a.Result.Ticket, err)
					return
				}
			}
			t.Errorf("goroutine %d: 1000 plays and no limit reached", g)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return int(bought.Load()), refusal
}

// testCareLimitRace: no limit can be crossed by simultaneous plays. One
// player under a limit of 10 stakes a day (their own stake limit, their
// own loss limit, the house's stake limit), 32 goroutines playing at
// once: exactly the tickets the limit allows are bought, every later Buy
// is refused with a *game.LimitError, and the balance, statistics and
// spend count exactly those tickets.
func testCareLimitRace(t *testing.T, open OpenFunc) {
	const goroutines = 32
	limit := 10 * game.Stake
	losing := &Drawer{} // Loss(false): no prize, no key, no chest
	cases := []struct {
		name  string
		setup func(e *env, id storage.PlayerID)
		house game.House
		kind  game.LimitKind
	}{
		{name: "StakeDay", kind: game.LimitStakeDay, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "set limit", setLimits(-1, game.LimitSet{Kind: game.LimitStakeDay, Amount: limit}))
		}},
		// Two prizes first, so that the loss counted (stakes − prizes)
		// is below the stakes: the limit allows more than 10 plays.
		{name: "LossDay", kind: game.LimitLossDay, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "set limit", setLimits(-1, game.LimitSet{Kind: game.LimitLossDay, Amount: limit}))
			win := &Drawer{PlayFunc: func(int) game.Outcome { return Win(game.TierCandle) }}
			e.play(id, win)
			e.play(id, win)
		}},
		{name: "HouseStakeDay", kind: game.LimitStakeDay, house: game.House{MaxStakeDay: limit}, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "create", setLimits(-1))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, open, defaults)
			id := pid(1)
			c.setup(e, id)
			now := e.clock.Now()
			p0 := e.load(id).Player
			s0 := p0.SpendAt(now)
			used := s0.StakedDay
			if c.kind.Loss() {
				used -= s0.WonDay
			}
			want := int((limit - used) / game.Stake)
			if c.kind.Loss() && want <= 10 {
				t.Fatalf("the prizes left %d plays under the loss limit: the case tests nothing the stake limit does not", want)
			}

			bought, refusal := raceBuys(t, e, id, c.house, losing, goroutines)
			if bought != want {
				t.Fatalf("%d goroutines at once bought %d tickets under a %v limit of %d cents (%d used before); want %d",
					goroutines, bought, c.kind, limit, used, want)
			}
			if refusal == nil || refusal.Kind != c.kind || refusal.House != (c.house.MaxStakeDay != 0) || refusal.Limit != limit {
				t.Fatalf("refusal %+v, want the %v limit of %d cents (house %v)", refusal, c.kind, limit, c.house.MaxStakeDay != 0)
			}
			p := e.load(id).Player
			sound(t, "after the race", p)
			staked := int64(want) * game.Stake
			s := p.SpendAt(now)
			if p.TicketSeq != p0.TicketSeq+uint64(want) || p.Stats.Plays != p0.Stats.Plays+int64(want) ||
				p.Stats.StakedCents != p0.Stats.StakedCents+staked || p.Balance != p0.Balance-staked ||
				s.StakedDay != s0.StakedDay+staked || s.StakedWeek != s0.StakedWeek+staked || s.WonDay != s0.WonDay {
				t.Fatalf("after %d tickets: %+v, spend %+v; before %+v, spend %+v", want, p, s, p0, s0)
			}
			if p.Ticket == nil || p.Ticket.Open() {
				t.Fatalf("a ticket left open: %+v", p.Ticket)
			}
			h, err := e.st.History(e.ctx, id, storage.HistoryLimit)
			if err != nil {
				t.Fatal(err)
			}
			plays := 0
			for _, l := range h {
				if l.Kind == game.KindPlay {
					plays++
				}
			}
			if want := int(p.Stats.Plays); plays != want {
				t.Fatalf("%d play lines for %d plays", plays, want)
			}
			// The next one is refused too, and writes nothing.
			v := e.load(id)
			_, err = e.apply(id, buyIn(c.house, now))
			wantErr(t, "a buy after the race", err, game.ErrLimitReached)
			same(t, "after a refused buy", e.load(id), v)
		})
	}
}
