package game

import (
	"context"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// SimChunk is the number of plays of one unit of simulation work, played
// with the stream (Seed, i) whichever worker runs it.
const SimChunk = 1 << 20

// SimFairChunk is SimChunk with SimConfig.Fair, whose draws are 30 to 40
// times slower.
const SimFairChunk = 1 << 16

// Categories of a simulated play: the six winning tiers in pool order (index
// t−1 for tier t), then a loss that collects a key, then a loss that does not.
const (
	catLossKey   = NumTiers - 1 // 6
	catLossNoKey = NumTiers     // 7
	numCats      = NumTiers + 1 // 8
)

// SimConfig configures Simulate.
type SimConfig struct {
	Plays   int64  // number of plays to simulate; must be positive
	Seed    uint64 // seed of the streams; the same seed gives the same report
	Workers int    // goroutines; 0 or less means runtime.GOMAXPROCS(0)
	// Fair draws through FairDraws, grids included, as production does,
	// instead of the fast loop that draws outcomes only.
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
	MainFit ChiSquare
	// ChestFit tests the chest lots against their exact chances.
	ChestFit ChiSquare
}

// u128 is an unsigned 128-bit accumulator, so that sums of squared prizes
// can never overflow.
type u128 struct{ hi, lo uint64 }

func (a *u128) addMul(x, y uint64) {
	h, l := bits.Mul64(x, y)
	var c uint64
	a.lo, c = bits.Add64(a.lo, l, 0)
	a.hi += h + c
}

func (a *u128) add(b u128) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, b.lo, 0)
	a.hi += b.hi + c
}

func (a u128) float() float64 { return float64(a.hi)*0x1p64 + float64(a.lo) }

// simTables are the hot loop's tables, derived from the rules' tables.
type simTables struct {
	cut    [MaxKeys][numCats - 1]uint64 // cumulative thresholds over Pool
	prize  [numCats]int64
	lotCut [NumLots - 1]uint64
	start  [MaxKeys]uint64 // cumulative weights of the steady-state key share
	// bucket[k][u>>bucketShift] is the category of every u of that bucket
	// for k keys held, or mixed when a threshold falls inside the bucket.
	bucket [MaxKeys][Pool>>bucketShift + 1]uint8
}

// poolThresh is 2^64 mod Pool, the rejection threshold of Lemire's method
// for the main draw (written out because Pool is a typed constant).
const poolThresh = uint64((1 << 64) % (12 * 100_000_000))

// bucketShift sets the buckets of simTables.bucket: 2^17 values each, so
// that the three tables (3 × 9,156 bytes) stay in the L1 cache.
const bucketShift = 17

// mixed marks a bucket that holds a threshold: its values are classified by
// comparing with the thresholds.
const mixed = 0xff

func newSimTables() *simTables {
	s := new(simTables)
	for k := 0; k < MaxKeys; k++ {
		var cum uint64
		for t := TierGem; t < NumTiers; t++ {
			cum += uint64(12 * tierTable[t].weight)
			s.cut[k][t-1] = cum
		}
		s.cut[k][catLossKey] = cum + uint64(keyTable[k])
	}
	for t := TierGem; t < NumTiers; t++ {
		s.prize[t-1] = tierTable[t].prize
	}
	for k := range s.bucket {
		for b := range s.bucket[k] {
			lo := uint64(b) << bucketShift
			hi := min(lo+1<<bucketShift, uint64(Pool)) - 1
			if c := classify(&s.cut[k], lo); c == classify(&s.cut[k], hi) {
				s.bucket[k][b] = uint8(c)
			} else {
				s.bucket[k][b] = mixed
			}
		}
	}
	var cum uint64
	for l := Lot(0); l < NumLots-1; l++ {
		cum += uint64(lotTable[l].weight)
		s.lotCut[l] = cum
	}
	// Steady-state share of plays holding k keys ∝ 1/p_k ∝ Π_{j≠k} w_j.
	cum = 0
	for k := 0; k < MaxKeys; k++ {
		w := uint64(1)
		for j := 0; j < MaxKeys; j++ {
			if j != k {
				w *= uint64(keyTable[j])
			}
		}
		cum += w
		s.start[k] = cum
	}
	return s
}

// classify returns the category of u: the number of thresholds t[i] <= u,
// branch-free ((t−u−1)>>63 is 1 exactly when u >= t; all are below 2^32).
func classify(t *[numCats - 1]uint64, u uint64) uint64 {
	return (t[0]-u-1)>>63 + (t[1]-u-1)>>63 + (t[2]-u-1)>>63 + (t[3]-u-1)>>63 +
		(t[4]-u-1)>>63 + (t[5]-u-1)>>63 + (t[6]-u-1)>>63
}

// chunkAcc accumulates the counts of one worker.
type chunkAcc struct {
	counts              [MaxKeys][numCats]int64
	lots                [NumLots]int64
	mainWon, chestWon   int64
	units               int64
	sumL, sumY          int64
	sumL2, sumY2, sumYL u128
}

func (a *chunkAcc) merge(b *chunkAcc) {
	for k := range a.counts {
		for c := range a.counts[k] {
			a.counts[k][c] += b.counts[k][c]
		}
	}
	for l := range a.lots {
		a.lots[l] += b.lots[l]
	}
	a.mainWon += b.mainWon
	a.chestWon += b.chestWon
	a.units += b.units
	a.sumL += b.sumL
	a.sumY += b.sumY
	a.sumL2.add(b.sumL2)
	a.sumY2.add(b.sumY2)
	a.sumYL.add(b.sumYL)
}

// unit records one renewal cycle: l plays returning y cents.
func (a *chunkAcc) unit(l, y int64) {
	a.units++
	a.sumL += l
	a.sumY += y
	a.sumL2.addMul(uint64(l), uint64(l))
	a.sumY2.addMul(uint64(y), uint64(y))
	a.sumYL.addMul(uint64(y), uint64(l))
}

// bounded is uniform for the concrete generator of the hot loop.
func bounded(g interface{ Uint64() uint64 }, n uint64) uint64 {
	hi, lo := bits.Mul64(g.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.Uint64(), n)
		}
	}
	return hi
}

// playChunk simulates one chunk: a stretch of one player's life, started in
// the steady state of the keys held, drawing outcomes only from a PCG
// (twice as fast as ChaCha8 here) seeded by NewSeededSource(seed, chunk).
func playChunk(st *simTables, seed, chunk uint64, plays int64, acc *chunkAcc) {
	cs := NewSeededSource(seed, chunk)
	g := rand.NewPCG(cs.Uint64(), cs.Uint64())
	k := 0
	for u := bounded(g, st.start[MaxKeys-1]); u >= st.start[k]; {
		k++
	}
	counts := acc.counts
	prize := st.prize
	var (
		cycY     int64 // prizes since the cycle began
		cycStart int64 // play index where the cycle began
		mainWon  int64
	)
	const pool = uint64(Pool)
	for i := int64(0); i < plays; i++ {
		hi, lo := bits.Mul64(g.Uint64(), pool)
		if lo < pool {
			for lo < poolThresh {
				hi, lo = bits.Mul64(g.Uint64(), pool)
			}
		}
		// The category: one look-up in the bucket table, and comparisons
		// with the thresholds in the rare buckets that straddle one.
		c := uint64(st.bucket[k][hi>>bucketShift])
		if c == mixed {
			c = classify(&st.cut[k], hi)
		}
		counts[k][c]++
		cycY += prize[c&7]
		k += int((c ^ catLossKey - 1) >> 63) // +1 exactly when c == catLossKey
		if k == MaxKeys {
			// The third key opens the chest at once.
			lu := bounded(g, uint64(ChestTotal))
			lot := (st.lotCut[0] - lu - 1) >> 63 // thresholds <= lu, as in classify
			lot += (st.lotCut[1]-lu-1)>>63 + (st.lotCut[2]-lu-1)>>63
			p := lotTable[lot&3].prize
			acc.lots[lot&3]++
			acc.chestWon += p
			mainWon += cycY
			acc.unit(i+1-cycStart, cycY+p)
			cycY, cycStart, k = 0, i+1, 0
		}
	}
	mainWon += cycY
	if plays > cycStart {
		acc.unit(plays-cycStart, cycY)
	}
	acc.counts = counts
	acc.mainWon += mainWon
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

// playFairChunk simulates chunk with SimConfig.Fair: the first plays
// tickets of a new player (simPlayer), the third key opening the chest at
// once.
func playFairChunk(seed, chunk uint64, plays int64, acc *chunkAcc) error {
	server, client := simPlayer(seed, chunk)
	f, err := NewFairDraws(server, client)
	if err != nil {
		return err
	}
	var (
		k        int
		chests   int64
		cycY     int64 // prizes since the cycle began
		cycStart int64 // play index where the cycle began
	)
	for i := int64(0); i < plays; i++ {
		o, err := f.Ticket(uint64(i+1), k)
		if err != nil {
			return err
		}
		switch {
		case o.Tier.Winning():
			acc.counts[k][o.Tier-1]++
		case o.Key:
			acc.counts[k][catLossKey]++
		default:
			acc.counts[k][catLossNoKey]++
		}
		cycY += o.Prize
		if o.Key {
			k++
		}
		if k == MaxKeys {
			chests++
			c, err := f.Chest(chests)
			if err != nil {
				return err
			}
			acc.lots[c.Lot]++
			acc.chestWon += c.Prize
			acc.mainWon += cycY
			acc.unit(i+1-cycStart, cycY+c.Prize)
			cycY, cycStart, k = 0, i+1, 0
		}
	}
	acc.mainWon += cycY
	if plays > cycStart {
		acc.unit(plays-cycStart, cycY)
	}
	return nil
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
// delta method, is Σ(Y−R·L)²/(m(m−1)·L̄²·Stake²) over m cycles. The partial
// cycles at the ends of each chunk count as cycles too, a negligible
// approximation (two per million plays). Treating plays as independent would
// ignore that chests come at most once every three plays.
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
	if int64(workers) > chunks {
		workers = int(chunks)
	}
	st := newSimTables()
	play := func(i, n int64, acc *chunkAcc) error {
		if cfg.Fair {
			return playFairChunk(cfg.Seed, uint64(i), n, acc)
		}
		playChunk(st, cfg.Seed, uint64(i), n, acc)
		return nil
	}
	var (
		next     atomic.Int64
		mu       sync.Mutex
		total    chunkAcc
		firstErr error
		wg       sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				acc chunkAcc
				err error
			)
			for ctx.Err() == nil && err == nil {
				i := next.Add(1) - 1
				if i >= chunks {
					break
				}
				n := min(size, cfg.Plays-i*size)
				if err = play(i, n, &acc); err == nil && cfg.OnChunk != nil {
					cfg.OnChunk(n)
				}
			}
			mu.Lock()
			total.merge(&acc)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return SimReport{}, fmt.Errorf("game: simulate: %w", err)
	}
	if firstErr != nil {
		return SimReport{}, fmt.Errorf("game: simulate: %w", firstErr)
	}
	return newReport(cfg, workers, &total)
}

// errSimTotals guards the accounting of Simulate itself.
var errSimTotals = errors.New("game: simulate: counts do not add up")

func newReport(cfg SimConfig, workers int, a *chunkAcc) (SimReport, error) {
	r := SimReport{Plays: cfg.Plays, Seed: cfg.Seed, Workers: workers, Fair: cfg.Fair, Lots: a.lots,
		MainWon: a.mainWon, ChestWon: a.chestWon, Staked: cfg.Plays * Stake}
	var plays int64
	for k := 0; k < MaxKeys; k++ {
		s := &r.ByKeys[k]
		for c := 0; c < numCats; c++ {
			n := a.counts[k][c]
			s.Plays += n
			switch c {
			case catLossKey:
				s.Keys += n
				s.Tiers[TierLoss] += n
			case catLossNoKey:
				s.Tiers[TierLoss] += n
			default:
				s.Tiers[c+1] += n
			}
		}
		for t := range s.Tiers {
			r.Tiers[t] += s.Tiers[t]
		}
		r.KeysCollected += s.Keys
		plays += s.Plays
	}
	for _, n := range r.Lots {
		r.Chests += n
	}
	if plays != cfg.Plays || a.sumL != cfg.Plays || a.sumY != a.mainWon+a.chestWon {
		return r, fmt.Errorf("%w: %d plays counted of %d", errSimTotals, plays, cfg.Plays)
	}

	odds := ComputeOdds()
	r.ExactRTP = odds.RTP

	// Chi-square of the main game, one multinomial per number of keys held.
	for k := 0; k < MaxKeys; k++ {
		obs := a.counts[k][:]
		exp := make([]float64, numCats)
		n := float64(r.ByKeys[k].Plays)
		for c := 0; c < numCats; c++ {
			exp[c] = n * catProb(c, k)
		}
		chiSquareGroup(&r.MainFit, obs, exp)
	}
	r.MainFit.finish()
	exp := make([]float64, NumLots)
	for l := Lot(0); l < NumLots; l++ {
		exp[l] = float64(r.Chests) * float64(lotTable[l].weight) / float64(ChestTotal)
	}
	chiSquareGroup(&r.ChestFit, r.Lots[:], exp)
	r.ChestFit.finish()

	// Return to player and its 99% interval (ratio estimator over cycles).
	m := float64(a.units)
	R := float64(a.sumY) / float64(a.sumL) // cents per play
	r.RTP = R / float64(Stake)
	r.RTPLow, r.RTPHigh = math.NaN(), math.NaN()
	if a.units > 1 {
		ss := a.sumY2.float() - 2*R*a.sumYL.float() + R*R*a.sumL2.float()
		ss = math.Max(ss, 0)
		lbar := float64(a.sumL) / m
		se := math.Sqrt(ss/(m*(m-1))) / lbar / float64(Stake)
		r.RTPLow, r.RTPHigh = r.RTP-Z99*se, r.RTP+Z99*se
	}
	return r, nil
}

// catProb is the exact chance, as a float, of category c for k keys held.
func catProb(c, k int) float64 {
	switch c {
	case catLossKey:
		return float64(keyTable[k]) / float64(Pool)
	case catLossNoKey:
		return float64(12*tierTable[TierLoss].weight-keyTable[k]) / float64(Pool)
	}
	return float64(tierTable[c+1].weight) / float64(MainTotal)
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
