package game

import (
	"bytes"
	"fmt"
)

// Stake is the price of one play, in cents (article 2 of the regulation).
const Stake int64 = 50

// MaxKeys is the number of keys that opens the treasure chest: a player
// holds 0 to MaxKeys-1 between plays.
const MaxKeys = 3

// Source is a source of uniformly distributed 64-bit values. It has the shape
// of math/rand/v2's Source, so *rand.ChaCha8 and *rand.PCG satisfy it.
type Source interface {
	Uint64() uint64
}

// Symbol is one of the seven symbols of the main game's grid.
type Symbol uint8

// The seven symbols, in the regulation's order.
const (
	Gem Symbol = iota
	Pipe
	Bomb
	Sabre
	Candle
	Barrel
	Key
	NumSymbols = 7
)

var symbolLetters = [NumSymbols]byte{'G', 'P', 'B', 'S', 'C', 'R', 'K'}
var symbolNames = [NumSymbols]string{"gem", "pipe", "bomb", "sabre", "candle", "barrel", "key"}

// String returns the symbol's English name ("gem", …, "key").
func (s Symbol) String() string { return name(symbolNames[:], s, "Symbol") }

// name returns names[v] (entry), or typ(v) for a v out of range: the
// String of the enumerations.
func name[T ~int | ~uint8](names []string, v T, typ string) string {
	if s := entry(names, v); s != "" {
		return s
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// Grid is the 3×3 grid of a play, row-major: cell (row r, column c) is Grid[3*r+c].
type Grid [9]Symbol

// Row returns the three symbols of row r (0, 1 or 2).
func (g Grid) Row(r int) [3]Symbol { return [3]Symbol{g[3*r], g[3*r+1], g[3*r+2]} }

// String encodes the grid as nine letters, one per cell ('?' for a symbol
// out of range).
func (g Grid) String() string {
	b := []byte("?????????")
	for i, s := range g {
		if s < NumSymbols {
			b[i] = symbolLetters[s]
		}
	}
	return string(b)
}

// ParseGrid decodes the nine-letter form written by Grid.String.
func ParseGrid(s string) (Grid, error) {
	var g Grid
	if len(s) != 9 {
		return g, fmt.Errorf("game: grid %q: want 9 letters, got %d", s, len(s))
	}
	for i := range 9 {
		sym := bytes.IndexByte(symbolLetters[:], s[i])
		if sym < 0 {
			return g, fmt.Errorf("game: grid %q: bad letter %q at %d", s, s[i], i)
		}
		g[i] = Symbol(sym)
	}
	return g, nil
}

// Tier is the result of the main game: a loss, or one of the six winning tiers.
type Tier uint8

// The tiers. TierLoss is the zero value; the winning tiers follow in the
// regulation's order, TierGem paying the most.
const (
	TierLoss Tier = iota
	TierGem
	TierPipe
	TierBomb
	TierSabre
	TierCandle
	TierBarrel
	NumTiers = 7
)

// Winning reports whether the tier pays a prize.
func (t Tier) Winning() bool { return t > TierLoss && t < NumTiers }

// Symbol returns the symbol shown three times on the winning row. It is
// meaningful only for winning tiers.
func (t Tier) Symbol() Symbol { return Symbol(t - 1) }

// String returns "loss" or the winning symbol's name.
func (t Tier) String() string {
	switch {
	case t == TierLoss:
		return "loss"
	case t.Winning():
		return t.Symbol().String()
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// Outcome is everything one play's draw decides.
type Outcome struct {
	Tier  Tier  // TierLoss or the winning tier
	Prize int64 // cents; 0 for a loss
	Key   bool  // a key was collected (only ever on a loss)
	Row   int8  // the winning row (0..2), or -1 for a loss
	Grid  Grid  // the grid shown, consistent with the fields above
}

// Lot is the content of the treasure chest.
type Lot uint8

// The four lots of the treasure chest, from the richest.
const (
	LotThreeGold Lot = iota // three gold coins
	LotGold                 // one gold coin
	LotSilver               // one silver coin
	LotBronze               // one bronze coin
	NumLots      = 4
)

var lotNames = [NumLots]string{"three-gold", "gold", "silver", "bronze"}

// String returns the lot's short English name.
func (l Lot) String() string { return name(lotNames[:], l, "Lot") }

// Chest is the result of opening the treasure chest; it always wins.
type Chest struct {
	Lot   Lot
	Prize int64 // cents
}
