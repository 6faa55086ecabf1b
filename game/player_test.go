package game

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestPlayer returns a sound new player with start cents.
func newTestPlayer(tb testing.TB, start int64) Player {
	tb.Helper()
	p, err := NewPlayer(start, testSeed(1), "client", t0)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// mustOutcome returns a truthful outcome of tier t (with a key if key).
func mustOutcome(tb testing.TB, t Tier, key bool) Outcome {
	tb.Helper()
	g, row := grid(NewSeededSource(uint64(t), 1), t, key)
	return Outcome{Tier: t, Prize: t.Prize(), Key: key, Row: row, Grid: g}
}

// TestCheck: Check refuses each unsound player naming the fields at fault
// (FieldError), in words, with no Go struct printed.
func TestCheck(t *testing.T) {
	sound := newTestPlayer(t, 1000)
	sound.Stats = Stats{Plays: 4, StakedCents: 200, WonCents: 150, GrantedCents: -100, DailyCents: 50,
		Chests: 1, BestWinCents: 100, Wins: 1, Keys: 3}
	sound.Balance = 1000 - 100 + 150 + 50 - 200
	sound.TicketSeq, sound.ChestSeq = 9, 2
	o := mustOutcome(t, TierLoss, true)
	sound.Ticket = &Ticket{ID: 9, Drawn: true, Outcome: o, KeysAfter: 1, Revealed: 0b101}
	sound.Keys = 1
	sound.LastChest = &Chest{Lot: LotSilver, Prize: LotSilver.Prize()}
	if err := sound.Check(); err != nil {
		t.Fatalf("sound player: %v", err)
	}
	max := MaxBalance
	tests := []struct {
		name   string
		change func(p *Player)
		want   string
	}{
		{"balance off by one", func(p *Player) { p.Balance++ }, "balance"},
		{"negative balance", func(p *Player) { p.Balance, p.StartingBalance = -1, p.StartingBalance-p.Balance-1 }, "out of 0.."},
		{"balance above the maximum", func(p *Player) { p.Balance, p.StartingBalance = max+1, p.StartingBalance+max+1-p.Balance }, "out of 0.."},
		{"starting balance above the maximum", func(p *Player) { p.StartingBalance, p.Stats.GrantedCents = max+1, p.Stats.GrantedCents-max-1+1000 }, "starting"},
		{"sum overflows int64", func(p *Player) {
			// Won + Daily wraps to exactly the balance in 64 bits; only the
			// 128-bit sum sees the mismatch.
			p.Stats.WonCents, p.Stats.DailyCents = math.MaxInt64, math.MaxInt64
			p.StartingBalance = p.Balance - (p.Stats.GrantedCents - p.Stats.StakedCents) + 2
		}, "balance"},
		{"three keys", func(p *Player) { p.Keys = 3 }, "keys 3"},
		{"negative keys", func(p *Player) { p.Keys = -1 }, "keys -1"},
		{"keys with a chest due", func(p *Player) { p.ChestDue = true }, "chest is due"},
		{"staked not plays × stake", func(p *Player) {
			p.Stats.StakedCents += 50
			p.Stats.GrantedCents += 50
		}, "staked"},
		{"plays × stake overflows", func(p *Player) {
			p.Stats.Plays = math.MaxInt64/50 + 1 // × 50 passes MaxInt64
			p.TicketSeq = math.MaxUint64
		}, "staked 200"},
		{"negative counter", func(p *Player) { p.Stats.Chests = -1 }, "negative"},
		{"more plays than tickets", func(p *Player) { p.TicketSeq = 3; p.Ticket = nil }, "plays"},
		{"ticket from the future", func(p *Player) { p.Ticket = &Ticket{ID: 10} }, "ticket 10"},
		{"revealed before drawn", func(p *Player) { p.Ticket = &Ticket{ID: 9, Revealed: 1} }, "not drawn"},
		{"bad rows", func(p *Player) { t := *p.Ticket; t.Revealed = 8; p.Ticket = &t }, "rows"},
		{"lying grid", func(p *Player) { t := *p.Ticket; t.Outcome.Grid[0] = Key; t.Outcome.Grid[1] = Key; p.Ticket = &t }, "invalid outcome"},
		{"chest without the third key", func(p *Player) { t := *p.Ticket; t.Chest = true; t.KeysAfter = 1; p.Ticket = &t }, "chest"},
		{"key and no keys after", func(p *Player) { t := *p.Ticket; t.KeysAfter = 0; p.Ticket = &t }, "no keys after"},
		{"last chest lies", func(p *Player) { p.LastChest = &Chest{Lot: LotThreeGold, Prize: 1} }, "last chest"},
		{"no seed", func(p *Player) { p.Seed = Seed{} }, "seed"},
		{"ticket number past MaxSeq", func(p *Player) { p.TicketSeq = MaxSeq + 1 }, "beyond"},
		{"chest number past MaxSeq", func(p *Player) { p.ChestSeq = MaxSeq + 1 }, "beyond"},
		{"more chests than the tickets give", func(p *Player) { p.ChestSeq = 3 }, "3 chests opened"},
		{"a due chest past the last number", func(p *Player) { p.Keys, p.ChestDue, p.ChestSeq, p.TicketSeq = 0, true, MaxSeq, MaxSeq }, "due true"},
		{"spend day not a midnight", func(p *Player) { p.Care.Spend = Spend{Day: t0, Week: WeekStart(t0)} }, "spend day"},
		{"spend week not its day's Monday", func(p *Player) { p.Care.Spend = Spend{Day: DayStart(t0), Week: DayStart(t0)} }, "spend day"},
		{"spend week without a day", func(p *Player) { p.Care.Spend = Spend{Week: WeekStart(t0)} }, "spend day"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sound
			tt.change(&p)
			err := p.Check()
			fe, ok := errors.AsType[*FieldError](err)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) || !ok || fe.Field == "" || strings.ContainsAny(err.Error(), "{}") {
				t.Fatalf("Check = %v, want a FieldError mentioning %q, and no struct", err, tt.want)
			}
		})
	}
}

func TestAddAndCredit(t *testing.T) {
	tests := []struct {
		a, b int64
		sum  int64
		ok   bool
	}{
		{1, 2, 3, true},
		{math.MaxInt64, 0, math.MaxInt64, true},
		{math.MaxInt64, 1, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MinInt64, math.MaxInt64, -1, true},
		{math.MaxInt64, math.MaxInt64, 0, false},
	}
	for _, tt := range tests {
		s, err := add(tt.a, tt.b)
		if (err == nil) != tt.ok || (tt.ok && s != tt.sum) || (!tt.ok && !errors.Is(err, ErrInvalid)) {
			t.Errorf("add(%d, %d) = %d, %v", tt.a, tt.b, s, err)
		}
	}
	for _, c := range []struct{ bal, amount int64 }{{0, -1}, {MaxBalance, 1}, {1, math.MaxInt64}, {MaxBalance, math.MinInt64}} {
		if _, err := credit(c.bal, c.amount); !errors.Is(err, ErrInvalid) {
			t.Errorf("credit(%d, %d) = %v, want ErrInvalid", c.bal, c.amount, err)
		}
	}
	if b, err := credit(MaxBalance-1, 1); err != nil || b != MaxBalance {
		t.Errorf("credit to the maximum = %d, %v", b, err)
	}
}

func TestKeysBefore(t *testing.T) {
	tests := []struct {
		t    Ticket
		want int
	}{
		{Ticket{KeysAfter: 0}, 0},
		{Ticket{KeysAfter: 2}, 2},
		{Ticket{KeysAfter: 1, Outcome: Outcome{Key: true}}, 0},
		{Ticket{KeysAfter: 2, Outcome: Outcome{Key: true}}, 1},
		{Ticket{KeysAfter: 0, Chest: true, Outcome: Outcome{Key: true}}, 2},
	}
	for _, tt := range tests {
		if got := tt.t.KeysBefore(); got != tt.want {
			t.Errorf("%+v.KeysBefore() = %d, want %d", tt.t, got, tt.want)
		}
	}
}

func TestSeedIsHidden(t *testing.T) {
	p := newTestPlayer(t, 100)
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		s := fmt.Sprintf(f, p)
		if strings.Contains(s, "1 2 3 4") || strings.Contains(s, "0x1, 0x2") || strings.Contains(s, "0102030405") {
			t.Errorf("%s of a player shows the seed: %s", f, s)
		}
	}
}
