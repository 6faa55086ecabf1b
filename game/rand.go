package game

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// uniform returns a uniformly distributed integer in [0, n) for 0 < n, drawn
// from src by Lemire's multiply-and-reject as docs/FAIRNESS.md section 3
// specifies it, capped at maxRejects so that a broken source cannot hang it.
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
