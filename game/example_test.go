package game_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// A ticket is drawn once, from the player's server seed and client seed,
// its number and the keys held; its grid tells the truth about the result.
// Drawing it again gives the same ticket, so that the player can check it
// once the server seed is revealed. A third key opens the chest, drawn the
// same way under its own number.
func ExampleSeededDrawer() {
	seed, err := game.NewSeed(strings.NewReader("a fixed seed, for the example..."))
	if err != nil {
		fmt.Println(err)
		return
	}
	var d game.SeededDrawer
	keys, chests := 0, int64(0)
	for n := uint64(1); n <= 8; n++ {
		o, err := d.Ticket(seed, "client", n, keys)
		if err != nil {
			fmt.Println(err)
			return
		}
		g := o.Grid.String() // one letter per cell, row by row
		fmt.Printf("ticket %d, %d keys: %s|%s|%s %-6v prize %2d key %v\n", n, keys, g[0:3], g[3:6], g[6:9], o.Tier, o.Prize, o.Key)
		if o.Key {
			keys++
		}
		if keys == game.MaxKeys {
			chests++
			c, err := d.Chest(seed, "client", chests)
			if err != nil {
				fmt.Println(err)
				return
			}
			coins, metal := c.Lot.Coins()
			fmt.Printf("chest %d: %d %s coin(s), %s\n", chests, coins, metal, game.FormatCents(c.Prize, game.English))
			keys = 0
		}
	}
	// Output:
	// ticket 1, 0 keys: BKP|GSC|SPG loss   prize  0 key true
	// ticket 2, 1 keys: SRS|KSC|RPS loss   prize  0 key true
	// ticket 3, 2 keys: SRP|RKR|CRP loss   prize  0 key true
	// chest 1: 1 silver coin(s), 1.00
	// ticket 4, 0 keys: GSK|CBS|RCB loss   prize  0 key true
	// ticket 5, 1 keys: CPP|RRR|BPR barrel prize 50 key false
	// ticket 6, 1 keys: RPP|CGK|SSP loss   prize  0 key true
	// ticket 7, 2 keys: BRS|RPB|SGB loss   prize  0 key false
	// ticket 8, 2 keys: KSC|RGP|SBR loss   prize  0 key true
	// chest 2: 1 silver coin(s), 1.00
}

func ExampleComputeOdds() {
	odds := game.ComputeOdds()
	for t := game.TierGem; t < game.NumTiers; t++ {
		o := odds.Tiers[t]
		fmt.Printf("%-6v %9s  1 in %s\n", t, game.FormatCents(o.Prize, game.English), o.OneInString(game.English))
	}
	fmt.Println("win: 1 in", odds.WinOneInString(game.English))
	fmt.Println("return to player:", odds.RTPString(2, game.English))
	// Output:
	// gem     5,000.00  1 in 2,000,000.000
	// pipe      100.00  1 in 751,879.699
	// bomb       10.00  1 in 400.000
	// sabre       5.00  1 in 86.207
	// candle      1.00  1 in 14.211
	// barrel      0.50  1 in 5.882
	// win: 1 in 3.93
	// return to player: 72.00%
}

func ExampleFormatRat() {
	odds := game.ComputeOdds()
	fmt.Println(game.FormatRat(odds.Tiers[game.TierPipe].OneIn, 3, game.French))
	fmt.Println(game.FormatRat(odds.Tiers[game.TierPipe].OneIn, 3, game.English))
	// Output:
	// 751 879,699
	// 751,879.699
}

// A player buys a ticket and reveals it; each step is a Move that a store
// applies at most once under its operation's ID, remembering the Op beside
// the player, so the double click changes nothing.
func ExampleApply() {
	seed, err := game.NewSeed(strings.NewReader("a fixed seed, for the example..."))
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	p, _ := game.NewPlayer(1000, seed, "client", now)

	// What a store does, in one atomic step: answer a remembered op with
	// its first result, or apply it and remember it (the last MaxOps).
	ops := map[string]game.Result{}
	apply := func(id string, m game.Move) (s game.Step, repeated bool, err error) {
		if r, ok := ops[id]; ok {
			return game.Step{Player: p, Result: r}, true, nil
		}
		s, err = game.Apply(p, m, now)
		if err != nil {
			return s, false, err
		}
		ops[id] = s.Result
		p = s.Player
		return s, false, nil
	}

	s, _, err := apply("interaction-1", game.Buy{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ticket %d bought, balance %d\n", s.Result.Ticket, p.Balance)

	reveal := game.Reveal{Ticket: 1, Rows: game.AllRows}
	for i := 0; i < 2; i++ { // a double click: the same interaction twice
		s, repeated, err := apply("interaction-2", reveal)
		if err != nil {
			fmt.Println(err)
			return
		}
		t := p.Ticket
		fmt.Printf("repeated %v: %v %v key %v, balance %d, keys %d, history %d\n",
			repeated, t.Outcome.Tier, t.Outcome.Grid, t.Outcome.Key, s.Result.Balance, p.Keys, len(s.History))
	}

	_, err = game.Apply(p, game.OpenChest{Seq: 1}, now)
	fmt.Println(errors.Is(err, game.ErrNoChest))
	// Output:
	// ticket 1 bought, balance 950
	// repeated false: loss BKPGSCSPG key true, balance 950, keys 1, history 1
	// repeated true: loss BKPGSCSPG key true, balance 950, keys 1, history 0
	// true
}
