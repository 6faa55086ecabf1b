package game

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// testSeed returns a fixed non-zero seed whose bytes start with b.
func testSeed(b byte) Seed {
	var s Seed
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

// TestHMACSourceLayout recomputes the stream with crypto/hmac from the byte
// layout written out by hand, as a verifier following the doc comment would.
func TestHMACSourceLayout(t *testing.T) {
	seed := testSeed(7)
	tests := []struct {
		purpose Purpose
		client  string
		nonce   uint64
		msg     string // block 0; the last 4 bytes are the counter
	}{
		{PurposeTicket, "", 1, "\x06ticket" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00\x01" + "\x00\x00\x00\x00"},
		{PurposeChest, "abc", 258, "\x05chest" + "\x00\x00\x00\x03abc" + "\x00\x00\x00\x00\x00\x00\x01\x02" + "\x00\x00\x00\x00"},
		{PurposeTicket, "é", math.MaxUint64, "\x06ticket" + "\x00\x00\x00\x02\xc3\xa9" + "\xff\xff\xff\xff\xff\xff\xff\xff" + "\x00\x00\x00\x00"},
	}
	for _, tt := range tests {
		src := NewHMACSource(seed, tt.purpose, tt.client, tt.nonce)
		msg := []byte(tt.msg)
		for k := uint32(0); k < 3; k++ {
			binary.BigEndian.PutUint32(msg[len(msg)-4:], k)
			mac := hmac.New(sha256.New, seed[:])
			mac.Write(msg)
			block := mac.Sum(nil)
			for i := 0; i < 4; i++ {
				want := binary.BigEndian.Uint64(block[8*i:])
				if got := src.Uint64(); got != want {
					t.Fatalf("%s/%q/%d: value %d of block %d = %#x, want %#x", tt.purpose, tt.client, tt.nonce, i, k, got, want)
				}
			}
		}
	}
}

// TestSeededDrawerInputsMatter: the nonce, the seed, the client seed and the
// purpose each change the stream; different tickets give (almost always)
// different grids.
func TestSeededDrawerInputsMatter(t *testing.T) {
	first := func(seed Seed, p Purpose, client string, nonce uint64) uint64 {
		return NewHMACSource(seed, p, client, nonce).Uint64()
	}
	base := first(testSeed(1), PurposeTicket, "", 1)
	for name, v := range map[string]uint64{
		"nonce":   first(testSeed(1), PurposeTicket, "", 2),
		"seed":    first(testSeed(2), PurposeTicket, "", 1),
		"client":  first(testSeed(1), PurposeTicket, "x", 1),
		"purpose": first(testSeed(1), PurposeChest, "", 1),
	} {
		if v == base {
			t.Errorf("changing the %s does not change the stream", name)
		}
	}

	const n = 2000
	var d SeededDrawer
	seen := make(map[Outcome]bool, n)
	tiers := make(map[Tier]bool)
	for i := uint64(1); i <= n; i++ {
		o, err := d.Ticket(testSeed(1), "", i, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen[o] = true
		tiers[o.Tier] = true
	}
	// Two given losing grids coincide with chance 1/210^3; winning ones,
	// 1/(3·210^2): a handful of repeats at most among 2000 tickets.
	if len(seen) < n-10 || len(tiers) < 3 {
		t.Errorf("%d tickets gave %d distinct outcomes and %d tiers", n, len(seen), len(tiers))
	}
}

// errOf is the error of a call that returns a value and an error.
func errOf[T any](_ T, err error) error { return err }

// TestDrawsRefuse: SeededDrawer and FairDraws refuse a zero seed, draw
// number 0 and keys held out of range; ChestNumber draws any number but 0.
func TestDrawsRefuse(t *testing.T) {
	var d SeededDrawer
	f, err := NewFairDraws(testSeed(1), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		err, want error
	}{
		{"NewFairDraws, zero seed", errOf(NewFairDraws(Seed{}, "")), ErrInvalid},
		{"ticket, zero seed", errOf(d.Ticket(Seed{}, "", 1, 0)), ErrInvalid},
		{"ticket 0", errOf(d.Ticket(testSeed(1), "", 0, 0)), ErrInvalid},
		{"3 keys", errOf(d.Ticket(testSeed(1), "", 1, 3)), ErrKeysHeld},
		{"chest, zero seed", errOf(d.Chest(Seed{}, "", 1)), ErrInvalid},
		{"chest 0", errOf(d.Chest(testSeed(1), "", 0)), ErrInvalid},
		{"chest -1", errOf(d.Chest(testSeed(1), "", -1)), ErrInvalid},
		{"ChestNumber 0", errOf(d.ChestNumber(testSeed(1), "", 0)), ErrInvalid},
		{"ChestNumber, zero seed", errOf(d.ChestNumber(Seed{}, "", 1)), ErrInvalid},
		{"ChestNumber 2^64-1", errOf(d.ChestNumber(testSeed(1), "", math.MaxUint64)), nil},
		{"FairDraws, ticket 0", errOf(f.Ticket(0, 0)), ErrInvalid},
		{"FairDraws, 3 keys", errOf(f.Ticket(1, MaxKeys)), ErrKeysHeld},
		{"FairDraws, -1 keys", errOf(f.Ticket(1, -1)), ErrKeysHeld},
		{"FairDraws, chest 0", errOf(f.Chest(0)), ErrInvalid},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	// A refused draw leaves the next one as it would have been.
	o, err := f.Ticket(1, 0)
	if want, _ := d.Ticket(testSeed(1), "", 1, 0); err != nil || o != want {
		t.Errorf("ticket 1 after refusals: %v, %v; want %v", o, err, want)
	}
}

func TestNewSeed(t *testing.T) {
	r := bytes.NewReader(bytes.Repeat([]byte{9}, 40))
	s, err := NewSeed(r)
	if err != nil || s != (Seed{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}) || r.Len() != 8 {
		t.Fatalf("NewSeed = %x, %v, %d bytes left", s[:], err, r.Len())
	}
	if _, err := NewSeed(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Error("NewSeed accepted 31 bytes")
	}
	if _, err := NewSeed(bytes.NewReader(make([]byte, 32))); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewSeed of zeros: %v", err)
	}
	if _, err := NewSeed(iotest.ErrReader(errors.New("boom"))); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("NewSeed of a failing reader: %v", err)
	}
}

// TestFairDrawsAgreesWithSeededDrawer: one FairDraws per (seed, client
// seed), drawing tickets and chests in any order, gives what a fresh
// SeededDrawer call gives (so a draw is the same drawn again), and what
// the rules allow.
func TestFairDrawsAgreesWithSeededDrawer(t *testing.T) {
	var d SeededDrawer
	rng := NewSeededSource(9, 0)
	for _, seed := range []Seed{testSeed(1), testSeed(200)} {
		for _, client := range []string{"", "3f9a0c1d2e4b5a69", "Trésor 🔑 clé", strings.Repeat("é", 32)} {
			f, err := NewFairDraws(seed, client)
			if err != nil {
				t.Fatal(err)
			}
			for i := uint64(1); i <= 3000; i++ {
				n := i
				if i%3 == 0 {
					n = rng.Uint64() | 1
				}
				keys := int(i % MaxKeys)
				got, err1 := f.Ticket(n, keys)
				want, err2 := d.Ticket(seed, client, n, keys)
				if err1 != nil || err2 != nil || got != want {
					t.Fatalf("ticket %d, %d keys, client %q: FairDraws %v, %v; SeededDrawer %v, %v", n, keys, client, got, err1, want, err2)
				}
				if err := Validate(got); err != nil {
					t.Fatal(err)
				}
				if i%9 != 0 {
					continue
				}
				seq := int64(i / 9)
				if i%2 == 0 {
					seq = math.MaxInt64 - seq
				}
				gc, err1 := f.Chest(seq)
				wc, err2 := d.Chest(seed, client, seq)
				if err1 != nil || err2 != nil || gc != wc {
					t.Fatalf("chest %d, client %q: FairDraws %v, %v; SeededDrawer %v, %v", seq, client, gc, err1, wc, err2)
				}
			}
		}
	}
}

// TestFairDrawsStream: the stream of a reused FairDraws, over several blocks
// (a draw reads more than one block only after rejections, too rare to test
// through draws), is the stream of a fresh NewHMACSource.
func TestFairDrawsStream(t *testing.T) {
	f, err := NewFairDraws(testSeed(5), "client")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []Purpose{PurposeTicket, PurposeChest, PurposeTicket, PurposeTicket, PurposeChest} {
		nonce := uint64(i + 1)
		f.src.start(p, f.client, nonce)
		want := NewHMACSource(testSeed(5), p, "client", nonce)
		for j := 0; j < 4*i+1; j++ { // up to five blocks
			if a, b := f.src.Uint64(), want.Uint64(); a != b {
				t.Fatalf("%s %d: value %d = %#x, want %#x", p, nonce, j, a, b)
			}
		}
	}
}

func TestFairDrawsAllocs(t *testing.T) {
	f, err := NewFairDraws(testSeed(1), "3f9a0c1d2e4b5a69")
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(0)
	allocs := testing.AllocsPerRun(200, func() {
		n++
		if _, err := f.Ticket(n, int(n%MaxKeys)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Chest(int64(n)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a ticket and a chest allocate %.1f times, want 0", allocs)
	}
}
