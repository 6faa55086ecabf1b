package game

import (
	"fmt"
	"slices"
)

// Link is a kind of link between a player's history lines, revealed seeds
// and state: a way to cheat while every draw, taken alone, recomputes.
type Link int

// The links CheckLinks checks, as docs/FAIRNESS.md section 7 ("clefs
// verify -export") states them, with their cases.
const (
	LinkKeys        Link = iota // the keys held before each ticket, at each chest and now follow from the lines before
	LinkNumbers                 // ticket and chest numbers run on, but for gaps a reset or the history's bound explains
	LinkCommitments             // each line records its seed's commitment; each seed hashes to the one shown as the next
	LinkRanges                  // the revealed seeds' ranges touch and hold every line drawn under them
	NumLinks
)

var linkNames = [NumLinks]string{"keys chain", "numbers", "commitments", "seed ranges"}

// String names the link.
func (l Link) String() string { return name(linkNames[:], l, "link") }

// LinkBreak is a link that does not hold.
type LinkBreak struct {
	Link Link
	// Kind is KindPlay for a ticket, KindChest for a chest, "" for a
	// revealed seed (N its number) or for the player's state (N 0).
	Kind Kind
	N    uint64
	What string // what broke, in words
}

// String is the break in words: what it is about, the link, what broke.
func (b LinkBreak) String() string {
	what := "player state"
	switch {
	case b.Kind == KindPlay:
		what = fmt.Sprintf("ticket %d", b.N)
	case b.Kind == KindChest:
		what = fmt.Sprintf("chest %d", b.N)
	case b.N > 0:
		what = fmt.Sprintf("seed %d", b.N)
	}
	return fmt.Sprintf("%s: %s: %s", what, b.Link, b.What)
}

// Links is what CheckLinks found: per link, how many held, how many could
// not be checked (older lines, seeds no longer kept), and the breaks.
type Links struct {
	Checked, Unchecked [NumLinks]int64
	Breaks             []LinkBreak
}

// keyState is the keys a history says the player holds.
type keyState struct {
	known bool // false before the first line that tells
	keys  int
	due   bool // the third key was found, the chest not opened yet
}

// CheckLinks checks the links of player p, given its history hist (oldest
// first) and its kept reveals rs; what a trimmed history cannot tell is
// unchecked, never broken. It does not recompute draws (Verify does). It
// is pure.
func CheckLinks(p Player, rs Reveals, hist []Entry) Links {
	return checkLinks(p, true, rs, hist)
}

// CheckRevealedLinks is CheckLinks without the player's state, as a public
// export holds a player: the links to that state are neither checked nor
// counted, and a line drawn after the last revealed seed is checked against
// the commitment that seed showed as the next. It is pure.
func CheckRevealedLinks(rs Reveals, hist []Entry) Links {
	return checkLinks(AfterReveals(rs), false, rs, hist)
}

// AfterReveals returns a player as far as revealed seeds rs tell (a public
// export): a current seed of no known value after the last of rs, and every
// number up to MaxSeq bought, so that Verify looks any line up.
func AfterReveals(rs Reveals) Player {
	p := Player{SeedNo: 1, TicketSeq: MaxSeq, ChestSeq: MaxSeq}
	if last, ok := rs.Last(); ok {
		p.SeedNo, p.SeedTicket, p.SeedChest = last.No+1, last.LastTicket, last.LastChest
	}
	return p
}

// checkLinks is CheckLinks; state tells whether p is the player's state
// or only the seed after rs (CheckRevealedLinks).
func checkLinks(p Player, state bool, rs Reveals, hist []Entry) Links {
	var l Links
	brk := func(link Link, kind Kind, n uint64, format string, args ...any) {
		l.Breaks = append(l.Breaks, LinkBreak{Link: link, Kind: kind, N: n, What: fmt.Sprintf(format, args...)})
	}
	// The keys chain runs from the line on which neither list misses one,
	// the numbers of each list from its own first kept line (firstKept), as
	// docs/FAIRNESS.md section 7 explains.
	from, whole := CompleteFrom(hist)
	firstMain, firstOther := firstKept(hist)
	after := func(i int) bool { return i >= firstOther } // no other line is missing after line i
	var st keyState
	var lastTicket, lastChest uint64
	haveTicket, haveChest := firstMain < 0, firstOther < 0 // no ticket, no chest line missing before the next
	preSplit := firstMain >= 0                             // ticket list full: the first chest line follows 0 or is unchecked, never left out
	resetsKnown := firstOther < 0                          // no reset line missing since the last ticket
	if whole {
		st.known = true
	}
	// Since the last ticket: the tickets resets threw away, which run on
	// from it, and the reset lines that do not say (written before that).
	var thrown, old uint64
	for i, e := range hist {
		keys := i >= from
		switch e.Kind {
		case KindReset:
			switch {
			case !e.Fair:
				old++
			case e.Discarded != 0:
				if haveTicket && e.Discarded != lastTicket+thrown+1 {
					brk(LinkNumbers, KindPlay, e.Discarded, "thrown away by a reset after ticket %d, not the next number", lastTicket+thrown)
				}
				thrown++
			}
			if keys {
				st = keyState{known: true}
			}
		case KindPlay:
			n := e.TicketID
			if haveTicket {
				switch gap := n - lastTicket - 1; {
				case n <= lastTicket:
					brk(LinkNumbers, KindPlay, n, "follows ticket %d", lastTicket)
				case gap == thrown:
					l.Checked[LinkNumbers]++
				case gap > thrown && (gap-thrown <= old || !resetsKnown):
					l.Unchecked[LinkNumbers]++ // resets that do not say, or reset lines trimmed from the other list
				default:
					brk(LinkNumbers, KindPlay, n, "follows ticket %d: %d missing, %d thrown away by a reset", lastTicket, gap, thrown)
				}
			}
			lastTicket, haveTicket, thrown, old, resetsKnown = n, true, 0, 0, after(i)
			if !keys {
				continue
			}
			if st.known {
				switch {
				case !e.Fair:
					l.Unchecked[LinkKeys]++
				case st.due:
					brk(LinkKeys, KindPlay, n, "bought while the chest of the third key before it was not opened (no chest line between)")
				case e.KeysBefore != st.keys:
					brk(LinkKeys, KindPlay, n, "records keys held before it: %d; the line before leaves %d", e.KeysBefore, st.keys)
				default:
					l.Checked[LinkKeys]++
				}
			}
			if e.Fair {
				st = keyState{known: true, keys: e.KeysBefore}
			}
			if st.known && e.Key {
				st.keys++
				if st.keys >= MaxKeys {
					st.keys, st.due = 0, true
				}
			}
		case KindChest:
			if keys {
				if st.known {
					if st.due {
						l.Checked[LinkKeys]++
					} else {
						brk(LinkKeys, KindChest, uint64(max(e.Chest, 0)), "opened without a third key before it")
					}
				}
				st = keyState{known: true}
			}
			if !e.Fair {
				l.Unchecked[LinkNumbers]++
				haveChest, preSplit = false, false
				continue
			}
			n := uint64(max(e.Chest, 0))
			if haveChest {
				switch {
				case n == lastChest+1:
					l.Checked[LinkNumbers]++
				case preSplit:
					l.Unchecked[LinkNumbers]++
				default:
					brk(LinkNumbers, KindChest, n, "follows chest %d", lastChest)
				}
			}
			lastChest, haveChest, preSplit = n, after(i), false
		}
	}
	// The history's last lines against the player's state.
	if !state {
		haveTicket, haveChest = false, false
	} else if st.known {
		if st.keys == p.Keys && st.due == p.ChestDue {
			l.Checked[LinkKeys]++
		} else {
			brk(LinkKeys, "", 0, "the history leaves %d keys (chest due: %v), the player holds %d (chest due: %v)", st.keys, st.due, p.Keys, p.ChestDue)
		}
	}
	if haveTicket {
		open := uint64(0)
		if t := p.Ticket; t != nil && !t.Drawn && t.ID == p.TicketSeq {
			open = 1 // bought, not drawn: no line yet
		}
		switch bought := p.TicketSeq - lastTicket; {
		case p.TicketSeq >= lastTicket && bought == open+thrown:
			l.Checked[LinkNumbers]++
		case p.TicketSeq >= lastTicket && bought > open+thrown && (bought-open-thrown <= old || !resetsKnown):
			l.Unchecked[LinkNumbers]++
		default:
			brk(LinkNumbers, "", 0, "the last ticket line is ticket %d, the player bought %d", lastTicket, p.TicketSeq)
		}
	}
	if haveChest {
		switch opened := uint64(max(p.ChestSeq, 0)); {
		case lastChest == opened:
			l.Checked[LinkNumbers]++
		case preSplit && lastChest < opened:
			l.Unchecked[LinkNumbers]++
		default:
			brk(LinkNumbers, "", 0, "the last chest line is chest %d, the player opened %d", lastChest, uint64(max(p.ChestSeq, 0)))
		}
	}
	checkRanges(&l, p, state, rs, brk)
	checkLines(&l, p, state, rs, hist, brk)
	return l
}

// numbered reports whether every seed of p and rs is numbered (records from
// before numbering have seed number 0).
func numbered(p Player, rs Reveals) bool {
	return p.SeedNo >= 1 && !slices.ContainsFunc(rs, func(r SeedReveal) bool { return r.No < 1 })
}

// checkRanges checks that the kept reveals follow one another and the
// current seed without gaps, and that none is missing before them when
// fewer than MaxReveals are kept.
func checkRanges(l *Links, p Player, state bool, rs Reveals, brk func(Link, Kind, uint64, string, ...any)) {
	num := numbered(p, rs)
	if num && len(rs) < MaxReveals && (state || len(rs) > 0) { // without the state and reveals, nothing to check
		first := p.SeedNo
		if len(rs) > 0 {
			first = rs[0].No
		}
		if first == 1 {
			l.Checked[LinkRanges]++
		} else {
			brk(LinkRanges, "", uint64(first), "seeds 1 to %d are missing, though only %d of %d reveals are kept", first-1, len(rs), MaxReveals)
		}
	}
	for i, r := range rs {
		if i+1 == len(rs) && !state {
			break // the seed after it is not known
		}
		nextNo, nextTicket, nextChest, nextSeed := p.SeedNo, p.SeedTicket+1, uint64(max(p.SeedChest, 0))+1, p.Seed
		if i+1 < len(rs) {
			nx := rs[i+1]
			nextNo, nextTicket, nextChest, nextSeed = nx.No, nx.FirstTicket, uint64(max(nx.FirstChest, 0)), nx.Seed
		}
		switch {
		case r.Next == (Commitment{}) || nextSeed == (Seed{}):
			l.Unchecked[LinkCommitments]++
		case nextSeed.Commitment() == r.Next:
			l.Checked[LinkCommitments]++
		default:
			brk(LinkCommitments, "", uint64(max(nextNo, 0)), "hashes to %s, but seed %d showed %s as the next seed's commitment", nextSeed.Commitment().Short(), r.No, r.Next.Short())
		}
		switch {
		case num && nextNo != r.No+1:
			brk(LinkRanges, "", uint64(max(r.No, 0)), "followed by seed %d", nextNo)
		case r.LastTicket+1 != nextTicket:
			brk(LinkRanges, "", uint64(max(r.No, 0)), "draws tickets %d to %d, the next seed from ticket %d", r.FirstTicket, r.LastTicket, nextTicket)
		case uint64(max(r.LastChest, 0))+1 != nextChest:
			brk(LinkRanges, "", uint64(max(r.No, 0)), "draws chests %d to %d, the next seed from chest %d", r.FirstChest, r.LastChest, nextChest)
		default:
			l.Checked[LinkRanges]++
		}
	}
}

// checkLines checks that each line drawn under a seed lies in its range and
// records that seed's commitment.
func checkLines(l *Links, p Player, state bool, rs Reveals, hist []Entry, brk func(Link, Kind, uint64, string, ...any)) {
	// Kept whole: no seed was trimmed, every fair line has its seed.
	whole := numbered(p, rs) && len(rs) < MaxReveals
	cms := make([]Commitment, len(rs)) // each seed hashed once
	for i, r := range rs {
		cms[i] = r.Commitment()
	}
	// The commitment of the seed after the last revealed: the player's
	// current seed's, or, without the state, the one shown as the next.
	current, known := p.Commitment(), p.Seed != (Seed{})
	if !state {
		current, known = Commitment{}, false
		if last, ok := rs.Last(); ok && last.Next != (Commitment{}) {
			current, known = last.Next, true
		}
	}
	for _, e := range hist {
		if !e.Fair || (e.Kind != KindPlay && e.Kind != KindChest) {
			continue
		}
		n, last := e.TicketID, p.SeedTicket // the last drawn under a revealed seed
		in := func(r SeedReveal) bool { return r.HasTicket(n) }
		kept := len(rs) > 0 && n >= rs[0].FirstTicket // not older than the kept reveals
		if e.Kind == KindChest {
			n, last = uint64(max(e.Chest, 0)), uint64(max(p.SeedChest, 0))
			in = func(r SeedReveal) bool {
				return n >= uint64(max(r.FirstChest, 0)) && n <= uint64(max(r.LastChest, 0)) && r.FirstChest <= r.LastChest
			}
			kept = len(rs) > 0 && n >= uint64(max(rs[0].FirstChest, 0))
		}
		cm := e.Commitment
		recorded := cm != (Commitment{})
		owner := -1 // the kept reveal whose commitment the line records
		if recorded {
			owner = slices.Index(cms, cm)
		}
		// Above the revealed ranges: the current seed, still secret, unless
		// the line records a revealed seed's (never current again), whose
		// range leaves it out.
		secret := n > last
		if secret && owner < 0 {
			l.Checked[LinkRanges]++
			switch {
			case !recorded || !known && state:
				l.Unchecked[LinkCommitments]++
			case !known: // the first recorded stands for the seed after the last revealed
				current, known = cm, true
			case cm == current:
				l.Checked[LinkCommitments]++
			case state:
				brk(LinkCommitments, e.Kind, n, "records commitment %s (card: %s), not the current seed's %s", cm, cm.Short(), current)
			default:
				brk(LinkCommitments, e.Kind, n, "records commitment %s (card: %s), not %s, shown as the next seed's while the last revealed seed was current or recorded by the lines before it", cm, cm.Short(), current.Short())
			}
			continue
		}
		switch i := slices.IndexFunc(rs, in); { // the kept reveal whose range holds the line
		case !secret && i >= 0:
			l.Checked[LinkRanges]++
			switch {
			case !recorded:
				l.Unchecked[LinkCommitments]++
			case cm == cms[i]:
				l.Checked[LinkCommitments]++
			case owner >= 0:
				brk(LinkCommitments, e.Kind, n, "lies in seed %d's range but records seed %d's commitment %s: the seeds' ranges were swapped", rs[i].No, rs[owner].No, cm.Short())
			default:
				brk(LinkCommitments, e.Kind, n, "records commitment %s (card: %s), but seed %d, whose range holds it, hashes to %s", cm, cm.Short(), rs[i].No, cms[i])
			}
		case owner >= 0:
			brk(LinkRanges, e.Kind, n, "drawn under seed %d (its commitment %s), whose range leaves it out", rs[owner].No, cm.Short())
		case whole || kept:
			brk(LinkRanges, e.Kind, n, "lies in no revealed seed's range, though its seed should be kept")
		default:
			l.Unchecked[LinkRanges]++
			l.Unchecked[LinkCommitments]++
		}
	}
}
