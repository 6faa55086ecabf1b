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

// Check reports whether e is a line the rules write. Its kind is known and
// its balance after within 0..MaxBalance. Its amount is the one its kind
// moves: the prize less Stake for a play, the lot's prize for a chest, a
// bonus within 0..MaxDailyAmount, a grant within ±MaxGrant, a change of
// balance within ±MaxBalance, nothing for a pause or its lift. A play has
// a ticket number (1..MaxSeq), a key only on a loss and, when Fair, the
// keys held before its draw (0..MaxKeys−1) and a grid that shows its tier
// and key (Validate); a chest has a chest number (1..MaxSeq) exactly when
// Fair; no line has another kind's fields. A commitment comes only with
// what verifying the draw needs, and After (0..MaxSeq) only on a line
// other than a play. The error wraps ErrInvalid and names the field.
func (e Entry) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s line: %s", ErrInvalid, e.Kind, fmt.Sprintf(format, args...))
	}
	if !e.Kind.Valid() {
		return fmt.Errorf("%w: line of unknown kind %q", ErrInvalid, e.Kind)
	}
	if e.Balance < 0 || e.Balance > MaxBalance {
		return bad("balance after %d out of 0..%d", e.Balance, MaxBalance)
	}
	if e.Placed && (e.Kind == KindPlay || e.After > MaxSeq) {
		return bad("placed after ticket %d", e.After)
	}
	if e.Commitment != (Commitment{}) && !e.Fair {
		return bad("a commitment without what verifying the draw needs")
	}
	play, chest := e.Kind == KindPlay, e.Kind == KindChest
	switch {
	case !play && (e.TicketID != 0 || e.Tier != TierLoss || e.Key || e.KeysBefore != 0 || e.Grid != (Grid{})):
		return bad("a ticket's fields (ticket number %d, tier %v, key %v, keys held before %d, grid %v)", e.TicketID, e.Tier, e.Key, e.KeysBefore, e.Grid)
	case !chest && (e.Lot != 0 || e.Chest != 0):
		return bad("a chest's fields (lot %v, chest number %d)", e.Lot, e.Chest)
	case !play && !chest && e.Fair:
		return bad("verification data on a line that draws nothing")
	}
	var lo, hi int64 // the amount's bounds
	switch e.Kind {
	case KindPlay:
		if e.TicketID < 1 || e.TicketID > MaxSeq {
			return bad("ticket number %d out of 1..%d", e.TicketID, uint64(MaxSeq))
		}
		if e.Tier >= NumTiers {
			return bad("tier %v", e.Tier)
		}
		lo = e.Tier.Prize() - Stake
		hi = lo
	case KindChest:
		if e.Lot >= NumLots {
			return bad("lot %v", e.Lot)
		}
		if e.Fair != (e.Chest != 0) || e.Chest < 0 || e.Chest > MaxSeq {
			return bad("chest number %d out of 1..%d", e.Chest, int64(MaxSeq))
		}
		lo, hi = e.Lot.Prize(), e.Lot.Prize()
	case KindDaily:
		hi = MaxDailyAmount
	case KindGrant:
		lo, hi = -MaxGrant, MaxGrant
	case KindSet, KindReset:
		lo, hi = -MaxBalance, MaxBalance
	}
	if e.Amount < lo || e.Amount > hi {
		return bad("amount %d out of %d..%d", e.Amount, lo, hi)
	}
	if !play {
		return nil
	}
	switch {
	case e.Key && e.Tier != TierLoss:
		return bad("a key on a winning play (%v)", e.Tier)
	case !e.Fair && (e.KeysBefore != 0 || e.Grid != (Grid{})):
		return bad("keys held before %d and grid %v without what verifying the draw needs", e.KeysBefore, e.Grid)
	case !e.Fair:
		return nil
	case e.KeysBefore < 0 || e.KeysBefore >= MaxKeys:
		return bad("keys held before %d out of 0..%d", e.KeysBefore, MaxKeys-1)
	}
	o := Outcome{Tier: e.Tier, Prize: e.Tier.Prize(), Key: e.Key, Row: -1, Grid: e.Grid}
	for r := range 3 {
		if row := e.Grid.Row(r); row[0] == row[1] && row[1] == row[2] {
			o.Row = int8(r)
		}
	}
	if err := Validate(o); err != nil {
		return bad("grid %v does not show %v (key %v): %v", e.Grid, e.Tier, e.Key, err)
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
