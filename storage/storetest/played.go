package storetest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// PlayedPlayer plays tickets tickets of player id (opening each chest
// due), its seeds from rng, rotating them after every every tickets, so
// that those are verifiable and the rest are drawn under a seed still
// secret. It returns the player as a store exports it: its record, the
// history a store keeps and the seeds it revealed.
func PlayedPlayer(tb testing.TB, id storage.PlayerID, rng *rand.ChaCha8, tickets, every int) storage.DecodedPlayer {
	tb.Helper()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	seed := func() game.Seed {
		s, err := game.NewSeed(rng)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	client, err := game.NewClientSeed(rng)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := game.NewPlayer(int64(tickets)*game.Stake, seed(), client, now)
	if err != nil {
		tb.Fatal(err)
	}
	p = p.WithNextSeed(seed())
	var hist []game.Entry
	var reveals game.Reveals
	step := func(m game.Move) {
		tb.Helper()
		s, err := game.Apply(p, m, now)
		if err != nil {
			tb.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if len(s.Reveals) != 0 {
			reveals = append(reveals, s.Reveals...)
		}
	}
	for i := range tickets {
		if i > 0 && i%every == 0 {
			step(game.Rotate{Fresh: seed()})
		}
		step(game.Buy{})
		step(game.Reveal{Ticket: p.TicketSeq, Rows: game.AllRows})
		if p.ChestDue {
			step(game.OpenChest{Seq: p.ChestSeq + 1})
		}
	}
	hist = Kept(hist)
	if len(reveals) > game.MaxReveals {
		reveals = reveals[len(reveals)-game.MaxReveals:]
	}
	return storage.DecodedPlayer{ID: id, Player: p, History: hist, Reveals: reveals}
}

// Kept returns what a store keeps of hist (oldest first): the last
// game.MaxTicketLines ticket lines and game.MaxOtherLines others, apart,
// merged as game.MergeHistory gives them back.
func Kept(hist []game.Entry) []game.Entry {
	var main, others []game.Entry
	for _, e := range hist {
		if game.MainLine(e) {
			main = append(main, e)
		} else {
			others = append(others, e)
		}
	}
	return game.MergeHistory(main[max(0, len(main)-game.MaxTicketLines):], others[max(0, len(others)-game.MaxOtherLines):])
}
