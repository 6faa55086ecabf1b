package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The cases of what a store keeps beside a player: the operations it
// remembers (the last game.MaxOps, looked up in the same atomic step as
// the write) and the seeds it revealed (the last game.MaxReveals).

// testRunOps: a step remembers its operation with its result; the same
// operation again, later, writes nothing and answers that result, whatever
// its move (one that would now fail, here, or grant more); an operation is the
// player's own; a refused move remembers nothing; operation IDs of every
// shape up to game.MaxOpID bytes are each remembered as themselves.
func testRunOps(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	first, err := e.st.Run(e.ctx, e.step(id, "op-x", game.Grant{Amount: 7}))
	if err != nil || first.Repeated {
		t.Fatalf("op-x: %+v, %v", first, err)
	}
	v1 := e.load(id)
	e.clock.Advance(time.Second) // a repeat comes later
	for _, m := range []game.Move{game.Reveal{Ticket: 9, Rows: game.AllRows}, game.Grant{Amount: 1000}} {
		again, err := e.st.Run(e.ctx, e.step(id, "op-x", m))
		if err != nil || !again.Repeated || again.Result != first.Result || len(again.History) != 0 || !reflect.DeepEqual(again.Player, v1.Player) {
			t.Fatalf("op-x again with %T: %+v, %v; want the first result %+v and the state as it is", m, again, err, first.Result)
		}
	}
	same(t, "Load after a repeated operation", e.load(id), v1)
	if h := mustHistory(t, e, id); len(h) != 1 {
		t.Fatalf("a repeated operation wrote history: %+v", h)
	}
	// Another player's op-x is its own.
	if a, err := e.st.Run(e.ctx, e.step(pid(2), "op-x", game.Grant{Amount: 1})); err != nil || a.Repeated || !a.Created {
		t.Fatalf("op-x of another player: %+v, %v", a, err)
	}
	// A refused move remembers nothing: the operation applies when it
	// comes again.
	wantErr(t, "op-y refused", errOf(e.st.Run(e.ctx, e.step(id, "op-y", game.Reveal{Ticket: 9, Rows: game.AllRows}))), game.ErrUnknownTicket)
	same(t, "Load after a refused move", e.load(id), v1)
	if a, err := e.st.Run(e.ctx, e.step(id, "op-y", game.Grant{Amount: 1})); err != nil || a.Repeated || a.Player.Balance != v1.Player.Balance+1 {
		t.Fatalf("op-y after its refusal: %+v, %v; want it applied", a, err)
	}

	// Operation IDs of every shape, up to game.MaxOpID bytes, each
	// remembered as itself with its own result.
	shapes := []string{"a", "a:b", "o:a", "a:", ":", "{1}", "p", "v", "é ☃ 🗝", "a b\tc", "1", "01", strings.Repeat("z", game.MaxOpID)}
	results := map[string]game.Result{}
	for _, op := range shapes {
		a, err := e.st.Run(e.ctx, e.step(id, op, grant(1)))
		if err != nil || a.Repeated {
			t.Fatalf("operation %q: %+v, %v; want it applied", op, a, err)
		}
		results[op] = a.Result
	}
	before := e.load(id)
	for _, op := range shapes {
		a, err := e.st.Run(e.ctx, e.step(id, op, grant(1000)))
		if err != nil || !a.Repeated || !reflect.DeepEqual(a.Result, results[op]) {
			t.Fatalf("operation %q again: %+v, %v; want its first result %+v", op, a, err, results[op])
		}
	}
	same(t, "Load after the operations repeated", e.load(id), before)
}

// testRepeatAfter63: an operation followed by 63 others on the same player
// is still remembered (the player keeps its last game.MaxOps): its repeat
// is caught, answered with the first result, and changes nothing. One more
// operation and it is forgotten: it applies again; and so after 64 more.
func testRepeatAfter63(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	stepA := func(amount int64) storage.Step { return e.step(id, "op-A", grant(amount)) }
	a, err := e.st.Run(e.ctx, stepA(5))
	if err != nil || a.Repeated || a.Result.Amount != 5 || a.Result.Balance != start+5 {
		t.Fatalf("op-A: %+v, %v", a, err)
	}
	others := make([]string, game.MaxOps-1)
	for i := range others {
		others[i] = fmt.Sprintf("other-%d", i)
		if o, err := e.st.Run(e.ctx, e.step(id, others[i], grant(1))); err != nil || o.Repeated {
			t.Fatalf("%s: %+v, %v", others[i], o, err)
		}
	}
	// op-A and the 63 others: game.MaxOps operations, all remembered. The
	// repeat brings another amount: were it applied, the balance would say.
	v := e.load(id)
	hist := mustHistory(t, e, id)
	r, err := e.st.Run(e.ctx, stepA(1000))
	if err != nil || !r.Repeated || !reflect.DeepEqual(r.Result, a.Result) || len(r.History) != 0 {
		t.Fatalf("op-A after %d other operations: %+v, %v; want it caught with its first result %+v", len(others), r, err, a.Result)
	}
	if r.Player.Balance != start+5+int64(len(others)) {
		t.Fatalf("op-A repeated: balance %d, want %d", r.Player.Balance, start+5+len(others))
	}
	same(t, "state after op-A repeated", e.load(id), v)
	same(t, "history after op-A repeated", mustHistory(t, e, id), hist)
	// The oldest of the others is remembered too.
	if o, err := e.st.Run(e.ctx, e.step(id, others[0], grant(1000))); err != nil || !o.Repeated {
		t.Fatalf("%s repeated: %+v, %v", others[0], o, err)
	}
	same(t, "state after other-0 repeated", e.load(id), v)

	// One more operation: op-A is the 65th from the last, forgotten.
	if o, err := e.st.Run(e.ctx, e.step(id, "one-more", grant(1))); err != nil || o.Repeated {
		t.Fatalf("one-more: %+v, %v", o, err)
	}
	v = e.load(id)
	b, err := e.st.Run(e.ctx, stepA(10))
	if err != nil || b.Repeated || b.Result.Amount != 10 || b.Player.Balance != v.Player.Balance+10 {
		t.Fatalf("op-A after %d other operations: %+v, %v; want it applied again", game.MaxOps, b, err)
	}
	if w := e.load(id); w.Version <= v.Version || w.Player.Balance != v.Player.Balance+10 {
		t.Fatalf("op-A applied again: version %d, balance %d; before %d, %d", w.Version, w.Player.Balance, v.Version, v.Player.Balance)
	}
	// Remembered again, as the newest; forgotten after 64 more.
	if c, err := e.st.Run(e.ctx, stepA(1000)); err != nil || !c.Repeated || !reflect.DeepEqual(c.Result, b.Result) {
		t.Fatalf("op-A right after it applied again: %+v, %v", c, err)
	}
	for i := range game.MaxOps {
		if o, err := e.st.Run(e.ctx, e.step(id, fmt.Sprintf("more-%d", i), grant(1))); err != nil || o.Repeated {
			t.Fatalf("more-%d: %+v, %v", i, o, err)
		}
	}
	v = e.load(id)
	c, err := e.st.Run(e.ctx, stepA(20))
	if err != nil || c.Repeated || c.Result.Amount != 20 || c.Player.Balance != v.Player.Balance+20 {
		t.Fatalf("op-A after %d more operations: %+v, %v; want it applied again", game.MaxOps, c, err)
	}
	if p := e.load(id).Player; p.Stats.GrantedCents != 5+10+20+int64(len(others))+1+game.MaxOps {
		t.Fatalf("granted %d in all", p.Stats.GrantedCents)
	}
}

func mustHistory(t *testing.T, e *env, id storage.PlayerID) []game.Entry {
	t.Helper()
	h, err := e.st.History(e.ctx, id, storage.HistoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// rotations has player id play and rotate its seed n times: before each
// rotation a play, or (every fourth) a grant, so that some seeds draw
// tickets and some none, and every round adds one history line. It
// returns the reveals the rotations made, oldest first, as the player's
// state before each one says they must be, and the player the last
// rotation wrote.
func rotations(t *testing.T, e *env, id storage.PlayerID, n int) (game.Reveals, game.Player) {
	t.Helper()
	d := &Drawer{}
	e.must(id, "funds", grant(int64(n)*game.Stake))
	var (
		want game.Reveals
		last game.Player
	)
	for i := range n {
		e.clock.Advance(time.Second)
		if i%4 == 3 {
			e.must(id, "grant", grant(1))
		} else {
			e.play(id, d)
		}
		e.clock.Advance(time.Second)
		p := e.load(id).Player
		now := e.clock.Now()
		a := e.must(id, "rotate", rotate(e))
		last = a.Player
		if a.Result.Seed != p.SeedNo {
			t.Fatalf("rotation %d revealed seed %d, want %d", i, a.Result.Seed, p.SeedNo)
		}
		want = append(want, game.SeedReveal{
			No: p.SeedNo, Seed: p.Seed, ClientSeed: p.ClientSeed,
			FirstTicket: p.SeedTicket + 1, LastTicket: p.TicketSeq, FirstChest: p.SeedChest + 1, LastChest: p.ChestSeq,
			CommittedAt: p.SeedAt, RevealedAt: storage.Timestamp(now), Next: p.NextSeed.Commitment(),
		})
	}
	return want, last
}

// testRevealsBeside: the store keeps the last game.MaxReveals seeds
// revealed, beside the player: Reveals gives exactly those, oldest first,
// chained to the player (game.Player.CheckReveals); a draw under an older
// seed is forgotten; Load's player is the one the last step wrote; the
// history stays in order and within its bounds (game.CheckHistory).
func testRevealsBeside(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	n := game.MaxReveals + 7
	want, last := rotations(t, e, id, n)
	v := e.load(id)
	same(t, "Load after the rotations", v.Player, last)
	rs := e.reveals(id)
	same(t, fmt.Sprintf("Reveals after %d rotations", n), rs, want[n-game.MaxReveals:])
	p := v.Player
	if err := p.CheckReveals(rs); err != nil {
		t.Fatalf("the reveals kept do not chain to the player: %v", err)
	}
	if p.SeedNo != int64(n)+1 || p.Seed == want[n-1].Seed {
		t.Fatalf("after %d rotations: seed number %d", n, p.SeedNo)
	}
	// Reading the reveals changes nothing.
	same(t, "Load after Reveals", e.load(id), v)
	same(t, "Reveals read again", e.reveals(id), rs)

	// A ticket under the oldest seed kept is found; one under a seed
	// revealed before it is forgotten.
	oldest := rs[0]
	for tk := uint64(1); tk <= p.TicketSeq; tk++ {
		r, secret, err := p.TicketSeed(rs, tk)
		switch {
		case tk < oldest.FirstTicket:
			wantErr(t, fmt.Sprintf("TicketSeed(%d), before the seeds kept", tk), err, game.ErrSeedForgotten)
		case err != nil || secret || !r.HasTicket(tk):
			t.Fatalf("TicketSeed(%d) = seed %d, secret %v, %v", tk, r.No, secret, err)
		}
	}
	if oldest.FirstTicket <= 1 {
		t.Fatalf("no ticket drawn under a forgotten seed: the oldest kept, %d, draws from ticket %d", oldest.No, oldest.FirstTicket)
	}

	// The history: newest first, in the order written, within its bounds.
	h := mustHistory(t, e, id)
	if len(h) < game.MaxTicketLines || !h[0].At.Equal(e.clock.Now().Add(-time.Second)) {
		t.Fatalf("history of %d lines, newest at %v; want at least %d, the newest at %v", len(h), h[0].At, game.MaxTicketLines, e.clock.Now().Add(-time.Second))
	}
	for i := 1; i < len(h); i++ {
		if !h[i].At.Before(h[i-1].At) {
			t.Fatalf("history line %d at %v after line %d at %v", i, h[i].At, i-1, h[i-1].At)
		}
	}
	inOrder := slices.Clone(h)
	slices.Reverse(inOrder)
	if err := game.CheckHistory(inOrder); err != nil {
		t.Fatalf("history out of its bounds: %v", err)
	}

	// Another player's reveals are its own; a player never written has
	// none.
	e.must(pid(2), "rotate", rotate(e))
	if r2 := e.reveals(pid(2)); len(r2) != 1 || r2[0].No != 1 {
		t.Fatalf("reveals of another player: %+v", r2)
	}
	same(t, "Reveals after another player's rotation", e.reveals(id), rs)
	if r3 := e.reveals(pid(3)); len(r3) != 0 {
		t.Fatalf("reveals of a player never written: %+v", r3)
	}
}

// testConcurrentSameOp: goroutines send one operation at once, each with
// its own grant of g+1 cents, to a player never written: exactly one
// creates the player and applies its grant, written once (as many versions
// as one grant alone makes), and all are answered with its result.
func testConcurrentSameOp(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	const n = 32
	outs := make([]storage.Applied, n)
	race(t, n, func(g int) (err error) {
		outs[g], err = e.st.Run(e.ctx, e.step(id, "the-grant", game.Grant{Amount: int64(g + 1)}))
		return err
	})
	applied, created := -1, 0
	for g, a := range outs {
		if !a.Repeated {
			if applied >= 0 {
				t.Fatalf("goroutines %d and %d both applied the-grant", applied, g)
			}
			applied = g
		}
		if a.Created {
			created++
		}
	}
	if applied < 0 || created != 1 || !outs[applied].Created {
		t.Fatalf("%d goroutines created the player, goroutine %d applied the-grant; want the same one", created, applied)
	}
	amount := int64(applied + 1)
	e.must(pid(2), "one grant", grant(1))
	v := e.load(id)
	if v.Player.Balance != start+amount || v.Version != e.load(pid(2)).Version {
		t.Fatalf("the-grant of goroutine %d: balance %d, version %d; want %d, the version of one grant", applied, v.Player.Balance, v.Version, start+amount)
	}
	for g, a := range outs {
		if r := a.Result; r.Amount != amount || r.Balance != v.Player.Balance || a.Player.Balance != v.Player.Balance {
			t.Errorf("goroutine %d answered %+v, balance %d; want the result of goroutine %d's grant of %d", g, r, a.Player.Balance, applied, amount)
		}
	}
	if h := mustHistory(t, e, id); len(h) != 1 || h[0].Kind != game.KindGrant || h[0].Amount != amount {
		t.Fatalf("history after the-grant: %+v; want one grant of %d", h, amount)
	}
}

// testDumpReveals: a player with more rotations than game.MaxReveals and
// more history lines than storage.HistoryLimit goes through a dump whole:
// the dump has exactly what the store keeps, and export → ReadDump →
// Import → export gives the same bytes. The imported store keeps the
// bounds: a rotation drops the oldest reveal; a grant, with fewer other
// lines than kept, drops no line (testHistory checks the bounds).
func testDumpReveals(t *testing.T, open OpenFunc) {
	e := dumperEnv(t, open)
	id, other := pid(1), storage.PlayerID{Guild: guild2, User: 3}
	n := game.MaxReveals + 3
	all, _ := rotations(t, e, id, n)
	want := all[n-game.MaxReveals:]
	rotations(t, e, other, 2)
	data := writeDump(t, e.st)
	d := readDump(t, data)
	if len(d.Players) != 2 || d.Players[0].ID != id || d.Players[1].ID != other {
		t.Fatalf("dump of %d players", len(d.Players))
	}
	same(t, "the reveals dumped", d.Players[0].Reveals, want)
	if len(d.Players[0].History) != len(mustHistory(t, e, id)) || len(d.Players[1].Reveals) != 2 {
		t.Fatalf("dumped %d history lines, %d reveals of the other player", len(d.Players[0].History), len(d.Players[1].Reveals))
	}
	sameBytes(t, "ReadDump then EncodeDump", encodeDump(t, d), data)

	e2 := newEnv(t, open, defaults)
	if err := e2.st.(storage.Dumper).Import(e2.ctx, d); err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "export → import → export", writeDump(t, e2.st), data)
	sameStores(t, e.st, e2.st, []storage.PlayerID{id, other}, []uint64{guild, guild2})

	// The imported player rotates on: the oldest reveal goes, the chain
	// holds; a new line pushes the oldest out.
	e2.clock = e.clock
	e2.clock.Advance(time.Second)
	p := e2.load(id).Player
	a := e2.must(id, "rotate after import", rotate(e2))
	rs := e2.reveals(id)
	if len(rs) != game.MaxReveals || !reflect.DeepEqual(rs[:game.MaxReveals-1], want[1:]) || rs[len(rs)-1].No != p.SeedNo || rs[len(rs)-1].Seed != p.Seed {
		t.Fatalf("after a rotation of the imported player: %d reveals, the last %+v; want %d, the last seed %d", len(rs), rs[len(rs)-1], game.MaxReveals, p.SeedNo)
	}
	if err := a.Player.CheckReveals(rs); err != nil {
		t.Fatalf("the reveals of the imported player do not chain: %v", err)
	}
	h0 := mustHistory(t, e2, id)
	e2.must(id, "grant after import", grant(1))
	h := mustHistory(t, e2, id)
	if len(h) != len(h0)+1 || h[0].Kind != game.KindGrant || !h[0].At.Equal(e2.clock.Now()) || !reflect.DeepEqual(h[1:], h0) {
		t.Fatalf("history after a line added to the imported player: %d lines, the newest %+v", len(h), h[0])
	}
}
