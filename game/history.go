package game

import (
	"fmt"
	"slices"
)

// A player's history is two bounded lists, ticket lines and others placed
// among them by Entry.After, so that no number of chests or grants pushes a
// ticket out of what can be verified (docs/STORAGE.md section 3, "History line").

// MainLine reports whether e belongs to the list of ticket lines: a ticket,
// or a line from before the lists were split, which keeps its place there.
func MainLine(e Entry) bool { return e.Kind == KindPlay || !e.Placed }

// MergeHistory returns the lines of main (MainLine) and others, each
// oldest first, as one history, oldest first. A line of others comes
// before a ticket whose number is above its After; the unplaced lines of
// main are older than every placed line.
func MergeHistory(main, others []Entry) []Entry {
	out := make([]Entry, 0, len(main)+len(others))
	for len(main) > 0 && len(others) > 0 {
		if m := main[0]; m.Kind != KindPlay || m.TicketID <= others[0].After {
			out, main = append(out, m), main[1:]
		} else {
			out, others = append(out, others[0]), others[1:]
		}
	}
	out = append(out, main...)
	return append(out, others...)
}

// CheckHistory reports whether hist (oldest first) is a history a store
// can keep: at most MaxTicketLines main lines (MainLine) and MaxOtherLines
// others, in the order MergeHistory gives them back.
func CheckHistory(hist []Entry) error {
	main, others := countLines(hist)
	if main > MaxTicketLines || others > MaxOtherLines {
		return fmt.Errorf("%w: %d ticket lines and %d others, at most %d and %d", ErrInvalid, main, others, MaxTicketLines, MaxOtherLines)
	}
	var lastTicket, lastAfter uint64
	placed := false
	for i, e := range hist {
		switch {
		case e.Kind == KindPlay:
			if placed && e.TicketID <= lastAfter {
				return fmt.Errorf("%w: line %d, ticket %d, comes after a line placed after ticket %d", ErrInvalid, i, e.TicketID, lastAfter)
			}
			lastTicket = e.TicketID
		case !e.Placed:
			if placed {
				return fmt.Errorf("%w: line %d, unplaced, comes after a placed line", ErrInvalid, i)
			}
		default:
			if e.After < lastTicket || (placed && e.After < lastAfter) {
				return fmt.Errorf("%w: line %d, placed after ticket %d, comes after ticket %d", ErrInvalid, i, e.After, max(lastTicket, lastAfter))
			}
			placed, lastAfter = true, e.After
		}
	}
	return nil
}

// Check reports whether e is a line the rules write: a known kind, no
// other kind's fields, numbers within 1..MaxSeq, the amount its kind
// moves, and for a fair play the keys held before and a grid that shows
// its tier and key. The error is a *FieldError.
func (e Entry) Check() error {
	bad := fieldErr
	play, chest := e.Kind == KindPlay, e.Kind == KindChest
	other := func(what string) error { return bad(what, "a %q line with %s", e.Kind, lineWords[what]) }
	switch {
	case !e.Kind.Valid():
		return bad("Kind", "unknown kind %q", e.Kind)
	case e.Balance < 0 || e.Balance > MaxBalance:
		return bad("Balance", "balance %d out of 0..%d", e.Balance, MaxBalance)
	case e.Placed && (play || e.After > MaxSeq):
		return bad("After", "a %q line placed after ticket %d", e.Kind, e.After)
	case e.Commitment != (Commitment{}) && !e.Fair:
		return bad("Commitment", "a commitment on a line without its draw")
	case !play && e.TicketID != 0:
		return other("TicketID")
	case !play && e.Tier != TierLoss:
		return other("Tier")
	case !play && e.Key:
		return other("Key")
	case !play && (e.KeysBefore != 0 || e.Grid != (Grid{})):
		return other("Grid")
	case !chest && e.Lot != 0:
		return other("Lot")
	case !chest && e.Chest != 0:
		return other("Chest")
	case !play && !chest && e.Kind != KindReset && e.Fair:
		return other("Fair")
	case e.Discarded != 0 && (e.Kind != KindReset || !e.Fair):
		return other("Discarded")
	case e.Discarded > MaxSeq:
		return bad("Discarded", "ticket %d beyond %d", e.Discarded, uint64(MaxSeq))
	case play && e.TicketID == 0:
		return bad("TicketID", "a play without its ticket")
	case play && e.TicketID > MaxSeq:
		return bad("TicketID", "ticket %d beyond %d", e.TicketID, uint64(MaxSeq))
	case play && e.Tier >= NumTiers:
		return bad("Tier", "tier %v", e.Tier)
	case chest && e.Lot >= NumLots:
		return bad("Lot", "lot %v", e.Lot)
	case chest && (e.Fair != (e.Chest != 0) || e.Chest < 0 || e.Chest > MaxSeq):
		return bad("Chest", "chest number %d out of 1..%d", e.Chest, int64(MaxSeq))
	}
	var lo, hi int64 // the amount's bounds
	switch e.Kind {
	case KindPlay:
		lo, hi = e.Tier.Prize()-Stake, e.Tier.Prize()-Stake
	case KindChest:
		lo, hi = e.Lot.Prize(), e.Lot.Prize()
	case KindDaily:
		hi = MaxDailyAmount
	case KindGrant:
		lo, hi = -MaxGrant, MaxGrant
	case KindSet, KindReset:
		lo, hi = -MaxBalance, MaxBalance
	}
	o := Outcome{Tier: e.Tier, Prize: e.Tier.Prize(), Key: e.Key, Row: -1, Grid: e.Grid}
	for r := range 3 {
		if row := e.Grid.Row(r); row[0] == row[1] && row[1] == row[2] {
			o.Row = int8(r)
		}
	}
	switch {
	case lo == hi && e.Amount != lo:
		return bad("Amount", "amount %d, not %d", e.Amount, lo)
	case e.Amount < lo || e.Amount > hi:
		return bad("Amount", "amount %d out of %d..%d", e.Amount, lo, hi)
	case !play:
		return nil
	case e.Key && e.Tier != TierLoss:
		return bad("Key", "a key on a winning play (%v)", e.Tier)
	case !e.Fair && (e.KeysBefore != 0 || e.Grid != (Grid{})):
		return bad("Grid", "a grid without its draw")
	case !e.Fair:
		return nil
	case e.KeysBefore < 0 || e.KeysBefore >= MaxKeys:
		return bad("KeysBefore", "%d keys out of 0..%d", e.KeysBefore, MaxKeys-1)
	case Validate(o) != nil:
		return bad("Grid", "grid %v does not show a %v play with key %v", e.Grid, e.Tier, e.Key)
	}
	return nil
}

// lineWords names the fields of Entry in Check's words.
var lineWords = map[string]string{
	"TicketID": "a ticket number", "Tier": "a tier", "Key": "a key", "Grid": "a grid", "Lot": "a lot",
	"Chest": "a chest number", "Fair": "verification data", "Discarded": "a ticket thrown away",
}

// FieldError is the error of a check that finds fields at fault: the
// fields, named as in the Go struct checked and joined by ", " ("Amount";
// "Stats.Plays, TicketSeq"; "Care.Limits.stake-day"), so that a reader of a
// stored record can name its own; Index is the element of a list checked
// (CheckReveals). It wraps ErrInvalid.
type FieldError struct {
	Field string
	Index int
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("%v: %v", ErrInvalid, e.Err) }

// Unwrap makes errors.Is(err, ErrInvalid) hold, and of the cause.
func (e *FieldError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

func countLines(hist []Entry) (main, others int) {
	for _, e := range hist {
		if MainLine(e) {
			main++
		} else {
			others++
		}
	}
	return main, others
}

// CompleteFrom returns the index of hist (oldest first) from which no line
// is missing, and whole when neither list was trimmed: hist starts with
// the player's first line.
func CompleteFrom(hist []Entry) (from int, whole bool) {
	m, o := firstKept(hist)
	return max(m, o, 0), m < 0 && o < 0
}

// firstKept returns, for each list of hist that may have lost older lines
// (it is full), the index of its oldest line; -1 for a list that is not.
func firstKept(hist []Entry) (main, other int) {
	m, o := countLines(hist)
	main, other = -1, -1
	if m >= MaxTicketLines {
		main = slices.IndexFunc(hist, MainLine)
	}
	if o >= MaxOtherLines {
		other = slices.IndexFunc(hist, func(e Entry) bool { return !MainLine(e) })
	}
	return main, other
}

// placeLines sets After on the lines a step adds: each is placed after the
// last ticket p drew. Tickets are placed by their own number.
func (p Player) placeLines(hist []Entry) {
	last := p.TicketSeq
	if t := p.Ticket; t != nil && !t.Drawn && t.ID == p.TicketSeq {
		last-- // bought, not drawn: no line yet
	}
	for i := range hist {
		if hist[i].Kind != KindPlay {
			hist[i].After, hist[i].Placed = last, true
		}
	}
}
