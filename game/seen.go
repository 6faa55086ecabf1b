package game

// A ticket is settled at its draw, but no view of the player's own state
// may tell its result before its card does (docs/game.md, "The card"): Seen
// is that rule. The stored state, which moderators see, is the truth.

// PrizeShown reports whether t's prize, if any, is on its card: its
// winning row is revealed.
func (t Ticket) PrizeShown() bool {
	o := t.Outcome
	return t.Drawn && o.Tier.Winning() && o.Row >= 0 && o.Row < 3 && t.Revealed&(1<<o.Row) != 0
}

// KeyShown reports whether the key t found, if any, is on its card: the
// row holding it is revealed, or the ticket is finished.
func (t Ticket) KeyShown() bool {
	if !t.Drawn || !t.Outcome.Key {
		return false
	}
	for i, s := range t.Outcome.Grid {
		if s == Key {
			return t.Revealed&(1<<(i/3)) != 0
		}
	}
	return !t.Open()
}

// Seen is a player as the player has seen them: what the ticket being
// revealed (Revealing) has not shown yet is taken out of the state.
type Seen struct {
	// Player is the stored state less the hidden prize and the hidden key,
	// in every count they went into. It is sound (Check) whenever the
	// stored state is, but if a moderator took the balance below the
	// hidden prize since the draw: the balance seen is then 0.
	Player Player
	// Revealing is the number of the ticket being revealed, 0 when none is.
	Revealing uint64
	// Prize and Key are what is taken out.
	Prize int64
	Key   bool
}

// Revealing returns the ticket being revealed: drawn, with rows left to
// show; nil when none is.
func (p Player) Revealing() *Ticket {
	if t := p.Ticket; t != nil && t.Drawn && t.Open() {
		return t
	}
	return nil
}

// Seen returns p as the player has seen them. hist, the history as a store
// gives it, serves only the best win when the hidden prize is the best win
// stored: a trimmed history may then understate it. It is pure.
func (p Player) Seen(hist []Entry) Seen {
	t := p.Revealing()
	if t == nil {
		return Seen{Player: p}
	}
	s := Seen{Player: p, Revealing: t.ID}
	n := &s.Player
	if o := t.Outcome; o.Tier.Winning() && !t.PrizeShown() {
		s.Prize = o.Prize
		n.Balance = max(n.Balance-o.Prize, 0) // below only if a moderator took the balance down since
		n.Stats.WonCents -= o.Prize
		n.Stats.Wins--
		if n.Stats.BestWinCents <= o.Prize {
			n.Stats.BestWinCents = bestBefore(hist, t.ID)
		}
		sp := &n.Care.Spend
		sp.WonDay, sp.WonWeek = max(sp.WonDay-o.Prize, 0), max(sp.WonWeek-o.Prize, 0)
	}
	if t.Outcome.Key && !t.KeyShown() {
		s.Key = true
		n.Stats.Keys--
		switch {
		case !t.Chest:
			n.Keys = t.KeysBefore()
		case p.ChestDue: // the third key: the chest is not due yet as far as the player knows
			n.Keys, n.ChestDue = t.KeysBefore(), false
		}
	}
	return s
}

// bestBefore returns the largest prize in hist other than ticket's: a
// winning play's (its Amount is net of the stake) or a chest's.
func bestBefore(hist []Entry, ticket uint64) int64 {
	var best int64
	for _, e := range hist {
		switch {
		case e.Kind == KindPlay && e.TicketID != ticket && e.Tier.Winning():
			best = max(best, e.Amount+Stake)
		case e.Kind == KindChest:
			best = max(best, e.Amount)
		}
	}
	return best
}

// SeenHistory returns hist (in either order) as the player has seen it:
// without the line of the ticket being revealed, and the lines placed after
// it less the prize its rows have not shown yet. hist is not modified. It
// is pure.
func (p Player) SeenHistory(hist []Entry) []Entry {
	t := p.Revealing()
	if t == nil {
		return hist
	}
	var hidden int64
	if t.Outcome.Tier.Winning() && !t.PrizeShown() {
		hidden = t.Outcome.Prize
	}
	out := make([]Entry, 0, len(hist))
	for _, e := range hist {
		switch {
		case e.Kind == KindPlay && e.TicketID == t.ID:
			continue
		case e.Kind != KindPlay && e.Placed && e.After >= t.ID:
			e.Balance = max(e.Balance-hidden, 0)
		}
		out = append(out, e)
	}
	return out
}
