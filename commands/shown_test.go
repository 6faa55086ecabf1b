package commands

import (
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// TestCardShowsWhatItsRowsShow: the balance counts the prize once the winning
// row is shown, the padlocks the key once its row is shown.
func TestCardShowsWhatItsRowsShow(t *testing.T) {
	win := game.Ticket{ID: 1, Drawn: true, Outcome: game.Outcome{
		Tier: game.TierBomb, Prize: 1000, Row: 1,
		Grid: game.Grid{game.Gem, game.Pipe, game.Gem, game.Bomb, game.Bomb, game.Bomb, game.Sabre, game.Candle, game.Barrel},
	}, KeysAfter: 1}
	key := game.Ticket{ID: 2, Drawn: true, Outcome: game.Outcome{
		Tier: game.TierLoss, Key: true, Row: -1,
		Grid: game.Grid{game.Gem, game.Pipe, game.Gem, game.Bomb, game.Sabre, game.Bomb, game.Sabre, game.Key, game.Barrel},
	}, KeysAfter: 2}
	chest := key
	chest.KeysAfter, chest.Chest = 0, true
	tests := []struct {
		name        string
		t           game.Ticket
		revealed    game.RowMask
		balance     int64
		keys        int
		prize, kshw bool
	}{
		{"win, nothing shown", win, 0, 1000, 1, false, false},
		{"win, another row shown", win, 0b101, 1000, 1, false, false},
		{"win, winning row shown", win, 0b010, 2000, 1, true, false},
		{"key, its row hidden", key, 0b011, 2000, 1, false, false},
		{"key, its row shown", key, 0b100, 2000, 2, false, true},
		{"third key, hidden", chest, 0b001, 2000, 2, false, false},
		{"third key, shown", chest, game.AllRows, 2000, 3, false, true},
	}
	for _, tt := range tests {
		tk := tt.t
		tk.Revealed = tt.revealed
		v := &ticketView{p: game.Player{Balance: 2000, Keys: tk.KeysAfter}, t: tk}
		if got := v.balanceShown(); got != tt.balance {
			t.Errorf("%s: balance shown %d, want %d", tt.name, got, tt.balance)
		}
		if got := v.keysShown(); got != tt.keys {
			t.Errorf("%s: keys shown %d, want %d", tt.name, got, tt.keys)
		}
		if v.t.PrizeShown() != tt.prize || v.t.KeyShown() != tt.kshw {
			t.Errorf("%s: prize shown %v, key shown %v", tt.name, v.t.PrizeShown(), v.t.KeyShown())
		}
	}
}
