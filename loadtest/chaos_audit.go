package loadtest

import (
	"context"
	"fmt"
	"slices"

	"github.com/lesclefsdutresor/clefs/game"
)

// audit checks the player's books, tickets, keys and results after the
// recovery, against the store itself, and adds what it finds to br and
// the counts to ph. It fails only if the store cannot be read.
func (p *chaosPlayer) audit(ctx context.Context, transport string, br *breaches, ph *ChaosPhase) error {
	p.readHistory(ctx)
	v, err := p.st.Load(ctx, p.id)
	if err != nil {
		return fmt.Errorf("loadtest: chaos audit: player %d/%d: %w", p.id.Guild, p.id.User, err)
	}
	pl := v.Player
	p.final = pl
	add := func(kind, format string, args ...any) { br.add(kind, transport, p.id, format, args...) }
	if p.hist.unread {
		return fmt.Errorf("loadtest: chaos audit: player %d/%d: a read of the history failed, so it cannot be audited", p.id.Guild, p.id.User)
	}
	if p.hist.gap != "" {
		add(BreachTicket, "history lines lost: %s", p.hist.gap)
	}

	// Credits: the player's own invariants, then the history's chain.
	st := pl.Stats
	if err := pl.Check(); err != nil {
		add(BreachCredit, "%v", err)
	}
	if pl.StartingBalance != startBalance || pl.Balance != startBalance-st.StakedCents+st.WonCents {
		add(BreachCredit, "balance %d ≠ start %d − staked %d + won %d (starting balance %d)",
			pl.Balance, int64(startBalance), st.StakedCents, st.WonCents, pl.StartingBalance)
	}
	var (
		bal        int64 = startBalance
		keys, got  int
		due        bool
		chests     int64
		lastTicket uint64
		drawn      = map[uint64]game.Entry{}
	)
	for k, e := range p.hist.lines {
		if e.Balance != bal+e.Amount {
			add(BreachCredit, "history line %d (%s %d): balance %d ≠ %d before + amount %d",
				k+1, e.Kind, e.TicketID+uint64(e.Chest), e.Balance, bal, e.Amount)
		}
		bal = e.Balance
		switch e.Kind {
		case game.KindPlay:
			n := e.TicketID
			switch _, twice := drawn[n]; {
			case twice:
				add(BreachTicket, "ticket %d drawn twice (history line %d)", n, k+1)
			case n != lastTicket+1:
				add(BreachTicket, "ticket %d drawn after ticket %d: the tickets between were bought and never drawn, or drawn out of turn", n, lastTicket)
			}
			drawn[n] = e
			lastTicket = max(lastTicket, n)
			if due {
				add(BreachKey, "ticket %d drawn while a chest was due", n)
			}
			if e.Fair && e.KeysBefore != keys {
				add(BreachKey, "ticket %d drawn with %d keys before it, but %d were held after the line before", n, e.KeysBefore, keys)
				keys = e.KeysBefore
			}
			if e.Key {
				got++
				if keys++; keys == game.MaxKeys {
					keys, due = 0, true
				}
			}
		case game.KindChest:
			if !due {
				add(BreachKey, "chest %d opened without three keys (history line %d)", e.Chest, k+1)
			}
			if e.Fair && e.Chest != chests+1 {
				add(BreachKey, "chest %d opened after chest %d", e.Chest, chests)
			}
			chests++
			due = false
		default:
			add(BreachCredit, "history line %d: a %s, which no player of a chaos run does", k+1, e.Kind)
		}
	}
	undrawn := pl.Ticket != nil && !pl.Ticket.Drawn
	want := bal
	if undrawn {
		want -= game.Stake // bought, no line yet
	}
	if pl.Balance != want {
		add(BreachCredit, "balance %d ≠ %d, the history's", pl.Balance, want)
	}
	if pl.Keys != keys || pl.ChestDue != due {
		add(BreachKey, "%d keys held (chest due %t), but the history leaves %d (chest due %t)", pl.Keys, pl.ChestDue, keys, due)
	}
	if pl.ChestSeq != chests || st.Chests != chests {
		add(BreachKey, "chests opened: %d by the count, %d by the sequence, %d in the history", st.Chests, pl.ChestSeq, chests)
	}
	if st.Keys != int64(got) {
		add(BreachKey, "%d keys collected by the count, %d in the history", st.Keys, got)
	}

	// Tickets: bought = drawn + open, each drawn once.
	bought := pl.TicketSeq
	open := uint64(0)
	if undrawn {
		open = 1
	}
	if uint64(st.Plays) != bought {
		add(BreachTicket, "%d plays counted for %d tickets bought", st.Plays, bought)
	}
	if uint64(len(drawn))+open != bought {
		add(BreachTicket, "%d tickets bought ≠ %d drawn + %d open", bought, len(drawn), open)
	}

	// Results: each ticket bought or shown, shown to the player or in the
	// history, none left open. The cards in the fake's channel count as
	// shown: the player sees them there.
	onCard := map[uint64]bool{}
	for _, m := range p.srv.Messages(p.channel) {
		if n, done, ok := cardTicket(m); ok && done && p.shows(m) {
			onCard[n] = true
		}
	}
	var numbers []uint64
	for n := uint64(1); n <= bought; n++ {
		numbers = append(numbers, n)
	}
	for n := range p.tickets {
		if n > bought {
			numbers = append(numbers, n)
		}
	}
	slices.Sort(numbers)
	for _, n := range numbers {
		t := p.tickets[n]
		e, inHistory := drawn[n]
		if n > bought {
			add(BreachTicket, "a card showed ticket %d, but the store counts %d bought", n, bought)
			continue
		}
		ph.Tickets++
		if pl.Ticket != nil && pl.Ticket.ID == n && pl.Ticket.Open() {
			ph.Open++
			add(BreachUnreachable, "ticket %d left open after the recovery", n)
			continue
		}
		if t != nil && t.other != "" {
			add(BreachTicket, "ticket %d shown with two results: %s", n, t.other)
		}
		if t != nil && t.done && inHistory && e.Fair && t.winRow != gridWinRow(e.Grid) {
			add(BreachTicket, "ticket %d shown with its winning row %d, recorded with %d (-1: none)", n, t.winRow, gridWinRow(e.Grid))
		}
		switch {
		case t != nil && t.done && !t.inRecovery:
			ph.Seen++
		case t != nil && t.done:
			ph.SeenInRecovery++
		case onCard[n]:
			ph.Seen++ // the card shows it, though no answer the player waited for did
		case inHistory:
			ph.OnlyInHistory++
		default:
			add(BreachUnreachable, "ticket %d: its result was never shown and is not in the history", n)
		}
	}
	return nil
}
