package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Damage checks, against the store open gives, what a player's record
// that does not decode does: it is a *storage.DamagedError naming the
// player (never a refusal by the rules), it takes down nothing but itself
// (the others read, the leaderboard and Players still list it, an export
// of the players names every damaged one and goes on), a step on it
// writes nothing, and a reset with storage.Step.Repair rewrites it: a
// sound player at the starting balance, its history and reveals kept,
// numbering its tickets and chests after every one they show, revealing
// its current seed when it could be read, on the leaderboard once.
//
// damage edits, behind the store's back, the stored records of two
// players so that they do not decode: keep's leaving its seeds readable
// (Redis: the field p; the embedded file: a field of the record), lose's
// not (the whole record). It returns the store to go on with: it may close
// st and open it again, since a store's cache of what it wrote may hide
// an edit until then.
func Damage(t *testing.T, open OpenFunc, damage func(t *testing.T, st storage.Store, keep, lose storage.PlayerID) storage.Store) {
	e := newEnv(t, open, defaults)
	plain, keys := &Drawer{}, &Drawer{PlayFunc: func(int) game.Outcome { return Loss(true) }}
	other, keep, lose := pid(1), pid(2), pid(3)
	plays := func(id storage.PlayerID, d game.Drawer, n int) {
		for range n {
			e.play(id, d)
		}
	}
	plays(other, plain, 2)
	plays(keep, plain, 3)
	e.must(keep, "rotate", rotate(e))
	plays(keep, plain, 2)
	plays(lose, keys, 3) // the third key: a chest
	e.must(lose, "open the chest", openChest(plain, 1))
	e.play(lose, plain)
	before := map[storage.PlayerID]game.Player{}
	hist := map[storage.PlayerID][]game.Entry{}
	revs := map[storage.PlayerID]game.Reveals{}
	for _, id := range []storage.PlayerID{keep, lose} {
		before[id], hist[id], revs[id] = e.load(id).Player, mustHistory(t, e, id), e.reveals(id)
	}
	e.st = damage(t, e.st, keep, lose)

	for _, id := range []storage.PlayerID{keep, lose} {
		v, err := e.st.Load(e.ctx, id)
		var de *storage.DamagedError
		if !errors.As(err, &de) || de.ID != id || !errors.Is(err, storage.ErrDamaged) || v.Damaged == nil {
			t.Fatalf("Load of damaged %v: %+v, %v; want a *storage.DamagedError naming it", id, v, err)
		}
		if errors.Is(err, game.ErrInvalid) || errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("Load of damaged %v: %v reads as a refusal", id, err)
		}
		if _, err := e.apply(id, game.Buy{}); !errors.As(err, &de) || de.ID != id {
			t.Fatalf("a step on damaged %v: %v, want its *storage.DamagedError", id, err)
		}
	}
	if e.load(other).Player.TicketSeq != 2 {
		t.Fatal("the sound player beside them changed")
	}
	if users := playersOf(t, e.st, guild); !slices.Equal(users, []uint64{1, 2, 3}) {
		t.Fatalf("Players with two damaged: %v", users)
	}
	if b, err := e.st.Leaderboard(e.ctx, guild, 10, 0); err != nil || b.Players != 3 || len(b.Top) != 3 {
		t.Fatalf("Leaderboard with two damaged: %+v, %v", b, err)
	}
	if d, ok := e.st.(storage.Dumper); ok {
		var damaged []storage.PlayerID
		whole := 0
		if err := d.ExportPlayers(e.ctx, func(p storage.DecodedPlayer) error {
			if p.Damaged != nil {
				damaged = append(damaged, p.Damaged.ID)
			} else if p.ID == other && p.Player.TicketSeq == 2 {
				whole++
			}
			return nil
		}); err != nil || !slices.Equal(damaged, []storage.PlayerID{keep, lose}) || whole != 1 {
			t.Fatalf("ExportPlayers: damaged %v, the sound one whole %d times, %v", damaged, whole, err)
		}
		if _, err := storage.ExportDump(e.ctx, d); !errors.Is(err, storage.ErrDamaged) {
			t.Fatalf("a dump of a store with damaged records: %v", err)
		}
	}

	for _, id := range []storage.PlayerID{keep, lose} {
		old := before[id]
		step := storage.Step{ID: id, Op: e.op(), Repair: true, Start: start, Seeds: e.seeds, Now: e.clock.Now(),
			Move: game.Reset{Start: start}}
		a, err := e.st.Run(e.ctx, step)
		if err != nil || a.Repaired == nil {
			t.Fatalf("repair of %v: %+v, %v", id, a, err)
		}
		if again, err := e.st.Run(e.ctx, step); err != nil || !again.Repeated {
			t.Fatalf("the repair of %v repeated: %+v, %v; want nothing done", id, again, err)
		}
		p := e.load(id).Player
		sound(t, "repaired", p)
		if p.Balance != start || p.TicketSeq != old.TicketSeq || p.ChestSeq != old.ChestSeq {
			t.Fatalf("repaired %v: balance %d, tickets %d, chests %d; want %d, %d, %d",
				id, p.Balance, p.TicketSeq, p.ChestSeq, start, old.TicketSeq, old.ChestSeq)
		}
		if h := mustHistory(t, e, id); len(h) != len(hist[id])+1 || h[0].Kind != game.KindReset || !slices.Equal(h[1:], hist[id]) {
			t.Fatalf("history of repaired %v: %+v", id, h)
		}
		rs := e.reveals(id)
		if err := p.CheckReveals(rs); err != nil {
			t.Fatalf("reveals of repaired %v: %v", id, err)
		}
		switch id {
		case keep: // its current seed revealed over every ticket it drew
			r, _ := rs.Last()
			if len(rs) != len(revs[id])+1 || r.Commitment() != old.Commitment() || r.LastTicket != old.TicketSeq ||
				r.FirstTicket != old.SeedTicket+1 || p.SeedNo != old.SeedNo+1 || p.Commitment() != old.NextSeed.Commitment() {
				t.Fatalf("repaired %v with its seeds read: seed %d, reveals %+v", id, p.SeedNo, rs)
			}
		case lose: // a new seed, numbered after the lost one
			if !slices.Equal(rs, revs[id]) || p.SeedNo != old.SeedNo+1 || p.Seed == old.Seed || p.Seed == old.NextSeed {
				t.Fatalf("repaired %v with its seeds lost: seed %d, reveals %+v", id, p.SeedNo, rs)
			}
		}
		if a := e.play(id, plain); a.Result.Ticket != old.TicketSeq+1 {
			t.Fatalf("the first ticket of repaired %v is %d, want %d", id, a.Result.Ticket, old.TicketSeq+1)
		}
	}
	if err := boardAgrees(e.ctx, e.st, guild); err != nil {
		t.Fatalf("leaderboard after the repairs: %v", err)
	}
	if d, ok := e.st.(storage.Dumper); ok {
		if n, err := d.CountPlayers(e.ctx); err != nil || n != 3 {
			t.Fatalf("CountPlayers after the repairs: %d, %v", n, err)
		}
	}
}
