package e2e_test

import (
	"sync"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// script is a game.Drawer whose next outcomes the test sets. The handlers
// draw a ticket once, at its first reveal, and a chest once, when opened;
// the test sets the outcome before the click that draws.
type script struct {
	mu    sync.Mutex
	play  game.Outcome
	chest game.Chest
}

var _ game.Drawer = (*script)(nil)

func newScript() *script {
	return &script{play: loss(false), chest: chestOf(game.LotBronze)}
}

// Ticket implements game.Drawer.
func (s *script) Ticket(game.Seed, string, uint64, int) (game.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.play, nil
}

// Chest implements game.Drawer.
func (s *script) Chest(game.Seed, string, int64) (game.Chest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// The outcomes the tests force: a loss (with its key on the grid's last
// cell, row 3), a win of a tier on the first row, a chest of a lot.
var (
	loss    = storetest.Loss
	win     = storetest.Win
	chestOf = storetest.Chest
)

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
