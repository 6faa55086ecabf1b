package game

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// uniform returns a uniformly distributed integer in [0, n) for 0 < n, drawn
// from src without modulo bias: Lemire's multiply-and-reject on 64-bit values
// ("Fast Random Integer Generation in an Interval", 2019). The rejection
// branch is taken with probability below n/2^64, i.e. practically never for
// the ranges of this package.
//
// A broken source (one that returns zero forever, say) would make the
// rejection loop spin; after maxRejects rejections, which a real source
// produces with probability below (n/2^64)^maxRejects, uniform gives up and
// returns the last value rather than hang.
func uniform(src Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n // 2^64 mod n
		for i := 0; lo < thresh && i < maxRejects; i++ {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

const maxRejects = 64

// Uniform returns a uniformly distributed integer in [0, n) drawn from src
// without modulo bias. It returns 0 when n <= 1 without using src.
func Uniform(src Source, n int64) int64 {
	if n <= 1 {
		return 0
	}
	return int64(uniform(src, uint64(n)))
}

// secureSource hands out ChaCha8 generators (math/rand/v2's ChaCha8 is a
// cryptographically strong generator with fast key erasure) seeded from
// crypto/rand, one per goroutine at a time through a sync.Pool. The pool keeps
// generators per P, so concurrent plays do not contend and a play allocates
// nothing once warm. A generator dropped by the garbage collector is simply
// replaced by a freshly seeded one.
type secureSource struct {
	pool sync.Pool
}

// maxUses bounds how many values one pooled generator yields before it is
// reseeded from the operating system. ChaCha8 already erases its key as it
// goes; reseeding bounds how far back a leaked state could be replayed forward.
const maxUses = 1 << 20

type pooledGen struct {
	g    rand.ChaCha8
	uses int
}

func newPooledGen() *pooledGen {
	p := new(pooledGen)
	p.reseed()
	return p
}

func (p *pooledGen) reseed() {
	var seed [32]byte
	// crypto/rand.Read never returns an error since Go 1.24 (it crashes the
	// program irrecoverably instead of returning predictable bytes).
	_, _ = crand.Read(seed[:])
	p.g.Seed(seed)
	p.uses = 0
}

// Uint64 implements Source.
func (p *pooledGen) Uint64() uint64 {
	p.uses++
	return p.g.Uint64()
}

// NewSecureSource returns a cryptographically secure Source safe for
// concurrent use. Play and OpenChest recognise it and borrow one generator for
// the whole draw, so a play costs one pool round trip.
func NewSecureSource() Source {
	s := &secureSource{}
	s.pool.New = func() any { return newPooledGen() }
	return s
}

func (s *secureSource) get() *pooledGen {
	p := s.pool.Get().(*pooledGen)
	if p.uses >= maxUses {
		p.reseed()
	}
	return p
}

func (s *secureSource) put(p *pooledGen) { s.pool.Put(p) }

// Uint64 implements Source. Each call borrows a generator from the pool.
func (s *secureSource) Uint64() uint64 {
	p := s.get()
	v := p.Uint64()
	s.put(p)
	return v
}

// NewSeededSource returns a deterministic ChaCha8 source for tests and
// simulations: the same (seed, stream) always gives the same sequence, and
// different streams give independent sequences. It is not safe for
// concurrent use; give each goroutine its own stream.
func NewSeededSource(seed, stream uint64) *rand.ChaCha8 {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], seed)
	binary.LittleEndian.PutUint64(key[8:], stream)
	// A constant tag keeps these keys apart from any other use of ChaCha8 seeded
	// with small integers.
	copy(key[16:], "clefs-du-tresor!")
	return rand.NewChaCha8(key)
}
