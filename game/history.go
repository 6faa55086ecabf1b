package game

import "fmt"

// A player's history is kept as two bounded lists, so that no number of
// chests, bonuses or grants pushes a ticket out of what can be verified:
//
//   - the ticket lines (KindPlay), the last MaxTicketLines of them, with
//     the lines written before the lists were split (Entry.Placed false)
//     in their place among them;
//   - every other line, the last MaxOtherLines of them, each placed among
//     the tickets by Entry.After.
//
// MainLine tells a store which list a line goes to, MergeHistory puts the
// two lists back in order, CheckHistory checks a history against both
// bounds.

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

// CompleteFrom returns the index of hist (oldest first, as a store gives
// it) from which no line is missing: each list that holds as many lines as
// it keeps may have lost older ones, so the history is complete only from
// the oldest line of each such list on. whole reports that neither list was
// trimmed: hist starts with the player's first line.
func CompleteFrom(hist []Entry) (from int, whole bool) {
	main, others := countLines(hist)
	fullMain, fullOthers := main >= MaxTicketLines, others >= MaxOtherLines
	if !fullMain && !fullOthers {
		return 0, true
	}
	seenMain, seenOther := !fullMain, !fullOthers
	for i, e := range hist {
		if MainLine(e) {
			seenMain = true
		} else {
			seenOther = true
		}
		if seenMain && seenOther {
			return i, false
		}
	}
	return len(hist), false
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
