package storage

import (
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Normalize checks w (its player passes game.Player.Check, its audit
// entry is of the player's guild) and returns it with every time rounded by
// Timestamp, as every store keeps them; it never modifies what w's
// pointers refer to. Stores call it before writing.
func Normalize(id PlayerID, w Write) (Write, error) {
	p := w.Player
	p.CreatedAt = Timestamp(p.CreatedAt)
	p.LastDaily = Timestamp(p.LastDaily)
	p.SeedAt = Timestamp(p.SeedAt)
	if w.Reveals != nil {
		rs := make(game.Reveals, len(w.Reveals))
		for i, r := range w.Reveals {
			r.CommittedAt, r.RevealedAt = Timestamp(r.CommittedAt), Timestamp(r.RevealedAt)
			rs[i] = r
		}
		if err := p.CheckReveals(rs); err != nil {
			return w, fmt.Errorf("%w: player %d/%d: %w", ErrInvalid, id.Guild, id.User, err)
		}
		w.Reveals = rs
	}
	if p.Ticket != nil {
		t := *p.Ticket
		t.BoughtAt = Timestamp(t.BoughtAt)
		p.Ticket = &t
	}
	// Care holds no pointers: p's copy is its own.
	c := &p.Care
	for k := range c.Limits {
		c.Limits[k].At = Timestamp(c.Limits[k].At)
	}
	c.PausedUntil = Timestamp(c.PausedUntil)
	c.Spend.Day, c.Spend.Week = Timestamp(c.Spend.Day), Timestamp(c.Spend.Week)
	c.Session.Start, c.Session.Last, c.Session.CheckedAt = Timestamp(c.Session.Start), Timestamp(c.Session.Last), Timestamp(c.Session.CheckedAt)
	if err := p.Check(); err != nil {
		return w, fmt.Errorf("%w: player %d/%d: %w", ErrInvalid, id.Guild, id.User, err)
	}
	w.Player = p
	if len(w.History) > 0 {
		h := make([]game.Entry, len(w.History))
		for i, e := range w.History {
			e.At = Timestamp(e.At)
			h[i] = e
		}
		w.History = h
	}
	if w.Audit != nil {
		a, err := NormalizeAudit(*w.Audit, id.Guild)
		if err != nil {
			return w, err
		}
		w.Audit = &a
	}
	return w, nil
}

// NormalizeAudit checks an audit entry of guild (its Guild 0 means guild)
// with game.AuditEntry.OfGuild and rounds its time by Timestamp. Every
// store calls it before writing an entry, of a player's step or a
// guild's, and before importing one.
func NormalizeAudit(a game.AuditEntry, guild uint64) (game.AuditEntry, error) {
	a.At = Timestamp(a.At)
	a, err := a.OfGuild(guild)
	if err != nil {
		return a, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return a, nil
}

// Timestamp returns t as stores keep it: UTC, whole milliseconds. Stores
// round every time they record so that an export round-trips exactly.
func Timestamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}
