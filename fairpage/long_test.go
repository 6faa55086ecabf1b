package fairpage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// mix is how a long run plays: out of 100 steps, plays buy and draw a
// ticket (opening each chest due), grants add a line to the other list,
// resets reset the player, the rest rotate the seed (no line).
type mix struct{ steps, plays, grants, resets int }

// longRun plays a player at random, as m says, long enough that its
// reveals, and one or both lists of its history, are trimmed. It returns
// what a store keeps: the last game.MaxTicketLines ticket lines and
// game.MaxOtherLines others, merged (game.MergeHistory), and its reveals.
func longRun(t *testing.T, seed byte, m mix) ([]game.Entry, game.Reveals) {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{seed})
	r := rand.New(rng)
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	newSeed := func() game.Seed {
		s, err := game.NewSeed(rng)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := game.NewPlayer(1_000_000, newSeed(), "longue partie ✓", now)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithNextSeed(newSeed())
	var hist []game.Entry
	var rs game.Reveals
	step := func(m game.Move) {
		t.Helper()
		s, err := game.Apply(p, m, now)
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if len(s.Reveals) != 0 {
			rs = append(rs, s.Reveals...)
		}
	}
	for range m.steps {
		now = now.Add(time.Minute)
		switch n := r.IntN(100); {
		case n < m.plays:
			step(game.Buy{})
			step(game.Reveal{Ticket: p.TicketSeq, Rows: game.AllRows})
			if p.ChestDue {
				step(game.OpenChest{Seq: p.ChestSeq + 1})
			}
		case n < m.plays+m.grants:
			step(game.Grant{Amount: 1})
		case n < m.plays+m.grants+m.resets:
			step(game.Reset{Start: p.Balance})
		default:
			step(game.Rotate{Fresh: newSeed()})
		}
	}
	if len(rs) <= game.MaxReveals {
		t.Fatalf("a run of %d lines has %d reveals: want them trimmed", len(hist), len(rs))
	}
	return storetest.Kept(hist), rs[len(rs)-game.MaxReveals:]
}

// lists is the number of ticket lines and other lines of hist.
func lists(hist []game.Entry) (main, others int) {
	for _, e := range hist {
		if game.MainLine(e) {
			main++
		} else {
			others++
		}
	}
	return main, others
}

// compareLinks checks hist and rs in the page and in game
// (game.CheckRevealedLinks): the same draws recomputed, each link counted
// alike, and the same breaks, in clefs verify's words. It returns what
// game finds.
func compareLinks(t *testing.T, ctx context.Context, name string, hist []game.Entry, rs game.Reveals) game.Links {
	t.Helper()
	want := game.CheckRevealedLinks(rs, hist)
	drawn := 0
	rp := game.AfterReveals(rs)
	for _, e := range hist {
		if v, err := rp.Verify(game.SeededDrawer{}, rs, e); err == nil && v.Match {
			drawn++
		}
	}
	ex := schema.NewPublicExport(1, 2, hist, rs)
	rep := checkExport(t, ctx, ex)
	if !rep.OK || rep.Counts["draws"].Checked != drawn || rep.Counts["draws"].Broken != 0 {
		t.Fatalf("%s: the page says %+v; game recomputes %d draws", name, rep, drawn)
	}
	for link, ln := range []string{"keys", "numbers", "commitments", "ranges"} {
		if c := rep.Counts[ln]; c.Checked != int(want.Checked[link]) || c.Unchecked != int(want.Unchecked[link]) {
			t.Errorf("%s, link %s: the page counts %+v, game %d checked and %d unchecked", name, ln, c, want.Checked[link], want.Unchecked[link])
		}
	}
	sameAsCLI(t, name, ex, rep) // the same breaks, in the same words
	return want
}

// testLongExports checks, on long random runs whose reveals and one or
// both history lists are trimmed, that the page finds what game finds,
// link by link: as played, nothing breaks; with a chest line deleted from
// before the oldest kept ticket (the ticket list full, the other not),
// the chest numbers break in both; with a ticket line deleted from before
// the oldest kept other line (the other list full), its gap is unchecked
// in both.
func testLongExports(t *testing.T, ctx context.Context) {
	secret := 0 // runs whose last draw is under the current seed
	for i, run := range []struct {
		m                            mix
		fullMain, fullOthers         bool
		deleteChest, deleteTkt, hide bool
	}{
		{mix{400, 60, 20, 0}, true, true, false, false, false},
		{mix{400, 60, 20, 0}, true, true, false, false, false},
		{mix{400, 60, 20, 0}, true, true, false, false, false},
		{mix{300, 60, 2, 0}, true, false, true, false, false},
		{mix{300, 60, 2, 0}, true, false, true, false, false},
		{mix{400, 8, 60, 0}, false, true, false, true, false},
		{mix{300, 14, 2, 4}, false, false, false, false, true},
	} {
		for seed := byte(1 + 20*i); ; seed++ {
			hist, rs := longRun(t, seed, run.m)
			main, others := lists(hist)
			if (main >= game.MaxTicketLines) != run.fullMain || (others >= game.MaxOtherLines) != run.fullOthers {
				continue // another seed gives the lists wanted
			}
			name := fmt.Sprintf("run %v seed %d (%d ticket lines, %d others)", run.m, seed, main, others)
			if breaks := compareLinks(t, ctx, name, hist, rs).Breaks; len(breaks) > 0 {
				t.Fatalf("%s: game breaks links: %v", name, breaks)
			}
			// The last draw, if the current seed drew it, records the oldest
			// kept seed's commitment: its range breaks, alike in both.
			j := len(hist) - 1
			for hist[j].Kind != game.KindPlay && hist[j].Kind != game.KindChest {
				j--
			}
			if last, _ := rs.Last(); hist[j].Kind == game.KindPlay && hist[j].TicketID > last.LastTicket || hist[j].Kind == game.KindChest && hist[j].Chest > last.LastChest {
				secret++
				tampered := slices.Clone(hist)
				tampered[j].Commitment = rs[0].Commitment()
				breaks := compareLinks(t, ctx, name+", the last draw recording the oldest kept seed's commitment", tampered, rs).Breaks
				if len(breaks) != 1 || breaks[0].Link != game.LinkRanges {
					t.Errorf("%s: the last draw recording the oldest kept seed's commitment: breaks %v, want its range broken", name, breaks)
				}
			}
			first := slices.IndexFunc(hist, func(e game.Entry) bool { return game.MainLine(e) })
			firstOther := slices.IndexFunc(hist, func(e game.Entry) bool { return !game.MainLine(e) })
			switch {
			case run.deleteChest:
				i := slices.IndexFunc(hist[:first], func(e game.Entry) bool { return e.Kind == game.KindChest && e.Chest > 1 })
				if i < 0 {
					t.Fatalf("%s: no chest before the oldest kept ticket", name)
				}
				breaks := compareLinks(t, ctx, name+fmt.Sprintf(", chest %d deleted", hist[i].Chest), slices.Delete(slices.Clone(hist), i, i+1), rs).Breaks
				if !slices.ContainsFunc(breaks, func(b game.LinkBreak) bool { return b.Link == game.LinkNumbers && b.Kind == game.KindChest }) {
					t.Errorf("%s: chest %d deleted: breaks %v, want the chest numbers broken", name, hist[i].Chest, breaks)
				}
				// Chest 1 deleted: chest 2 follows nothing kept, and chests
				// from before the split may have been trimmed from the full
				// ticket list: unchecked in both, never all match.
				i = slices.IndexFunc(hist, func(e game.Entry) bool { return e.Kind == game.KindChest })
				if l := compareLinks(t, ctx, name+", chest 1 deleted", slices.Delete(slices.Clone(hist), i, i+1), rs); hist[i].Chest != 1 || l.Unchecked[game.LinkNumbers] != 1 {
					t.Errorf("%s: chest %d (1 wanted) deleted: %+v, want its number unchecked", name, hist[i].Chest, l)
				}
			case run.deleteTkt:
				i := slices.IndexFunc(hist[:firstOther], func(e game.Entry) bool { return e.Kind == game.KindPlay && e.TicketID > 1 })
				if i < 0 {
					t.Fatalf("%s: no ticket before the oldest kept other line", name)
				}
				compareLinks(t, ctx, name+fmt.Sprintf(", ticket %d deleted", hist[i].TicketID), slices.Delete(slices.Clone(hist), i, i+1), rs)
			case run.hide:
				// A drawn ticket k hidden behind a reset that threw none
				// away: ticket k deleted, the reset placed after k−1.
				play := func(n uint64) int {
					return slices.IndexFunc(hist, func(e game.Entry) bool { return e.Kind == game.KindPlay && e.TicketID == n })
				}
				r := slices.IndexFunc(hist, func(e game.Entry) bool {
					return e.Kind == game.KindReset && e.Fair && e.Discarded == 0 && e.After > 1 && play(e.After-1) >= 0 && play(e.After+1) >= 0
				})
				if r < 0 {
					t.Fatalf("%s: no reset between two kept tickets", name)
				}
				k, hidden := hist[r].After, slices.Clone(hist)
				hidden[r].After = k - 1
				hidden = slices.Delete(hidden, play(k), play(k)+1)
				if breaks := compareLinks(t, ctx, name+fmt.Sprintf(", ticket %d hidden behind a reset", k), hidden, rs).Breaks; len(breaks) != 1 || breaks[0].Link != game.LinkNumbers {
					t.Errorf("%s: ticket %d hidden behind a reset: breaks %v, want the numbers broken", name, k, breaks)
				}
			}
			break
		}
	}
	if secret == 0 {
		t.Error("no run's last draw is under the current seed: a secret seed's line recording a revealed seed's commitment is not tried")
	}
}
