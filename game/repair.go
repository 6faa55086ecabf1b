package game

import (
	"fmt"
	"time"
)

// Repair is Reset for a damaged record, a store's own move (storage.Step
// with Repair makes it): p is what could be read of the record (its
// fairness records, or the zero Player), History and Reveals the lines and
// reveals kept beside it. It gives a sound player of Start cents whose
// ticket and chest numbers go on after every one they and p show, so that
// no number is drawn twice. With p's seeds, the current seed is revealed
// (Step.Reveals) and rotated with Fresh; without, Fresh is the current seed
// with Client as client seed. Everything else the record held is lost.
// Then, a Reset, keeps its audit entry. Errors: those of Reset and Rotate.
type Repair struct {
	History []Entry
	Reveals Reveals
	Start   int64
	Fresh   Seed
	Client  string
	Then    Move // the move asked for (a Reset): its audit entry is kept
}

func (m Repair) apply(p Player, now time.Time) (Step, error) {
	b := Player{TicketSeq: min(p.TicketSeq, MaxSeq), ChestSeq: min(max(p.ChestSeq, 0), MaxSeq), CreatedAt: now}
	for _, e := range m.History {
		b.TicketSeq = max(b.TicketSeq, e.TicketID, e.After)
		b.ChestSeq = max(b.ChestSeq, e.Chest)
	}
	for _, r := range m.Reveals {
		b.TicketSeq = max(b.TicketSeq, r.LastTicket)
		b.ChestSeq = max(b.ChestSeq, r.LastChest)
	}
	b.TicketSeq = backed(b.TicketSeq, b.ChestSeq)
	var reveal []SeedReveal
	if p.Seed != (Seed{}) {
		b.Seed, b.NextSeed, b.ClientSeed, b.SeedNo = p.Seed, p.NextSeed, p.ClientSeed, p.SeedNo
		b.SeedTicket, b.SeedChest, b.SeedAt = p.SeedTicket, p.SeedChest, p.SeedAt
		r, err := Rotate{Fresh: m.Fresh}.apply(b, now)
		if err != nil {
			return Step{Player: p}, fmt.Errorf("repair: %w", err)
		}
		b, reveal = r.Player, r.Reveals
	} else {
		last, _ := m.Reveals.Last()
		b.Seed, b.NextSeed, b.ClientSeed, b.SeedNo = m.Fresh, p.NextSeed, m.Client, last.No+2 // the lost seed was last.No+1 at least
		b.SeedTicket, b.SeedChest, b.SeedAt = b.TicketSeq, b.ChestSeq, now
	}
	s, err := Reset{Start: m.Start}.apply(b, now)
	if err != nil {
		return Step{Player: p}, err
	}
	s.Reveals = reveal
	if r, ok := m.Then.(Reset); ok {
		s.Audit = r.By.audit(ActionReset, r.Start, now)
	}
	return s, nil
}
