package e2e_test

import (
	"sync"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// script is a game.Drawer whose next outcomes the test sets. The handlers
// draw a ticket once, at its first reveal, and a chest once, when opened;
// the test sets the outcome before the click that draws.
type script struct {
	mu     sync.Mutex
	play   game.Outcome
	chest  game.Chest
	plays  int
	chests int
}

var _ game.Drawer = (*script)(nil)

func newScript() *script {
	return &script{play: loss(false), chest: chestOf(game.LotBronze)}
}

// Ticket implements game.Drawer.
func (s *script) Ticket(game.Seed, string, uint64, int) (game.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plays++
	return s.play, nil
}

// Chest implements game.Drawer.
func (s *script) Chest(game.Seed, string, int64) (game.Chest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chests++
	return s.chest, nil
}

func (s *script) set(o game.Outcome) {
	s.mu.Lock()
	s.play = o
	s.mu.Unlock()
}

func (s *script) setChest(c game.Chest) {
	s.mu.Lock()
	s.chest = c
	s.mu.Unlock()
}

// loss returns a losing outcome; with key, its key is the grid's last cell
// (row 3).
func loss(key bool) game.Outcome {
	o := game.Outcome{Row: -1, Key: key, Grid: game.Grid{game.Gem, game.Pipe, game.Bomb, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
	if key {
		o.Grid[8] = game.Key
	}
	return o
}

// win returns a winning outcome of tier, with its prize, on the first row.
func win(tier game.Tier) game.Outcome {
	s := tier.Symbol()
	return game.Outcome{Tier: tier, Prize: tier.Prize(), Row: 0, Grid: game.Grid{s, s, s, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
}

// chestOf returns a chest of lot, with its prize.
func chestOf(lot game.Lot) game.Chest { return game.Chest{Lot: lot, Prize: lot.Prize()} }

// TestScriptedOutcomesAreValid: the outcomes the tests force are ones the
// rules allow (a transition refuses any other).
func TestScriptedOutcomesAreValid(t *testing.T) {
	os := []game.Outcome{loss(false), loss(true)}
	for tier := game.TierGem; tier < game.NumTiers; tier++ {
		os = append(os, win(tier))
	}
	for _, o := range os {
		if err := game.Validate(o); err != nil {
			t.Errorf("%v: %v", o.Grid, err)
		}
	}
}
