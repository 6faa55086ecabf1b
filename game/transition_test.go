package game

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixedDrawer returns the same outcome and chest every time, and counts its
// calls.
type fixedDrawer struct {
	o               Outcome
	c               Chest
	err             error
	tickets, chests int
	keys            int // keys held at the last Ticket call
}

func (d *fixedDrawer) Ticket(_ Seed, _ string, _ uint64, keys int) (Outcome, error) {
	d.tickets++
	d.keys = keys
	return d.o, d.err
}

func (d *fixedDrawer) Chest(Seed, string, int64) (Chest, error) {
	d.chests++
	return d.c, d.err
}

// clone deep-copies p, so that a test can see whether a transition touched
// what p's pointers and slices refer to.
func clone(p Player) Player {
	if p.Ticket != nil {
		t := *p.Ticket
		p.Ticket = &t
	}
	if p.LastChest != nil {
		c := *p.LastChest
		p.LastChest = &c
	}
	return p
}

// step runs a transition and checks what every transition promises: an
// error leaves the player as it was, success gives a sound player, and the
// input is never modified.
func step(t *testing.T, p Player, m Move, now time.Time) (Step, error) {
	t.Helper()
	before := clone(p)
	s, err := Apply(p, m, now)
	if !reflect.DeepEqual(p, before) {
		t.Fatalf("the transition modified its input:\n%+v\n%+v", p, before)
	}
	if err != nil {
		if !reflect.DeepEqual(s.Player, before) || s.History != nil || len(s.Reveals) != 0 {
			t.Fatalf("error %v with a changed player, history or reveal: %+v", err, s)
		}
		return s, err
	}
	if err := s.Player.Check(); err != nil {
		t.Fatalf("unsound player after the step: %v", err)
	}
	if s.Result.Balance != s.Player.Balance {
		t.Fatalf("result balance %d, player balance %d", s.Result.Balance, s.Player.Balance)
	}
	return s, nil
}

// stepOK is step, failing the test on an error.
func stepOK(t *testing.T, p Player, m Move, now time.Time) Step {
	t.Helper()
	s, err := step(t, p, m, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

func TestNewPlayer(t *testing.T) {
	p, err := NewPlayer(500, testSeed(1), "client", t0)
	if err != nil || p.Balance != 500 || p.StartingBalance != 500 || p.CreatedAt != t0 || p.Seed != testSeed(1) || p.Check() != nil {
		t.Fatalf("NewPlayer = %+v, %v", p, err)
	}
	for _, c := range []struct {
		start int64
		seed  Seed
	}{{-1, testSeed(1)}, {MaxBalance + 1, testSeed(1)}, {0, Seed{}}} {
		if _, err := NewPlayer(c.start, c.seed, "client", t0); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewPlayer(%d, %v) = %v, want ErrInvalid", c.start, c.seed == Seed{}, err)
		}
	}
}

func TestBuy(t *testing.T) {
	fresh := newTestPlayer(t, 1000)
	s := stepOK(t, fresh, Buy{}, t0)
	n := s.Player
	if n.Balance != 950 || n.TicketSeq != 1 || n.Stats.Plays != 1 || n.Stats.StakedCents != 50 ||
		n.Ticket == nil || *n.Ticket != (Ticket{ID: 1, BoughtAt: t0}) || s.History != nil ||
		s.Result != (Result{Balance: 950, Ticket: 1, Amount: -Stake}) {
		t.Fatalf("Buy = %+v", s)
	}

	t.Run("open ticket resumed", func(t *testing.T) {
		s2, err := step(t, n, Buy{}, t0.Add(time.Hour))
		if err != nil || !reflect.DeepEqual(s2.Player, n) || s2.Result != (Result{Balance: 950, Ticket: 1, Resumed: true}) {
			t.Fatalf("Buy with an open ticket = %+v, %v", s2, err)
		}
	})
	t.Run("after a finished ticket", func(t *testing.T) {
		d := &fixedDrawer{o: mustOutcome(t, TierLoss, false)}
		s2, _ := step(t, n, Reveal{Ticket: 1, Rows: AllRows, Drawer: d}, t0)
		s3, err := step(t, s2.Player, Buy{}, t0)
		if err != nil || s3.Result.Ticket != 2 || s3.Player.Balance != 900 || s3.Result.Resumed {
			t.Fatalf("second Buy = %+v, %v", s3, err)
		}
	})

	tests := []struct {
		name   string
		change func(p *Player)
		want   error
	}{
		{"chest due", func(p *Player) { p.ChestDue = true }, ErrChestDue},
		{"49 cents", func(p *Player) { p.Balance, p.StartingBalance = 49, 49 }, ErrInsufficientFunds},
		{"no credit", func(p *Player) { p.Balance, p.StartingBalance = 0, 0 }, ErrInsufficientFunds},
		{"no room for the prizes", func(p *Player) { p.Balance, p.StartingBalance = MaxBalance, MaxBalance }, ErrInvalid},
		{"unsound player", func(p *Player) { p.Balance++ }, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPlayer(t, 1000)
			tt.change(&p)
			_, err := step(t, p, Buy{}, t0)
			wantErr(t, err, tt.want)
		})
	}
	t.Run("just enough room", func(t *testing.T) {
		p := newTestPlayer(t, MaxBalance-playHeadroom()+Stake)
		if _, err := step(t, p, Buy{}, t0); err != nil {
			t.Fatal(err)
		}
	})
}

// bought returns a player holding keys keys, from as many tickets, with
// ticket keys+1 bought.
func bought(t *testing.T, keys int) Player {
	t.Helper()
	p := newTestPlayer(t, 1000)
	p.Keys, p.TicketSeq = keys, uint64(keys)
	s, err := Apply(p, Buy{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return s.Player
}

func TestReveal(t *testing.T) {
	later := t0.Add(time.Minute)
	tests := []struct {
		name     string
		keys     int
		o        Outcome
		rows     RowMask
		balance  int64
		keys2    int
		chest    bool
		wins     int64
		keysStat int64
	}{
		{"loss", 0, mustOutcome(t, TierLoss, false), 1, 950, 0, false, 0, 0},
		{"loss with a key", 0, mustOutcome(t, TierLoss, true), AllRows, 950, 1, false, 0, 1},
		{"second key", 1, mustOutcome(t, TierLoss, true), 0, 950, 2, false, 0, 1},
		{"third key opens the chest", 2, mustOutcome(t, TierLoss, true), 2, 950, 0, true, 0, 1},
		{"barrel", 2, mustOutcome(t, TierBarrel, false), 4, 1000, 2, false, 1, 0},
		{"gem", 1, mustOutcome(t, TierGem, false), AllRows, 950 + 500_000, 1, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := bought(t, tt.keys)
			id := p.TicketSeq
			d := &fixedDrawer{o: tt.o}
			s := stepOK(t, p, Reveal{Ticket: id, Rows: tt.rows, Drawer: d}, later)
			n := s.Player
			if d.tickets != 1 || d.keys != tt.keys {
				t.Errorf("drawer called %d times with %d keys", d.tickets, d.keys)
			}
			want := Ticket{ID: id, BoughtAt: t0, Drawn: true, Outcome: tt.o, KeysAfter: tt.keys2, Chest: tt.chest, Revealed: tt.rows}
			if *n.Ticket != want {
				t.Errorf("ticket %+v, want %+v", *n.Ticket, want)
			}
			if n.Ticket.KeysBefore() != tt.keys {
				t.Errorf("KeysBefore = %d, want %d", n.Ticket.KeysBefore(), tt.keys)
			}
			if n.Balance != tt.balance || n.Keys != tt.keys2 || n.ChestDue != tt.chest ||
				n.Stats.Wins != tt.wins || n.Stats.Keys != tt.keysStat ||
				n.Stats.WonCents != tt.o.Prize || n.Stats.BestWinCents != tt.o.Prize {
				t.Errorf("player %+v", n)
			}
			// The line records the commitment of the seed that drew it.
			wantH := []Entry{{At: later, Kind: KindPlay, TicketID: id, Tier: tt.o.Tier, Key: tt.o.Key, Amount: tt.o.Prize - Stake, Balance: tt.balance,
				Fair: true, KeysBefore: tt.keys, Grid: tt.o.Grid, Commitment: p.Seed.Commitment()}}
			if !reflect.DeepEqual(s.History, wantH) {
				t.Errorf("history %+v, want %+v", s.History, wantH)
			}
			if s.Result != (Result{Balance: tt.balance, Ticket: id, Drawn: true, Amount: tt.o.Prize - Stake}) {
				t.Errorf("result %+v", s.Result)
			}

			// Revealing again never draws again, adds rows and is not an error.
			d.o = mustOutcome(t, TierGem, false)
			s2, err := step(t, n, Reveal{Ticket: id, Rows: AllRows, Drawer: d}, later)
			if err != nil || d.tickets != 1 || s2.History != nil || s2.Player.Ticket.Outcome != tt.o ||
				s2.Player.Ticket.Revealed != AllRows || s2.Player.Balance != tt.balance ||
				s2.Result != (Result{Balance: tt.balance, Ticket: id}) {
				t.Fatalf("second reveal = %+v, %v", s2, err)
			}
			s3, err := step(t, s2.Player, Reveal{Ticket: id, Rows: 1, Drawer: d}, later)
			if err != nil || !reflect.DeepEqual(s3.Player, s2.Player) {
				t.Fatalf("third reveal = %+v, %v", s3, err)
			}
		})
	}

	win := mustOutcome(t, TierCandle, false)
	lie := func(f func(o *Outcome)) Outcome { o := win; f(&o); return o }
	errs := []struct {
		name   string
		ticket uint64
		rows   RowMask
		d      *fixedDrawer
		change func(p *Player)
		want   error
	}{
		{"unknown ticket", 2, 1, &fixedDrawer{o: win}, nil, ErrUnknownTicket},
		{"stale ticket", 0, 1, &fixedDrawer{o: win}, nil, ErrUnknownTicket},
		{"no ticket", 1, 1, &fixedDrawer{o: win}, func(p *Player) { p.Ticket = nil }, ErrUnknownTicket},
		{"bad rows", 1, 8, &fixedDrawer{o: win}, nil, ErrInvalid},
		{"drawer fails", 1, 1, &fixedDrawer{err: errBoom}, nil, errBoom},
		{"prize lies", 1, 1, &fixedDrawer{o: lie(func(o *Outcome) { o.Prize = 1_000_000 })}, nil, ErrInvalidOutcome},
		{"key on a win", 1, 1, &fixedDrawer{o: lie(func(o *Outcome) { o.Key = true })}, nil, ErrInvalid},
		{"grid lies", 1, 1, &fixedDrawer{o: lie(func(o *Outcome) { o.Row = (o.Row + 1) % 3 })}, nil, ErrInvalid},
		{"tier out of range", 1, 1, &fixedDrawer{o: Outcome{Tier: NumTiers, Row: -1}}, nil, ErrInvalid},
		{"prize past the maximum balance", 1, 1, &fixedDrawer{o: win}, func(p *Player) {
			p.Balance = MaxBalance - 10
			p.Stats.GrantedCents = p.Balance - p.StartingBalance + p.Stats.StakedCents
		}, ErrInvalid},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			p := bought(t, 0)
			if tt.change != nil {
				tt.change(&p)
			}
			_, err := step(t, p, Reveal{Ticket: tt.ticket, Rows: tt.rows, Drawer: tt.d}, t0)
			wantErr(t, err, tt.want)
		})
	}
}

var errBoom = errors.New("boom")

// chestDue returns a player whose third key, from ticket 3, has just
// opened chest 1.
func chestDue(t *testing.T) Player {
	t.Helper()
	s, err := Apply(bought(t, 2), Reveal{Ticket: 3, Rows: AllRows, Drawer: &fixedDrawer{o: mustOutcome(t, TierLoss, true)}}, t0)
	if err != nil || !s.Player.ChestDue {
		t.Fatalf("no chest due: %+v, %v", s, err)
	}
	return s.Player
}

func TestOpenChest(t *testing.T) {
	p := chestDue(t)
	silver := Chest{Lot: LotSilver, Prize: 100}
	d := &fixedDrawer{c: silver}
	later := t0.Add(time.Minute)
	s := stepOK(t, p, OpenChest{Seq: 1, Drawer: d}, later)
	n := s.Player
	if n.ChestDue || n.ChestSeq != 1 || *n.LastChest != silver || n.Balance != 1050 ||
		n.Stats.Chests != 1 || n.Stats.WonCents != 100 || n.Stats.BestWinCents != 100 || d.chests != 1 {
		t.Fatalf("after the chest: %+v", n)
	}
	if !reflect.DeepEqual(s.History, []Entry{{At: later, Kind: KindChest, Lot: LotSilver, Amount: 100, Balance: 1050, Fair: true, Chest: 1, Commitment: p.Seed.Commitment(), After: 3, Placed: true}}) ||
		s.Result != (Result{Balance: 1050, Opened: true, Chest: silver, Amount: 100}) {
		t.Fatalf("step %+v", s)
	}

	// A repeat shows the same chest, pays nothing and draws nothing.
	d.c = Chest{Lot: LotThreeGold, Prize: LotThreeGold.Prize()}
	s2, err := step(t, n, OpenChest{Seq: 1, Drawer: d}, later)
	if err != nil || d.chests != 1 || !reflect.DeepEqual(s2.Player, n) || s2.History != nil ||
		s2.Result != (Result{Balance: 1050, Chest: silver}) {
		t.Fatalf("repeat = %+v, %v", s2, err)
	}
	// The chest is a new buy's business now: a ticket can be bought.
	if _, err := Apply(n, Buy{}, later); err != nil {
		t.Fatal(err)
	}

	errs := []struct {
		name string
		p    Player
		seq  int64
		d    *fixedDrawer
		want error
	}{
		{"none due", newTestPlayer(t, 100), 1, &fixedDrawer{c: silver}, ErrNoChest},
		{"none due, seq 0", newTestPlayer(t, 100), 0, &fixedDrawer{c: silver}, ErrNoChest},
		{"next one not due", n, 2, &fixedDrawer{c: silver}, ErrNoChest},
		{"skipping ahead", p, 2, &fixedDrawer{c: silver}, ErrNoChest},
		{"going back", p, 0, &fixedDrawer{c: silver}, ErrNoChest},
		{"drawer fails", p, 1, &fixedDrawer{err: errBoom}, errBoom},
		{"prize lies", p, 1, &fixedDrawer{c: Chest{Lot: LotBronze, Prize: 100}}, ErrInvalidOutcome},
		{"lot out of range", p, 1, &fixedDrawer{c: Chest{Lot: NumLots, Prize: 0}}, ErrInvalid},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := step(t, tt.p, OpenChest{Seq: tt.seq, Drawer: tt.d}, later)
			wantErr(t, err, tt.want)
			if tt.d.chests > 1 {
				t.Errorf("drawer called %d times", tt.d.chests)
			}
		})
	}
}

// TestMaxSeq: ticket and chest numbers stop at MaxSeq, so that every JSON
// reader reads them exactly.
func TestMaxSeq(t *testing.T) {
	if MaxSeq != 1<<53-1 || float64(MaxSeq) != float64(1<<53)-1 {
		t.Fatalf("MaxSeq = %d, not exact in a float64", int64(MaxSeq))
	}
	// The last ticket number can be bought, and none after it.
	p := newTestPlayer(t, 1000)
	p.TicketSeq = MaxSeq - 1
	s, err := step(t, p, Buy{}, t0)
	if err != nil || s.Result.Ticket != MaxSeq || s.Player.TicketSeq != MaxSeq || s.Player.Ticket.ID != MaxSeq {
		t.Fatalf("Buy of ticket MaxSeq = %+v, %v", s, err)
	}
	last, err := step(t, s.Player, Reveal{Ticket: MaxSeq, Rows: AllRows, Drawer: &fixedDrawer{o: mustOutcome(t, TierLoss, false)}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = step(t, last.Player, Buy{}, t0)
	wantErr(t, err, ErrInvalid)
	q := newTestPlayer(t, 1000)
	q.TicketSeq = MaxSeq
	if err := q.Check(); err != nil {
		t.Fatalf("TicketSeq MaxSeq: %v", err)
	}
	_, err = step(t, q, Buy{}, t0)
	wantErr(t, err, ErrInvalid)

	// Check refuses numbers past it (see TestCheck too).
	q.TicketSeq = MaxSeq + 1
	if err := q.Check(); !errors.Is(err, ErrInvalid) {
		t.Errorf("TicketSeq MaxSeq+1: Check = %v", err)
	}

	// Each chest takes MaxKeys tickets' keys, so that a due chest always
	// has its number: the largest, MaxSeq/MaxKeys, opens; a chest due past
	// what the tickets give, at MaxSeq above all, is unsound.
	silver := Chest{Lot: LotSilver, Prize: LotSilver.Prize()}
	c := chestDue(t)
	c.TicketSeq, c.ChestSeq = MaxSeq, MaxSeq/MaxKeys-1
	d := &fixedDrawer{c: silver}
	s, err = step(t, c, OpenChest{Seq: MaxSeq / MaxKeys, Drawer: d}, t0)
	if err != nil || !s.Result.Opened || s.Player.ChestSeq != MaxSeq/MaxKeys || d.chests != 1 {
		t.Fatalf("OpenChest(MaxSeq/MaxKeys) = %+v, %v", s, err)
	}
	for _, seq := range []int64{MaxSeq / MaxKeys, MaxSeq} {
		c.ChestSeq = seq
		if err := c.Check(); !errors.Is(err, ErrInvalid) {
			t.Errorf("ChestSeq %d with a chest due: Check = %v", seq, err)
		}
	}
}

func TestClaimDaily(t *testing.T) {
	const day = 24 * time.Hour
	p := newTestPlayer(t, 100)
	s := stepOK(t, p, ClaimDaily{250, day}, t0)
	n := s.Player
	if n.Balance != 350 || n.Stats.DailyCents != 250 || n.LastDaily != t0 ||
		!reflect.DeepEqual(s.History, []Entry{{At: t0, Kind: KindDaily, Amount: 250, Balance: 350, Placed: true}}) ||
		s.Result != (Result{Balance: 350, Amount: 250}) {
		t.Fatalf("ClaimDaily = %+v", s)
	}
	_, err := step(t, n, ClaimDaily{250, day}, t0.Add(day-time.Millisecond))
	wantErr(t, err, ErrDailyCooldown)
	var ce *CooldownError
	if !errors.As(err, &ce) || !ce.Next.Equal(t0.Add(day)) || !strings.Contains(err.Error(), "next claim") {
		t.Fatalf("cooldown error %#v", err)
	}
	s2, err := step(t, n, ClaimDaily{250, day}, t0.Add(day))
	if err != nil || s2.Player.Balance != 600 || s2.Player.LastDaily != t0.Add(day) {
		t.Fatalf("second claim = %+v, %v", s2, err)
	}
	if _, err := step(t, n, ClaimDaily{250, 0}, t0); err != nil {
		t.Fatalf("no cooldown: %v", err)
	}

	rich := newTestPlayer(t, MaxBalance-10)
	errs := []struct {
		name     string
		p        Player
		amount   int64
		cooldown time.Duration
		want     error
	}{
		{"disabled", p, 0, day, ErrDailyDisabled},
		{"negative", p, -1, day, ErrInvalid},
		{"too much", p, MaxDailyAmount + 1, day, ErrInvalid},
		{"negative cooldown", p, 1, -1, ErrInvalid},
		{"cooldown too long", p, 1, MaxCooldown + 1, ErrInvalid},
		{"past the maximum balance", rich, 11, day, ErrInvalid},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := step(t, tt.p, ClaimDaily{tt.amount, tt.cooldown}, t0)
			wantErr(t, err, tt.want)
		})
	}
	if _, err := step(t, rich, ClaimDaily{10, day}, t0); err != nil {
		t.Fatalf("up to the maximum: %v", err)
	}
}

// TestGrant: a grant adds to the balance, a set replaces it; both count
// the difference as granted, in their line and their result.
func TestGrant(t *testing.T) {
	p := newTestPlayer(t, 100)
	for _, tt := range []struct {
		m       Grant
		balance int64
		err     error
	}{
		{Grant{Amount: 50}, 150, nil},
		{Grant{Amount: -100}, 0, nil},
		{Grant{Amount: -101}, 0, ErrInvalid},
		{Grant{Amount: 0}, 0, ErrInvalid},
		{Grant{Amount: MaxGrant}, 100 + MaxGrant, nil},
		{Grant{Amount: MaxGrant + 1}, 0, ErrInvalid},
		{Grant{Amount: -MaxGrant - 1}, 0, ErrInvalid},
		{Grant{Amount: 40, Set: true}, 40, nil},
		{Grant{Amount: 100, Set: true}, 100, nil},
		{Grant{Amount: MaxBalance, Set: true}, MaxBalance, nil},
		{Grant{Amount: 0, Set: true}, 0, nil},
		{Grant{Amount: -1, Set: true}, 0, ErrInvalid},
		{Grant{Amount: MaxBalance + 1, Set: true}, 0, ErrInvalid},
	} {
		s, err := step(t, p, tt.m, t0)
		if tt.err != nil {
			wantErr(t, err, tt.err)
			continue
		}
		kind, diff := KindGrant, tt.balance-100
		if tt.m.Set {
			kind = KindSet
		}
		if err != nil || s.Player.Balance != tt.balance || s.Player.Stats.GrantedCents != diff ||
			!reflect.DeepEqual(s.History, []Entry{{At: t0, Kind: kind, Amount: diff, Balance: tt.balance, Placed: true}}) ||
			s.Result != (Result{Balance: tt.balance, Amount: diff}) {
			t.Errorf("%+v = %+v, %v", tt.m, s, err)
		}
	}
	rich := newTestPlayer(t, MaxBalance-5)
	_, err := step(t, rich, Grant{Amount: 6}, t0)
	wantErr(t, err, ErrInvalid)
}

func TestReset(t *testing.T) {
	p := chestDue(t)
	p.ClientSeed = "mine"
	s, err := Apply(p, Grant{Amount: 5}, t0)
	if err != nil {
		t.Fatal(err)
	}
	p = s.Player
	p.LastDaily = t0
	later := t0.Add(time.Hour)
	s = stepOK(t, p, Reset{Start: 700}, later)
	want := Player{StartingBalance: 700, Balance: 700, ChestSeq: p.ChestSeq, TicketSeq: p.TicketSeq,
		CreatedAt: p.CreatedAt, Seed: p.Seed, ClientSeed: "mine", SeedNo: 1, SeedAt: p.SeedAt,
		Care: p.Care} // a reset lifts no pause and no limit
	if p.Care.Spend.StakedDay == 0 {
		t.Fatal("the player reset has staked nothing today: the test shows nothing")
	}
	if !reflect.DeepEqual(s.Player, want) {
		t.Fatalf("Reset = %+v\nwant    %+v", s.Player, want)
	}
	if !reflect.DeepEqual(s.History, []Entry{{At: later, Kind: KindReset, Amount: 700 - p.Balance, Balance: 700, Fair: true, After: p.TicketSeq, Placed: true}}) {
		t.Fatalf("history %+v", s.History)
	}
	// The next ticket has a new number: no draw is ever made twice.
	b, err := Apply(s.Player, Buy{}, later)
	if err != nil || b.Result.Ticket != p.TicketSeq+1 {
		t.Fatalf("Buy after Reset = %+v, %v", b, err)
	}
	// A corrupt player is repaired: more chests than its tickets gave
	// skip ticket numbers, never chest ones.
	bad := p
	bad.Balance, bad.ChestSeq = -5, 40
	if s, err := step(t, bad, Reset{Start: 10}, later); err != nil || s.Player.ChestSeq != 40 || s.Player.TicketSeq != 40*MaxKeys {
		t.Fatalf("Reset of a corrupt player = %+v, %v", s.Player, err)
	}
	for _, start := range []int64{-1, MaxBalance + 1} {
		_, err := step(t, p, Reset{Start: start}, later)
		wantErr(t, err, ErrInvalid)
	}
}

// TestRepairBacksChests: a damaged record whose chests outnumber what its
// tickets gave is repaired into a sound player, its seed revealed, with
// ticket numbers skipped and no chest number reused.
func TestRepairBacksChests(t *testing.T) {
	p := newTestPlayer(t, 1000).WithNextSeed(Seed{8})
	h := []Entry{{At: t0, Kind: KindChest, Lot: LotBronze, Amount: LotBronze.Prize(), Balance: 50, Fair: true, Chest: 40}}
	s, err := Repair{History: h, Start: 100, Fresh: Seed{9}, Client: "c"}.apply(p, t0)
	if err != nil || len(s.Reveals) == 0 || s.Player.ChestSeq != 40 || s.Player.TicketSeq != 40*MaxKeys {
		t.Fatalf("Repair = %+v, %v", s, err)
	}
}

func TestValidateOp(t *testing.T) {
	for _, ok := range []string{"a", "1234567890123456789", strings.Repeat("x", MaxOpID), strings.Repeat("é", MaxOpID/2)} {
		if err := ValidateOp(ok); err != nil {
			t.Errorf("ValidateOp(%d bytes) = %v", len(ok), err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxOpID+1), strings.Repeat("é", MaxOpID/2) + "x"} {
		if err := ValidateOp(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateOp(%d bytes) = %v, want ErrInvalid", len(bad), err)
		}
	}
}

// TestApply: Apply applies a move as the transition it names, with the
// time, records what a moderator's move logs, and refuses
// no move at all; an error changes nothing.
func TestApply(t *testing.T) {
	p := newTestPlayer(t, 1000)
	s, err := Apply(p, Buy{}, t0)
	direct, _ := Apply(p, Buy{}, t0)
	if err != nil || !reflect.DeepEqual(s, direct) || s.Result.Ticket != 1 {
		t.Fatalf("Apply(Buy) = %+v, %v", s, err)
	}
	s, err = Apply(s.Player, Reveal{Ticket: 1, Rows: 1}, t0)
	if err != nil || s.Finished || !s.Result.Drawn {
		t.Fatalf("Apply(Reveal of one row) = %+v, %v", s, err)
	}
	s, err = Apply(s.Player, Reveal{Ticket: 1, Rows: AllRows &^ 1}, t0)
	if err != nil || !s.Finished || s.Result.Drawn {
		t.Fatalf("Apply(Reveal of the last rows) = %+v, %v", s, err)
	}
	if s, err := Apply(s.Player, Reveal{Ticket: 1, Rows: AllRows}, t0); err != nil || s.Finished {
		t.Fatalf("Apply(Reveal of a finished ticket) = %+v, %v", s, err)
	}

	by := Moderator{Guild: 7, Actor: 8, Target: 9, Reason: "bug"}
	s, err = Apply(p, Grant{Amount: -5, By: by}, t0)
	want := &AuditEntry{At: t0, Guild: 7, Actor: 8, Target: 9, Action: ActionGrant, Amount: -5, Reason: "bug"}
	if err != nil || s.Player.Balance != 995 || !reflect.DeepEqual(s.Audit, want) {
		t.Fatalf("Apply(Grant by a moderator) = %+v, %v", s, err)
	}
	if s, err := Apply(p, Grant{Amount: 5}, t0); err != nil || s.Audit != nil {
		t.Fatalf("Apply(Grant by nobody) logs %+v, %v", s.Audit, err)
	}
	paused, err := Apply(p, Pause{Until: t0.Add(MaxPause)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Apply(paused.Player, LiftPause{By: by}, t0)
	if err != nil || s.Audit == nil || s.Audit.Action != ActionLiftPause || !strings.HasPrefix(s.Audit.Reason, "bug (paused until ") {
		t.Fatalf("Apply(LiftPause) = %+v, %v", s.Audit, err)
	}

	// An error changes nothing.
	if s, err := Apply(p, Grant{Amount: 0, By: by}, t0); !errors.Is(err, ErrInvalid) || !reflect.DeepEqual(s, Step{Player: p}) {
		t.Fatalf("a refused grant = %+v, %v", s, err)
	}
	if s, err := Apply(p, nil, t0); !errors.Is(err, ErrInvalid) || !reflect.DeepEqual(s, Step{Player: p}) {
		t.Errorf("no move: %+v, %v", s, err)
	}
	// Play again acts only on the player's latest card.
	if _, err := Apply(p, Buy{Again: true, After: 3}, t0); !errors.Is(err, ErrStaleCard) {
		t.Errorf("Play again on an old card: %v", err)
	}
}
