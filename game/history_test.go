package game

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// split is what a store does with a history: the main lines and the
// others, each oldest first.
func split(hist []Entry) (main, others []Entry) {
	for _, e := range hist {
		if MainLine(e) {
			main = append(main, e)
		} else {
			others = append(others, e)
		}
	}
	return main, others
}

// grants adds n grants of one cent to p's history.
func grants(t *testing.T, p Player, hist []Entry, n int) (Player, []Entry) {
	t.Helper()
	for range n {
		s, err := Apply(p, Grant{Amount: 1}, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
	}
	return p, hist
}

// TestHistoryKeepsTickets: however many grants follow them, the last
// MaxTicketLines tickets stay kept, and their links checked; the lists
// merge back into the order the lines were written in.
func TestHistoryKeepsTickets(t *testing.T) {
	p, rs, hist := linkedPlay(t, 30, 7, 0, 0)
	p, hist = grants(t, p, hist, 3*MaxOtherLines)
	kept := TrimHistory(hist)
	tickets := 0
	for _, e := range kept {
		if e.Kind == KindPlay {
			tickets++
		}
	}
	if tickets != 30 || len(kept) != 30+MaxOtherLines {
		t.Fatalf("kept %d lines, %d tickets; want every ticket and %d others", len(kept), tickets, MaxOtherLines)
	}
	if err := CheckHistory(kept); err != nil {
		t.Fatal(err)
	}
	if got := MergeHistory(split(kept)); !slices.Equal(got, kept) {
		t.Fatalf("merged back out of order")
	}
	// The chests left the others' list: the keys and numbers are checked
	// from the first line both lists still hold, with no false break.
	l := CheckLinks(p, rs, kept)
	noBreaks(t, l)

	// Tickets among grants: every line kept, placed and merged back.
	p, rs, hist = linkedPlay(t, 40, 9, 0, 0)
	for i := range 10 {
		p, hist = grants(t, p, hist, i%3)
		var s Step
		s, err := Apply(p, Buy{}, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		p, hist = grants(t, p, hist, 1) // between the purchase and the draw
		if s, err = Apply(p, Reveal{Ticket: p.TicketSeq, Rows: AllRows}, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if p.ChestDue {
			if s, err = Apply(p, OpenChest{Seq: p.ChestSeq + 1}, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			p, hist = s.Player, append(hist, s.History...)
		}
	}
	kept = TrimHistory(hist)
	if got := MergeHistory(split(kept)); !slices.Equal(got, kept) {
		t.Fatalf("tickets among grants merged back out of order")
	}
	noBreaks(t, CheckLinks(p, rs, kept))
}

// TestMergeHistoryOldLines: lines from before the lists were split stay
// with the tickets, ahead of every placed line.
func TestMergeHistoryOldLines(t *testing.T) {
	old := []Entry{{Kind: KindPlay, TicketID: 1}, {Kind: KindGrant}, {Kind: KindPlay, TicketID: 2}}
	others := []Entry{{Kind: KindGrant, After: 2, Placed: true}, {Kind: KindDaily, After: 3, Placed: true}}
	main := append(slices.Clone(old), Entry{Kind: KindPlay, TicketID: 3}, Entry{Kind: KindPlay, TicketID: 4})
	want := []Entry{old[0], old[1], old[2], others[0], main[3], others[1], main[4]}
	if got := MergeHistory(main, others); !slices.Equal(got, want) {
		t.Fatalf("merged %+v\nwant %+v", got, want)
	}
	if err := CheckHistory(want); err != nil {
		t.Fatal(err)
	}
}

// TestCheckHistoryRefuses: a history a store could not give back as it
// is: past a bound, or out of the order the lists merge in.
func TestCheckHistoryRefuses(t *testing.T) {
	many := func(e Entry, n int) []Entry {
		out := make([]Entry, n)
		for i := range out {
			out[i] = e
			if e.Kind == KindPlay {
				out[i].TicketID = uint64(i + 1)
			}
		}
		return out
	}
	for name, h := range map[string][]Entry{
		"tickets past their bound": many(Entry{Kind: KindPlay}, MaxTicketLines+1),
		"others past their bound":  many(Entry{Kind: KindGrant, Placed: true}, MaxOtherLines+1),
		"old lines past the bound": append(many(Entry{Kind: KindGrant}, 1), many(Entry{Kind: KindPlay}, MaxTicketLines)...),
		"placed before its ticket": {{Kind: KindPlay, TicketID: 1}, {Kind: KindGrant, After: 2, Placed: true}, {Kind: KindPlay, TicketID: 2}},
		"placed after a later one": {{Kind: KindPlay, TicketID: 3}, {Kind: KindGrant, After: 1, Placed: true}},
		"old line after a placed":  {{Kind: KindGrant, Placed: true}, {Kind: KindGrant}},
	} {
		if err := CheckHistory(h); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestEntryCheck: a line that no step writes is refused, naming the field
// (FieldError.Field):
// a grid that does not show its tier, an amount its kind never moves,
// another kind's fields, numbers out of 1..MaxSeq.
func TestEntryCheck(t *testing.T) {
	p, _, hist := linkedPlay(t, 12, 5, 0, 0)
	_, hist = grants(t, p, hist, 1)
	lines := map[Kind]Entry{}
	for _, e := range hist {
		if err := e.Check(); err != nil {
			t.Fatalf("a line written by a step: %v", err)
		}
		lines[e.Kind] = e
	}
	play, chest, grant := lines[KindPlay], lines[KindChest], lines[KindGrant]
	if !play.Fair || !chest.Fair || grant.Kind != KindGrant {
		t.Fatalf("no fair play, fair chest and grant to tamper with: %+v", lines)
	}
	change := func(e Entry, f func(e *Entry)) Entry { f(&e); return e }
	for _, tt := range []struct {
		name string
		e    Entry
		want string
	}{
		{"unknown kind", change(grant, func(e *Entry) { e.Kind = "lottery" }), "Kind"},
		{"balance past MaxBalance", change(grant, func(e *Entry) { e.Balance = MaxBalance + 1 }), "Balance"},
		{"grid of another tier", change(play, func(e *Entry) { e.Tier, e.Key = (e.Tier+1)%NumTiers, false; e.Amount = e.Tier.Prize() - Stake }), "Grid"},
		{"amount of 10^13 on a play", change(play, func(e *Entry) { e.Amount = 10_000_000_000_000 }), "Amount"},
		{"amount of 10^13 on a grant", change(grant, func(e *Entry) { e.Amount = 10_000_000_000_000 }), "Amount"},
		{"amount of a set-balance past MaxBalance", change(grant, func(e *Entry) { e.Kind, e.Amount = KindSet, -MaxBalance-1 }), "Amount"},
		{"chest's prize not its lot's", change(chest, func(e *Entry) { e.Amount++ }), "Amount"},
		{"amount on a pause", change(grant, func(e *Entry) { e.Kind = KindPause }), "Amount"},
		{"chest number on a play", change(play, func(e *Entry) { e.Chest = 1 }), "Chest"},
		{"ticket number on a chest", change(chest, func(e *Entry) { e.TicketID = 1 }), "TicketID"},
		{"lot on a grant", change(grant, func(e *Entry) { e.Lot = LotGold }), "Lot"},
		{"verification data on a grant", change(grant, func(e *Entry) { e.Fair = true }), "Fair"},
		{"play without its ticket", change(play, func(e *Entry) { e.TicketID = 0 }), "TicketID"},
		{"ticket past MaxSeq", change(play, func(e *Entry) { e.TicketID = MaxSeq + 1 }), "TicketID"},
		{"chest past MaxSeq", change(chest, func(e *Entry) { e.Chest = MaxSeq + 1 }), "Chest"},
		{"fair chest without its number", change(chest, func(e *Entry) { e.Chest = 0 }), "Chest"},
		{"keys held before out of range", change(play, func(e *Entry) { e.KeysBefore = MaxKeys }), "KeysBefore"},
		{"key on a win", change(play, func(e *Entry) {
			e.Fair, e.Grid, e.KeysBefore, e.Commitment, e.Tier, e.Key, e.Amount = false, Grid{}, 0, Commitment{}, TierGem, true, TierGem.Prize()-Stake
		}), "Key"},
		{"grid without verifying", change(play, func(e *Entry) { e.Fair, e.Commitment = false, Commitment{} }), "Grid"},
		{"commitment without verifying", change(chest, func(e *Entry) { e.Fair, e.Chest = false, 0 }), "Commitment"},
		{"a play placed", change(play, func(e *Entry) { e.Placed = true }), "After"},
		{"placed past MaxSeq", change(grant, func(e *Entry) { e.After = MaxSeq + 1 }), "After"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.e.Check()
			if le, ok := errors.AsType[*FieldError](err); !ok || le.Field != tt.want || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Check = %v, want a FieldError naming %s", err, tt.want)
			}
		})
	}
}
