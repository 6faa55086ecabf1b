package schema

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Line is the stored form of one line of a player's history.
type Line struct {
	At      int64  `json:"at"`           // ms
	Kind    string `json:"k"`            // "play", "chest", "daily", "grant", "set-balance", "reset", "pause", "lift-pause"
	Ticket  uint64 `json:"t,omitempty"`  // play: the ticket's number
	Tier    string `json:"tr,omitempty"` // play: "loss" or the winning symbols' name (as Outcome.tr)
	Key     bool   `json:"key,omitempty"`
	Lot     string `json:"l,omitempty"` // chest: the lot (as Chest.l)
	Amount  int64  `json:"a,omitempty"` // cents moved, signed: prize − stake for a play, the prize for a chest, the bonus, the grant, new − old balance for set-balance and reset
	Balance int64  `json:"b"`           // the balance after, cents
	// What verifying the draw needs (docs/FAIRNESS.md), absent in older
	// lines: a play's keys held before and grid, a chest's number, and the
	// commitment shown.
	KeysBefore *int   `json:"kb,omitempty"`
	Grid       string `json:"g,omitempty"`
	Chest      uint64 `json:"c,omitempty"`
	Commitment string `json:"cm,omitempty"` // 64 hex digits
	// After places a line other than a play among the plays (Entry.After);
	// absent in plays and older lines.
	After *uint64 `json:"n,omitempty"`
	// Discarded is, on a reset, the ticket bought and not drawn that it
	// threw away, 0 if none (Entry.Discarded); absent in older lines.
	Discarded *uint64 `json:"d,omitempty"`
}

// FromEntry returns the stored form of a history line.
func FromEntry(e game.Entry) Line {
	l := Line{At: ms(e.At), Kind: string(e.Kind), Ticket: e.TicketID, Key: e.Key, Amount: e.Amount, Balance: e.Balance}
	switch e.Kind {
	case game.KindPlay:
		l.Tier = e.Tier.String()
		if e.Fair {
			k := e.KeysBefore
			l.KeysBefore, l.Grid = &k, e.Grid.String()
		}
	case game.KindChest:
		l.Lot = e.Lot.String()
		if e.Fair {
			l.Chest = uint64(max(e.Chest, 0))
		}
	}
	if e.Fair {
		l.Commitment = commitmentString(e.Commitment)
	}
	if e.Placed && e.Kind != game.KindPlay {
		n := e.After
		l.After = &n
	}
	if e.Kind == game.KindReset && e.Fair {
		d := e.Discarded
		l.Discarded = &d
	}
	return l
}

// EncodeLine returns the stored form of e.
func EncodeLine(e game.Entry) ([]byte, error) {
	return marshal("history line", FromEntry(e))
}

// DecodeLine reads a history line; record names it in errors.
func DecodeLine(record string, b []byte) (game.Entry, error) {
	return decodeAs[game.Entry, Line](record, b)
}

// Game returns the history line l stores, checked: its form here (a tier
// on a play only, a lot on a chest only, kb and g together on a play
// only), its rules by game.Entry.Check.
func (l Line) Game(record string) (game.Entry, error) {
	rd := reader{record: record}
	e := game.Entry{At: rd.need("at", l.At), Kind: game.Kind(l.Kind), TicketID: l.Ticket, Key: l.Key, Amount: l.Amount, Balance: l.Balance}
	if rd.err != nil {
		return game.Entry{}, rd.err
	}
	var err error
	play, chest := e.Kind == game.KindPlay, e.Kind == game.KindChest
	var ok bool
	switch {
	case !e.Kind.Valid():
		return game.Entry{}, fieldErr(record, "k", "unknown kind %q", l.Kind)
	case l.Ticket > game.MaxSeq || l.Chest > game.MaxSeq:
		return game.Entry{}, fieldErr(record, "t", "ticket %d or chest %d beyond %d", l.Ticket, l.Chest, uint64(game.MaxSeq))
	case !play && l.Tier != "":
		return game.Entry{}, fieldErr(record, "tr", "a %q line with a tier", l.Kind)
	case !play && (l.KeysBefore != nil || l.Grid != ""):
		return game.Entry{}, fieldErr(record, "g", "a %q line with a grid", l.Kind)
	case !chest && l.Lot != "":
		return game.Entry{}, fieldErr(record, "l", "a %q line with a lot", l.Kind)
	case e.Kind != game.KindReset && l.Discarded != nil:
		return game.Entry{}, fieldErr(record, "d", "a %q line with a ticket thrown away", l.Kind)
	case play:
		if e.Tier, ok = named(l.Tier, game.Tier(game.NumTiers)); !ok {
			return game.Entry{}, fieldErr(record, "tr", "unknown tier %q", l.Tier)
		}
	case chest:
		if e.Lot, ok = named(l.Lot, game.Lot(game.NumLots)); !ok {
			return game.Entry{}, fieldErr(record, "l", "unknown lot %q", l.Lot)
		}
	}
	if l.KeysBefore != nil {
		if e.Grid, err = game.ParseGrid(l.Grid); err != nil {
			return game.Entry{}, fieldErr(record, "g", "%v", err)
		}
		e.Fair, e.KeysBefore = true, *l.KeysBefore
	} else if l.Grid != "" {
		return game.Entry{}, fieldErr(record, "g", "a grid without the keys held before (kb)")
	}
	e.Chest = int64(l.Chest)
	e.Fair = e.Fair || chest && l.Chest != 0
	if l.After != nil {
		e.After, e.Placed = *l.After, true
	}
	if l.Discarded != nil {
		e.Fair, e.Discarded = true, *l.Discarded
	}
	if l.Commitment != "" {
		if !e.Fair {
			return game.Entry{}, fieldErr(record, "cm", "a commitment on a line without its draw")
		}
		if e.Commitment, err = parseCommitment(l.Commitment); err != nil {
			return game.Entry{}, fieldErr(record, "cm", "%v", err)
		}
	}
	if err := e.Check(); err != nil {
		return game.Entry{}, gameErr(record, "", lineFields, err)
	}
	return e, nil
}

func parseCommitment(s string) (game.Commitment, error) {
	var c game.Commitment
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(c) {
		return c, fmt.Errorf("a commitment is %d hex digits", 2*len(c))
	}
	copy(c[:], b)
	return c, nil
}

// Reveal is the stored form of a server seed revealed: public from then on.
type Reveal struct {
	No          int64  `json:"no"`           // the seed's number
	Server      string `json:"s"`            // the server seed, 64 hex digits
	Client      string `json:"c,omitempty"`  // the client seed it drew with
	FirstTicket uint64 `json:"t1"`           // it drew tickets t1..t2 (none when t2 < t1)
	LastTicket  uint64 `json:"t2"`           //
	FirstChest  uint64 `json:"c1"`           // and chests c1..c2 (none when c2 < c1)
	LastChest   uint64 `json:"c2"`           //
	Committed   int64  `json:"ca,omitempty"` // when it became current, ms
	Revealed    int64  `json:"ra"`           // ms
	Next        string `json:"nc,omitempty"` // the commitment shown as the next seed's while it was current, 64 hex digits
}

// FromReveal returns the stored form of r.
func FromReveal(r game.SeedReveal) Reveal {
	return Reveal{
		No: r.No, Server: r.Seed.Hex(), Client: r.ClientSeed,
		FirstTicket: r.FirstTicket, LastTicket: r.LastTicket,
		FirstChest: uint64(max(r.FirstChest, 0)), LastChest: uint64(max(r.LastChest, 0)),
		Committed: ms(r.CommittedAt), Revealed: ms(r.RevealedAt),
		Next: commitmentString(r.Next),
	}
}

// commitmentString is c in hex, or "" for the zero commitment (not
// recorded).
func commitmentString(c game.Commitment) string {
	if c == (game.Commitment{}) {
		return ""
	}
	return c.String()
}

// EncodeReveal returns the stored form of r.
func EncodeReveal(r game.SeedReveal) ([]byte, error) {
	return marshal("reveal", FromReveal(r))
}

// DecodeReveal reads a revealed seed; record names it in errors.
func DecodeReveal(record string, b []byte) (game.SeedReveal, error) {
	return decodeAs[game.SeedReveal, Reveal](record, b)
}

// Game returns the reveal r stores, checked on its own (the chain of a
// player's reveals is game.Player.CheckReveals's).
func (r Reveal) Game(record string) (game.SeedReveal, error) {
	seed, err := game.ParseSeed(r.Server)
	if err != nil {
		return game.SeedReveal{}, fieldErr(record, "s", "%v", err)
	}
	if r.Client != "" {
		if err := game.CheckStoredClientSeed(r.Client); err != nil {
			return game.SeedReveal{}, fieldErr(record, "c", "%v", err)
		}
	}
	if r.LastTicket > game.MaxSeq || r.LastChest > game.MaxSeq || r.FirstTicket > game.MaxSeq+1 || r.FirstChest > game.MaxSeq+1 {
		return game.SeedReveal{}, fieldErr(record, "t2", "numbers beyond %d", uint64(game.MaxSeq))
	}
	if r.No < 1 {
		return game.SeedReveal{}, fieldErr(record, "no", "seed number %d, not from 1", r.No)
	}
	rd := reader{record: record}
	out := game.SeedReveal{
		No: r.No, Seed: seed, ClientSeed: r.Client,
		FirstTicket: r.FirstTicket, LastTicket: r.LastTicket, FirstChest: int64(r.FirstChest), LastChest: int64(r.LastChest),
		CommittedAt: rd.at("ca", r.Committed), RevealedAt: rd.need("ra", r.Revealed),
	}
	if r.Next != "" {
		if out.Next, err = parseCommitment(r.Next); err != nil {
			return game.SeedReveal{}, fieldErr(record, "nc", "%v", err)
		}
	}
	return out, rd.err
}

// revealsErr is the error of game.Player.CheckReveals of record's reveals
// (r), naming the reveal and its field; nil for nil.
func revealsErr(record string, err error) error {
	if fe, ok := errors.AsType[*game.FieldError](err); ok {
		return gameErr(fmt.Sprintf("%s r[%d]", record, fe.Index), "", revealFields, err)
	}
	if err != nil {
		return &FieldError{Record: record, Field: "r", Err: err}
	}
	return nil
}

// Result is the stored form of an operation's result: what answering a
// repeat of the operation needs (game.Result).
type Result struct {
	Balance int64    `json:"b"`            // cents, after the step
	Ticket  uint64   `json:"t,omitempty"`  // the ticket bought, resumed or revealed
	Resumed bool     `json:"rs,omitempty"` // a ticket was handed back, nothing charged
	Drawn   bool     `json:"d,omitempty"`  // the step drew the ticket
	Opened  bool     `json:"op,omitempty"` // the step opened the chest
	Chest   *Chest   `json:"ch,omitempty"` // the chest opened or shown again
	Seed    int64    `json:"sn,omitempty"` // the number of the server seed revealed
	Reality *Reality `json:"re,omitempty"` // the reality check the ticket's card shows
	Amount  int64    `json:"a,omitempty"`  // cents moved, signed
}

// Reality is a reality check shown.
type Reality struct {
	Played int64 `json:"pl"`            // ms played in the session
	Plays  int64 `json:"n"`             // tickets bought in it
	Net    int64 `json:"net,omitempty"` // cents, signed
}

// EncodeResult returns the stored form of r.
func EncodeResult(r game.Result) ([]byte, error) {
	out := Result{Balance: r.Balance, Ticket: r.Ticket, Resumed: r.Resumed, Drawn: r.Drawn, Opened: r.Opened, Seed: r.Seed, Amount: r.Amount}
	if r.Chest != (game.Chest{}) || r.Opened {
		out.Chest = &Chest{Lot: r.Chest.Lot.String(), Prize: r.Chest.Prize}
	}
	if re := r.Reality; re != nil {
		out.Reality = &Reality{Played: re.Played.Milliseconds(), Plays: re.Plays, Net: re.Net}
	}
	return marshal("result", out)
}

// DecodeResult reads an operation's result; record names it in errors.
func DecodeResult(record string, b []byte) (game.Result, error) {
	var r Result
	if err := decode(record, b, &r); err != nil {
		return game.Result{}, err
	}
	if r.Balance < 0 || r.Balance > game.MaxBalance {
		return game.Result{}, fieldErr(record, "b", "balance %d out of 0..%d", r.Balance, game.MaxBalance)
	}
	out := game.Result{Balance: r.Balance, Ticket: r.Ticket, Resumed: r.Resumed, Drawn: r.Drawn, Opened: r.Opened, Seed: r.Seed, Amount: r.Amount}
	if r.Chest != nil {
		c, err := r.Chest.game(record, "ch")
		if err != nil {
			return game.Result{}, err
		}
		out.Chest = c
	}
	if re := r.Reality; re != nil {
		if re.Played < 0 || re.Plays < 0 {
			return game.Result{}, fieldErr(record, "re", "%d ms, %d plays", re.Played, re.Plays)
		}
		out.Reality = &game.Reality{Played: time.Duration(re.Played) * time.Millisecond, Plays: re.Plays, Net: re.Net}
	}
	return out, nil
}
