package game

import (
	"context"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// SimChunk is the number of plays of one unit of simulation work: a new
// simulated player, drawn from the stream (Seed, chunk number) whichever
// worker plays it.
const SimChunk = 1 << 20

// SimFairChunk is SimChunk with SimConfig.Fair, whose draws are slower.
const SimFairChunk = 1 << 16

// SimConfig configures Simulate.
type SimConfig struct {
	Plays   int64  // number of plays to simulate; must be positive
	Seed    uint64 // seed of the streams; the same seed gives the same report
	Workers int    // goroutines; 0 or less means runtime.GOMAXPROCS(0)
	// Fair draws through FairDraws, grids included, as production does,
	// instead of the fast draws (outcomes only, from a seeded ChaCha8).
	Fair bool
	// OnChunk, if not nil, is called after each chunk with its plays, from
	// several goroutines at once.
	OnChunk func(plays int64)
}

// SimKeys counts the plays made while holding a given number of keys.
type SimKeys struct {
	Plays int64           // plays made holding this many keys
	Tiers [NumTiers]int64 // by result; Tiers[TierLoss] counts every loss
	Keys  int64           // losses that collected a key
}

// SimReport is what Simulate observed, with the statistics that compare it
// with the exact odds. Amounts are in cents.
type SimReport struct {
	Plays         int64
	Seed          uint64
	Workers       int
	Fair          bool // the plays were drawn through the verifiable path
	ByKeys        [MaxKeys]SimKeys
	Tiers         [NumTiers]int64 // plays by result, all key states together
	KeysCollected int64
	Chests        int64
	Lots          [NumLots]int64
	Staked        int64 // Plays × Stake
	MainWon       int64 // prizes of the main game
	ChestWon      int64 // prizes of the chests
	RTP           float64
	RTPLow        float64 // 99% confidence interval of the return to player
	RTPHigh       float64
	ExactRTP      *big.Rat
	// MainFit tests, for each number of keys held, the eight results (six
	// tiers, loss with a key, loss without) against their exact chances.
	MainFit  ChiSquare
	ChestFit ChiSquare // the chest lots against their exact chances
}

// u128 is an unsigned 128-bit accumulator, so that sums of squared prizes
// can never overflow.
type u128 struct{ hi, lo uint64 }

func (a *u128) addMul(x, y uint64) {
	h, l := bits.Mul64(x, y)
	a.add(u128{h, l})
}

func (a *u128) add(b u128) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, b.lo, 0)
	a.hi += b.hi + c
}

func (a u128) float() float64 { return float64(a.hi)*0x1p64 + float64(a.lo) }

// simAcc accumulates what one worker observed.
type simAcc struct {
	byKeys            [MaxKeys]SimKeys
	lots              [NumLots]int64
	mainWon, chestWon int64
	// The renewal cycles (Simulate): their number, the sums of their
	// lengths L and returns Y, of their squares and of their products.
	cycles              int64
	sumL, sumY          int64
	sumL2, sumY2, sumYL u128
}

func (a *simAcc) merge(b *simAcc) {
	for k := range a.byKeys {
		a.byKeys[k].Plays += b.byKeys[k].Plays
		a.byKeys[k].Keys += b.byKeys[k].Keys
		for t := range a.byKeys[k].Tiers {
			a.byKeys[k].Tiers[t] += b.byKeys[k].Tiers[t]
		}
	}
	for l := range a.lots {
		a.lots[l] += b.lots[l]
	}
	a.mainWon += b.mainWon
	a.chestWon += b.chestWon
	a.cycles += b.cycles
	a.sumL += b.sumL
	a.sumY += b.sumY
	a.sumL2.add(b.sumL2)
	a.sumY2.add(b.sumY2)
	a.sumYL.add(b.sumYL)
}

// cycle records one renewal cycle: l plays returning y cents.
func (a *simAcc) cycle(l, y int64) {
	a.cycles++
	a.sumL += l
	a.sumY += y
	a.sumL2.addMul(uint64(l), uint64(l))
	a.sumY2.addMul(uint64(y), uint64(y))
	a.sumYL.addMul(uint64(y), uint64(l))
}

// playChunk plays chunk: the first n plays of a new simulated player, the
// third key opening the chest at once; the fast draws skip the grid.
func playChunk(seed, chunk uint64, n int64, fair bool, acc *simAcc) error {
	var (
		ticket    func(n uint64, keys int) (Tier, bool, error)
		openChest func(n int64) (Chest, error)
	)
	if fair {
		f, err := NewFairDraws(simPlayer(seed, chunk))
		if err != nil {
			return err
		}
		ticket = func(n uint64, keys int) (Tier, bool, error) {
			o, err := f.Ticket(n, keys)
			return o.Tier, o.Key, err
		}
		openChest = f.Chest
	} else {
		src := NewSeededSource(seed, chunk)
		ticket = func(_ uint64, keys int) (Tier, bool, error) {
			t, key := decide(uniform(src, uint64(Pool)), keys)
			return t, key, nil
		}
		openChest = func(int64) (Chest, error) { return chest(src), nil }
	}
	var (
		keys     int
		chests   int64
		cycY     int64 // prizes since the cycle began
		cycStart int64 // play index where the cycle began
	)
	for i := int64(0); i < n; i++ {
		t, key, err := ticket(uint64(i+1), keys)
		if err != nil {
			return err
		}
		s := &acc.byKeys[keys]
		s.Plays++
		s.Tiers[t]++
		acc.mainWon += tierTable[t].prize
		cycY += tierTable[t].prize
		if key {
			s.Keys++
			keys++
		}
		if keys == MaxKeys {
			chests++
			c, err := openChest(chests)
			if err != nil {
				return err
			}
			acc.lots[c.Lot]++
			acc.chestWon += c.Prize
			acc.cycle(i+1-cycStart, cycY+c.Prize)
			cycY, cycStart, keys = 0, i+1, 0
		}
	}
	if n > cycStart {
		acc.cycle(n-cycStart, cycY)
	}
	return nil
}

// simPlayer returns the seeds of the simulated player of chunk: the bytes of
// SHA-512("clefs simulate" ‖ seed ‖ chunk, big-endian), 32 for the server
// seed, 8 more in hex for the client seed, so that any simulated ticket can
// be checked like a real one.
func simPlayer(seed, chunk uint64) (Seed, string) {
	var msg [14 + 8 + 8]byte
	copy(msg[:], "clefs simulate")
	binary.BigEndian.PutUint64(msg[14:], seed)
	binary.BigEndian.PutUint64(msg[22:], chunk)
	h := sha512.Sum512(msg[:])
	return Seed(h[:32]), hex.EncodeToString(h[32:40])
}

// Simulate plays cfg.Plays plays of a player (keys accumulate, chests open)
// on cfg.Workers goroutines and returns what it observed with its
// statistics. The report depends only on Plays, Seed and Fair. It returns
// ctx's error if ctx is cancelled before the end.
//
// The 99% interval of the return to player is a ratio estimator over renewal
// cycles: a cycle runs from one chest to the next (the chest's prize counted
// in its cycle), cycles are independent and identically distributed, and
// RTP = ΣY/(Stake·ΣL) for cycle returns Y and lengths L. Its variance, by the
// delta method, is Σ(Y−R·L)²/(m(m−1)·L̄²·Stake²) over m cycles. Each chunk
// starts a cycle; the partial cycle at its end counts as a cycle too, a
// negligible approximation (one per million plays). Treating plays as
// independent would ignore that chests come at most once every three plays.
func Simulate(ctx context.Context, cfg SimConfig) (SimReport, error) {
	if cfg.Plays <= 0 {
		return SimReport{}, fmt.Errorf("game: simulate: plays %d, want > 0", cfg.Plays)
	}
	if cfg.Plays > math.MaxInt64/Stake {
		return SimReport{}, fmt.Errorf("game: simulate: plays %d too many", cfg.Plays)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	size := int64(SimChunk)
	if cfg.Fair {
		size = SimFairChunk
	}
	chunks := (cfg.Plays + size - 1) / size
	workers = int(min(int64(workers), chunks))
	var (
		next  atomic.Int64
		mu    sync.Mutex
		total simAcc
	)
	g, gctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error {
			var acc simAcc
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				total.merge(&acc)
			}()
			for gctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= chunks {
					break
				}
				n := min(size, cfg.Plays-i*size)
				if err := playChunk(cfg.Seed, uint64(i), n, cfg.Fair, &acc); err != nil {
					return err
				}
				if cfg.OnChunk != nil {
					cfg.OnChunk(n)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return SimReport{}, fmt.Errorf("game: simulate: %w", err)
	}
	return newReport(cfg, workers, &total)
}

func newReport(cfg SimConfig, workers int, a *simAcc) (SimReport, error) {
	r := SimReport{Plays: cfg.Plays, Seed: cfg.Seed, Workers: workers, Fair: cfg.Fair, ByKeys: a.byKeys,
		Lots: a.lots, MainWon: a.mainWon, ChestWon: a.chestWon, Staked: cfg.Plays * Stake}
	var plays int64
	for _, s := range r.ByKeys {
		plays += s.Plays
		r.KeysCollected += s.Keys
		for t, n := range s.Tiers {
			r.Tiers[t] += n
		}
	}
	for _, n := range r.Lots {
		r.Chests += n
	}
	if plays != cfg.Plays || a.sumL != cfg.Plays || a.sumY != a.mainWon+a.chestWon {
		return r, fmt.Errorf("game: simulate: counts do not add up: %d plays counted of %d", plays, cfg.Plays) // Simulate's own accounting
	}
	r.ExactRTP = ComputeOdds().RTP

	// MainFit: one multinomial per number of keys held, against values of Pool.
	for k, s := range r.ByKeys {
		obs := []int64{s.Keys, s.Tiers[TierLoss] - s.Keys}
		values := []int64{keyTable[k], 12*tierTable[TierLoss].weight - keyTable[k]}
		for t := TierGem; t < NumTiers; t++ {
			obs = append(obs, s.Tiers[t])
			values = append(values, 12*tierTable[t].weight)
		}
		exp := make([]float64, len(values))
		for i, v := range values {
			exp[i] = float64(s.Plays) * float64(v) / float64(Pool)
		}
		chiSquareGroup(&r.MainFit, obs, exp)
	}
	r.MainFit.finish()
	exp := make([]float64, NumLots)
	for l := range exp {
		exp[l] = r.ExpectedLot(Lot(l))
	}
	chiSquareGroup(&r.ChestFit, r.Lots[:], exp)
	r.ChestFit.finish()

	// Return to player and its 99% interval (ratio estimator over cycles).
	m := float64(a.cycles)
	R := float64(a.sumY) / float64(a.sumL) // cents per play
	r.RTP = R / float64(Stake)
	r.RTPLow, r.RTPHigh = math.NaN(), math.NaN()
	if a.cycles > 1 {
		ss := a.sumY2.float() - 2*R*a.sumYL.float() + R*R*a.sumL2.float()
		ss = math.Max(ss, 0)
		lbar := float64(a.sumL) / m
		se := math.Sqrt(ss/(m*(m-1))) / lbar / float64(Stake)
		r.RTPLow, r.RTPHigh = r.RTP-Z99*se, r.RTP+Z99*se
	}
	return r, nil
}

// ExpectedTier returns how many plays were expected to end in tier t.
func (r SimReport) ExpectedTier(t Tier) float64 {
	return float64(r.Plays) * float64(t.Weight()) / float64(MainTotal)
}

// TierZ returns the z-score of the observed count of tier t.
func (r SimReport) TierZ(t Tier) float64 {
	p := float64(t.Weight()) / float64(MainTotal)
	return zScore(r.Tiers[t], float64(r.Plays), p)
}

// KeyRate returns the observed chance of collecting a key holding k keys.
func (r SimReport) KeyRate(k int) float64 {
	if r.ByKeys[k].Plays == 0 {
		return math.NaN()
	}
	return float64(r.ByKeys[k].Keys) / float64(r.ByKeys[k].Plays)
}

// KeyZ returns the z-score of the keys collected holding k keys.
func (r SimReport) KeyZ(k int) float64 {
	return zScore(r.ByKeys[k].Keys, float64(r.ByKeys[k].Plays), float64(keyTable[k])/float64(Pool))
}

// ExpectedLot returns how many chests were expected to hold lot l.
func (r SimReport) ExpectedLot(l Lot) float64 {
	return float64(r.Chests) * float64(l.Weight()) / float64(ChestTotal)
}

// LotZ returns the z-score of the observed count of lot l.
func (r SimReport) LotZ(l Lot) float64 {
	return zScore(r.Lots[l], float64(r.Chests), float64(l.Weight())/float64(ChestTotal))
}

func zScore(observed int64, n, p float64) float64 {
	sd := math.Sqrt(n * p * (1 - p))
	if sd == 0 {
		return math.NaN()
	}
	return (float64(observed) - n*p) / sd
}
