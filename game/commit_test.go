package game

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestValidateClientSeed(t *testing.T) {
	for _, ok := range []string{"a", "Trésor 🗝", strings.Repeat("x", MaxClientSeed), "0123456789abcdef"} {
		if err := ValidateClientSeed(ok); err != nil {
			t.Errorf("ValidateClientSeed(%q) = %v", ok, err)
		}
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

// played returns a new player who played n tickets with SeededDrawer,
// opening the chests they gave.
func played(t *testing.T, p Player, n int) Player {
	t.Helper()
	var d SeededDrawer
	for range n {
		s, err := p.Buy(House{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = s.Player.Reveal(d, s.Player.TicketSeq, AllRows, t0); err != nil {
			t.Fatal(err)
		}
		p = s.Player
		if p.ChestDue {
			if s, err = p.OpenChest(d, p.ChestSeq+1, t0); err != nil {
				t.Fatal(err)
			}
			p = s.Player
		}
	}
	return p
}

func TestRotate(t *testing.T) {
	p, err := NewPlayer(1_000_000, testSeed(1), "client", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rotate(testSeed(2), t0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Rotate without a next seed: %v", err)
	}
	p = p.WithNextSeed(testSeed(100))
	if p.NextSeed != testSeed(100) || p.WithNextSeed(testSeed(101)).NextSeed != testSeed(100) || p.Check() != nil {
		t.Fatal("WithNextSeed does not set the next seed once")
	}
	p = played(t, p, 5)
	later := t0.Add(time.Hour)
	s, err := step(t, p, func(p Player) (Step, error) { return p.Rotate(testSeed(2), later) })
	if err != nil {
		t.Fatal(err)
	}
	n := s.Player
	want := SeedReveal{No: 1, Seed: testSeed(1), ClientSeed: "client", FirstTicket: 1, LastTicket: 5, FirstChest: 1, LastChest: p.ChestSeq, CommittedAt: t0, RevealedAt: later}
	if len(n.Revealed) != 1 || n.Revealed[0] != want || s.Result.Seed != 1 || len(s.History) != 0 {
		t.Fatalf("reveal %+v, result %+v", n.Revealed, s.Result)
	}
	if n.Seed != testSeed(100) || n.NextSeed != testSeed(2) || n.SeedNo != 2 || n.SeedTicket != 5 || n.SeedChest != p.ChestSeq || n.SeedAt != later || n.ClientSeed != "client" {
		t.Fatalf("after Rotate: %+v", n)
	}
	// Refused, changing nothing: a seed used before, the zero seed, an open
	// ticket, a bad client seed.
	for name, f := range map[string]func(Player) (Step, error){
		"revealed seed": func(p Player) (Step, error) { return p.Rotate(testSeed(1), later) },
		"current seed":  func(p Player) (Step, error) { return p.Rotate(testSeed(100), later) },
		"next seed":     func(p Player) (Step, error) { return p.Rotate(testSeed(2), later) },
		"zero seed":     func(p Player) (Step, error) { return p.Rotate(Seed{}, later) },
		"bad client":    func(p Player) (Step, error) { return p.SetClientSeed("", testSeed(3), later) },
	} {
		if _, err := step(t, n, f); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	open, err := n.Buy(House{}, later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := step(t, open.Player, func(p Player) (Step, error) { return p.Rotate(testSeed(3), later) }); !errors.Is(err, ErrTicketOpen) {
		t.Fatalf("Rotate with a ticket open: %v", err)
	}
	// A client seed rotates too.
	s, err = step(t, n, func(p Player) (Step, error) { return p.SetClientSeed("mine", testSeed(3), later) })
	if err != nil || s.Player.ClientSeed != "mine" || s.Player.Seed != testSeed(2) || s.Player.NextSeed != testSeed(3) || s.Player.SeedNo != 3 || s.Player.Revealed[1].ClientSeed != "client" || s.Result.Seed != 2 {
		t.Fatalf("SetClientSeed: %+v, %v", s.Player, err)
	}
	// At most MaxReveals are kept, the oldest dropped; the player can no
	// longer verify their draws.
	q := s.Player
	for i := range MaxReveals + 3 {
		if q, err = mustStep(t, q, func(p Player) (Step, error) { return p.Rotate(testSeed(byte(10+i)), later) }); err != nil {
			t.Fatal(err)
		}
	}
	if len(q.Revealed) != MaxReveals || q.Revealed[0].No != q.SeedNo-MaxReveals {
		t.Fatalf("%d reveals kept, the oldest %d, seed %d", len(q.Revealed), q.Revealed[0].No, q.SeedNo)
	}
	if _, _, err := q.TicketSeed(1); !errors.Is(err, ErrSeedForgotten) {
		t.Fatalf("TicketSeed of a forgotten seed: %v", err)
	}
}

func mustStep(t *testing.T, p Player, f func(Player) (Step, error)) (Player, error) {
	t.Helper()
	s, err := step(t, p, f)
	return s.Player, err
}

func TestTicketSeed(t *testing.T) {
	p, _ := NewPlayer(1_000_000, testSeed(1), "client", t0)
	p = p.WithNextSeed(testSeed(100))
	p = played(t, p, 3)
	p, _ = mustStep(t, p, func(p Player) (Step, error) { return p.Rotate(testSeed(2), t0) })
	p = played(t, p, 2)
	for n, want := range map[uint64]struct {
		no     int64
		secret bool
		err    error
	}{1: {1, false, nil}, 3: {1, false, nil}, 4: {2, true, nil}, 5: {2, true, nil}, 0: {err: ErrUnknownTicket}, 6: {err: ErrUnknownTicket}} {
		r, secret, err := p.TicketSeed(n)
		if !errors.Is(err, want.err) || (err == nil && (r.No != want.no || secret != want.secret)) {
			t.Errorf("TicketSeed(%d) = seed %d, secret %v, %v; want %+v", n, r.No, secret, err, want)
		}
	}
}

func TestVerify(t *testing.T) {
	p, _ := NewPlayer(1_000_000, testSeed(1), "Trésor", t0)
	p = p.WithNextSeed(testSeed(100))
	var lines []Entry
	var d SeededDrawer
	for range 40 {
		s, err := p.Buy(House{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		s, err = s.Player.Reveal(d, s.Player.TicketSeq, AllRows, t0)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, s.History...)
		p = s.Player
		if p.ChestDue {
			s, _ = p.OpenChest(d, p.ChestSeq+1, t0)
			lines = append(lines, s.History...)
			p = s.Player
		}
	}
	if _, err := p.Verify(d, lines[0]); !errors.Is(err, ErrSeedSecret) {
		t.Fatalf("Verify under the current seed: %v", err)
	}
	p, _ = mustStep(t, p, func(p Player) (Step, error) { return p.Rotate(testSeed(2), t0) })
	chests := 0
	for _, l := range lines {
		v, err := p.Verify(d, l)
		if err != nil || !v.Match || v.Seed.No != 1 {
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
	}
	if chests == 0 {
		t.Fatal("no chest in 40 plays: the test verifies no chest")
	}
	// A line that does not tell what was drawn does not match.
	tampered := lines[0]
	tampered.Grid[0], tampered.Grid[1] = tampered.Grid[1], tampered.Grid[0]
	if tampered.Grid == lines[0].Grid {
		tampered.Grid[0], tampered.Grid[3] = tampered.Grid[3], tampered.Grid[0]
	}
	if v, err := p.Verify(d, tampered); err != nil || v.Match {
		t.Fatalf("Verify of a tampered grid: match %v, %v", v.Match, err)
	}
	otherKeys := lines[0]
	otherKeys.KeysBefore = (otherKeys.KeysBefore + 1) % MaxKeys
	if v, err := p.Verify(d, otherKeys); err == nil && v.Match && v.Outcome == (Outcome{}) {
		t.Fatal("Verify recomputed nothing")
	}
	for _, l := range []Entry{{Kind: KindDaily, Fair: true}, {Kind: KindPlay, TicketID: 1}} {
		if _, err := p.Verify(d, l); !errors.Is(err, ErrNotVerifiable) {
			t.Errorf("Verify(%+v) = %v, want ErrNotVerifiable", l, err)
		}
	}
}

// TestCheckSeeds: Check refuses fairness records the rules cannot produce.
func TestCheckSeeds(t *testing.T) {
	p, _ := NewPlayer(1_000_000, testSeed(1), "client", t0)
	p = p.WithNextSeed(testSeed(100))
	p = played(t, p, 4)
	p, _ = mustStep(t, p, func(p Player) (Step, error) { return p.Rotate(testSeed(2), t0) })
	p = played(t, p, 2)
	p, _ = mustStep(t, p, func(p Player) (Step, error) { return p.Rotate(testSeed(3), t0) })
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(p *Player){
		"current seed revealed": func(p *Player) { p.Revealed[0].Seed = p.Seed },
		"next seed revealed":    func(p *Player) { p.Revealed[1].Seed = p.NextSeed },
		"next seed current":     func(p *Player) { p.NextSeed = p.Seed },
		"zero revealed seed":    func(p *Player) { p.Revealed[1].Seed = Seed{} },
		"reveals out of order":  func(p *Player) { p.Revealed[0], p.Revealed[1] = p.Revealed[1], p.Revealed[0] },
		"overlapping tickets":   func(p *Player) { p.Revealed[0].LastTicket = 5 },
		"seed after tickets":    func(p *Player) { p.SeedTicket = p.TicketSeq + 1 },
		"seed number behind":    func(p *Player) { p.SeedNo = 2 },
		"long client seed":      func(p *Player) { p.ClientSeed = strings.Repeat("x", MaxClientSeed+1) },
		"too many reveals": func(p *Player) {
			for range MaxReveals {
				p.Revealed = append([]SeedReveal{{No: 0, Seed: testSeed(99), FirstTicket: 1, FirstChest: 1}}, p.Revealed...)
			}
		},
	} {
		q := p
		q.Revealed = append([]SeedReveal(nil), p.Revealed...)
		f(&q)
		if err := q.Check(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Check = %v", name, err)
		}
		// Reset repairs it, and keeps the seeds.
		s, err := q.Reset(100, t0)
		if err != nil || s.Player.Seed != q.Seed || s.Player.Check() != nil {
			t.Errorf("%s: Reset = %v", name, err)
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
