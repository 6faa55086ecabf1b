package game

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// oneDrawer draws one outcome for every ticket, and three gold coins.
type oneDrawer struct{ o Outcome }

func (d oneDrawer) Ticket(Seed, string, uint64, int) (Outcome, error) { return d.o, nil }
func (d oneDrawer) Chest(Seed, string, int64) (Chest, error) {
	return Chest{Lot: LotThreeGold, Prize: LotThreeGold.Prize()}, nil
}

// winAt returns a winning outcome of tier on row row, with no key.
func winAt(t *testing.T, tier Tier, row int8) Outcome {
	t.Helper()
	for s := uint64(0); ; s++ {
		g, r := grid(NewSeededSource(s, 0), tier, false)
		if r == row {
			return Outcome{Tier: tier, Prize: tier.Prize(), Row: r, Grid: g}
		}
	}
}

// keyOn returns a losing outcome whose key is on row row.
func keyOn(t *testing.T, row int) Outcome {
	t.Helper()
	for s := uint64(0); ; s++ {
		g, r := grid(NewSeededSource(s, 0), TierLoss, true)
		if i := slices.Index(g[:], Key); i/3 == row {
			return Outcome{Tier: TierLoss, Key: true, Row: r, Grid: g}
		}
	}
}

func mustStep(t *testing.T) func(Step, error) Player {
	return func(s Step, err error) Player {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s.Player
	}
}

func TestSeenHidesThePrizeUntilItsRow(t *testing.T) {
	must := mustStep(t)
	o := winAt(t, TierLoss+1, 2)
	d := oneDrawer{o}
	p := newTestPlayer(t, 2000)
	p = must(Apply(p, Buy{}, t0))
	before := p
	p = must(Apply(p, Reveal{Ticket: 1, Rows: 0b001, Drawer: d}, t0)) // the first row: not the winning one
	hist := []Entry{{Kind: KindPlay, TicketID: 1, Tier: o.Tier, Amount: o.Prize - Stake}}

	s := p.Seen(hist)
	if s.Revealing != 1 || s.Prize != o.Prize || s.Key {
		t.Fatalf("Seen = %+v, want ticket 1 revealing, prize %d hidden", s, o.Prize)
	}
	if s.Player.Balance != before.Balance || s.Player.Balance != p.Balance-o.Prize {
		t.Errorf("seen balance %d, want %d (real %d − prize %d)", s.Player.Balance, before.Balance, p.Balance, o.Prize)
	}
	if !reflect.DeepEqual(s.Player.Stats, before.Stats) {
		t.Errorf("seen stats %+v, want %+v", s.Player.Stats, before.Stats)
	}
	if got := s.Player.SpendAt(t0); got.WonDay != 0 || got.WonWeek != 0 {
		t.Errorf("seen spend %+v counts the hidden prize", got)
	}
	if err := s.Player.Check(); err != nil {
		t.Errorf("seen player not sound: %v", err)
	}
	if got := p.SeenHistory(hist); len(got) != 0 {
		t.Errorf("SeenHistory = %+v, want the open ticket's line gone", got)
	}

	p = must(Apply(p, Reveal{Ticket: 1, Rows: 0b100, Drawer: d}, t0)) // the winning row: the card shows the prize
	s = p.Seen(hist)
	if s.Revealing != 1 || s.Prize != 0 || s.Player.Balance != p.Balance || s.Player.Stats != p.Stats {
		t.Errorf("winning row shown: Seen = %+v, want the real balance %d and stats", s, p.Balance)
	}
	if got := p.SeenHistory(hist); len(got) != 0 {
		t.Errorf("SeenHistory = %+v, want the line hidden until the ticket is finished", got)
	}

	p = must(Apply(p, Reveal{Ticket: 1, Rows: AllRows, Drawer: d}, t0))
	if s := p.Seen(hist); s.Revealing != 0 || !reflect.DeepEqual(s.Player, p) {
		t.Errorf("finished: Seen = %+v, want the real state", s)
	}
	if got := p.SeenHistory(hist); !reflect.DeepEqual(got, hist) {
		t.Errorf("finished: SeenHistory = %+v, want %+v", got, hist)
	}
}

func TestSeenBestWinFromHistory(t *testing.T) {
	must := mustStep(t)
	o := winAt(t, TierLoss+1, 2)
	p := newTestPlayer(t, 2000)
	p = must(Apply(p, Buy{}, t0))
	p = must(Apply(p, Reveal{Ticket: 1, Rows: 0, Drawer: oneDrawer{o}}, t0))
	p.Stats.BestWinCents = o.Prize // as if it were the best
	hist := []Entry{
		{Kind: KindPlay, TicketID: 1, Tier: o.Tier, Amount: o.Prize - Stake},
		{Kind: KindChest, Amount: 300},
		{Kind: KindPlay, TicketID: 0, Tier: TierLoss, Amount: -Stake},
	}
	if got := p.Seen(hist).Player.Stats.BestWinCents; got != 300 {
		t.Errorf("seen best win %d, want 300 (the chest before)", got)
	}
}

func TestSeenHidesTheKeyAndTheChest(t *testing.T) {
	must := mustStep(t)
	o := keyOn(t, 2)
	d := oneDrawer{o}
	p := newTestPlayer(t, 2000)
	for id := uint64(1); id <= 2; id++ {
		p = must(Apply(p, Buy{}, t0))
		p = must(Apply(p, Reveal{Ticket: id, Rows: AllRows, Drawer: d}, t0))
	}
	p = must(Apply(p, Buy{}, t0))
	before := p
	p = must(Apply(p, Reveal{Ticket: 3, Rows: 0b011, Drawer: d}, t0))
	if !p.ChestDue || p.Keys != 0 {
		t.Fatalf("the third key: keys %d, chest due %v", p.Keys, p.ChestDue)
	}
	s := p.Seen(nil)
	if !s.Key || s.Player.Keys != 2 || s.Player.ChestDue || s.Player.Stats.Keys != before.Stats.Keys {
		t.Errorf("Seen = %+v, want 2 keys, no chest due, %d keys collected", s, before.Stats.Keys)
	}
	if err := s.Player.Check(); err != nil {
		t.Errorf("seen player not sound: %v", err)
	}
	p = must(Apply(p, Reveal{Ticket: 3, Rows: 0b100, Drawer: d}, t0))
	if s := p.Seen(nil); s.Revealing != 0 || !reflect.DeepEqual(s.Player, p) {
		t.Errorf("finished: Seen = %+v, want the real state", s)
	}
}

func TestSeenHistoryBalances(t *testing.T) {
	must := mustStep(t)
	o := winAt(t, TierLoss+1, 1)
	p := newTestPlayer(t, 2000)
	p = must(Apply(p, Buy{}, t0))
	s1, err := Apply(p, Reveal{Ticket: 1, Rows: 0b001, Drawer: oneDrawer{o}}, t0)
	p = must(s1, err)
	s2, err := ClaimDaily{100, time.Hour}.apply(p, t0)
	p = must(s2, err)
	hist := append(slices.Clone(s2.History), s1.History...) // newest first
	got := p.SeenHistory(hist)
	if len(got) != 1 || got[0].Kind != KindDaily || got[0].Balance != hist[0].Balance-o.Prize {
		t.Fatalf("SeenHistory = %+v, want the daily line only, its balance less %d", got, o.Prize)
	}
	if hist[0].Balance == got[0].Balance {
		t.Error("SeenHistory modified its argument")
	}
	if sp := p.Seen(hist).Player.Balance; sp != got[0].Balance {
		t.Errorf("seen balance %d, the daily line's %d", sp, got[0].Balance)
	}
}

// TestPropertySeen plays random sequences and checks the seen state against
// what the player was shown: while a ticket is revealed, the state before
// its draw plus what its revealed rows show (and the bonuses claimed since);
// once every row is shown, the real state.
func TestPropertySeen(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := scriptedDrawer{t: t}
		now := t0
		p, err := NewPlayer(rapid.Int64Range(Stake, 5000).Draw(t, "start"), Seed{1}, "c", now)
		if err != nil {
			t.Fatal(err)
		}
		var hist []Entry // newest first
		var pre Player   // the state before the open ticket's draw
		var daily int64  // bonuses claimed since that draw
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			now = now.Add(time.Duration(rapid.IntRange(0, 3600).Draw(t, "wait")) * time.Second)
			var s Step
			var err error
			switch rapid.IntRange(0, 3).Draw(t, "action") {
			case 0:
				s, err = Apply(p, Buy{}, now)
			case 1:
				if p.Ticket == nil {
					continue
				}
				if !p.Ticket.Drawn {
					pre, daily = p, 0
				}
				s, err = Apply(p, Reveal{Ticket: p.Ticket.ID, Rows: RowMask(rapid.IntRange(0, 7).Draw(t, "rows")), Drawer: d}, now)
			case 2:
				if p.Revealing() != nil { // no view offers the chest before the ticket is finished
					continue
				}
				s, err = Apply(p, OpenChest{Seq: p.ChestSeq + 1, Drawer: d}, now)
			case 3:
				s, err = ClaimDaily{100, time.Hour}.apply(p, now)
				if err == nil && p.Revealing() != nil {
					daily += 100
				}
			}
			if err != nil {
				continue
			}
			p = s.Player
			for _, e := range s.History {
				hist = append([]Entry{e}, hist...)
			}

			sv := p.Seen(hist)
			if err := sv.Player.Check(); err != nil {
				t.Fatalf("seen player not sound: %v", err)
			}
			tk := p.Revealing()
			if tk == nil {
				if sv.Revealing != 0 || !reflect.DeepEqual(sv.Player, p) || !reflect.DeepEqual(p.SeenHistory(hist), hist) {
					t.Fatalf("no ticket revealing: Seen = %+v, want the real state %+v", sv, p)
				}
				continue
			}
			o := tk.Outcome
			var shown int64
			if tk.PrizeShown() {
				shown = o.Prize
			}
			if want := pre.Balance + daily + shown; sv.Player.Balance != want {
				t.Fatalf("seen balance %d, want %d before the draw + %d bonus + %d shown", sv.Player.Balance, pre.Balance, daily, shown)
			}
			if sv.Player.Balance != p.Balance-sv.Prize || sv.Prize+shown != o.Prize {
				t.Fatalf("seen balance %d ≠ real %d − hidden %d", sv.Player.Balance, p.Balance, sv.Prize)
			}
			ws, wp := pre.Stats, sv.Player.Stats
			if wp.WonCents != ws.WonCents+shown || wp.BestWinCents != max(ws.BestWinCents, shown) {
				t.Fatalf("seen stats %+v, before the draw %+v, %d shown", wp, ws, shown)
			}
			if key := o.Key && tk.KeyShown(); !key {
				if sv.Player.Keys != pre.Keys || sv.Player.ChestDue != pre.ChestDue || wp.Keys != ws.Keys {
					t.Fatalf("key hidden: seen keys %d (chest %v), before the draw %d (chest %v)", sv.Player.Keys, sv.Player.ChestDue, pre.Keys, pre.ChestDue)
				}
			} else if sv.Player.Keys != p.Keys || sv.Player.ChestDue != p.ChestDue {
				t.Fatalf("key shown: seen keys %d, real %d", sv.Player.Keys, p.Keys)
			}
			for _, e := range p.SeenHistory(hist) {
				if e.Kind == KindPlay && e.TicketID == tk.ID {
					t.Fatalf("SeenHistory shows ticket %d, being revealed", tk.ID)
				}
				if e.Balance > sv.Player.Balance && e.Placed && e.After >= tk.ID {
					t.Fatalf("a line since the draw shows a balance %d above the seen %d", e.Balance, sv.Player.Balance)
				}
			}
		}
	})
}
