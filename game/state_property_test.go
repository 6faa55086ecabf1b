package game

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// scriptedDrawer lets rapid choose every draw: any tier, a key on any loss,
// whatever the keys held, a truthful grid; and, when faulty, sometimes an
// error or an outcome or chest the rules do not allow.
type scriptedDrawer struct {
	t      *rapid.T
	faulty bool
}

func (d scriptedDrawer) fault() bool {
	return d.faulty && rapid.IntRange(0, 9).Draw(d.t, "fault") == 0
}

func (d scriptedDrawer) Ticket(Seed, string, uint64, int) (Outcome, error) {
	if d.fault() {
		if rapid.Bool().Draw(d.t, "error") {
			return Outcome{}, errBoom
		}
		return Outcome{Tier: Tier(rapid.IntRange(0, 255).Draw(d.t, "tier")), Prize: rapid.Int64().Draw(d.t, "prize"),
			Key: rapid.Bool().Draw(d.t, "key"), Row: int8(rapid.IntRange(-1, 2).Draw(d.t, "row"))}, nil
	}
	tier := Tier(rapid.IntRange(0, NumTiers-1).Draw(d.t, "tier"))
	key := tier == TierLoss && rapid.Bool().Draw(d.t, "key")
	g, row := grid(NewSeededSource(rapid.Uint64().Draw(d.t, "grid"), 0), tier, key)
	return Outcome{Tier: tier, Prize: tier.Prize(), Key: key, Row: row, Grid: g}, nil
}

func (d scriptedDrawer) Chest(Seed, string, int64) (Chest, error) {
	if d.fault() {
		if rapid.Bool().Draw(d.t, "error") {
			return Chest{}, errBoom
		}
		return Chest{Lot: Lot(rapid.IntRange(0, 255).Draw(d.t, "lot")), Prize: rapid.Int64().Draw(d.t, "prize")}, nil
	}
	l := Lot(rapid.IntRange(0, NumLots-1).Draw(d.t, "lot"))
	return Chest{Lot: l, Prize: l.Prize()}, nil
}

// genPlayer draws a sound player: a new one, or one whose totals are close
// to the limits of int64 (so that overflows are tried) and whose balance is
// anywhere in 0..MaxBalance.
func genPlayer(t *rapid.T) Player {
	seed := Seed{1}
	seed[31] = byte(rapid.IntRange(0, 255).Draw(t, "seed"))
	start := rapid.OneOf(rapid.Int64Range(500, 10_000), rapid.Int64Range(0, MaxBalance)).Draw(t, "start")
	p, err := NewPlayer(start, seed, "client", t0)
	if err != nil {
		t.Fatal(err)
	}
	if rapid.IntRange(0, 9).Draw(t, "next seed") > 0 { // else a record from before next seeds
		next := seed
		next[0] = 2
		p = p.WithNextSeed(next)
	}
	if rapid.Bool().Draw(t, "fresh") {
		return p
	}
	const margin = 4 * MaxBalance
	s := &p.Stats
	s.Plays = rapid.Int64Range(0, MaxSeq).Draw(t, "plays")
	s.StakedCents = s.Plays * Stake
	s.WonCents = rapid.Int64Range(max(0, s.StakedCents-(math.MaxInt64-margin)), math.MaxInt64-margin).Draw(t, "won")
	s.DailyCents = rapid.Int64Range(0, MaxBalance).Draw(t, "daily")
	p.Balance = rapid.Int64Range(0, MaxBalance).Draw(t, "balance")
	s.GrantedCents = p.Balance - p.StartingBalance - s.DailyCents + (s.StakedCents - s.WonCents)
	s.Wins = rapid.Int64Range(0, math.MaxInt64).Draw(t, "wins")
	s.Keys = rapid.Int64Range(0, math.MaxInt64).Draw(t, "keys collected")
	s.BestWinCents = rapid.Int64Range(0, math.MaxInt64).Draw(t, "best")
	// Ticket numbers up to MaxSeq, the last ones often; chests and keys as
	// many as the tickets give (Check), the most often.
	p.TicketSeq = rapid.OneOf(rapid.Uint64Range(uint64(s.Plays), MaxSeq), rapid.Uint64Range(max(uint64(s.Plays), MaxSeq-3), MaxSeq)).Draw(t, "ticket seq")
	p.Keys = rapid.IntRange(0, int(min(p.TicketSeq, MaxKeys-1))).Draw(t, "keys")
	left := p.TicketSeq - uint64(p.Keys)
	if left >= MaxKeys && rapid.Bool().Draw(t, "chest due") {
		p.Keys, p.ChestDue, left = 0, true, p.TicketSeq-MaxKeys
	}
	most := int64(left / MaxKeys)
	p.ChestSeq = rapid.OneOf(rapid.Int64Range(0, most), rapid.Int64Range(max(0, most-3), most)).Draw(t, "chest seq")
	s.Chests = rapid.Int64Range(0, p.ChestSeq).Draw(t, "chests")
	if err := p.Check(); err != nil {
		t.Fatalf("generated an unsound player: %v", err)
	}
	return p
}

// model is what the property test remembers of the run, to check the
// promises that span several steps, and what a store keeps beside the
// player.
type model struct {
	drawn   map[uint64]Outcome // ticket → its outcome, once drawn
	chests  map[int64]Chest    // chest number → the chest opened
	opened  map[int64]bool     // chest numbers a step reported Opened
	reveals Reveals            // the reveals a store keeps, the last MaxReveals
	lines   []drawnLine        // the play and chest lines written
}

// drawnLine is a play or chest line with the number of the seed that drew
// it.
type drawnLine struct {
	e  Entry
	no int64
}

func TestPropertyTransitions(t *testing.T) {
	t.Run("seeded", func(t *testing.T) { rapid.Check(t, func(t *rapid.T) { runTransitions(t, SeededDrawer{}, true) }) })
	t.Run("scripted", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { runTransitions(t, scriptedDrawer{t: t}, false) })
	})
	t.Run("faulty", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { runTransitions(t, scriptedDrawer{t: t, faulty: true}, false) })
	})
}

func runTransitions(t *rapid.T, d Drawer, seeded bool) {
	p := genPlayer(t)
	now := t0
	m := model{drawn: map[uint64]Outcome{}, chests: map[int64]Chest{}, opened: map[int64]bool{}}
	steps := rapid.IntRange(1, 200).Draw(t, "steps")
	for i := 0; i < steps; i++ {
		now = now.Add(time.Duration(rapid.Int64Range(0, int64(30*time.Hour)).Draw(t, "elapsed")))
		fresh := Seed{3, byte(i), byte(i >> 8)} // never one of p's seeds
		name, mv := genTransition(t, p, d, fresh)
		before := clone(p)
		s, err := Apply(p, mv, now)
		if !reflect.DeepEqual(p, before) {
			t.Fatalf("%s modified its input", name)
		}
		if err != nil && (!reflect.DeepEqual(s.Player, before) || s.History != nil || len(s.Reveals) != 0 || s.Audit != nil) {
			t.Fatalf("%s failed (%v) and changed the player or gave %+v", name, err, s)
		}
		switch {
		case err != nil:
			if seeded && !errors.Is(err, ErrInsufficientFunds) && !errors.Is(err, ErrChestDue) && !errors.Is(err, ErrNoChest) &&
				!errors.Is(err, ErrUnknownTicket) && !errors.Is(err, ErrDailyCooldown) && !errors.Is(err, ErrDailyDisabled) &&
				!errors.Is(err, ErrTicketOpen) && !errors.Is(err, ErrClientSeed) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("%s: unexpected error %v", name, err)
			}
		default:
			if s.Result.Balance != s.Player.Balance {
				t.Fatalf("%s: result balance %d, player %d", name, s.Result.Balance, s.Player.Balance)
			}
			m.follow(t, name, before, s, d, seeded)
		}
		p = s.Player
		if err := p.Check(); err != nil {
			t.Fatalf("after %s: %v", name, err)
		}
		for _, e := range s.History {
			if err := e.Check(); err != nil {
				t.Fatalf("%s wrote a line that reads back refused: %v", name, err)
			}
		}
		if err := p.CheckReveals(m.reveals); err != nil {
			t.Fatalf("after %s, the reveals kept: %v", name, err)
		}
		if p.Keys < 0 || p.Keys >= MaxKeys || p.TicketSeq > MaxSeq || p.ChestSeq > MaxSeq {
			t.Fatalf("after %s: %d keys, ticket %d, chest %d", name, p.Keys, p.TicketSeq, p.ChestSeq)
		}
	}
	if seeded {
		m.verify(t, p, d)
	}
}

// verify checks that every line written is verified from the reveals kept,
// unless its seed is still secret or no longer kept.
func (m *model) verify(t *rapid.T, p Player, d Drawer) {
	for _, l := range m.lines {
		v, err := p.Verify(d, m.reveals, l.e)
		_, kept := m.reveals.Seed(l.no)
		switch {
		case l.no == p.SeedNo:
			if !errors.Is(err, ErrSeedSecret) {
				t.Fatalf("%+v under the current seed: %v", l.e, err)
			}
		case !kept:
			if !errors.Is(err, ErrSeedForgotten) {
				t.Fatalf("%+v under forgotten seed %d: %v", l.e, l.no, err)
			}
		case err != nil || !v.Match || v.Seed.No != l.no:
			t.Fatalf("%+v under seed %d verified as %+v, %v", l.e, l.no, v, err)
		}
	}
}

// follow checks one successful, non-repeated step against the model.
func (m *model) follow(t *rapid.T, name string, before Player, s Step, d Drawer, seeded bool) {
	p := s.Player
	if tk := p.Ticket; tk != nil && tk.Drawn {
		o, ok := m.drawn[tk.ID]
		switch {
		case ok && o != tk.Outcome:
			t.Fatalf("%s: ticket %d drawn again: %+v then %+v", name, tk.ID, o, tk.Outcome)
		case ok && s.Result.Drawn:
			t.Fatalf("%s: ticket %d reported drawn twice", name, tk.ID)
		case !ok && !s.Result.Drawn:
			t.Fatalf("%s: ticket %d drawn without Result.Drawn", name, tk.ID)
		}
		m.drawn[tk.ID] = tk.Outcome
		if seeded && !ok {
			// Verifiable: the ticket recomputed from the seeds, its number
			// and the keys held before gives the same outcome.
			again, err := d.Ticket(p.Seed, p.ClientSeed, tk.ID, tk.KeysBefore())
			if err != nil || again != tk.Outcome {
				t.Fatalf("%s: ticket %d recomputed as %+v, %v; drawn %+v", name, tk.ID, again, err, tk.Outcome)
			}
		}
	}
	if s.Result.Opened {
		seq := p.ChestSeq
		if m.opened[seq] || seq != before.ChestSeq+1 || !before.ChestDue || p.ChestDue {
			t.Fatalf("%s: chest %d opened again or out of turn", name, seq)
		}
		m.opened[seq] = true
		m.chests[seq] = s.Result.Chest
		if p.Balance-before.Balance != s.Result.Chest.Prize {
			t.Fatalf("%s: chest %v paid %d", name, s.Result.Chest, p.Balance-before.Balance)
		}
	} else if c, ok := m.chests[p.ChestSeq]; ok && p.LastChest != nil && *p.LastChest != c {
		t.Fatalf("%s: chest %d changed from %v to %v", name, p.ChestSeq, c, *p.LastChest)
	}
	if p.ChestSeq < before.ChestSeq || p.TicketSeq < before.TicketSeq || !p.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("%s: a number or the creation time went back", name)
	}
	rotation := name == "rotate" || name == "client-seed" || name == "restore"
	switch r, n := first(s.Reveals), int64(len(s.Reveals)); {
	case rotation && r == nil, !rotation && r != nil:
		t.Fatalf("%s revealed %+v", name, r)
	case name == "restore":
		// Both seeds revealed, the next one with no draw: the player's
		// tickets from now on draw under neither.
		if next := before.NextSeed != (Seed{}); (n == 2) != next || n > 2 || r.Seed != before.Seed || r.No != before.SeedNo ||
			p.SeedNo != before.SeedNo+n || p.Seed == before.Seed || p.Seed == before.NextSeed || p.NextSeed == before.NextSeed ||
			next && (s.Reveals[1].Seed != before.NextSeed || s.Reveals[1].LastTicket >= s.Reveals[1].FirstTicket || s.Reveals[1].No != r.No+1) {
			t.Fatalf("restore revealed %+v, from %+v to %+v", s.Reveals, before, p)
		}
		m.reveals = append(m.reveals, s.Reveals...)
		m.reveals = m.reveals[max(0, len(m.reveals)-MaxReveals):]
	case r == nil:
		if p.Seed != before.Seed || p.NextSeed != before.NextSeed || p.SeedNo != before.SeedNo {
			t.Fatalf("%s changed the seeds without a reveal", name)
		}
	default:
		// The seed revealed is the one that was current, with the draws it
		// made; the next one, committed before, is current now.
		if r.No != before.SeedNo || r.Seed != before.Seed || r.ClientSeed != before.ClientSeed || s.Result.Seed != r.No ||
			r.FirstTicket != before.SeedTicket+1 || r.LastTicket != before.TicketSeq ||
			r.FirstChest != before.SeedChest+1 || r.LastChest != before.ChestSeq || !r.RevealedAt.Equal(p.SeedAt) ||
			p.Seed != before.NextSeed || p.SeedNo != before.SeedNo+1 {
			t.Fatalf("%s revealed %+v, from %+v to %+v", name, r, before, p)
		}
		m.reveals = append(m.reveals, *r)
		if len(m.reveals) > MaxReveals {
			m.reveals = m.reveals[1:]
		}
	}
	for _, h := range s.History {
		if h.Balance != p.Balance {
			t.Fatalf("%s: history %+v, balance %d", name, h, p.Balance)
		}
		if h.Kind == KindPlay || h.Kind == KindChest {
			// The line names the seed that drew it by its commitment.
			if !h.Fair || h.Commitment != before.Seed.Commitment() {
				t.Fatalf("%s: line %+v, commitment of the seed %s", name, h, before.Seed.Commitment().Short())
			}
			m.lines = append(m.lines, drawnLine{e: h, no: before.SeedNo})
		} else if h.Commitment != (Commitment{}) {
			t.Fatalf("%s: a %s line with a commitment", name, h.Kind)
		}
	}
}

// genTransition draws one transition, with arguments usually valid and
// sometimes not.
func genTransition(t *rapid.T, p Player, d Drawer, fresh Seed) (string, Move) {
	// Weighted towards the plays, so that runs reach the chest.
	switch rapid.IntRange(0, 17).Draw(t, "transition") {
	case 0, 1, 2, 3:
		return "buy", Buy{}
	case 4, 5, 6, 7, 8:
		var id uint64
		if p.Ticket != nil {
			id = p.Ticket.ID
		}
		id += uint64(rapid.SampledFrom([]int{0, 0, 0, 1, -1}).Draw(t, "ticket"))
		rows := rapid.SampledFrom([]RowMask{AllRows, 1, 2, 4, 0, 3, 6, 0xff, 8}).Draw(t, "rows")
		return "reveal", Reveal{Ticket: id, Rows: rows, Drawer: d}
	case 9, 10, 11:
		seq := p.ChestSeq + int64(rapid.SampledFrom([]int{1, 1, 0, 2, -1}).Draw(t, "chest"))
		return "chest", OpenChest{Seq: seq, Drawer: d}
	case 12:
		amount := rapid.OneOf(rapid.Just(int64(0)), rapid.Int64Range(-1, 1000), rapid.Int64Range(0, MaxDailyAmount+1)).Draw(t, "daily")
		cooldown := time.Duration(rapid.Int64Range(-1, int64(48*time.Hour)).Draw(t, "cooldown"))
		return "daily", ClaimDaily{Amount: amount, Cooldown: cooldown}
	case 13:
		amount := rapid.OneOf(rapid.Int64Range(-1000, 1000), rapid.Int64Range(-MaxGrant-1, MaxGrant+1), rapid.Int64()).Draw(t, "grant")
		return "grant", Grant{Amount: amount}
	case 14:
		b := rapid.OneOf(rapid.Int64Range(0, 10_000), rapid.Int64Range(-1, MaxBalance+1)).Draw(t, "set")
		return "set-balance", Grant{Amount: b, Set: true}
	case 15, 16:
		// Usually a fresh seed; sometimes one the player uses, or zero.
		fresh = rapid.SampledFrom([]Seed{fresh, fresh, fresh, fresh, p.Seed, p.NextSeed, {}}).Draw(t, "fresh")
		switch rapid.IntRange(0, 2).Draw(t, "rotation") {
		case 1:
			client := rapid.SampledFrom([]string{"mine", "Trésor 🗝", "", "\xff"}).Draw(t, "client")
			return "client-seed", Rotate{Fresh: fresh, Client: &client}
		case 2: // clefs restore; sometimes both seeds the same
			return "restore", Restore{Seed: fresh, Next: rapid.SampledFrom([]Seed{{4, fresh[1], fresh[2]}, fresh}).Draw(t, "next")}
		}
		return "rotate", Rotate{Fresh: fresh}
	}
	start := rapid.OneOf(rapid.Int64Range(0, 10_000), rapid.Int64Range(-1, MaxBalance+1)).Draw(t, "reset")
	return "reset", Reset{Start: start}
}
