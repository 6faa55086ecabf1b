package storetest

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// ErrDraw is the error of a Drawer made to fail.
var ErrDraw = errors.New("storetest: draw failed on purpose")

// Drawer is a storage.Drawer for tests: PlayFunc and ChestFunc decide the
// draws (nil means Loss(false) and Chest(game.LotBronze, 50)); Fail makes every
// draw fail with ErrDraw. It counts its calls.
type Drawer struct {
	PlayFunc  func(keysHeld int) game.Outcome
	ChestFunc func() game.Chest
	Fail      atomic.Bool
	Plays     atomic.Int64
	Chests    atomic.Int64
}

// Play implements storage.Drawer.
func (d *Drawer) Play(keysHeld int) (game.Outcome, error) {
	d.Plays.Add(1)
	if d.Fail.Load() {
		return game.Outcome{}, ErrDraw
	}
	if d.PlayFunc == nil {
		return Loss(false), nil
	}
	return d.PlayFunc(keysHeld), nil
}

// Chest implements storage.Drawer.
func (d *Drawer) Chest() (game.Chest, error) {
	d.Chests.Add(1)
	if d.Fail.Load() {
		return game.Chest{}, ErrDraw
	}
	if d.ChestFunc == nil {
		return Chest(game.LotBronze, 50), nil
	}
	return d.ChestFunc(), nil
}

// Loss returns a losing outcome, with a key if key.
func Loss(key bool) game.Outcome {
	o := game.Outcome{Row: -1, Key: key, Grid: game.Grid{game.Gem, game.Pipe, game.Bomb, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
	if key {
		o.Grid[8] = game.Key
	}
	return o
}

// Win returns an outcome of tier paying prize on row 0.
func Win(tier game.Tier, prize int64) game.Outcome {
	s := tier.Symbol()
	return game.Outcome{Tier: tier, Prize: prize, Row: 0, Grid: game.Grid{s, s, s, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
}

// Chest returns a chest.
func Chest(lot game.Lot, prize int64) game.Chest { return game.Chest{Lot: lot, Prize: prize} }

// RandomDrawer returns a Drawer with varied, seeded draws: about one win in
// four (prizes 50 to 500 cents) and keys on losses with the regulation's
// chances (1/(k+2)), so that chests come often.
func RandomDrawer(seed uint64) *Drawer {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Drawer{
		PlayFunc: func(k int) game.Outcome {
			mu.Lock()
			defer mu.Unlock()
			if r.IntN(4) == 0 {
				tier := game.Tier(1 + r.IntN(6))
				return Win(tier, int64(50*(1+r.IntN(10))))
			}
			return Loss(r.IntN(k+2) == 0)
		},
		ChestFunc: func() game.Chest {
			mu.Lock()
			defer mu.Unlock()
			return Chest(game.Lot(r.IntN(game.NumLots)), int64(50+r.IntN(500)))
		},
	}
}

// Clock is a settable clock for Options.Now, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set at a fixed instant (whole milliseconds, UTC).
func NewClock() *Clock { return &Clock{t: time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
