package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// newSeed returns a new server seed from e's seeds.
func newSeed(e *env) game.Seed {
	e.t.Helper()
	s, err := game.NewSeed(e.seeds)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func rotate(e *env, now time.Time) func(game.Player) (game.Step, error) {
	next := newSeed(e)
	return func(p game.Player) (game.Step, error) { return p.Rotate(next, now) }
}

func setClientSeed(e *env, client string, now time.Time) func(game.Player) (game.Step, error) {
	next := newSeed(e)
	return func(p game.Player) (game.Step, error) { return p.SetClientSeed(client, next, now) }
}

// testRotateSeeds: a rotation reveals the seed and commits a new one, in
// one write that Load reads back whole; a client seed change rotates too;
// a repeat changes nothing; what the rules refuse changes nothing.
func testRotateSeeds(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	var d game.SeededDrawer
	for range 3 {
		e.play(id, d)
	}
	before := e.load(id).Player
	if before.SeedNo != 1 || before.ClientSeed == "" || before.SeedTicket != 0 || before.SeedTickets() != 3 {
		t.Fatalf("a new player's seeds: number %d, client %q, tickets %d..", before.SeedNo, before.ClientSeed, before.SeedTicket)
	}
	commitment := before.Commitment()

	e.clock.Advance(time.Minute)
	op := e.step(id, "rotate-1", rotate(e, e.clock.Now()))
	a, err := storage.Apply(e.ctx, e.st, op)
	if err != nil {
		t.Fatal(err)
	}
	p := e.load(id).Player
	same(t, "Load after a rotation", p, a.Player)
	rs := e.reveals(id)
	r, ok := rs.Seed(a.Result.Seed)
	if a.Result.Seed != 1 || len(rs) != 1 || !ok || r.Seed != before.Seed || r.Commitment() != commitment || r.ClientSeed != before.ClientSeed ||
		r.FirstTicket != 1 || r.LastTicket != 3 || !r.RevealedAt.Equal(e.clock.Now()) {
		t.Fatalf("rotation: result %+v, reveal %+v (kept: %v)", a.Result, r, ok)
	}
	if p.SeedNo != 2 || p.Seed != before.NextSeed || p.NextSeed == (game.Seed{}) || p.NextSeed == before.Seed || p.ClientSeed != before.ClientSeed ||
		p.SeedTicket != 3 || p.SeedTickets() != 0 || !p.SeedAt.Equal(e.clock.Now()) {
		t.Fatalf("after the rotation: seed %d from ticket %d, client %q", p.SeedNo, p.SeedTicket, p.ClientSeed)
	}
	if err := p.CheckReveals(rs); err != nil {
		t.Fatalf("the reveals kept do not chain to the player: %v", err)
	}
	if r, secret, err := p.TicketSeed(rs, 2); err != nil || secret || r.No != 1 {
		t.Fatalf("TicketSeed(2) = %+v, %v, %v", r, secret, err)
	}
	v := e.load(id)
	if again, err := storage.Apply(e.ctx, e.st, op); err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated rotation: %+v, %v", again, err)
	}
	same(t, "after a repeated rotation", e.load(id), v)
	same(t, "reveals after a repeated rotation", e.reveals(id), rs)

	// Refused: a rotation while a ticket is open, a bad client seed, a
	// seed used before.
	e.must(id, "buy", buy(e.clock.Now()))
	v = e.load(id)
	_, err = e.apply(id, rotate(e, e.clock.Now()))
	wantErr(t, "rotation with a ticket open", err, game.ErrTicketOpen)
	_, err = e.apply(id, setClientSeed(e, "mine", e.clock.Now()))
	wantErr(t, "client seed with a ticket open", err, game.ErrTicketOpen)
	same(t, "after refused rotations", e.load(id), v)
	e.must(id, "reveal", reveal(d, p.TicketSeq+1, game.AllRows, e.clock.Now()))
	v = e.load(id)
	for _, bad := range []string{"", strings.Repeat("x", game.MaxClientSeed+1), "\xff\xfe", "a\nb"} {
		_, err := e.apply(id, setClientSeed(e, bad, e.clock.Now()))
		wantErr(t, fmt.Sprintf("client seed %q", bad), err, game.ErrClientSeed)
	}
	_, err = e.apply(id, func(p game.Player) (game.Step, error) { return p.Rotate(p.Seed, e.clock.Now()) })
	wantErr(t, "the current seed used again", err, game.ErrInvalid)
	_, err = e.apply(id, func(p game.Player) (game.Step, error) { return p.Rotate(p.NextSeed, e.clock.Now()) })
	wantErr(t, "the next seed used again", err, game.ErrInvalid)
	same(t, "after refused steps", e.load(id), v)
	same(t, "reveals after refused steps", e.reveals(id), rs)

	// A client seed of the player's choosing, with a new server seed.
	e.clock.Advance(time.Minute)
	a = e.must(id, "client seed", setClientSeed(e, "Trésor 🗝", e.clock.Now()))
	p = e.load(id).Player
	rs = e.reveals(id)
	if a.Result.Seed != 2 || p.ClientSeed != "Trésor 🗝" || p.SeedNo != 3 || len(rs) != 2 || rs[0] != r ||
		rs[1].No != 2 || rs[1].ClientSeed != before.ClientSeed || rs[1].FirstTicket != 4 || rs[1].LastTicket != 4 {
		t.Fatalf("after a client seed: %+v, reveals %+v", a.Result, rs)
	}
	if err := p.CheckReveals(rs); err != nil {
		t.Fatalf("the reveals kept do not chain to the player: %v", err)
	}
}

// testVerifyFromHistory: what the store keeps (the history lines and the
// revealed seeds) is enough to recompute every ticket and chest drawn
// under a revealed seed, grid included.
func testVerifyFromHistory(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	var d game.SeededDrawer
	e.must(id, "grant", grant(100_000, e.clock.Now()))
	for i := range 30 {
		e.clock.Advance(time.Second)
		if a := e.play(id, d); a.Player.ChestDue {
			e.must(id, "chest", openChest(d, a.Player.ChestSeq+1, e.clock.Now()))
		}
		switch i % 9 {
		case 4:
			e.must(id, "rotate", rotate(e, e.clock.Now()))
		case 8:
			e.must(id, "client seed", setClientSeed(e, fmt.Sprintf("seed %d", i), e.clock.Now()))
		}
	}
	e.must(id, "rotate", rotate(e, e.clock.Now()))
	p := e.load(id).Player
	rs := e.reveals(id)
	h, err := e.st.History(e.ctx, id, storage.HistoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	tickets, chests := 0, 0
	for _, l := range h {
		if !l.Fair {
			continue
		}
		// The line records the commitment shown for its seed, and
		// game.Player.Verify recomputes it from the reveals the store keeps.
		if vr, err := p.Verify(d, rs, l); err != nil || !vr.Match || l.Commitment == (game.Commitment{}) || l.Commitment != vr.Seed.Commitment() {
			t.Fatalf("Verify of %+v: %+v, %v", l, vr, err)
		}
		switch l.Kind {
		case game.KindPlay:
			r, secret, err := p.TicketSeed(rs, l.TicketID)
			if err != nil || secret {
				t.Fatalf("ticket %d: seed %+v, secret %v, %v", l.TicketID, r.No, secret, err)
			}
			o, err := d.Ticket(r.Seed, r.ClientSeed, l.TicketID, l.KeysBefore)
			if err != nil || o.Tier != l.Tier || o.Key != l.Key || o.Grid != l.Grid {
				t.Fatalf("ticket %d recomputed as %+v (%v), shown %+v", l.TicketID, o, err, l)
			}
			tickets++
		case game.KindChest:
			r, secret, err := p.ChestSeed(rs, l.Chest)
			if err != nil || secret {
				t.Fatalf("chest %d: seed %d, secret %v, %v", l.Chest, r.No, secret, err)
			}
			c, err := d.Chest(r.Seed, r.ClientSeed, l.Chest)
			if err != nil || c.Lot != l.Lot {
				t.Fatalf("chest %d recomputed as %+v (%v), shown %+v", l.Chest, c, err, l)
			}
			chests++
		}
	}
	if tickets != 30 || chests != int(p.ChestSeq) || len(rs) != 1+30/9*2 {
		t.Fatalf("verified %d tickets and %d chests (of %d), %d seeds revealed", tickets, chests, p.ChestSeq, len(rs))
	}
}

// testRotateRacing: rotations racing on one player, each with its own
// operation and new seed, all land: every seed is revealed once, in a
// chain the rules accept, and none is lost.
func testRotateRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	first := e.must(id, "create", grant(1, e.clock.Now())).Player.Seed
	const n = 16
	seeds := make([]game.Seed, n)
	for i := range seeds {
		seeds[i] = newSeed(e)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := storage.Apply(e.ctx, e.st, storage.Step{ID: id, Op: fmt.Sprintf("rotate-%d", i), Now: e.clock.Now(),
				Do: func(p game.Player) (game.Step, error) { return p.Rotate(seeds[i], e.clock.Now()) }})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	p := e.load(id).Player
	sound(t, "after racing rotations", p)
	seen := map[game.Seed]int{p.Seed: 1}
	seen[p.NextSeed]++
	rs := e.reveals(id)
	for _, r := range rs {
		seen[r.Seed]++
	}
	if p.SeedNo != 1+n || len(rs) != n || seen[first] != 1 || len(seen) != n+2 {
		t.Fatalf("after %d racing rotations: seed %d, %d reveals, %d distinct seeds", n, p.SeedNo, len(rs), len(seen))
	}
	if err := p.CheckReveals(rs); err != nil {
		t.Fatalf("after %d racing rotations the reveals do not chain: %v", n, err)
	}
	for _, s := range seeds {
		if seen[s] != 1 {
			t.Fatal("a rotation's seed was lost")
		}
	}
}
