package schema

import (
	"fmt"

	"github.com/lesclefsdutresor/clefs/game"
)

// Version is the format of the records this package writes: the field f of
// a player record, and of a dump's header.
const Version = 1

// Player is the stored form of a player: the small record that every click
// rewrites (docs/STORAGE.md §2; what it does not change is kept beside it).
type Player struct {
	Format    int     `json:"f"`            // Version
	Balance   int64   `json:"b"`            // cents, 0..MaxBalance
	Start     int64   `json:"b0,omitempty"` // the balance the player was created (or last reset) with, cents
	Keys      int     `json:"k,omitempty"`  // keys held, 0..2
	ChestDue  bool    `json:"cd,omitempty"` // the third key was found: the chest waits to be opened
	Tickets   uint64  `json:"tn,omitempty"` // tickets bought so far; the next is tn+1
	Chests    uint64  `json:"cn,omitempty"` // chests opened so far; the next is cn+1
	Ticket    *Ticket `json:"t,omitempty"`  // the last ticket bought, open or not
	LastChest *Chest  `json:"lc,omitempty"` // the last chest opened since creation or reset
	Stats     Stats   `json:"st"`
	LastDaily int64   `json:"ld,omitempty"` // the last daily bonus claimed, ms
	Created   int64   `json:"ca"`           // ms
	Seeds     *Seeds  `json:"sd,omitempty"` // always there, but in Redis, where it has a field of its own (EncodePlayerParts)
	Care      *Care   `json:"cr,omitempty"`
}

// Ticket is a ticket bought: drawn once it has an outcome.
type Ticket struct {
	No       uint64   `json:"n"`            // its number, 1..tn
	Bought   int64    `json:"at"`           // ms
	Outcome  *Outcome `json:"o,omitempty"`  // absent until drawn
	KeysThen int      `json:"ka,omitempty"` // keys held after the draw, 0..2
	Chest    bool     `json:"c,omitempty"`  // the draw gave the third key
	Rows     uint8    `json:"r,omitempty"`  // rows shown: bit 0 the top row … bit 2 the bottom one; 7 all (the ticket is finished)
}

// Outcome is a ticket's draw.
type Outcome struct {
	Tier  string `json:"tr"`          // "loss", or the three symbols' name: "gem", "pipe", "bomb", "sabre", "candle", "barrel"
	Prize int64  `json:"p,omitempty"` // cents
	Key   bool   `json:"k,omitempty"` // a key was collected
	Row   int8   `json:"w"`           // the winning row 0..2, -1 for a loss
	Grid  string `json:"g"`           // nine letters, row by row: G gem, P pipe, B bomb, S sabre, C candle, R barrel, K key
}

// Chest is a chest opened.
type Chest struct {
	Lot   string `json:"l"` // "three-gold", "gold", "silver", "bronze"
	Prize int64  `json:"p"` // cents
}

// Stats are a player's running totals. Its fields are game.Stats's, in
// its order, so that each converts to the other; a field added there
// fails to compile here rather than going unstored.
type Stats struct {
	Plays        int64 `json:"n,omitempty"`  // tickets bought
	StakedCents  int64 `json:"s,omitempty"`  // n × 50
	WonCents     int64 `json:"w,omitempty"`  // prizes of tickets and chests
	GrantedCents int64 `json:"g,omitempty"`  // moderators' grants and adjustments, signed
	DailyCents   int64 `json:"d,omitempty"`  // daily bonuses
	Chests       int64 `json:"c,omitempty"`  // chests opened
	BestWinCents int64 `json:"bw,omitempty"` // the largest single prize
	Wins         int64 `json:"wn,omitempty"` // winning tickets
	Keys         int64 `json:"k,omitempty"`  // keys collected
}

// Seeds are the player's current fairness records (docs/FAIRNESS.md).
type Seeds struct {
	Server    string `json:"s"`            // the secret server seed, 64 hex digits
	Next      string `json:"n,omitempty"`  // the next server seed, 64 hex digits (its commitment is shown)
	Client    string `json:"c,omitempty"`  // the client seed, UTF-8, 1..64 bytes
	No        int64  `json:"no,omitempty"` // the current server seed's number (1 for a new player's)
	Tickets   uint64 `json:"t,omitempty"`  // tickets bought before it: it draws tickets t+1…
	Chests    uint64 `json:"ch,omitempty"` // chests opened before it: it draws chests ch+1…
	Committed int64  `json:"at,omitempty"` // when it became current, ms
}

// Care is the player's responsible-play state.
type Care struct {
	Limits   map[string]Limit `json:"l,omitempty"`  // by name: "stake-day", "stake-week", "loss-day", "loss-week"
	Reminder int64            `json:"rm,omitempty"` // the player's reality-check interval, ms; 0: the house's
	Paused   int64            `json:"pu,omitempty"` // paused until, ms
	Spend    *Spend           `json:"sp,omitempty"`
	Session  *Session         `json:"se,omitempty"`
}

// Limit is one limit: the amount in force (0: none) and, when At is set, a
// looser amount asked for (0: none) that takes effect then.
type Limit struct {
	Amount int64 `json:"a,omitempty"` // cents
	Next   int64 `json:"n,omitempty"` // cents
	At     int64 `json:"at,omitempty"`
}

// Spend is what the player staked and won in the day and the week counted.
type Spend struct {
	Day        int64 `json:"d,omitempty"`  // the day's UTC midnight, ms
	Week       int64 `json:"w,omitempty"`  // the week's Monday UTC midnight, ms
	StakedDay  int64 `json:"sd,omitempty"` // cents
	WonDay     int64 `json:"wd,omitempty"` // cents
	StakedWeek int64 `json:"sw,omitempty"` // cents
	WonWeek    int64 `json:"ww,omitempty"` // cents
}

// Session is the playing session that reality checks report on.
type Session struct {
	Start        int64 `json:"s,omitempty"`   // its first play, ms
	Last         int64 `json:"l,omitempty"`   // its last ticket, ms
	Plays        int64 `json:"n,omitempty"`   // tickets bought in it
	Net          int64 `json:"net,omitempty"` // prizes minus stakes, cents
	CheckedAt    int64 `json:"ck,omitempty"`  // the last reality check shown, ms
	CheckedPlays int64 `json:"cp,omitempty"`  // after that many plays
}

// FromPlayer returns the stored form of p.
func FromPlayer(p game.Player) Player {
	r := Player{
		Format: Version, Balance: p.Balance, Start: p.StartingBalance, Keys: p.Keys, ChestDue: p.ChestDue,
		Tickets: p.TicketSeq, Chests: uint64(max(p.ChestSeq, 0)), Stats: Stats(p.Stats),
		LastDaily: ms(p.LastDaily), Created: ms(p.CreatedAt),
	}
	sd := SeedsOf(p)
	r.Seeds = &sd
	if t := p.Ticket; t != nil {
		rt := &Ticket{No: t.ID, Bought: ms(t.BoughtAt), KeysThen: t.KeysAfter, Chest: t.Chest, Rows: uint8(t.Revealed)}
		if t.Drawn {
			o := t.Outcome
			rt.Outcome = &Outcome{Tier: o.Tier.String(), Prize: o.Prize, Key: o.Key, Row: o.Row, Grid: o.Grid.String()}
		}
		r.Ticket = rt
	}
	if c := p.LastChest; c != nil {
		r.LastChest = &Chest{Lot: c.Lot.String(), Prize: c.Prize}
	}
	r.Care = fromCare(p.Care)
	return r
}

// SeedsOf returns the stored form of p's fairness records (sd).
func SeedsOf(p game.Player) Seeds {
	s := Seeds{
		Server: p.Seed.Hex(), Client: p.ClientSeed, No: p.SeedNo,
		Tickets: p.SeedTicket, Chests: uint64(max(p.SeedChest, 0)), Committed: ms(p.SeedAt),
	}
	if p.NextSeed != (game.Seed{}) {
		s.Next = p.NextSeed.Hex()
	}
	return s
}

func fromCare(c game.Care) *Care {
	var r Care
	for k, l := range c.Limits {
		if l == (game.Limit{}) {
			continue
		}
		if r.Limits == nil {
			r.Limits = make(map[string]Limit)
		}
		r.Limits[game.LimitKind(k).String()] = Limit{Amount: l.Amount, Next: l.Next, At: ms(l.At)}
	}
	r.Reminder = c.Reminder.Milliseconds()
	r.Paused = ms(c.PausedUntil)
	if s := c.Spend; s != (game.Spend{}) {
		r.Spend = &Spend{Day: ms(s.Day), Week: ms(s.Week), StakedDay: s.StakedDay, WonDay: s.WonDay, StakedWeek: s.StakedWeek, WonWeek: s.WonWeek}
	}
	if s := c.Session; s != (game.Session{}) {
		r.Session = &Session{Start: ms(s.Start), Last: ms(s.Last), Plays: s.Plays, Net: s.Net, CheckedAt: ms(s.CheckedAt), CheckedPlays: s.CheckedPlays}
	}
	if r.Limits == nil && r.Reminder == 0 && r.Paused == 0 && r.Spend == nil && r.Session == nil {
		return nil
	}
	return &r
}

// EncodePlayer returns the record of p. p must be sound (game.Player.Check):
// what cannot be read back is not written.
func EncodePlayer(p game.Player) ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("schema: encode player: %w", err)
	}
	return marshal("player", FromPlayer(p))
}

// DecodePlayer reads the player record b, strictly; record names it in
// errors ("p:{1:2}"), which are *FieldError. The player passes
// game.Player.Check.
func DecodePlayer(record string, b []byte) (game.Player, error) {
	return decodeAs[game.Player, Player](record, b)
}

// EncodePlayerParts is EncodePlayer in two parts, the record without its
// seeds and the seeds (sd), so that a click, which rarely changes the
// seeds, need not send them again.
func EncodePlayerParts(p game.Player) (rest, seeds []byte, err error) {
	if err := p.Check(); err != nil {
		return nil, nil, fmt.Errorf("schema: encode player: %w", err)
	}
	r := FromPlayer(p)
	if seeds, err = marshal("seeds", r.Seeds); err != nil {
		return nil, nil, err
	}
	r.Seeds = nil
	rest, err = marshal("player", r)
	return rest, seeds, err
}

// DecodePlayerParts reads a player written by EncodePlayerParts: rest must
// not hold the seeds, which seeds holds.
func DecodePlayerParts(record string, rest, seeds []byte) (game.Player, error) {
	var r Player
	if err := decode(record, rest, &r); err != nil {
		return game.Player{}, err
	}
	if r.Format != Version {
		return game.Player{}, fieldErr(record, "f", "format %d, this program reads %d", r.Format, Version)
	}
	if r.Seeds != nil {
		return game.Player{}, fieldErr(record, "sd", "the seeds are kept apart, not in the record")
	}
	r.Seeds = new(Seeds)
	if err := decode(record+" seeds", seeds, r.Seeds); err != nil {
		return game.Player{}, err
	}
	return r.Game(record)
}

// DecodeSeeds reads a player's fairness records (sd) on their own, for
// what can be kept of a record that does not decode whole: a player
// holding only them. Errors as DecodePlayer.
func DecodeSeeds(record string, b []byte) (game.Player, error) {
	var sd Seeds
	if err := decode(record, b, &sd); err != nil {
		return game.Player{}, err
	}
	return Player{Format: Version, Tickets: sd.Tickets, Chests: sd.Chests, Seeds: &sd}.game(record, false)
}

// Game returns the player r stores, checked; record names it in errors.
func (r Player) Game(record string) (game.Player, error) { return r.game(record, true) }

// game is Game; whole is false for a player of seeds alone (DecodeSeeds),
// which has no creation time.
func (r Player) game(record string, whole bool) (game.Player, error) {
	if r.Format != Version {
		return game.Player{}, fieldErr(record, "f", "format %d, this program reads %d", r.Format, Version)
	}
	if r.Seeds == nil {
		return game.Player{}, fieldErr(record, "sd", "the seeds are missing")
	}
	if r.Tickets > game.MaxSeq {
		return game.Player{}, fieldErr(record, "tn", "%d tickets, at most %d", r.Tickets, uint64(game.MaxSeq))
	}
	if r.Chests > game.MaxSeq {
		return game.Player{}, fieldErr(record, "cn", "%d chests, at most %d", r.Chests, uint64(game.MaxSeq))
	}
	rd := reader{record: record}
	if whole {
		rd.need("ca", r.Created)
	}
	p := game.Player{
		StartingBalance: r.Start, Balance: r.Balance, Keys: r.Keys, ChestDue: r.ChestDue,
		ChestSeq: int64(r.Chests), TicketSeq: r.Tickets, Stats: game.Stats(r.Stats),
		LastDaily: rd.at("ld", r.LastDaily), CreatedAt: rd.at("ca", r.Created),
		ClientSeed: r.Seeds.Client, SeedNo: r.Seeds.No, SeedTicket: r.Seeds.Tickets,
		SeedAt: rd.at("sd.at", r.Seeds.Committed),
	}
	if rd.err != nil {
		return game.Player{}, rd.err
	}
	if r.Seeds.Chests > r.Chests {
		return game.Player{}, fieldErr(record, "sd.ch", "seed from chest %d of %d", r.Seeds.Chests, r.Chests)
	}
	p.SeedChest = int64(r.Seeds.Chests)
	var err error
	if p.Seed, err = game.ParseSeed(r.Seeds.Server); err != nil {
		return game.Player{}, fieldErr(record, "sd.s", "%v", err)
	}
	if r.Seeds.Next != "" {
		if p.NextSeed, err = game.ParseSeed(r.Seeds.Next); err != nil {
			return game.Player{}, fieldErr(record, "sd.n", "%v", err)
		}
	}
	if r.Seeds.Client != "" {
		if err := game.CheckStoredClientSeed(r.Seeds.Client); err != nil {
			return game.Player{}, fieldErr(record, "sd.c", "%v", err)
		}
	}
	if t := r.Ticket; t != nil {
		gt := game.Ticket{ID: t.No, KeysAfter: t.KeysThen, Chest: t.Chest, Revealed: game.RowMask(t.Rows)}
		if gt.BoughtAt = rd.need("t.at", t.Bought); rd.err != nil {
			return game.Player{}, rd.err
		}
		if t.Outcome != nil {
			gt.Drawn = true
			if gt.Outcome, err = t.Outcome.game(record, "t.o"); err != nil {
				return game.Player{}, err
			}
		}
		p.Ticket = &gt
	}
	if c := r.LastChest; c != nil {
		gc, err := c.game(record, "lc")
		if err != nil {
			return game.Player{}, err
		}
		p.LastChest = &gc
	}
	if r.Care != nil {
		if p.Care, err = r.Care.game(record); err != nil {
			return game.Player{}, err
		}
	}
	if err := p.Check(); err != nil {
		return game.Player{}, gameErr(record, "", playerFields, err)
	}
	return p, nil
}

// game returns the draw o stores; field names it in errors.
func (o Outcome) game(record, field string) (game.Outcome, error) {
	tier, ok := named(o.Tier, game.Tier(game.NumTiers))
	if !ok {
		return game.Outcome{}, fieldErr(record, field+".tr", "unknown tier %q", o.Tier)
	}
	g, err := game.ParseGrid(o.Grid)
	if err != nil {
		return game.Outcome{}, fieldErr(record, field+".g", "%v", err)
	}
	out := game.Outcome{Tier: tier, Prize: o.Prize, Key: o.Key, Row: o.Row, Grid: g}
	if err := game.Validate(out); err != nil {
		return game.Outcome{}, fieldErr(record, field, "%v", err)
	}
	return out, nil
}

func (c Chest) game(record, field string) (game.Chest, error) {
	lot, ok := named(c.Lot, game.Lot(game.NumLots))
	if !ok {
		return game.Chest{}, fieldErr(record, field+".l", "unknown lot %q", c.Lot)
	}
	if c.Prize != lot.Prize() {
		return game.Chest{}, fieldErr(record, field+".p", "prize %d, the lot %s pays %d", c.Prize, c.Lot, lot.Prize())
	}
	return game.Chest{Lot: lot, Prize: c.Prize}, nil
}

func (c Care) game(record string) (game.Care, error) {
	var out game.Care
	rd := reader{record: record}
	for name, l := range c.Limits {
		k, ok := named(name, game.LimitKind(game.NumLimits))
		if !ok {
			return game.Care{}, fieldErr(record, "cr.l", "unknown limit %q", name)
		}
		out.Limits[k] = game.Limit{Amount: l.Amount, Next: l.Next, At: rd.at("cr.l."+name+".at", l.At)}
	}
	if out.Reminder = rd.duration("cr.rm", c.Reminder); rd.err != nil {
		return game.Care{}, rd.err
	}
	if err := game.CheckReminder(out.Reminder); err != nil {
		return game.Care{}, fieldErr(record, "cr.rm", "%v", err)
	}
	out.PausedUntil = rd.at("cr.pu", c.Paused)
	if s := c.Spend; s != nil {
		out.Spend = game.Spend{Day: rd.at("cr.sp.d", s.Day), Week: rd.at("cr.sp.w", s.Week),
			StakedDay: s.StakedDay, WonDay: s.WonDay, StakedWeek: s.StakedWeek, WonWeek: s.WonWeek}
	}
	if s := c.Session; s != nil {
		out.Session = game.Session{Start: rd.at("cr.se.s", s.Start), Last: rd.at("cr.se.l", s.Last), Plays: s.Plays, Net: s.Net,
			CheckedAt: rd.at("cr.se.ck", s.CheckedAt), CheckedPlays: s.CheckedPlays}
	}
	return out, rd.err
}

// named returns the value of 0..n-1 whose String is s.
func named[T interface {
	~uint8 | ~int
	String() string
}](s string, n T) (T, bool) {
	for v := T(0); v < n; v++ {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}
