package game

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode"
)

func TestValidateClientSeed(t *testing.T) {
	for _, ok := range []string{"a", "Trésor 🗝", strings.Repeat("x", MaxClientSeed), "0123456789abcdef"} {
		if err := ValidateClientSeed(ok); err != nil {
			t.Errorf("ValidateClientSeed(%q) = %v", ok, err)
		}
	}
	// Every code point FAIRNESS.md section 1 lists as refused, and one of
	// each refused category.
	refused := []rune{0x0000, 0x0009, 0x000A, 0x001F, 0x007F, 0x0085, 0x009F, // Cc
		0x00A0, 0x1680, 0x2000, 0x200A, 0x202F, 0x205F, 0x3000, // Zs but U+0020
		0x00AD, 0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202E, 0x2060, 0x2066, 0x2069, 0xFEFF, 0xFFF9, 0xFFFB, 0xE0001, 0xE007F, // Cf
		0x2028,                            // Zl
		0x2029,                            // Zp
		0xE000, 0xF8FF, 0xF0000, 0x10FFFD, // Co
	}
	for _, r := range refused {
		if !RefusedInClientSeed(r) {
			t.Errorf("RefusedInClientSeed(%U) = false", r)
		}
		s := "seed" + string(r) + "x"
		if err := ValidateClientSeed(s); !errors.Is(err, ErrClientSeed) {
			t.Errorf("ValidateClientSeed(%q) = %v, want ErrClientSeed", s, err)
		}
		// A seed chosen under the earlier rule (no Cc) stays readable
		// and still draws: a record is never locked out.
		if !unicode.IsControl(r) {
			if err := CheckStoredClientSeed(s); err != nil {
				t.Errorf("CheckStoredClientSeed(%q) = %v, want nil", s, err)
			}
			if _, err := NewFairDraws(testSeed(1), s); err != nil {
				t.Errorf("NewFairDraws(client %q) = %v, want a draw", s, err)
			}
		} else if err := CheckStoredClientSeed(s); !errors.Is(err, ErrClientSeed) {
			t.Errorf("CheckStoredClientSeed(%q) = %v, want ErrClientSeed", s, err)
		}
	}
	// Visible characters stay allowed, marks and emoji variation selectors
	// included.
	for _, r := range []rune{' ', 'a', 'é', 0x0301, 0xFE0F, 0x1F511, 0x3042, 0xFFFD, 0x1D11E} {
		if RefusedInClientSeed(r) {
			t.Errorf("RefusedInClientSeed(%U) = true", r)
		}
	}
	if _, err := NewFairDraws(testSeed(1), ""); err != nil {
		t.Errorf("NewFairDraws(client \"\") = %v: legacy records draw with it", err)
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxClientSeed+1), strings.Repeat("é", MaxClientSeed/2+1), "\xff", "a\x00b", "tab\there", "line\n"} {
		if err := ValidateClientSeed(bad); !errors.Is(err, ErrClientSeed) {
			t.Errorf("ValidateClientSeed(%q) = %v, want ErrClientSeed", bad, err)
		}
	}
}

func TestNewClientSeed(t *testing.T) {
	s, err := NewClientSeed(bytes.NewReader([]byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3}))
	if err != nil || s != "deadbeef00010203" || ValidateClientSeed(s) != nil {
		t.Fatalf("NewClientSeed = %q, %v", s, err)
	}
	if _, err := NewClientSeed(iotest.ErrReader(errors.New("broken"))); err == nil {
		t.Fatal("NewClientSeed from a broken reader succeeded")
	}
}

func TestSeedHexAndCommitment(t *testing.T) {
	s := testSeed(9)
	back, err := ParseSeed(strings.ToUpper(s.Hex()))
	if err != nil || back != s {
		t.Fatalf("ParseSeed(Hex) = %v, %v", back == s, err)
	}
	if c := s.Commitment(); c != Commitment(sha256.Sum256(s[:])) || len(c.String()) != 64 || c.Short() != c.String()[:8] {
		t.Fatalf("commitment %s, short %s", c, c.Short())
	}
	for _, bad := range []string{"", "zz", s.Hex()[:62], s.Hex() + "00", strings.Repeat("0", 64)} {
		if _, err := ParseSeed(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseSeed(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	if strings.Contains(s.String(), s.Hex()[:8]) {
		t.Fatal("Seed.String shows the seed")
	}
}

// played returns p after n tickets played with SeededDrawer, opening the
// chests they gave (fairLines without the lines).
func played(t *testing.T, p Player, n int) Player {
	t.Helper()
	p, _ = fairLines(t, p, n)
	return p
}

// keep is what a store does with a step's reveal: it keeps it beside the
// player, the last MaxReveals of them, in a new slice.
func keep(rs Reveals, s Step) Reveals {
	if len(s.Reveals) == 0 {
		return rs
	}
	rs = append(slices.Clone(rs), s.Reveals...)
	return slices.Clip(rs[max(0, len(rs)-MaxReveals):])
}

// rotated rotates p to fresh, keeping the reveal in rs.
func rotated(t *testing.T, p Player, rs Reveals, fresh Seed) (Player, Reveals) {
	t.Helper()
	s := stepOK(t, p, Rotate{Fresh: fresh}, t0)
	if len(s.Reveals) == 0 || s.Reveals[0].Seed != p.Seed || s.Reveals[0].No != p.SeedNo {
		t.Fatalf("Rotate revealed %+v", s.Reveals)
	}
	rs = keep(rs, s)
	if err := s.Player.CheckReveals(rs); err != nil {
		t.Fatalf("the reveals kept after Rotate: %v", err)
	}
	return s.Player, rs
}

func TestRotate(t *testing.T) {
	p, err := NewPlayer(1_000_000, testSeed(1), "client", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(p, Rotate{Fresh: testSeed(2)}, t0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Rotate without a next seed: %v", err)
	}
	p = p.WithNextSeed(testSeed(100))
	if p.NextSeed != testSeed(100) || p.WithNextSeed(testSeed(101)).NextSeed != testSeed(100) || p.Check() != nil {
		t.Fatal("WithNextSeed does not set the next seed once")
	}
	p = played(t, p, 5)
	later := t0.Add(time.Hour)
	s := stepOK(t, p, Rotate{Fresh: testSeed(2)}, later)
	n := s.Player
	want := SeedReveal{No: 1, Seed: testSeed(1), ClientSeed: "client", FirstTicket: 1, LastTicket: 5, FirstChest: 1, LastChest: p.ChestSeq, CommittedAt: t0, RevealedAt: later, Next: testSeed(100).Commitment()}
	if len(s.Reveals) == 0 || s.Reveals[0] != want || s.Result.Seed != 1 || len(s.History) != 0 {
		t.Fatalf("reveal %+v, result %+v", s.Reveals, s.Result)
	}
	if n.Seed != testSeed(100) || n.NextSeed != testSeed(2) || n.SeedNo != 2 || n.SeedTicket != 5 || n.SeedChest != p.ChestSeq || n.SeedAt != later || n.ClientSeed != "client" {
		t.Fatalf("after Rotate: %+v", n)
	}
	rs := keep(nil, s)
	if err := n.CheckReveals(rs); err != nil {
		t.Fatalf("the reveal does not fit the player after Rotate: %v", err)
	}
	if err := p.CheckReveals(rs); err == nil {
		t.Fatal("the reveal of the current seed fits the player before Rotate")
	}
	// Steps that rotate nothing reveal nothing.
	if b, err := step(t, n, Buy{}, later); err != nil || len(b.Reveals) != 0 {
		t.Fatalf("Buy = %+v, %v", b, err)
	}
	// Refused, changing nothing and revealing nothing (step checks it): the
	// current or next seed, the zero seed, a bad client seed.
	for name, m := range map[string]Move{
		"current seed": Rotate{Fresh: testSeed(100)},
		"next seed":    Rotate{Fresh: testSeed(2)},
		"zero seed":    Rotate{Fresh: Seed{}},
		"bad client":   Rotate{Fresh: testSeed(3), Client: new("")},
	} {
		if _, err := step(t, n, m, later); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	open, err := Apply(n, Buy{}, later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := step(t, open.Player, Rotate{Fresh: testSeed(3)}, later); !errors.Is(err, ErrTicketOpen) {
		t.Fatalf("Rotate with a ticket open: %v", err)
	}
	// A client seed rotates too: the reveal carries the client seed the
	// revealed seed drew with.
	s, err = step(t, n, Rotate{Fresh: testSeed(3), Client: new("mine")}, later)
	if err != nil || s.Player.ClientSeed != "mine" || s.Player.Seed != testSeed(2) || s.Player.NextSeed != testSeed(3) || s.Player.SeedNo != 3 ||
		len(s.Reveals) == 0 || s.Reveals[0].ClientSeed != "client" || s.Reveals[0].Seed != testSeed(100) || s.Reveals[0].No != 2 || s.Result.Seed != 2 {
		t.Fatalf("SetClientSeed: %+v, %v", s, err)
	}
	rs = keep(rs, s)
	if err := s.Player.CheckReveals(rs); err != nil || len(rs) != 2 || rs[1].ClientSeed != "client" {
		t.Fatalf("reveals %+v: %v", rs, err)
	}
	// A store keeps the last MaxReveals; the player can then no longer
	// verify their oldest draws.
	q := s.Player
	for i := range MaxReveals + 3 {
		q, rs = rotated(t, q, rs, testSeed(byte(10+i)))
	}
	if len(rs) != MaxReveals || rs[0].No != q.SeedNo-MaxReveals || rs[MaxReveals-1].No != q.SeedNo-1 {
		t.Fatalf("%d reveals kept, the oldest %d, seed %d", len(rs), rs[0].No, q.SeedNo)
	}
	if _, _, err := q.TicketSeed(rs, 1); !errors.Is(err, ErrSeedForgotten) {
		t.Fatalf("TicketSeed of a forgotten seed: %v", err)
	}
}

func TestReveals(t *testing.T) {
	var none Reveals
	if r, ok := none.Last(); ok || r != (SeedReveal{}) {
		t.Fatalf("Last of no reveals = %+v, %v", r, ok)
	}
	if r, ok := none.Seed(0); ok || r != (SeedReveal{}) {
		t.Fatalf("Seed(0) of no reveals = %+v, %v", r, ok)
	}
	p, _ := NewPlayer(1_000_000, testSeed(1), "client", t0)
	p = p.WithNextSeed(testSeed(100))
	var rs Reveals
	p, rs = rotated(t, played(t, p, 2), rs, testSeed(2))
	p, rs = rotated(t, played(t, p, 3), rs, testSeed(3))
	if last, ok := rs.Last(); !ok || last != rs[1] || last.Seed != testSeed(100) || last.No != p.SeedNo-1 {
		t.Fatalf("Last = %+v, %v", last, ok)
	}
	for no, want := range map[int64]Seed{1: testSeed(1), 2: testSeed(100)} {
		if r, ok := rs.Seed(no); !ok || r.No != no || r.Seed != want {
			t.Errorf("Seed(%d) = %+v, %v", no, r, ok)
		}
	}
	for _, no := range []int64{0, 3, -1} {
		if r, ok := rs.Seed(no); ok {
			t.Errorf("Seed(%d) = %+v, a seed not revealed", no, r)
		}
	}
}

// TestTicketAndChestSeed: a draw's seed is the revealed one it was drawn
// under, or the current one, still secret; a number never drawn is
// refused, and without the reveals a revealed seed is forgotten.
func TestTicketAndChestSeed(t *testing.T) {
	p, _ := NewPlayer(1_000_000, testSeed(1), "client", t0)
	p, rs := rotated(t, played(t, p.WithNextSeed(testSeed(100)), 40), nil, testSeed(2))
	tickets, chests := int64(p.TicketSeq), p.ChestSeq
	p = played(t, p, 40)
	if chests == 0 || p.ChestSeq == chests {
		t.Fatalf("chests %d then %d: the test needs some under each seed", chests, p.ChestSeq)
	}
	check := func(what string, n, revealed int64, r SeedReveal, secret bool, err error) {
		t.Helper()
		switch {
		case err != nil:
			t.Errorf("%s %d: %v", what, n, err)
		case n <= revealed && (secret || r != rs[0]):
			t.Errorf("%s %d: %+v, secret %v; want the reveal", what, n, r, secret)
		case n > revealed && (!secret || r.Seed != p.Seed || r.ClientSeed != p.ClientSeed || r.No != p.SeedNo):
			t.Errorf("%s %d: %+v, secret %v; want the current seed", what, n, r, secret)
		}
	}
	for n := uint64(1); n <= p.TicketSeq; n++ {
		r, secret, err := p.TicketSeed(rs, n)
		check("ticket", int64(n), tickets, r, secret, err)
	}
	for n := int64(1); n <= p.ChestSeq; n++ {
		r, secret, err := p.ChestSeed(rs, n)
		check("chest", n, chests, r, secret, err)
	}
	for _, n := range []uint64{0, p.TicketSeq + 1} {
		if _, _, err := p.TicketSeed(rs, n); !errors.Is(err, ErrUnknownTicket) {
			t.Errorf("TicketSeed(%d) = %v, want ErrUnknownTicket", n, err)
		}
	}
	for _, n := range []int64{0, -1, p.ChestSeq + 1} {
		if _, _, err := p.ChestSeed(rs, n); !errors.Is(err, ErrNoChest) {
			t.Errorf("ChestSeed(%d) = %v, want ErrNoChest", n, err)
		}
	}
	if _, _, err := p.TicketSeed(nil, 2); !errors.Is(err, ErrSeedForgotten) {
		t.Errorf("TicketSeed(nil, 2) = %v, want ErrSeedForgotten", err)
	}
	if _, secret, err := p.TicketSeed(nil, uint64(tickets)+1); err != nil || !secret {
		t.Errorf("TicketSeed(nil, %d) = %v, %v", tickets+1, secret, err)
	}
	if _, _, err := p.ChestSeed(nil, 1); !errors.Is(err, ErrSeedForgotten) {
		t.Errorf("ChestSeed(nil, 1) = %v, want ErrSeedForgotten", err)
	}
}

// fairLines plays n tickets with SeededDrawer, opening the chests they
// give, and returns the player and the history lines.
func fairLines(t *testing.T, p Player, n int) (Player, []Entry) {
	t.Helper()
	var lines []Entry
	var d SeededDrawer
	step := func(s Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p, lines = s.Player, append(lines, s.History...)
	}
	for range n {
		step(Apply(p, Buy{}, t0))
		step(Apply(p, Reveal{Ticket: p.TicketSeq, Rows: AllRows, Drawer: d}, t0))
		if p.ChestDue {
			step(Apply(p, OpenChest{Seq: p.ChestSeq + 1, Drawer: d}, t0))
		}
	}
	return p, lines
}

func TestVerify(t *testing.T) {
	p, _ := NewPlayer(1_000_000, testSeed(1), "Trésor", t0)
	p = p.WithNextSeed(testSeed(100))
	var d SeededDrawer
	p, lines := fairLines(t, p, 40)
	if _, err := p.Verify(d, nil, lines[0]); !errors.Is(err, ErrSeedSecret) {
		t.Fatalf("Verify under the current seed: %v", err)
	}
	p, rs := rotated(t, p, nil, testSeed(2))
	// Seed 2 (testSeed(100)) draws a second batch, then is revealed too.
	p, lines2 := fairLines(t, p, 40)
	p, rs = rotated(t, p, rs, testSeed(3))
	chests := 0
	for i, l := range append(slices.Clone(lines), lines2...) {
		drew := rs[0]
		if i >= len(lines) {
			drew = rs[1]
		}
		// The line records the commitment shown for the seed that drew it.
		if l.Commitment != drew.Commitment() || l.Commitment != drew.Seed.Commitment() {
			t.Fatalf("line %+v: commitment %s, seed %d's is %s", l, l.Commitment.Short(), drew.No, drew.Commitment().Short())
		}
		v, err := p.Verify(d, rs, l)
		if err != nil || !v.Match || v.Seed != drew {
			t.Fatalf("Verify(%+v) = %+v, %v", l, v, err)
		}
		if l.Kind == KindChest {
			chests++
			if v.Nonce != uint64(l.Chest) || v.Chest.Lot != l.Lot {
				t.Fatalf("chest %+v verified as %+v", l, v)
			}
		} else if v.Nonce != l.TicketID || v.Outcome.Grid != l.Grid || v.KeysBefore != l.KeysBefore {
			t.Fatalf("ticket %+v verified as %+v", l, v)
		}
		// Without the reveal that drew it, the line cannot be verified.
		others := slices.DeleteFunc(slices.Clone(rs), func(r SeedReveal) bool { return r.No == drew.No })
		if _, err := p.Verify(d, others, l); !errors.Is(err, ErrSeedForgotten) {
			t.Fatalf("Verify(%+v) without its reveal: %v", l, err)
		}
	}
	if chests == 0 {
		t.Fatal("no chest in 40 plays: the test verifies no chest")
	}
	if lines[0].Commitment == lines2[0].Commitment {
		t.Fatal("two seeds' lines record the same commitment")
	}
	// A line that does not tell what was drawn does not match.
	tampered := lines[0]
	tampered.Grid[0], tampered.Grid[1] = tampered.Grid[1], tampered.Grid[0]
	if tampered.Grid == lines[0].Grid {
		tampered.Grid[0], tampered.Grid[3] = tampered.Grid[3], tampered.Grid[0]
	}
	if v, err := p.Verify(d, rs, tampered); err != nil || v.Match {
		t.Fatalf("Verify of a tampered grid: match %v, %v", v.Match, err)
	}
	otherKeys := lines[0]
	otherKeys.KeysBefore = (otherKeys.KeysBefore + 1) % MaxKeys
	if v, err := p.Verify(d, rs, otherKeys); err == nil && v.Match && v.Outcome == (Outcome{}) {
		t.Fatal("Verify recomputed nothing")
	}
	// Nor does a play or chest line whose commitment is not the drawing
	// seed's, be it another seed's or altered; a line without one (written
	// before they were recorded) is checked on the draw alone.
	for _, l := range []Entry{lines[0], firstChest(t, lines), firstChest(t, lines2)} {
		other := l
		other.Commitment = rs[0].Commitment()
		if l.Commitment == other.Commitment {
			other.Commitment = rs[1].Commitment()
		}
		altered := l
		altered.Commitment[7] ^= 1
		for _, bad := range []Entry{other, altered} {
			v, err := p.Verify(d, rs, bad)
			if err != nil || v.Match {
				t.Errorf("Verify of a %s line with commitment %s: match %v, %v", l.Kind, bad.Commitment.Short(), v.Match, err)
			}
			if err == nil && (v.Seed.Commitment() != l.Commitment) {
				t.Errorf("Verify of a %s line used seed %d", l.Kind, v.Seed.No)
			}
		}
		legacy := l
		legacy.Commitment = Commitment{}
		if v, err := p.Verify(d, rs, legacy); err != nil || !v.Match {
			t.Errorf("Verify of a %s line without a commitment: match %v, %v", l.Kind, v.Match, err)
		}
	}
	for _, l := range []Entry{{Kind: KindDaily, Fair: true}, {Kind: KindPlay, TicketID: 1}} {
		if _, err := p.Verify(d, rs, l); !errors.Is(err, ErrNotVerifiable) {
			t.Errorf("Verify(%+v) = %v, want ErrNotVerifiable", l, err)
		}
	}
}

// firstChest returns the first chest line of lines.
func firstChest(t *testing.T, lines []Entry) Entry {
	t.Helper()
	i := slices.IndexFunc(lines, func(e Entry) bool { return e.Kind == KindChest })
	if i < 0 {
		t.Fatal("no chest line")
	}
	return lines[i]
}

// sevenTickets returns a player who played 4 tickets under seed 1 and 2
// under seed 2, both revealed, with the reveals a store keeps.
func sevenTickets(t *testing.T) (Player, Reveals) {
	t.Helper()
	p, _ := NewPlayer(1_000_000, testSeed(1), "client", t0)
	p = p.WithNextSeed(testSeed(100))
	p, rs := rotated(t, played(t, p, 4), nil, testSeed(2))
	p, rs = rotated(t, played(t, p, 2), rs, testSeed(3))
	if err := p.Check(); err != nil || len(rs) != 2 || p.SeedNo != 3 || p.SeedTicket != 6 {
		t.Fatalf("player %+v, reveals %+v: %v", p, rs, err)
	}
	return p, rs
}

// TestCheckSeeds: Check refuses fairness records the rules cannot produce;
// Reset repairs them, keeping the seeds.
func TestCheckSeeds(t *testing.T) {
	p, rs := sevenTickets(t)
	for _, tt := range []struct {
		name string
		f    func(p *Player)
		want string
		// fits: the reveals kept still fit the player Reset repaired. Not
		// when the seed number itself was lost: Reset restarts it at 0
		// and the store, which keeps the reveals, must check them again.
		fits bool
	}{
		{"next seed current", func(p *Player) { p.NextSeed = p.Seed }, "next seed", true},
		{"seed after tickets", func(p *Player) { p.SeedTicket = p.TicketSeq + 1 }, "from ticket", true},
		{"chest seed after", func(p *Player) { p.SeedChest = p.ChestSeq + 1 }, "from chest", true},
		{"negative chest seed", func(p *Player) { p.SeedChest = -1 }, "from chest", true},
		{"negative seed no", func(p *Player) { p.SeedNo = -1 }, "seed number -1", false},
		{"long client seed", func(p *Player) { p.ClientSeed = strings.Repeat("x", MaxClientSeed+1) }, "client seed", true},
		{"client seed not UTF-8", func(p *Player) { p.ClientSeed = "\xff" }, "client seed", true},
		{"open ticket under a revealed seed", func(p *Player) {
			p.Ticket = &Ticket{ID: p.TicketSeq}
			p.SeedTicket = p.TicketSeq
		}, "revealed seed", true},
	} {
		q := p
		tt.f(&q)
		if err := q.Check(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Check = %v, want ErrInvalid mentioning %q", tt.name, err, tt.want)
		}
		s, err := Apply(q, Reset{Start: 100}, t0)
		if err != nil || s.Player.Seed != q.Seed || s.Player.Check() != nil {
			t.Errorf("%s: Reset = %v", tt.name, err)
			continue
		}
		if err := s.Player.CheckReveals(rs); tt.fits && err != nil {
			t.Errorf("%s: the reveals after Reset: %v", tt.name, err)
		}
	}
	// Check no longer reads the reveals: a player whose seed number is
	// behind its reveals is sound; CheckReveals tells (TestCheckReveals).
	q := p
	q.SeedNo = 2
	if err := q.Check(); err != nil {
		t.Errorf("seed number behind the reveals: Check = %v", err)
	}
	if err := q.CheckReveals(rs); !errors.Is(err, ErrInvalid) {
		t.Errorf("seed number behind the reveals: CheckReveals = %v", err)
	}
}

// TestCheckReveals: CheckReveals refuses reveals the rules cannot produce
// for the player.
func TestCheckReveals(t *testing.T) {
	p, rs := sevenTickets(t)
	for name, rs := range map[string]Reveals{"all": rs, "the last": rs[1:], "none": nil, "empty": {}} {
		if err := p.CheckReveals(rs); err != nil {
			t.Errorf("%s: CheckReveals = %v", name, err)
		}
	}
	legacy := slices.Clone(rs)
	legacy[0].ClientSeed = "" // from before client seeds
	if err := p.CheckReveals(legacy); err != nil {
		t.Errorf("a reveal without a client seed: %v", err)
	}
	// A seed from before numbering (0) is revealed as the first.
	unnumbered, _ := NewPlayer(100, testSeed(90), "c", t0)
	unnumbered = unnumbered.WithNextSeed(testSeed(91))
	unnumbered.SeedNo = 0
	if s := stepOK(t, unnumbered, Rotate{Fresh: testSeed(92)}, t0); s.Reveals[0].No != 1 ||
		s.Player.SeedNo != 2 || s.Player.CheckReveals(s.Reveals) != nil {
		t.Errorf("a seed numbered 0 revealed as %d, the next numbered %d", s.Reveals[0].No, s.Player.SeedNo)
	}
	// Up to MaxReveals, and no more, whatever the chain.
	all := rs
	q := p
	for i := range MaxReveals - 1 {
		s := stepOK(t, q, Rotate{Fresh: testSeed(byte(10 + i))}, t0)
		q, all = s.Player, append(all, s.Reveals...)
	}
	if len(all) != MaxReveals+1 {
		t.Fatalf("%d reveals", len(all))
	}
	if err := q.CheckReveals(all[1:]); err != nil {
		t.Fatalf("MaxReveals reveals: %v", err)
	}
	if err := q.CheckReveals(all); !errors.Is(err, ErrInvalid) {
		t.Errorf("MaxReveals+1 reveals: CheckReveals = %v", err)
	}

	for name, f := range map[string]func(p *Player, rs Reveals){
		"current seed revealed": func(p *Player, rs Reveals) { rs[0].Seed = p.Seed },
		"next seed revealed":    func(p *Player, rs Reveals) { rs[1].Seed = p.NextSeed },
		"zero revealed seed":    func(p *Player, rs Reveals) { rs[1].Seed = Seed{} },
		"reveals out of order":  func(p *Player, rs Reveals) { rs[0], rs[1] = rs[1], rs[0] },
		"same number twice":     func(p *Player, rs Reveals) { rs[0].No = rs[1].No },
		"negative number":       func(p *Player, rs Reveals) { rs[0].No = -1 },
		"number zero":           func(p *Player, rs Reveals) { rs[0].No = 0 },
		"number of the current": func(p *Player, rs Reveals) { rs[1].No = p.SeedNo },
		"seed number behind":    func(p *Player, rs Reveals) { p.SeedNo = 2 },
		"overlapping tickets":   func(p *Player, rs Reveals) { rs[0].LastTicket = 5 },
		"tickets of the current": func(p *Player, rs Reveals) {
			rs[1].LastTicket = p.SeedTicket + 1
		},
		"reversed tickets": func(p *Player, rs Reveals) { rs[0].FirstTicket = rs[0].LastTicket + 2 },
		"ticket zero":      func(p *Player, rs Reveals) { rs[0].FirstTicket = 0 },
		"chests of the current": func(p *Player, rs Reveals) {
			rs[1].LastChest = p.SeedChest + 1
		},
		"overlapping chests": func(p *Player, rs Reveals) { rs[0].LastChest = rs[1].FirstChest },
		"reversed chests":    func(p *Player, rs Reveals) { rs[1].FirstChest = rs[1].LastChest + 2 },
		"chest zero":         func(p *Player, rs Reveals) { rs[0].FirstChest = 0 },
		"long client seed":   func(p *Player, rs Reveals) { rs[0].ClientSeed = strings.Repeat("x", MaxClientSeed+1) },
		"client seed not UTF-8": func(p *Player, rs Reveals) {
			rs[1].ClientSeed = "\xff"
		},
	} {
		q, qs := p, slices.Clone(rs)
		f(&q, qs)
		if err := q.CheckReveals(qs); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: CheckReveals = %v", name, err)
		}
	}
}

// TestSeedNotLogged: log/slog never writes a secret seed, whatever the
// handler, whether the seed or the whole player is logged.
func TestSeedNotLogged(t *testing.T) {
	p, _ := NewPlayer(1000, testSeed(200), "client", t0)
	p = p.WithNextSeed(testSeed(201))
	var b bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&b, nil), slog.NewTextHandler(&b, nil)} {
		slog.New(h).Info("state", "player", p, "seed", p.Seed, "ptr", &p)
	}
	fmt.Fprintf(&b, "%v %+v %#v %s", p, p, p, p.Seed)
	out := b.String()
	hexSeed := p.Seed.Hex()
	var decimal []string
	for _, x := range p.Seed[:8] {
		decimal = append(decimal, strconv.Itoa(int(x)))
	}
	if strings.Contains(out, p.NextSeed.Hex()[:16]) || strings.Contains(out, hexSeed[:16]) || strings.Contains(out, strings.Join(decimal, ",")) || strings.Contains(out, strings.Join(decimal, " ")) {
		t.Fatalf("the seed is in the output:\n%s", out)
	}
	if !strings.Contains(out, p.Commitment().Short()) {
		t.Fatalf("the log does not name the commitment:\n%s", out)
	}
}

// first returns the first of rs, nil if none.
func first(rs []SeedReveal) *SeedReveal {
	if len(rs) == 0 {
		return nil
	}
	return &rs[0]
}
