package game

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"math"
)

// Seed is a player's secret server seed: the HMAC-SHA256 key of every draw
// of the player (hmacSource). Its String, GoString and LogValue hide it;
// Hex reveals it.
type Seed [32]byte

// NewSeed reads a new server seed from r (crypto/rand.Reader in
// production). It refuses 32 zero bytes.
func NewSeed(r io.Reader) (Seed, error) {
	var s Seed
	if _, err := io.ReadFull(r, s[:]); err != nil {
		return Seed{}, fmt.Errorf("game: new seed: %w", err)
	}
	if s == (Seed{}) {
		return Seed{}, fmt.Errorf("%w: new seed: the reader gave zeros", ErrInvalid)
	}
	return s, nil
}

func (Seed) String() string { return "game.Seed(secret)" }

func (Seed) GoString() string { return "game.Seed(secret)" }

// Purpose is the label that keeps the streams of tickets and chests apart.
type Purpose string

// The two purposes of a draw.
const (
	PurposeTicket Purpose = "ticket" // nonce: the ticket number
	PurposeChest  Purpose = "chest"  // nonce: the chest number
)

// hmacSource is the deterministic stream of one draw, block by block as
// docs/FAIRNESS.md section 2 specifies it (start writes the message). It
// is not safe for concurrent use.
type hmacSource struct {
	mac   hash.Hash // keyed with the seed
	dirty bool      // mac has been written to since hmac.New
	msg   []byte    // the message of the next block; its last 4 bytes are the counter
	block [sha256.Size]byte
	next  int    // the next unread value of block (4: none left)
	k     uint32 // the counter of the next block
}

// start rewinds s to the beginning of the stream of (purpose, client,
// nonce).
func (s *hmacSource) start(purpose Purpose, client string, nonce uint64) {
	s.msg = append(s.msg[:0], byte(len(purpose)))
	s.msg = append(s.msg, purpose...)
	s.msg = binary.BigEndian.AppendUint32(s.msg, uint32(len(client)))
	s.msg = append(s.msg, client...)
	s.msg = binary.BigEndian.AppendUint64(s.msg, nonce)
	s.msg = binary.BigEndian.AppendUint32(s.msg, 0)
	s.next, s.k = 4, 0
}

// Uint64 implements Source.
func (s *hmacSource) Uint64() uint64 {
	if s.next == 4 {
		binary.BigEndian.PutUint32(s.msg[len(s.msg)-4:], s.k)
		// A mac fresh from hmac.New is already reset; resetting it again
		// would cost a SHA-256 block, a third of a single draw.
		if s.dirty {
			s.mac.Reset()
		}
		s.dirty = true
		s.mac.Write(s.msg)
		s.mac.Sum(s.block[:0])
		s.k++
		s.next = 0
	}
	v := binary.BigEndian.Uint64(s.block[8*s.next:])
	s.next++
	return v
}

// FairDraws draws tickets and chests of one (server seed, client seed) pair
// as SeededDrawer does, keying the HMAC once (most of the cost of a single
// draw): for many draws of one seed. It is not safe for concurrent use.
type FairDraws struct {
	src    hmacSource
	client string
}

// NewFairDraws returns the draws of seed and client. The error wraps
// ErrInvalid for a zero seed or a client seed that may not draw.
func NewFairDraws(seed Seed, client string) (*FairDraws, error) {
	if seed == (Seed{}) {
		return nil, fmt.Errorf("%w: fair draws of a zero seed", ErrInvalid)
	}
	if uint64(len(client)) > math.MaxUint32 { // the most the draw's message can carry; any bytes draw
		return nil, fmt.Errorf("%w: client seed of %d bytes", ErrInvalid, len(client))
	}
	f := &FairDraws{client: client}
	f.src.mac = hmac.New(sha256.New, seed[:])
	f.src.msg = make([]byte, 0, 1+len(PurposeTicket)+4+len(client)+8+4)
	return f, nil
}

// Ticket draws ticket number ticket (1, 2, …) for a player holding keysHeld
// keys. Errors: ErrInvalid for ticket 0, ErrKeysHeld.
func (f *FairDraws) Ticket(ticket uint64, keysHeld int) (Outcome, error) {
	if ticket == 0 {
		return Outcome{}, fmt.Errorf("%w: draw of ticket 0", ErrInvalid)
	}
	if err := checkKeys(keysHeld); err != nil {
		return Outcome{}, err
	}
	f.src.start(PurposeTicket, f.client, ticket)
	return play(&f.src, keysHeld), nil
}

// Chest draws chest number seq (1, 2, …); ErrInvalid below 1.
func (f *FairDraws) Chest(seq int64) (Chest, error) {
	if seq < 1 {
		return Chest{}, fmt.Errorf("%w: draw of chest %d", ErrInvalid, seq)
	}
	return f.ChestNumber(uint64(seq))
}

// ChestNumber draws chest number n, any of the specification's numbers
// 1..2^64−1 (docs/FAIRNESS.md section 1), for a verifier; ErrInvalid for 0.
func (f *FairDraws) ChestNumber(n uint64) (Chest, error) {
	if n == 0 {
		return Chest{}, fmt.Errorf("%w: draw of chest 0", ErrInvalid)
	}
	f.src.start(PurposeChest, f.client, n)
	return chest(&f.src), nil
}

// Drawer draws the random part of a transition: Reveal calls Ticket at a
// ticket's first reveal, OpenChest calls Chest. An error, or a result the
// rules do not allow, fails the transition. Production uses SeededDrawer;
// tests force outcomes. Implementations must be safe for concurrent use.
type Drawer interface {
	// Ticket draws ticket number ticket (1, 2, …) of the player whose
	// seeds are seed and client, holding keysHeld keys (0..MaxKeys-1).
	Ticket(seed Seed, client string, ticket uint64, keysHeld int) (Outcome, error)
	// Chest draws chest number seq (1, 2, …) of the player.
	Chest(seed Seed, client string, seq int64) (Chest, error)
}

// SeededDrawer is the production Drawer: verifiable draws, a function of
// (seed, client seed, number, keys held) through hmacSource, specified in
// docs/FAIRNESS.md. A number is never drawn twice under one seed: TicketSeq
// and ChestSeq never go back. The zero value is ready and safe for
// concurrent use; for many draws of one seed, use FairDraws.
type SeededDrawer struct{}

// Ticket implements Drawer, with the errors of NewFairDraws and FairDraws.Ticket.
func (SeededDrawer) Ticket(seed Seed, client string, ticket uint64, keysHeld int) (Outcome, error) {
	f, err := NewFairDraws(seed, client)
	if err != nil {
		return Outcome{}, err
	}
	return f.Ticket(ticket, keysHeld)
}

// Chest implements Drawer, with the errors of NewFairDraws and FairDraws.Chest.
func (SeededDrawer) Chest(seed Seed, client string, seq int64) (Chest, error) {
	f, err := NewFairDraws(seed, client)
	if err != nil {
		return Chest{}, err
	}
	return f.Chest(seq)
}

// ChestNumber is FairDraws.ChestNumber of seed and client, for a verifier.
func (SeededDrawer) ChestNumber(seed Seed, client string, n uint64) (Chest, error) {
	f, err := NewFairDraws(seed, client)
	if err != nil {
		return Chest{}, err
	}
	return f.ChestNumber(n)
}
