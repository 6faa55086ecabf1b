package game

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// linkedPlay plays tickets tickets with SeededDrawer, rotating every every
// tickets, opening each chest due, except that the ticket numbered
// discard is bought and reset away (never drawn) and, the first time a
// chest is due after ticket resetDue, a reset forfeits it. It returns the
// player, its reveals and its whole history.
func linkedPlay(t *testing.T, tickets, every int, discard uint64, resetDue uint64) (Player, Reveals, []Entry) {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{42})
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	seed := func() Seed {
		s, err := NewSeed(rng)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := NewPlayer(int64(2*tickets)*Stake, seed(), "c", now)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithNextSeed(seed())
	var hist []Entry
	var rs Reveals
	step := func(s Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if len(s.Reveals) != 0 {
			rs = append(rs, s.Reveals...)
		}
	}
	var d SeededDrawer
	for i := range tickets {
		if i > 0 && i%every == 0 {
			step(Apply(p, Rotate{Fresh: seed()}, now))
		}
		step(Apply(p, Buy{}, now))
		if p.TicketSeq == discard {
			step(Apply(p, Reset{Start: p.Balance}, now))
			step(Apply(p, Buy{}, now))
		}
		step(Apply(p, Reveal{Ticket: p.TicketSeq, Rows: AllRows, Drawer: d}, now))
		if p.ChestDue && resetDue > 0 && p.TicketSeq >= resetDue {
			step(Apply(p, Reset{Start: p.Balance}, now))
			resetDue = 0
		}
		if p.ChestDue {
			step(Apply(p, OpenChest{Seq: p.ChestSeq + 1, Drawer: d}, now))
		}
	}
	return p, rs, hist
}

func noBreaks(t *testing.T, l Links) {
	t.Helper()
	for _, b := range l.Breaks {
		t.Errorf("broken: %s", b)
	}
}

// TestCheckLinksWhole: a whole history with resets (one discarding a
// ticket bought and not drawn, one forfeiting a chest due) and rotations
// holds every link, and each link is checked.
func TestCheckLinksWhole(t *testing.T) {
	p, rs, hist := linkedPlay(t, 20, 6, 5, 10)
	if !slices.ContainsFunc(hist, func(e Entry) bool { return e.Kind == KindReset }) || len(TrimHistory(hist)) != len(hist) {
		t.Fatalf("want resets in a whole history of %d lines", len(hist))
	}
	l := CheckLinks(p, rs, hist)
	noBreaks(t, l)
	for link := range NumLinks {
		if l.Checked[link] == 0 || l.Unchecked[link] != 0 {
			t.Errorf("%s: %d checked, %d unchecked", link, l.Checked[link], l.Unchecked[link])
		}
	}

	// The reset line that explains ticket 5's gap, gone: a gap.
	i := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindReset })
	if hist[i+1].TicketID != 6 {
		t.Fatalf("the first reset is followed by ticket %d, want 6", hist[i+1].TicketID)
	}
	l = CheckLinks(p, rs, slices.Delete(slices.Clone(hist), i, i+1))
	if len(l.Breaks) == 0 || l.Breaks[0].String() != "ticket 6: numbers: follows ticket 4: 1 missing, 0 thrown away by a reset" {
		t.Errorf("reset deleted: breaks %v", l.Breaks)
	}
	// Written before resets recorded the ticket they threw away: unchecked.
	legacy := slices.Clone(hist)
	legacy[i].Fair, legacy[i].Discarded = false, 0
	if l = CheckLinks(p, rs, legacy); len(l.Breaks) != 0 || l.Unchecked[LinkNumbers] != 1 {
		t.Errorf("a reset line without the ticket it threw away: %+v", l)
	}
	legacy[i].Fair, legacy[i].Discarded = true, 7 // not the number after ticket 4
	if l = CheckLinks(p, rs, legacy); len(l.Breaks) != 1 || l.Breaks[0].String() != "ticket 7: numbers: thrown away by a reset after ticket 4, not the next number" {
		t.Errorf("a reset throwing ticket 7 away after ticket 4: breaks %v", l.Breaks)
	}
	// A drawn ticket hidden behind a reset that threw none away: the last
	// ticket k, a reset, ticket k+1; then ticket k deleted and the reset
	// placed after ticket k−1.
	q, full, k := p, slices.Clone(hist), p.TicketSeq
	for _, f := range []func(Player) (Step, error){
		func(q Player) (Step, error) { return Apply(q, Reset{Start: q.Balance}, time.Time{}) },
		func(q Player) (Step, error) { return Apply(q, Buy{}, time.Time{}) },
		func(q Player) (Step, error) { return Apply(q, Reveal{Ticket: q.TicketSeq, Rows: AllRows}, time.Time{}) },
	} {
		s, err := f(q)
		if err != nil {
			t.Fatal(err)
		}
		q, full = s.Player, append(full, s.History...)
	}
	noBreaks(t, CheckLinks(q, rs, full))
	full[len(hist)].After = k - 1
	full = slices.DeleteFunc(full, func(e Entry) bool { return e.Kind == KindPlay && e.TicketID == k })
	l = CheckLinks(q, rs, full)
	if len(l.Breaks) != 1 || l.Breaks[0].String() != fmt.Sprintf("ticket %d: numbers: follows ticket %d: 1 missing, 0 thrown away by a reset", k+1, k-1) {
		t.Errorf("ticket %d hidden behind a reset: breaks %v", k, l.Breaks)
	}
	// A reset's amount is counted from the balance the line before shows.
	if hist[i].Discarded != 5 || hist[i-1].Balance+hist[i].Amount != hist[i].Balance {
		t.Errorf("the reset throwing ticket 5 away: %+v after %+v", hist[i], hist[i-1])
	}

	// A reset explains one ticket, not two.
	j := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindPlay && e.TicketID == 7 })
	l = CheckLinks(p, rs, slices.Delete(slices.Clone(hist), j, j+1))
	if !slices.ContainsFunc(l.Breaks, func(b LinkBreak) bool { return b.Link == LinkNumbers && b.N == 8 }) {
		t.Errorf("ticket 7 deleted: breaks %v", l.Breaks)
	}

	// A current seed other than the one shown as the next before it
	// became current: the last revealed seed's commitment to it breaks.
	swapped := p
	swapped.Seed = p.NextSeed
	l = CheckLinks(swapped, rs, hist)
	if !slices.ContainsFunc(l.Breaks, func(b LinkBreak) bool {
		return b.Link == LinkCommitments && b.N == uint64(p.SeedNo) && strings.Contains(b.What, "as the next seed's commitment")
	}) {
		t.Errorf("current seed swapped: breaks %v", l.Breaks)
	}
	// A reveal from before the next commitment was recorded: unchecked.
	old := slices.Clone(rs)
	old[0].Next = Commitment{}
	if l = CheckLinks(p, old, hist); l.Unchecked[LinkCommitments] != 1 || len(l.Breaks) != 0 {
		t.Errorf("a reveal without its next commitment: %+v", l)
	}

	// The player's state against the history's end.
	q = p
	q.Keys = (p.Keys + 1) % MaxKeys
	l = CheckLinks(q, rs, hist)
	if len(l.Breaks) != 1 || !strings.HasPrefix(l.Breaks[0].String(), "player state: keys chain: the history leaves") {
		t.Errorf("keys of the state changed: breaks %v", l.Breaks)
	}
	l = CheckLinks(p, rs, hist[:len(hist)-1])
	if len(l.Breaks) == 0 {
		t.Errorf("the last line deleted: no break")
	}
}

// TestCheckLinksTrimmed: a history and reveals trimmed to their bounds
// start anywhere: no break, and the lines whose seed is no longer kept are
// unchecked, never checked.
func TestCheckLinksTrimmed(t *testing.T) {
	p, rs, hist := linkedPlay(t, 120, 2, 0, 0)
	kept := TrimHistory(hist)
	if len(rs) <= MaxReveals || len(kept) == len(hist) {
		t.Fatalf("%d reveals, %d lines: want more than the bounds", len(rs), len(hist))
	}
	hist, rs = kept, rs[len(rs)-MaxReveals:]
	l := CheckLinks(p, rs, hist)
	noBreaks(t, l)
	// The chests kept apart from the tickets reach back before the seeds
	// kept: those, and only those, are unchecked.
	before := int64(0)
	for _, e := range hist {
		if e.Kind == KindPlay && e.TicketID < rs[0].FirstTicket || e.Kind == KindChest && e.Chest < rs[0].FirstChest {
			before++
		}
	}
	if l.Unchecked[LinkRanges] != before || l.Checked[LinkCommitments] == 0 {
		t.Errorf("50 reveals cover the 50 last tickets, %d lines before them: %+v", before, l)
	}
	// Seeds rotated without a draw push the older lines' seeds out of
	// the reveals kept: those lines are unchecked.
	rng := rand.NewChaCha8([32]byte{43})
	for range MaxReveals - 5 {
		fresh, err := NewSeed(rng)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Apply(p, Rotate{Fresh: fresh}, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		p, rs = s.Player, append(rs, s.Reveals...)
	}
	l = CheckLinks(p, rs[len(rs)-MaxReveals:], hist)
	noBreaks(t, l)
	if l.Unchecked[LinkRanges] == 0 || l.Unchecked[LinkCommitments] != l.Unchecked[LinkRanges] {
		t.Errorf("reveals trimmed: %+v", l)
	}
}

// TestCheckLinksNames: each link and break says what it is.
func TestCheckLinksNames(t *testing.T) {
	for link, want := range map[Link]string{LinkKeys: "keys chain", LinkNumbers: "numbers", LinkCommitments: "commitments", LinkRanges: "seed ranges", NumLinks: "link(4)"} {
		if link.String() != want {
			t.Errorf("%d: %q, want %q", int(link), link, want)
		}
	}
	for b, want := range map[LinkBreak]string{
		{Link: LinkKeys, Kind: KindPlay, N: 3, What: "x"}:     "ticket 3: keys chain: x",
		{Link: LinkNumbers, Kind: KindChest, N: 2, What: "y"}: "chest 2: numbers: y",
		{Link: LinkRanges, N: 4, What: "z"}:                   "seed 4: seed ranges: z",
		{Link: LinkKeys, What: "w"}:                           "player state: keys chain: w",
	} {
		if b.String() != want {
			t.Errorf("%q, want %q", b, want)
		}
	}
}

// TestCheckRevealedLinks: without the player's state, a whole run's links
// hold, none is counted against that state, a line after the last
// revealed seed is checked against the next commitment it showed, and a
// tampered keys chain still breaks.
func TestCheckRevealedLinks(t *testing.T) {
	p, rs, hist := linkedPlay(t, 20, 6, 5, 10)
	full := CheckLinks(p, rs, hist)
	l := CheckRevealedLinks(rs, hist)
	noBreaks(t, l)
	if l.Checked[LinkKeys] >= full.Checked[LinkKeys] || l.Checked[LinkKeys] == 0 || l.Unchecked != [NumLinks]int64{} {
		t.Errorf("without the state: %+v; with it: %+v", l, full)
	}
	// A line after the last revealed seed records another commitment than
	// the one that seed showed as the next.
	j := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindPlay && e.TicketID > rs[len(rs)-1].LastTicket })
	if j < 0 {
		t.Fatal("no ticket after the last revealed seed: the test shows nothing")
	}
	swapped := slices.Clone(hist)
	swapped[j].Commitment = Seed{9}.Commitment()
	l = CheckRevealedLinks(rs, swapped)
	if !slices.ContainsFunc(l.Breaks, func(b LinkBreak) bool { return b.Link == LinkCommitments && b.N == hist[j].TicketID }) {
		t.Errorf("a current line's commitment swapped: breaks %v", l.Breaks)
	}
	// It records a revealed seed's commitment: that seed, never current
	// again, did not draw it (its range leaves it out), and the other
	// current lines are not blamed, even without the next commitment.
	swapped[j].Commitment = rs[0].Commitment()
	noNext := slices.Clone(rs)
	noNext[len(rs)-1].Next = Commitment{}
	for _, rs := range []Reveals{rs, noNext} {
		l = CheckRevealedLinks(rs, swapped)
		if len(l.Breaks) != 1 || l.Breaks[0].Link != LinkRanges || l.Breaks[0].N != hist[j].TicketID {
			t.Errorf("a current line recording seed 1's commitment: breaks %v, want only its range broken", l.Breaks)
		}
	}
	i := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindPlay && e.TicketID == 3 })
	tampered := slices.Clone(hist)
	tampered[i].KeysBefore = (tampered[i].KeysBefore + 1) % MaxKeys
	l = CheckRevealedLinks(rs, tampered)
	if !slices.ContainsFunc(l.Breaks, func(b LinkBreak) bool { return b.Link == LinkKeys && b.N == 3 }) {
		t.Errorf("ticket 3's keys changed: breaks %v", l.Breaks)
	}
}

// TestCheckLinksOneListFull: each list proves the numbers of its own lines
// whatever the other's bound. A chest line deleted from before the oldest
// kept ticket breaks the chest numbers; a ticket line deleted from before
// the oldest kept other line leaves its numbers unchecked (a trimmed reset
// line could explain the gap), never all checked.
func TestCheckLinksOneListFull(t *testing.T) {
	p, rs, hist := linkedPlay(t, 120, 1000, 0, 0)
	hist = TrimHistory(hist)
	main, others := countLines(hist)
	if main != MaxTicketLines || others >= MaxOtherLines {
		t.Fatalf("%d ticket lines, %d others: want the ticket list full, the other not", main, others)
	}
	noBreaks(t, CheckLinks(p, rs, hist))
	first := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindPlay })
	var old []int // the chest lines older than the oldest kept ticket, but the first
	for i, e := range hist[:first] {
		if e.Kind == KindChest && e.Chest > 1 {
			old = append(old, i)
		}
	}
	if len(old) < 2 {
		t.Fatalf("%d chests before the oldest kept ticket: the test shows nothing", len(old))
	}
	i := old[0]
	gone := hist[i].Chest
	for _, l := range []Links{CheckLinks(p, rs, slices.Delete(slices.Clone(hist), i, i+1)), CheckRevealedLinks(rs, slices.Delete(slices.Clone(hist), i, i+1))} {
		if !slices.ContainsFunc(l.Breaks, func(b LinkBreak) bool {
			return b.Link == LinkNumbers && b.Kind == KindChest && b.N == uint64(gone+1)
		}) {
			t.Errorf("chest %d deleted: breaks %v", gone, l.Breaks)
		}
	}
	// Chest 1 deleted: chest 2 is the first kept, and the ticket list full
	// may have lost chests from before the split: unchecked, never all match.
	i = slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindChest })
	cut := slices.Delete(slices.Clone(hist), i, i+1)
	for want, l := range map[int64]Links{0: CheckLinks(p, rs, hist), 1: CheckLinks(p, rs, cut), 2: CheckRevealedLinks(rs, cut)} {
		noBreaks(t, l)
		if hist[i].Chest != 1 || l.Unchecked[LinkNumbers] != min(want, 1) {
			t.Errorf("chest %d (1 wanted) deleted (case %d): %d numbers unchecked", hist[i].Chest, want, l.Unchecked[LinkNumbers])
		}
	}

	// The other list full, the ticket list not: tickets, grants, tickets.
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	q, err := NewPlayer(1000*Stake, Seed{1}, "c", now)
	if err != nil {
		t.Fatal(err)
	}
	q = q.WithNextSeed(Seed{2})
	hist = nil
	step := func(s Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		q, hist = s.Player, append(hist, s.History...)
	}
	var d SeededDrawer
	for i := range 40 {
		if i == 20 {
			for range MaxOtherLines + 5 {
				step(Apply(q, Grant{Amount: 1}, now))
			}
		}
		step(Apply(q, Buy{}, now))
		step(Apply(q, Reveal{Ticket: q.TicketSeq, Rows: AllRows, Drawer: d}, now))
		if q.ChestDue {
			step(Apply(q, OpenChest{Seq: q.ChestSeq + 1, Drawer: d}, now))
		}
	}
	hist = TrimHistory(hist)
	l := CheckLinks(q, nil, hist)
	noBreaks(t, l)
	if l.Unchecked[LinkNumbers] != 0 {
		t.Errorf("tickets 1 to 40 kept whole: %d numbers unchecked", l.Unchecked[LinkNumbers])
	}
	j := slices.IndexFunc(hist, func(e Entry) bool { return e.Kind == KindPlay && e.TicketID == 5 })
	l = CheckLinks(q, nil, slices.Delete(slices.Clone(hist), j, j+1))
	if len(l.Breaks) != 0 || l.Unchecked[LinkNumbers] != 1 {
		t.Errorf("ticket 5 deleted, before the oldest kept other line: %+v, want its gap unchecked", l)
	}
}
