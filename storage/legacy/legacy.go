// Package legacy reads the records that the release before the schema
// (package schema, docs/STORAGE.md) wrote, so that the stores can rewrite
// them once in the schema: the embedded store's players in encoding/gob,
// the Redis store's players and history lines as the JSON of Go structs.
// Nothing writes these forms any more. The types below are copies of the
// Go structs of that release, kept only for these readers; golden files of
// records it wrote (testdata/) pin them.
package legacy

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Player is game.Player as the release before the schema stored it.
type Player struct {
	StartingBalance int64
	Balance         int64
	Keys            int
	ChestDue        bool
	ChestSeq        int64
	TicketSeq       uint64
	Ticket          *Ticket
	LastChest       *Chest
	Stats           Stats
	LastDaily       time.Time
	CreatedAt       time.Time
	Seed            [32]byte
	NextSeed        [32]byte
	ClientSeed      string
	SeedNo          int64
	SeedTicket      uint64
	SeedChest       int64
	SeedAt          time.Time
	Revealed        []SeedReveal
	Ops             []Op
	Care            Care
}

// Ticket is game.Ticket of that release.
type Ticket struct {
	ID        uint64
	BoughtAt  time.Time
	Drawn     bool
	Outcome   Outcome
	KeysAfter int
	Chest     bool
	Revealed  uint8
}

// Outcome is game.Outcome of that release.
type Outcome struct {
	Tier  uint8
	Prize int64
	Key   bool
	Row   int8
	Grid  [9]uint8
}

// Chest is game.Chest of that release.
type Chest struct {
	Lot   uint8
	Prize int64
}

// Stats is game.Stats of that release.
type Stats struct {
	Plays, StakedCents, WonCents, GrantedCents, DailyCents, Chests, BestWinCents, Wins, Keys int64
}

// SeedReveal is game.SeedReveal of that release.
type SeedReveal struct {
	No          int64
	Seed        [32]byte
	ClientSeed  string
	FirstTicket uint64
	LastTicket  uint64
	FirstChest  int64
	LastChest   int64
	CommittedAt time.Time
	RevealedAt  time.Time
}

// Op is game.Op of that release.
type Op struct {
	ID     string
	Result Result
}

// Result is game.Result of that release.
type Result struct {
	Balance int64
	Ticket  uint64
	Resumed bool
	Drawn   bool
	Opened  bool
	Chest   Chest
	Seed    int64
	Reality *Reality `json:",omitempty"`
	Amount  int64
}

// Reality is game.Reality of that release.
type Reality struct {
	Played time.Duration
	Plays  int64
	Net    int64
}

// Care is game.Care of that release.
type Care struct {
	Limits      [4]Limit
	Reminder    time.Duration
	PausedUntil time.Time
	Spend       Spend
	Session     Session
}

// Limit is game.Limit of that release.
type Limit struct {
	Amount int64
	Next   int64
	At     time.Time
}

// Spend is game.Spend of that release.
type Spend struct {
	Day        time.Time
	Week       time.Time
	StakedDay  int64
	WonDay     int64
	StakedWeek int64
	WonWeek    int64
}

// Session is game.Session of that release.
type Session struct {
	Start        time.Time
	Last         time.Time
	Plays        int64
	Net          int64
	CheckedAt    time.Time
	CheckedPlays int64
}

// Entry is game.Entry (a history line) of that release.
type Entry struct {
	At         time.Time
	Kind       string
	TicketID   uint64
	Tier       uint8
	Key        bool
	Lot        uint8
	Amount     int64
	Balance    int64
	Fair       bool
	KeysBefore int
	Grid       [9]uint8
	Chest      int64
}

// BoltRecord is a player as the embedded store kept it, in gob: its
// version, the sequence number of its last history line, its state.
type BoltRecord struct {
	Version uint64
	HSeq    uint64
	Player  Player
}

// RedisRecord is the payload (field p) of a player's hash in Redis.
type RedisRecord struct {
	Player Player
	Audit  string `json:",omitempty"` // the moderator log line of the write, "" if none
	Write  string `json:",omitempty"`
}

// Migrated is a legacy player in today's terms.
type Migrated struct {
	Player  game.Player
	Reveals game.Reveals // oldest first
	Ops     []game.Op    // oldest first
}

// DecodeBolt reads a player that the embedded store wrote in gob.
func DecodeBolt(b []byte) (BoltRecord, error) {
	var r BoltRecord
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
		return BoltRecord{}, fmt.Errorf("legacy: decode a gob player: %w", err)
	}
	return r, nil
}

// DecodeRedis reads a player's payload that the Redis store wrote.
func DecodeRedis(b []byte) (RedisRecord, error) {
	var r RedisRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return RedisRecord{}, fmt.Errorf("legacy: decode a JSON player: %w", err)
	}
	return r, nil
}

// IsRedis reports whether a Redis payload is of the legacy form.
func IsRedis(b []byte) bool { return bytes.HasPrefix(b, []byte(`{"Player":`)) }

// DecodeEntry reads a history line that either store wrote as JSON.
func DecodeEntry(b []byte) (game.Entry, error) {
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return game.Entry{}, fmt.Errorf("legacy: decode a history line: %w", err)
	}
	return e.Game(), nil
}

// IsEntry reports whether a stored history line is of the legacy form.
func IsEntry(b []byte) bool { return bytes.HasPrefix(b, []byte(`{"At":`)) }

// Game returns the line in today's terms.
func (e Entry) Game() game.Entry {
	return game.Entry{
		At: e.At, Kind: game.Kind(e.Kind), TicketID: e.TicketID, Tier: game.Tier(e.Tier), Key: e.Key, Lot: game.Lot(e.Lot),
		Amount: e.Amount, Balance: e.Balance, Fair: e.Fair, KeysBefore: e.KeysBefore, Grid: grid(e.Grid), Chest: e.Chest,
	}
}

func grid(g [9]uint8) game.Grid {
	var out game.Grid
	for i, s := range g {
		out[i] = game.Symbol(s)
	}
	return out
}

// Migrate returns p in today's terms, checked: the player, and what is now
// kept beside it.
func (p Player) Migrate() (Migrated, error) {
	n := game.Player{
		StartingBalance: p.StartingBalance, Balance: p.Balance, Keys: p.Keys, ChestDue: p.ChestDue,
		ChestSeq: p.ChestSeq, TicketSeq: p.TicketSeq,
		Stats: game.Stats{
			Plays: p.Stats.Plays, StakedCents: p.Stats.StakedCents, WonCents: p.Stats.WonCents, GrantedCents: p.Stats.GrantedCents,
			DailyCents: p.Stats.DailyCents, Chests: p.Stats.Chests, BestWinCents: p.Stats.BestWinCents, Wins: p.Stats.Wins, Keys: p.Stats.Keys,
		},
		LastDaily: p.LastDaily, CreatedAt: p.CreatedAt,
		Seed: game.Seed(p.Seed), NextSeed: game.Seed(p.NextSeed), ClientSeed: p.ClientSeed,
		SeedNo: p.SeedNo, SeedTicket: p.SeedTicket, SeedChest: p.SeedChest, SeedAt: p.SeedAt,
		Care: game.Care{
			Reminder: p.Care.Reminder, PausedUntil: p.Care.PausedUntil,
			Spend: game.Spend(p.Care.Spend), Session: game.Session(p.Care.Session),
		},
	}
	for k, l := range p.Care.Limits {
		n.Care.Limits[k] = game.Limit(l)
	}
	if t := p.Ticket; t != nil {
		n.Ticket = &game.Ticket{
			ID: t.ID, BoughtAt: t.BoughtAt, Drawn: t.Drawn, KeysAfter: t.KeysAfter, Chest: t.Chest, Revealed: game.RowMask(t.Revealed),
			Outcome: game.Outcome{Tier: game.Tier(t.Outcome.Tier), Prize: t.Outcome.Prize, Key: t.Outcome.Key, Row: t.Outcome.Row, Grid: grid(t.Outcome.Grid)},
		}
	}
	if c := p.LastChest; c != nil {
		n.LastChest = &game.Chest{Lot: game.Lot(c.Lot), Prize: c.Prize}
	}
	out := Migrated{Player: n}
	for _, r := range p.Revealed {
		out.Reveals = append(out.Reveals, game.SeedReveal{
			No: r.No, Seed: game.Seed(r.Seed), ClientSeed: r.ClientSeed, FirstTicket: r.FirstTicket, LastTicket: r.LastTicket,
			FirstChest: r.FirstChest, LastChest: r.LastChest, CommittedAt: r.CommittedAt, RevealedAt: r.RevealedAt,
		})
	}
	for _, o := range p.Ops {
		res := game.Result{
			Balance: o.Result.Balance, Ticket: o.Result.Ticket, Resumed: o.Result.Resumed, Drawn: o.Result.Drawn,
			Opened: o.Result.Opened, Chest: game.Chest{Lot: game.Lot(o.Result.Chest.Lot), Prize: o.Result.Chest.Prize},
			Seed: o.Result.Seed, Amount: o.Result.Amount,
		}
		if r := o.Result.Reality; r != nil {
			res.Reality = &game.Reality{Played: r.Played, Plays: r.Plays, Net: r.Net}
		}
		out.Ops = append(out.Ops, game.Op{ID: o.ID, Result: res})
	}
	if err := n.Check(); err != nil {
		return Migrated{}, fmt.Errorf("legacy: %w", err)
	}
	if err := n.CheckReveals(out.Reveals); err != nil {
		return Migrated{}, fmt.Errorf("legacy: %w", err)
	}
	return out, nil
}
