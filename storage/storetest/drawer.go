package storetest

import (
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// ErrDraw is the error of a Drawer made to fail.
var ErrDraw = errors.New("storetest: draw failed on purpose")

// Drawer is a scripted game.Drawer for tests: PlayFunc and ChestFunc decide
// the draws from the keys held (nil means Loss(false) and
// Chest(game.LotBronze)); Fail makes every draw fail with ErrDraw. It
// counts its calls in Plays and Chests. The seeds and numbers it is given
// are ignored. It is safe for concurrent use if PlayFunc and ChestFunc are.
type Drawer struct {
	PlayFunc  func(keysHeld int) game.Outcome
	ChestFunc func() game.Chest
	Fail      atomic.Bool
	Plays     atomic.Int64
	Chests    atomic.Int64
}

var _ game.Drawer = (*Drawer)(nil)

// Ticket implements game.Drawer.
func (d *Drawer) Ticket(_ game.Seed, _ string, _ uint64, keysHeld int) (game.Outcome, error) {
	d.Plays.Add(1)
	if d.Fail.Load() {
		return game.Outcome{}, ErrDraw
	}
	if d.PlayFunc == nil {
		return Loss(false), nil
	}
	return d.PlayFunc(keysHeld), nil
}

// Chest implements game.Drawer.
func (d *Drawer) Chest(game.Seed, string, int64) (game.Chest, error) {
	d.Chests.Add(1)
	if d.Fail.Load() {
		return game.Chest{}, ErrDraw
	}
	if d.ChestFunc == nil {
		return Chest(game.LotBronze), nil
	}
	return d.ChestFunc(), nil
}

// Loss returns a losing outcome, with a key if key; it passes game.Validate.
func Loss(key bool) game.Outcome {
	o := game.Outcome{Row: -1, Key: key, Grid: game.Grid{game.Gem, game.Pipe, game.Bomb, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
	if key {
		o.Grid[8] = game.Key
	}
	return o
}

// Win returns the outcome of a winning tier on row 0, with the tier's
// prize; it passes game.Validate.
func Win(tier game.Tier) game.Outcome {
	s := tier.Symbol()
	return game.Outcome{Tier: tier, Prize: tier.Prize(), Row: 0, Grid: game.Grid{s, s, s, game.Sabre, game.Candle, game.Barrel, game.Gem, game.Pipe, game.Bomb}}
}

// Chest returns the chest of lot, with the lot's prize.
func Chest(lot game.Lot) game.Chest { return game.Chest{Lot: lot, Prize: lot.Prize()} }

// RandomDrawer returns a Drawer with varied, seeded draws, all valid: about
// one win in four (the four smallest tiers, 50 to 1,000 cents) and keys on
// losses with the regulation's chances (1/(k+2)), so that chests come
// often; chests are gold, silver or bronze.
func RandomDrawer(seed uint64) *Drawer {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Drawer{
		PlayFunc: func(k int) game.Outcome {
			mu.Lock()
			defer mu.Unlock()
			if r.IntN(4) == 0 {
				return Win(game.TierBomb + game.Tier(r.IntN(4)))
			}
			return Loss(r.IntN(k+2) == 0)
		},
		ChestFunc: func() game.Chest {
			mu.Lock()
			defer mu.Unlock()
			return Chest(game.LotGold + game.Lot(r.IntN(3)))
		},
	}
}

// Seeds returns a deterministic source of server seeds for storage.Step's
// Seeds (never 32 zero bytes in practice), safe for concurrent use.
func Seeds(seed uint64) io.Reader {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	b[31] = 1
	return &lockedReader{r: rand.NewChaCha8(b)}
}

type lockedReader struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// Clock is a settable clock, safe for concurrent use.
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
