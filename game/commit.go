package game

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the fairness records.
const (
	MaxClientSeed = 64 // bytes of a client seed
	MaxReveals    = 50 // revealed seeds a player keeps, as many as history lines
)

// Errors of commit and reveal.
var (
	// ErrClientSeed: a client seed ValidateClientSeed or CheckStoredClientSeed refuses.
	ErrClientSeed = errors.New("game: invalid client seed")
	// ErrTicketOpen: Rotate while a ticket, bought under the current seed
	// and to be drawn with it, is open.
	ErrTicketOpen = errors.New("game: a ticket is open")
	// ErrSeedSecret: the draw asked for was made under the current server
	// seed, which is still secret.
	ErrSeedSecret = errors.New("game: the server seed is still secret")
	// ErrSeedForgotten: the draw asked for was made under a seed revealed
	// so long ago that the player no longer keeps it (see MaxReveals).
	ErrSeedForgotten = errors.New("game: the server seed is no longer kept")
)

// LogValue hides the seed from log/slog.
func (Seed) LogValue() slog.Value { return slog.StringValue("secret") }

// LogValue is what log/slog writes of a player: never a secret seed.
func (p Player) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int64("balance", p.Balance), slog.Int("keys", p.Keys), slog.Bool("chest_due", p.ChestDue),
		slog.Uint64("tickets", p.TicketSeq), slog.Int64("chests", p.ChestSeq),
		slog.Int64("seed_no", p.SeedNo), slog.String("commitment", p.Commitment().Short()),
		slog.String("next_commitment", p.NextSeed.Commitment().Short()),
	)
}

// Commitment is the SHA-256 of a server seed, shown before the seed draws
// anything (docs/FAIRNESS.md).
type Commitment [sha256.Size]byte

// Commitment returns the seed's commitment.
func (s Seed) Commitment() Commitment { return sha256.Sum256(s[:]) }

// Hex returns the seed in 64 lowercase hex digits: this reveals it. Call it
// only for a revealed seed, or for an operator's export.
func (s Seed) Hex() string { return hex.EncodeToString(s[:]) }

// ParseSeed reads a seed written by Seed.Hex (upper case allowed). The
// error wraps ErrInvalid, for the zero seed too.
func ParseSeed(s string) (Seed, error) {
	var seed Seed
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(seed) {
		return Seed{}, fmt.Errorf("%w: a server seed is %d hex digits", ErrInvalid, 2*len(seed))
	}
	copy(seed[:], b)
	if seed == (Seed{}) {
		return Seed{}, fmt.Errorf("%w: the zero server seed", ErrInvalid)
	}
	return seed, nil
}

// String returns the commitment in 64 lowercase hex digits.
func (c Commitment) String() string { return hex.EncodeToString(c[:]) }

// Short returns the commitment's first 8 hex digits: the reference a
// finished card carries.
func (c Commitment) Short() string { return hex.EncodeToString(c[:4]) }

// ValidateClientSeed reports whether s may be chosen as a client seed: a
// stored one (CheckStoredClientSeed) but "", and no RefusedInClientSeed.
// The error wraps ErrClientSeed.
func ValidateClientSeed(s string) error {
	if s == "" {
		return fmt.Errorf("%w: it is empty", ErrClientSeed)
	}
	if err := CheckStoredClientSeed(s); err != nil {
		return err
	}
	if i := strings.IndexFunc(s, RefusedInClientSeed); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Errorf("%w: it holds the invisible or control character %U at byte %d", ErrClientSeed, r, i)
	}
	return nil
}

// CheckStoredClientSeed reports whether s may be a stored client seed: one
// an earlier version accepted (at most MaxClientSeed bytes of UTF-8, no
// control character) or "" (records from before client seeds), which keeps
// drawing and verifying. The error wraps ErrClientSeed.
func CheckStoredClientSeed(s string) error {
	switch {
	case len(s) > MaxClientSeed:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrClientSeed, len(s), MaxClientSeed)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: it is not UTF-8", ErrClientSeed)
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Errorf("%w: it holds the control character %U at byte %d", ErrClientSeed, r, i)
	}
	return nil
}

// RefusedInClientSeed reports whether a client seed may not hold r, an
// invisible or control character (docs/FAIRNESS.md section 1, "Client seed").
func RefusedInClientSeed(r rune) bool {
	return r != ' ' && unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Zs)
}

// NewClientSeed reads a random client seed from r: 16 hex digits.
func NewClientSeed(r io.Reader) (string, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("game: new client seed: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// SeedReveal is a server seed that has been revealed, with the client seed it
// drew with and the draws it made: tickets FirstTicket..LastTicket and
// chests FirstChest..LastChest (none when the last is below the first).
type SeedReveal struct {
	No          int64 // the seed's number: a new player's seed is 1
	Seed        Seed
	ClientSeed  string
	FirstTicket uint64
	LastTicket  uint64
	FirstChest  int64
	LastChest   int64
	CommittedAt time.Time // when it was committed (zero if unknown)
	RevealedAt  time.Time
	// Next is the commitment shown as the next seed's while this one was
	// current (zero in reveals from before it was recorded).
	Next Commitment
}

// HasTicket reports whether ticket n was drawn under r's seeds.
func (r SeedReveal) HasTicket(n uint64) bool { return n >= r.FirstTicket && n <= r.LastTicket }

// Commitment returns the commitment shown before r's seed drew.
func (r SeedReveal) Commitment() Commitment { return r.Seed.Commitment() }

// Commitment returns the commitment of the player's current server seed.
func (p Player) Commitment() Commitment { return p.Seed.Commitment() }

// SeedTickets returns the number of tickets bought under the current seeds.
func (p Player) SeedTickets() uint64 { return p.TicketSeq - p.SeedTicket }

// Reveals are the seeds a player revealed, oldest first, as a store keeps
// them beside the player (the last MaxReveals).
type Reveals []SeedReveal

// Last returns the seed revealed last, if any.
func (rs Reveals) Last() (SeedReveal, bool) {
	if len(rs) == 0 {
		return SeedReveal{}, false
	}
	return rs[len(rs)-1], true
}

// Seed returns the kept reveal of seed number no.
func (rs Reveals) Seed(no int64) (SeedReveal, bool) {
	if i := slices.IndexFunc(rs, func(r SeedReveal) bool { return r.No == no }); i >= 0 {
		return rs[i], true
	}
	return SeedReveal{}, false
}

// TicketSeed returns the seed that draws or drew ticket n: the current one
// (secret true) or one of rs. Errors: ErrUnknownTicket, ErrSeedForgotten.
func (p Player) TicketSeed(rs Reveals, n uint64) (r SeedReveal, secret bool, err error) {
	if n == 0 || n > p.TicketSeq {
		return SeedReveal{}, false, fmt.Errorf("%w: ticket %d (%d bought)", ErrUnknownTicket, n, p.TicketSeq)
	}
	if n > p.SeedTicket {
		return p.current(), true, nil
	}
	if i := slices.IndexFunc(rs, func(r SeedReveal) bool { return r.HasTicket(n) }); i >= 0 {
		return rs[i], false, nil
	}
	return SeedReveal{}, false, fmt.Errorf("%w: ticket %d", ErrSeedForgotten, n)
}

// ChestSeed is TicketSeed for chest n. Errors: ErrNoChest for a chest never
// opened, ErrSeedForgotten.
func (p Player) ChestSeed(rs Reveals, n int64) (r SeedReveal, secret bool, err error) {
	if n < 1 || n > p.ChestSeq {
		return SeedReveal{}, false, fmt.Errorf("%w: chest %d (%d opened)", ErrNoChest, n, p.ChestSeq)
	}
	if n > p.SeedChest {
		return p.current(), true, nil
	}
	if i := slices.IndexFunc(rs, func(r SeedReveal) bool { return n >= r.FirstChest && n <= r.LastChest }); i >= 0 {
		return rs[i], false, nil
	}
	return SeedReveal{}, false, fmt.Errorf("%w: chest %d", ErrSeedForgotten, n)
}

// current returns the current seeds as a SeedReveal, still secret.
func (p Player) current() SeedReveal {
	return SeedReveal{
		No: p.SeedNo, Seed: p.Seed, ClientSeed: p.ClientSeed,
		FirstTicket: p.SeedTicket + 1, LastTicket: p.TicketSeq,
		FirstChest: p.SeedChest + 1, LastChest: p.ChestSeq,
		CommittedAt: p.SeedAt,
	}
}

// WithNextSeed returns p with next (from NewSeed) as its next server seed
// if it has none and next is fresh; else p. It is pure.
func (p Player) WithNextSeed(next Seed) Player {
	if p.NextSeed == (Seed{}) && p.freshSeed(next) {
		p.NextSeed = next
	}
	return p
}

// freshSeed reports whether s is non-zero and neither of p's seeds (a
// revealed one comes back with probability 2^-256).
func (p Player) freshSeed(s Seed) bool {
	return s != (Seed{}) && s != p.Seed && s != p.NextSeed
}

// Rotate reveals the current server seed (Step.Reveals), makes the next one
// current and commits Fresh (from NewSeed) as the next. With Client not
// nil, it sets the client seed to *Client too, which draws with the next
// server seed, committed before the player chose it. Errors: ErrTicketOpen
// while a ticket is open; ErrInvalid for no next seed or a Fresh not
// fresh; ErrClientSeed for a client seed ValidateClientSeed refuses.
type Rotate struct {
	Fresh  Seed
	Client *string
}

func (m Rotate) apply(p Player, now time.Time) (Step, error) {
	client := p.ClientSeed
	if m.Client != nil {
		if err := ValidateClientSeed(*m.Client); err != nil {
			return Step{Player: p}, err
		}
		client = *m.Client
	}
	if t := p.Ticket; t != nil && t.Open() {
		return Step{Player: p}, fmt.Errorf("%w: ticket %d", ErrTicketOpen, t.ID)
	}
	if p.NextSeed == (Seed{}) {
		return Step{Player: p}, fmt.Errorf("%w: no next server seed committed", ErrInvalid)
	}
	if !p.freshSeed(m.Fresh) {
		return Step{Player: p}, fmt.Errorf("%w: new server seed is zero or already used", ErrInvalid)
	}
	if p.SeedNo == 1<<62 {
		return Step{Player: p}, fmt.Errorf("%w: no seed number left", ErrInvalid)
	}
	r := p.current()
	r.No = max(r.No, 1) // a seed from before numbering (0) is revealed as the first
	r.RevealedAt, r.Next = now, p.NextSeed.Commitment()
	n := p
	n.Seed, n.NextSeed, n.ClientSeed, n.SeedNo = p.NextSeed, m.Fresh, client, r.No+1
	n.SeedTicket, n.SeedChest, n.SeedAt = p.TicketSeq, p.ChestSeq, now
	return p.done(Step{Player: n, Result: Result{Balance: n.Balance, Seed: r.No}, Reveals: []SeedReveal{r}})
}

// Restore reveals the current server seed and the committed next one
// (Step.Reveals; the next drew nothing) and commits Seed and Next in their
// place: clefs restore's move, so that no seed that drew a ticket seen
// after the copy draws again (docs/FAIRNESS.md section 1, "Restore"). A
// ticket open and not drawn yet is drawn with Seed; one drawn keeps its
// draw, under the seed revealed. Errors: ErrInvalid for seeds zero, already
// p's or equal.
type Restore struct{ Seed, Next Seed }

func (m Restore) apply(p Player, now time.Time) (Step, error) {
	seed, next := m.Seed, m.Next
	if !p.freshSeed(seed) || !p.freshSeed(next) || seed == next || p.SeedNo >= 1<<62-1 {
		return Step{Player: p}, fmt.Errorf("%w: restore: new server seeds zero, already used or no seed number left", ErrInvalid)
	}
	last := p.TicketSeq
	if t := p.Ticket; t != nil && t.Open() && !t.Drawn {
		last-- // drawn with seed, the ticket's number with it
	}
	r := p.current()
	r.No = max(r.No, 1) // as Rotate reveals a seed from before numbering
	r.LastTicket, r.RevealedAt, r.Next = last, now, p.NextSeed.Commitment()
	s := Step{Reveals: []SeedReveal{r}}
	n, no := p, r.No
	if p.NextSeed != (Seed{}) {
		no++
		s.Reveals = append(s.Reveals, SeedReveal{No: no, Seed: p.NextSeed, ClientSeed: p.ClientSeed,
			FirstTicket: last + 1, LastTicket: last, FirstChest: p.ChestSeq + 1, LastChest: p.ChestSeq,
			CommittedAt: p.SeedAt, RevealedAt: now, Next: seed.Commitment()})
	}
	n.Seed, n.NextSeed, n.SeedNo = seed, next, no+1
	n.SeedTicket, n.SeedChest, n.SeedAt = last, p.ChestSeq, now
	s.Player, s.Result = n, Result{Balance: n.Balance, Seed: r.No}
	return p.done(s)
}

// checkSeeds reports whether p's fairness records are sound; the error is
// a *FieldError.
func (p Player) checkSeeds() error {
	bad := func(field, format string, args ...any) error { return fieldErr(field, "player: "+format, args...) }
	switch {
	case p.SeedNo < 0:
		return bad("SeedNo", "seed number %d", p.SeedNo)
	case p.SeedTicket > p.TicketSeq:
		return bad("SeedTicket, TicketSeq", "seed from ticket %d of %d", p.SeedTicket, p.TicketSeq)
	case p.SeedChest < 0 || p.SeedChest > p.ChestSeq:
		return bad("SeedChest, ChestSeq", "seed from chest %d of %d", p.SeedChest, p.ChestSeq)
	case len(p.ClientSeed) > MaxClientSeed || !utf8.ValidString(p.ClientSeed):
		return bad("ClientSeed", "client seed of %d bytes, UTF-8 %v", len(p.ClientSeed), utf8.ValidString(p.ClientSeed))
	case p.Ticket != nil && p.Ticket.Open() && !p.Ticket.Drawn && p.Ticket.ID <= p.SeedTicket:
		return bad("Ticket.ID, SeedTicket", "open ticket %d, not drawn, was bought under a revealed seed", p.Ticket.ID)
	case p.NextSeed != (Seed{}) && p.NextSeed == p.Seed:
		return bad("NextSeed", "the next seed is the current one")
	}
	return nil
}

// CheckReveals reports whether rs can be p's kept reveals: at most
// MaxReveals, numbered from 1 and ranged in order before the current seed
// (gaps allowed: Repair), none of them zero, the current seed or the next
// one. The error is a *FieldError, its Index the reveal at fault.
func (p Player) CheckReveals(rs Reveals) error {
	if len(rs) > MaxReveals {
		return fmt.Errorf("%w: %d revealed seeds kept, at most %d", ErrInvalid, len(rs), MaxReveals)
	}
	no, ticket, chest := p.SeedNo, p.SeedTicket, p.SeedChest // each reveal lies before the next
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		bad := func(field, format string, args ...any) error {
			return &FieldError{Field: field, Index: i, Err: fmt.Errorf("revealed seed %d: %s", r.No, fmt.Sprintf(format, args...))}
		}
		switch {
		case r.Seed == (Seed{}) || r.Seed == p.Seed || r.Seed == p.NextSeed:
			return bad("Seed", "zero, the current seed or the next one")
		case len(r.ClientSeed) > MaxClientSeed || !utf8.ValidString(r.ClientSeed):
			return bad("ClientSeed", "client seed of %d bytes", len(r.ClientSeed))
		case r.No < 1 || r.No >= no:
			return bad("No", "not numbered from 1 before seed %d", no)
		case r.LastTicket > ticket || r.FirstTicket > r.LastTicket+1 || r.FirstTicket == 0:
			return bad("FirstTicket, LastTicket", "tickets %d..%d, before %d", r.FirstTicket, r.LastTicket, ticket+1)
		case r.LastChest > chest || r.FirstChest > r.LastChest+1 || r.FirstChest < 1:
			return bad("FirstChest, LastChest", "chests %d..%d, before %d", r.FirstChest, r.LastChest, chest+1)
		}
		no, ticket, chest = r.No, r.FirstTicket-1, r.FirstChest-1
	}
	return nil
}

// ErrNotVerifiable: Verify of a history line that records no draw, or one
// written before lines kept what verifying needs.
var ErrNotVerifiable = errors.New("game: the line cannot be verified")

// Verification is a draw recomputed from its revealed seeds.
type Verification struct {
	Seed       SeedReveal // the seeds that drew it, revealed
	Kind       Kind       // KindPlay or KindChest
	Nonce      uint64     // the ticket or chest number
	KeysBefore int        // the keys held before the ticket (KindPlay)
	Outcome    Outcome    // the ticket recomputed (KindPlay)
	Chest      Chest      // the chest recomputed (KindChest)
	Match      bool       // the recomputed draw is what the line records
}

// Verify recomputes with d the draw that line e records, from its seeds,
// which must be among rs. It is pure but for d. Errors: ErrNotVerifiable,
// ErrSeedSecret, ErrSeedForgotten, ErrUnknownTicket, ErrNoChest, d's.
func (p Player) Verify(d Drawer, rs Reveals, e Entry) (Verification, error) {
	if !e.Fair || (e.Kind != KindPlay && e.Kind != KindChest) {
		return Verification{}, fmt.Errorf("%w: a %q line of %v", ErrNotVerifiable, e.Kind, e.At)
	}
	v := Verification{Kind: e.Kind, KeysBefore: e.KeysBefore}
	var secret bool
	var err error
	if e.Kind == KindPlay {
		v.Nonce = e.TicketID
		v.Seed, secret, err = p.TicketSeed(rs, e.TicketID)
	} else {
		v.Nonce = uint64(max(e.Chest, 0))
		v.Seed, secret, err = p.ChestSeed(rs, e.Chest)
	}
	switch {
	case err != nil:
		return Verification{}, err
	case secret:
		return Verification{}, fmt.Errorf("%w: %s %d was drawn under seed %d", ErrSeedSecret, e.Kind, v.Nonce, v.Seed.No)
	}
	// The line's commitment, when it records one, is the seed's.
	shown := e.Commitment == (Commitment{}) || e.Commitment == v.Seed.Commitment()
	if e.Kind == KindPlay {
		if v.Outcome, err = d.Ticket(v.Seed.Seed, v.Seed.ClientSeed, e.TicketID, e.KeysBefore); err != nil {
			return Verification{}, fmt.Errorf("verify ticket %d: %w", e.TicketID, err)
		}
		v.Match = v.Outcome.Tier == e.Tier && v.Outcome.Key == e.Key && v.Outcome.Grid == e.Grid && shown
		return v, nil
	}
	if v.Chest, err = d.Chest(v.Seed.Seed, v.Seed.ClientSeed, e.Chest); err != nil {
		return Verification{}, fmt.Errorf("verify chest %d: %w", e.Chest, err)
	}
	v.Match = v.Chest.Lot == e.Lot && shown
	return v, nil
}
