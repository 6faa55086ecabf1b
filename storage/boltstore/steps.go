package boltstore

import (
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The steps below are pure: they change a player in memory and return the
// history entries to append. They return a storage error before changing
// anything, so a caller that gets an error writes nothing.

func newPlayer(id storage.PlayerID, start int64, now time.Time) storage.Player {
	return storage.Player{ID: id, StartingBalance: start, Balance: start, CreatedAt: now}
}

func buy(p *storage.Player, now time.Time) (t storage.Ticket, resumed bool, err error) {
	if p.Ticket != nil && p.Ticket.Open() {
		return *p.Ticket, true, nil
	}
	if p.ChestPending {
		return storage.Ticket{}, false, storage.ErrChestDue
	}
	if p.Balance < game.Stake {
		return storage.Ticket{}, false, storage.ErrInsufficientFunds
	}
	p.Balance -= game.Stake
	p.Stats.Plays++
	p.Stats.StakedCents += game.Stake
	p.TicketSeq++
	p.Ticket = &storage.Ticket{ID: p.TicketSeq, BoughtAt: now}
	return *p.Ticket, false, nil
}

// reveal returns changed=false when the player is left as it was.
func reveal(p *storage.Player, ticketID uint64, rows storage.RowMask, d storage.Drawer, now time.Time) (h []storage.HistoryEntry, changed bool, err error) {
	if rows&^storage.AllRows != 0 {
		return nil, false, fmt.Errorf("%w: rows %#b", storage.ErrInvalid, rows)
	}
	if p.Ticket == nil || p.Ticket.ID != ticketID {
		return nil, false, fmt.Errorf("%w: ticket %d", storage.ErrUnknownTicket, ticketID)
	}
	t := *p.Ticket
	if !t.Drawn {
		o, err := d.Play(p.Keys)
		if err != nil {
			return nil, false, fmt.Errorf("draw ticket %d: %w", ticketID, err)
		}
		if err := storage.ValidateOutcome(o); err != nil {
			return nil, false, fmt.Errorf("draw ticket %d: %w", ticketID, err)
		}
		t.Drawn, t.Outcome = true, o
		if o.Tier.Winning() {
			p.Balance += o.Prize
			p.Stats.WonCents += o.Prize
			p.Stats.Wins++
			p.Stats.BestWinCents = max(p.Stats.BestWinCents, o.Prize)
		}
		if o.Key {
			p.Stats.Keys++
			p.Keys++
			if p.Keys >= game.MaxKeys {
				p.Keys, p.ChestPending, t.Chest = 0, true, true
			}
		}
		t.KeysAfter = p.Keys
		h = append(h, storage.HistoryEntry{At: now, Kind: storage.KindPlay, TicketID: t.ID, Tier: o.Tier, Key: o.Key, Amount: o.Prize - game.Stake, Balance: p.Balance})
		changed = true
	}
	if t.Revealed|rows != t.Revealed {
		t.Revealed |= rows
		changed = true
	}
	p.Ticket = &t
	return h, changed, nil
}

func openChest(p *storage.Player, seq int64, d storage.Drawer, now time.Time) (c game.Chest, h []storage.HistoryEntry, changed bool, err error) {
	if !p.ChestPending || seq != p.ChestSeq+1 {
		if seq == p.ChestSeq && p.LastChest != nil {
			return *p.LastChest, nil, false, nil
		}
		return game.Chest{}, nil, false, fmt.Errorf("%w: chest %d (%d opened, pending %v)", storage.ErrNoChest, seq, p.ChestSeq, p.ChestPending)
	}
	c, err = d.Chest()
	if err != nil {
		return game.Chest{}, nil, false, fmt.Errorf("draw chest %d: %w", seq, err)
	}
	if err := storage.ValidateChest(c); err != nil {
		return game.Chest{}, nil, false, fmt.Errorf("draw chest %d: %w", seq, err)
	}
	p.ChestPending = false
	p.ChestSeq = seq
	p.LastChest = &c
	p.Balance += c.Prize
	p.Stats.WonCents += c.Prize
	p.Stats.Chests++
	p.Stats.BestWinCents = max(p.Stats.BestWinCents, c.Prize)
	h = append(h, storage.HistoryEntry{At: now, Kind: storage.KindChest, Lot: c.Lot, Amount: c.Prize, Balance: p.Balance})
	return c, h, true, nil
}

func claimDaily(p *storage.Player, s storage.Settings, now time.Time) ([]storage.HistoryEntry, error) {
	if s.DailyAmount <= 0 {
		return nil, fmt.Errorf("%w: the daily bonus is disabled", storage.ErrInvalid)
	}
	if !p.LastDaily.IsZero() && now.Before(p.LastDaily.Add(s.DailyCooldown)) {
		return nil, fmt.Errorf("%w: next at %v", storage.ErrDailyCooldown, p.LastDaily.Add(s.DailyCooldown))
	}
	if p.Balance+s.DailyAmount > storage.MaxBalance {
		return nil, fmt.Errorf("%w: balance would exceed %d", storage.ErrInvalid, storage.MaxBalance)
	}
	p.Balance += s.DailyAmount
	p.Stats.DailyCents += s.DailyAmount
	p.LastDaily = now
	return []storage.HistoryEntry{{At: now, Kind: storage.KindDaily, Amount: s.DailyAmount, Balance: p.Balance}}, nil
}

func grant(p *storage.Player, amount int64, now time.Time) ([]storage.HistoryEntry, error) {
	if err := storage.ValidateGrant(p.Balance, amount); err != nil {
		return nil, err
	}
	p.Balance += amount
	p.Stats.GrantedCents += amount
	return []storage.HistoryEntry{{At: now, Kind: storage.KindGrant, Amount: amount, Balance: p.Balance}}, nil
}

func setBalance(p *storage.Player, balance int64, now time.Time) ([]storage.HistoryEntry, error) {
	if err := storage.ValidateBalance(balance); err != nil {
		return nil, err
	}
	diff := balance - p.Balance
	p.Balance = balance
	p.Stats.GrantedCents += diff
	return []storage.HistoryEntry{{At: now, Kind: storage.KindSet, Amount: diff, Balance: p.Balance}}, nil
}

func reset(p *storage.Player, start int64, now time.Time) []storage.HistoryEntry {
	old := p.Balance
	*p = storage.Player{
		ID: p.ID, StartingBalance: start, Balance: start,
		ChestSeq: p.ChestSeq, TicketSeq: p.TicketSeq, CreatedAt: p.CreatedAt,
	}
	return []storage.HistoryEntry{{At: now, Kind: storage.KindReset, Amount: start - old, Balance: start}}
}
