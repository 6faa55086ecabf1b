package game

import (
	"fmt"
	"time"
)

// Repair is Reset for a damaged record: p is what could be read of it (its
// fairness records, or the zero Player), h and rs the lines and reveals
// kept beside it. It returns a sound player of start cents whose ticket and
// chest numbers go on after every one h, rs and p show, so that no number
// is drawn twice. With p's seeds, the current seed is revealed
// (Step.Reveals) and rotated with fresh; without, fresh is the current seed
// with client as client seed. Everything else the record held is lost. It
// is pure. Errors: those of Reset and Rotate.
func (p Player) Repair(h []Entry, rs Reveals, start int64, fresh Seed, client string, now time.Time) (Step, error) {
	b := Player{TicketSeq: min(p.TicketSeq, MaxSeq), ChestSeq: min(max(p.ChestSeq, 0), MaxSeq), CreatedAt: now}
	for _, e := range h {
		b.TicketSeq = max(b.TicketSeq, e.TicketID, e.After)
		b.ChestSeq = max(b.ChestSeq, e.Chest)
	}
	for _, r := range rs {
		b.TicketSeq = max(b.TicketSeq, r.LastTicket)
		b.ChestSeq = max(b.ChestSeq, r.LastChest)
	}
	b.TicketSeq = backed(b.TicketSeq, b.ChestSeq)
	var reveal []SeedReveal
	if p.Seed != (Seed{}) {
		b.Seed, b.NextSeed, b.ClientSeed, b.SeedNo = p.Seed, p.NextSeed, p.ClientSeed, p.SeedNo
		b.SeedTicket, b.SeedChest, b.SeedAt = p.SeedTicket, p.SeedChest, p.SeedAt
		r, err := b.Rotate(fresh, now)
		if err != nil {
			return Step{Player: p}, fmt.Errorf("repair: %w", err)
		}
		b, reveal = r.Player, r.Reveals
	} else {
		last, _ := rs.Last()
		b.Seed, b.NextSeed, b.ClientSeed, b.SeedNo = fresh, p.NextSeed, client, last.No+2 // the lost seed was last.No+1 at least
		b.SeedTicket, b.SeedChest, b.SeedAt = b.TicketSeq, b.ChestSeq, now
	}
	s, err := b.Reset(start, now)
	if err != nil {
		return Step{Player: p}, err
	}
	s.Reveals = reveal
	return s, nil
}
