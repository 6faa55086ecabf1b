package game

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
)

// PLACEHOLDER: replaced by the real engine (issue 2). Signatures are stable.

// Play draws one play of the main game for a player holding keysHeld keys (0..2).
func Play(src Source, keysHeld int) (Outcome, error) {
	if keysHeld < 0 || keysHeld >= MaxKeys {
		return Outcome{}, fmt.Errorf("game: keys held %d out of range 0..%d", keysHeld, MaxKeys-1)
	}
	o := Outcome{Row: -1}
	o.Grid = Grid{Gem, Pipe, Bomb, Sabre, Candle, Barrel, Gem, Pipe, Bomb}
	if src.Uint64()%2 == 0 {
		o.Key = true
		o.Grid[8] = Key
	}
	return o, nil
}

// OpenChest draws the treasure chest.
func OpenChest(src Source) Chest {
	return Chest{Lot: LotBronze, Prize: 50}
}

type secure struct{}

func (secure) Uint64() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// NewSecureSource returns a cryptographically secure Source safe for concurrent use.
func NewSecureSource() Source { return secure{} }
