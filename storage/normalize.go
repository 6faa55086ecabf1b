package storage

import (
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// normalize checks w (its reveals, its audit entry of the player's guild)
// and returns it with every time rounded by Timestamp, as every store keeps
// them; it never modifies what w's pointers refer to.
func normalize(id PlayerID, w Write) (Write, error) {
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

// Encoded is a Write normalized with what a store keeps beside
// the player encoded by the schema; the player's record is the store's to
// encode, as it keeps it.
type Encoded struct {
	Write   Write
	Main    [][]byte // the ticket lines (game.MainLine), oldest first
	Others  [][]byte // the other history lines, oldest first
	Reveals [][]byte // the reveals, oldest first
	Result  []byte   // the result, for a write under an operation
	Audit   []byte   // the audit line, nil if none
}

// Encode normalizes w and encodes its lines, its reveals, its
// result when op is not "", and its audit entry as the line auditID.
// Both stores call it before writing, from a step or an import.
func Encode(id PlayerID, op, auditID string, w Write) (Encoded, error) {
	w, err := normalize(id, w)
	if err != nil {
		return Encoded{}, err
	}
	e := Encoded{Write: w}
	for _, h := range w.History {
		b, err := schema.EncodeLine(h)
		if err != nil {
			return Encoded{}, err
		}
		if game.MainLine(h) {
			e.Main = append(e.Main, b)
		} else {
			e.Others = append(e.Others, b)
		}
	}
	for _, r := range w.Reveals {
		b, err := schema.EncodeReveal(r)
		if err != nil {
			return Encoded{}, err
		}
		e.Reveals = append(e.Reveals, b)
	}
	if op != "" {
		if e.Result, err = schema.EncodeResult(w.Result); err != nil {
			return Encoded{}, err
		}
	}
	if w.Audit != nil {
		if e.Audit, err = schema.EncodeAudit(id.Guild, auditID, *w.Audit); err != nil { // normalized above
			return Encoded{}, fmt.Errorf("storage: encode audit: %w", err)
		}
	}
	return e, nil
}

// EncodeAudit checks an audit entry of guild (NormalizeAudit) and encodes
// it as the moderator log's line lineID ("" for none).
func EncodeAudit(a game.AuditEntry, guild uint64, lineID string) ([]byte, error) {
	a, err := NormalizeAudit(a, guild)
	if err != nil {
		return nil, err
	}
	b, err := schema.EncodeAudit(a.Guild, lineID, a)
	if err != nil {
		return nil, fmt.Errorf("storage: encode audit: %w", err)
	}
	return b, nil
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
