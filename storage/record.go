package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// This file is the one converter from dumps of versions 1 to 3
// (LegacyDumpVersion), written before the schema of package schema, to the
// records of today (docs/STORAGE.md, §6): version 2 adds each player's
// seeds, version 3 the revealed seeds and what verifying a history line
// needs. Nothing writes them any more (tests make them with
// storetest.NewRecord). The responsible-play fields came within version 3:
// each may be absent, and reads as it did before.
const LegacyDumpVersion = 3

// Dump is a whole store in a dump of version 1 to 3 (see LegacyDumpVersion).
type Dump struct {
	Version int           `json:"version"`
	Players []Record      `json:"players"`
	Guilds  []GuildRecord `json:"guilds"`
}

// Record is the JSON form of one player. Snowflakes are strings, amounts
// integer cents, times RFC 3339 in UTC; history is oldest first.
type Record struct {
	GuildID              uint64        `json:"guild_id,string"`
	UserID               uint64        `json:"user_id,string"`
	BalanceCents         int64         `json:"balance_cents"`
	StartingBalanceCents int64         `json:"starting_balance_cents"`
	Keys                 int           `json:"keys"`
	ChestPending         bool          `json:"chest_pending"`
	ChestSeq             int64         `json:"chest_seq"`
	TicketSeq            uint64        `json:"ticket_seq"`
	OpenTicket           *TicketRecord `json:"open_ticket"`
	LastTicket           *TicketRecord `json:"last_ticket,omitempty"`
	LastChest            *ChestRecord  `json:"last_chest,omitempty"`
	Stats                StatsRecord   `json:"stats"`
	LastDaily            *time.Time    `json:"last_daily,omitempty"`
	CreatedAt            time.Time     `json:"created_at"`
	// Seed is the player's secret server seed, 64 hex digits (version 2).
	// It is operator data: guard a dump like the database.
	Seed string `json:"seed,omitempty"`
	// NextSeed is the secret seed the next rotation makes current (version
	// 3; absent in older dumps: the player gets one at its next step).
	NextSeed   string `json:"next_seed,omitempty"`
	ClientSeed string `json:"client_seed,omitempty"`
	// The current seed's number, the ticket and chest numbers when it was
	// committed, and when (version 3).
	SeedNo          int64          `json:"seed_no,omitempty"`
	SeedAfterTicket uint64         `json:"seed_after_ticket,omitempty"`
	SeedAfterChest  int64          `json:"seed_after_chest,omitempty"`
	SeedCommittedAt *time.Time     `json:"seed_committed_at,omitempty"`
	Revealed        []RevealRecord `json:"revealed,omitempty"`
	// The player's responsible-play state (game.Care), each part absent
	// when it is zero, as it is in dumps from before it: no limits, the
	// house's reality-check interval, never paused, nothing counted, no
	// session.
	//
	// Limits is keyed by the limit's name (game.LimitKind.String:
	// "stake-day", "stake-week", "loss-day", "loss-week"); a limit neither
	// set nor waiting is absent. Reminder is a Go duration ("30m0s").
	// PausedUntil is kept once it has passed, as the player's state does.
	Limits      map[string]LimitRecord `json:"limits,omitempty"`
	Reminder    string                 `json:"reminder,omitempty"`
	PausedUntil *time.Time             `json:"paused_until,omitempty"`
	Spend       *SpendRecord           `json:"spend,omitempty"`
	Session     *SessionRecord         `json:"session,omitempty"`
	History     []HistoryRecord        `json:"history,omitempty"`
}

// LimitRecord is the JSON form of a game.Limit: the amount in force (0 for
// none) and, when NextAt is present, the looser amount asked for that takes
// effect then (0, or absent, for the limit's removal).
type LimitRecord struct {
	AmountCents int64      `json:"amount_cents"`
	NextCents   int64      `json:"next_cents,omitempty"`
	NextAt      *time.Time `json:"next_at,omitempty"`
}

// SpendRecord is the JSON form of a game.Spend: what the player staked and
// won in the day and the week counted, which start at Day (a UTC midnight)
// and Week (the UTC midnight of a Monday).
type SpendRecord struct {
	Day             *time.Time `json:"day,omitempty"`
	Week            *time.Time `json:"week,omitempty"`
	StakedDayCents  int64      `json:"staked_day_cents,omitempty"`
	WonDayCents     int64      `json:"won_day_cents,omitempty"`
	StakedWeekCents int64      `json:"staked_week_cents,omitempty"`
	WonWeekCents    int64      `json:"won_week_cents,omitempty"`
}

// SessionRecord is the JSON form of a game.Session, the playing session
// reality checks report on.
type SessionRecord struct {
	Start        *time.Time `json:"start,omitempty"`
	Last         *time.Time `json:"last,omitempty"`
	Plays        int64      `json:"plays,omitempty"`
	NetCents     int64      `json:"net_cents,omitempty"`
	CheckedAt    *time.Time `json:"checked_at,omitempty"`
	CheckedPlays int64      `json:"checked_plays,omitempty"`
}

// RevealRecord is the JSON form of a game.SeedReveal: a server seed
// revealed, public from then on.
type RevealRecord struct {
	No          int64      `json:"no"`
	ServerSeed  string     `json:"server_seed"`
	ClientSeed  string     `json:"client_seed"`
	FirstTicket uint64     `json:"first_ticket"`
	LastTicket  uint64     `json:"last_ticket"`
	FirstChest  int64      `json:"first_chest"`
	LastChest   int64      `json:"last_chest"`
	CommittedAt *time.Time `json:"committed_at,omitempty"`
	RevealedAt  time.Time  `json:"revealed_at"`
}

// TicketRecord is the JSON form of a Ticket.
type TicketRecord struct {
	ID           uint64         `json:"id"`
	BoughtAt     time.Time      `json:"bought_at"`
	Drawn        bool           `json:"drawn"`
	Outcome      *OutcomeRecord `json:"outcome,omitempty"`
	KeysAfter    int            `json:"keys_after"`
	Chest        bool           `json:"chest"`
	RevealedRows uint8          `json:"revealed_rows"`
}

// OutcomeRecord is the JSON form of a game.Outcome; Grid is game.Grid.String.
type OutcomeRecord struct {
	Tier       game.Tier `json:"tier"`
	PrizeCents int64     `json:"prize_cents"`
	Key        bool      `json:"key"`
	Row        int8      `json:"row"`
	Grid       string    `json:"grid"`
}

// ChestRecord is the JSON form of a game.Chest.
type ChestRecord struct {
	Lot        game.Lot `json:"lot"`
	PrizeCents int64    `json:"prize_cents"`
}

// StatsRecord is the JSON form of Stats.
type StatsRecord struct {
	Plays        int64 `json:"plays"`
	StakedCents  int64 `json:"staked_cents"`
	WonCents     int64 `json:"won_cents"`
	GrantedCents int64 `json:"granted_cents"`
	DailyCents   int64 `json:"daily_cents"`
	Chests       int64 `json:"chests"`
	BestWinCents int64 `json:"best_win_cents"`
	Wins         int64 `json:"wins"`
	Keys         int64 `json:"keys"`
}

// HistoryRecord is the JSON form of a HistoryEntry.
type HistoryRecord struct {
	At           time.Time `json:"at"`
	Kind         game.Kind `json:"kind"`
	TicketID     uint64    `json:"ticket_id,omitempty"`
	Tier         game.Tier `json:"tier,omitempty"`
	Key          bool      `json:"key,omitempty"`
	Lot          game.Lot  `json:"lot,omitempty"`
	AmountCents  int64     `json:"amount_cents"`
	BalanceCents int64     `json:"balance_cents"`
	// What verifying the draw needs (version 3): for a play the keys held
	// before it and the grid shown (game.Grid.String), for a chest its
	// number.
	KeysBefore *int   `json:"keys_before,omitempty"`
	Grid       string `json:"grid,omitempty"`
	Chest      int64  `json:"chest,omitempty"`
}

// GuildRecord is the JSON form of a guild's settings (null if never set)
// and audit log (oldest first).
type GuildRecord struct {
	GuildID  uint64          `json:"guild_id,string"`
	Settings *SettingsRecord `json:"settings"`
	Audit    []AuditRecord   `json:"audit,omitempty"`
}

// SettingsRecord is the JSON form of game.Settings; DailyCooldown is a Go duration ("24h0m0s").
type SettingsRecord struct {
	StartingBalanceCents int64  `json:"starting_balance_cents"`
	DailyAmountCents     int64  `json:"daily_amount_cents"`
	DailyCooldown        string `json:"daily_cooldown"`
	PublicPlays          bool   `json:"public_plays"`
	ChannelID            uint64 `json:"channel_id,string"`
	// House is the guild's responsible-play rules, always written. A
	// record without it comes from before they existed, when the guild's
	// moderators could not choose any: it imports with game.DefaultHouse,
	// the rules of a guild that set none, not with no rules at all, so
	// that moving a store keeps the guild's players under reality checks
	// like every other guild's. A house written with zeros is kept as
	// zeros (no rules): that is the moderators' choice.
	House *HouseRecord `json:"house,omitempty"`
}

// HouseRecord is the JSON form of a game.House; the intervals are Go
// durations ("1h0m0s"), "0s" for none, as 0 is for the others.
type HouseRecord struct {
	MaxStakeDayCents int64  `json:"max_stake_day_cents"`
	MinInterval      string `json:"min_interval"`
	RealityPlays     int    `json:"reality_plays"`
	RealityEvery     string `json:"reality_every"`
}

// AuditRecord is the JSON form of a game.AuditEntry (its guild is the GuildRecord's).
type AuditRecord struct {
	At          time.Time `json:"at"`
	ActorID     uint64    `json:"actor_id,string"`
	TargetID    uint64    `json:"target_id,string"`
	Action      string    `json:"action"`
	AmountCents int64     `json:"amount_cents"`
	Reason      string    `json:"reason"`
}

// care decodes r's responsible-play state. It checks the form (the limits'
// names, the reminder's syntax); the bounds are game.Player.Check's, which
// Player runs after it.
func (r Record) care() (game.Care, error) {
	var c game.Care
	for name, lr := range r.Limits {
		k, ok := limitKind(name)
		if !ok {
			return c, fmt.Errorf("%w: limits: unknown limit %q (want stake-day, stake-week, loss-day or loss-week)", ErrInvalid, name)
		}
		l := game.Limit{Amount: lr.AmountCents, Next: lr.NextCents, At: timeOf(lr.NextAt)}
		if lr.NextAt != nil && lr.NextAt.IsZero() {
			return c, fmt.Errorf("%w: limits[%q].next_at: the zero time", ErrInvalid, name)
		}
		if lr.NextAt == nil && lr.NextCents != 0 {
			return c, fmt.Errorf("%w: limits[%q]: next_cents %d without next_at", ErrInvalid, name, lr.NextCents)
		}
		c.Limits[k] = l
	}
	if r.Reminder != "" {
		d, err := time.ParseDuration(r.Reminder)
		if err != nil {
			return c, fmt.Errorf("%w: reminder: %v", ErrInvalid, err)
		}
		c.Reminder = d
	}
	c.PausedUntil = timeOf(r.PausedUntil)
	if s := r.Spend; s != nil {
		c.Spend = game.Spend{
			Day: timeOf(s.Day), Week: timeOf(s.Week),
			StakedDay: s.StakedDayCents, WonDay: s.WonDayCents, StakedWeek: s.StakedWeekCents, WonWeek: s.WonWeekCents,
		}
	}
	if s := r.Session; s != nil {
		c.Session = game.Session{
			Start: timeOf(s.Start), Last: timeOf(s.Last), Plays: s.Plays, Net: s.NetCents,
			CheckedAt: timeOf(s.CheckedAt), CheckedPlays: s.CheckedPlays,
		}
	}
	return c, nil
}

// limitKind returns the limit named name (game.LimitKind.String).
func limitKind(name string) (game.LimitKind, bool) {
	for k := range game.LimitKind(game.NumLimits) {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// timeOf returns *t, or the zero time for nil.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// Player decodes and validates the record: it returns the player's ID,
// state and history, oldest first, or an ErrInvalid error saying what is
// wrong. A record without a seed (a version 1 dump) gets one read from
// seeds. Every amount is checked against game's bounds, and every sum
// without overflow (game.Player.Check), the responsible-play state too (an
// unknown limit name, a waiting amount that is not looser, a reminder out
// of range are ErrInvalid).
func (r Record) Player(seeds io.Reader) (DecodedPlayer, error) {
	id := PlayerID{Guild: r.GuildID, User: r.UserID}
	fail := func(err error) (DecodedPlayer, error) { return DecodedPlayer{ID: id}, err }
	var reveals game.Reveals
	var firstSeed game.Seed // version 1: the first seeds (game.Player.FirstSeeds); never zero once read
	var firstClient string
	p := game.Player{
		StartingBalance: r.StartingBalanceCents,
		Balance:         r.BalanceCents,
		Keys:            r.Keys,
		ChestDue:        r.ChestPending,
		ChestSeq:        r.ChestSeq,
		TicketSeq:       r.TicketSeq,
		Stats:           game.Stats(r.Stats),
		CreatedAt:       r.CreatedAt,
		ClientSeed:      r.ClientSeed,
		SeedNo:          r.SeedNo,
		SeedTicket:      r.SeedAfterTicket,
		SeedChest:       r.SeedAfterChest,
		SeedAt:          timeOf(r.SeedCommittedAt),
		LastDaily:       timeOf(r.LastDaily),
	}
	if err := ValidateID(id); err != nil {
		return fail(err)
	}
	if r.Seed == "" { // version 1: new seeds, for the tickets to come
		if r.SeedNo != 0 || r.SeedAfterTicket != 0 || r.SeedAfterChest != 0 || len(r.Revealed) > 0 || r.ClientSeed != "" || r.NextSeed != "" {
			return fail(fmt.Errorf("%w: seeds without a server seed", ErrInvalid))
		}
		var err error
		if firstSeed, err = game.NewSeed(seeds); err != nil {
			return fail(fmt.Errorf("a new seed: %w", err))
		}
		if firstClient, err = game.NewClientSeed(seeds); err != nil {
			return fail(fmt.Errorf("a new client seed: %w", err))
		}
	} else {
		var err error
		if p.Seed, err = game.ParseSeed(r.Seed); err != nil {
			return fail(fmt.Errorf("%w: seed: %v", ErrInvalid, err))
		}
	}
	if r.NextSeed != "" {
		var err error
		if p.NextSeed, err = game.ParseSeed(r.NextSeed); err != nil {
			return fail(fmt.Errorf("%w: next_seed: %v", ErrInvalid, err))
		}
	}
	for i, v := range r.Revealed {
		seed, err := game.ParseSeed(v.ServerSeed)
		if err != nil {
			return fail(fmt.Errorf("%w: revealed[%d]: %v", ErrInvalid, i, err))
		}
		sr := game.SeedReveal{
			No: v.No, Seed: seed, ClientSeed: v.ClientSeed, FirstTicket: v.FirstTicket, LastTicket: v.LastTicket,
			FirstChest: v.FirstChest, LastChest: v.LastChest, RevealedAt: v.RevealedAt,
			CommittedAt: timeOf(v.CommittedAt),
		}
		if v.RevealedAt.IsZero() {
			return fail(fmt.Errorf("%w: revealed[%d]: revealed_at missing", ErrInvalid, i))
		}
		reveals = append(reveals, sr)
	}
	if r.OpenTicket != nil && r.LastTicket != nil {
		return fail(fmt.Errorf("%w: both open_ticket and last_ticket", ErrInvalid))
	}
	for _, tr := range []*TicketRecord{r.OpenTicket, r.LastTicket} {
		if tr == nil {
			continue
		}
		t, err := tr.ticket()
		if err != nil {
			return fail(err)
		}
		if t.Open() != (tr == r.OpenTicket) {
			return fail(fmt.Errorf("%w: ticket %d: revealed_rows %d does not match open_ticket/last_ticket", ErrInvalid, t.ID, t.Revealed))
		}
		p.Ticket = &t
	}
	if r.LastChest != nil {
		p.LastChest = &game.Chest{Lot: r.LastChest.Lot, Prize: r.LastChest.PrizeCents}
	}
	if r.CreatedAt.IsZero() {
		return fail(fmt.Errorf("%w: created_at missing", ErrInvalid))
	}
	care, err := r.care()
	if err != nil {
		return fail(err)
	}
	p.Care = care
	if firstSeed != (game.Seed{}) {
		p = p.FirstSeeds(firstSeed, firstClient)
	}
	if err := p.Check(); err != nil {
		return fail(fmt.Errorf("%w: %v", ErrInvalid, err))
	}
	if err := p.CheckReveals(reveals); err != nil {
		return fail(fmt.Errorf("%w: revealed: %v", ErrInvalid, err))
	}
	if len(r.History) > HistoryLimit {
		return fail(fmt.Errorf("%w: %d history entries, at most %d", ErrInvalid, len(r.History), HistoryLimit))
	}
	hist := make([]game.Entry, 0, len(r.History))
	for i, h := range r.History {
		if h.At.IsZero() {
			return fail(fmt.Errorf("%w: history[%d]: at missing", ErrInvalid, i))
		}
		e := game.Entry{
			At: h.At, Kind: h.Kind, TicketID: h.TicketID, Tier: h.Tier, Key: h.Key,
			Lot: h.Lot, Amount: h.AmountCents, Balance: h.BalanceCents,
		}
		if err := fairEntry(&e, h); err != nil {
			return fail(fmt.Errorf("%w: history[%d]: %v", ErrInvalid, i, err))
		}
		if err := e.Check(); err != nil {
			return fail(fmt.Errorf("%w: history[%d]: %w", ErrInvalid, i, err))
		}
		hist = append(hist, e)
	}
	return DecodedPlayer{ID: id, Player: p, History: hist, Reveals: reveals}, nil
}

// fairEntry reads h's verification data into e: the keys held before and
// the grid of a play, the number of a chest (their rules are
// game.Entry.Check's).
func fairEntry(e *game.Entry, h HistoryRecord) error {
	switch {
	case h.KeysBefore == nil && h.Grid == "" && h.Chest == 0:
		return nil
	case h.Kind == game.KindPlay && h.KeysBefore != nil && h.Grid != "" && h.Chest == 0:
		g, err := game.ParseGrid(h.Grid)
		if err != nil {
			return err
		}
		e.Fair, e.KeysBefore, e.Grid = true, *h.KeysBefore, g
		return nil
	case h.Kind == game.KindChest && h.KeysBefore == nil && h.Grid == "" && h.Chest > 0:
		e.Fair, e.Chest = true, h.Chest
		return nil
	}
	return fmt.Errorf("verification data (keys_before, grid, chest) that does not fit a %q line", h.Kind)
}

// ticket decodes tr, checking its form; the rules of a ticket are
// game.Player.Check's, which Player runs after it.
func (tr TicketRecord) ticket() (game.Ticket, error) {
	t := game.Ticket{ID: tr.ID, BoughtAt: tr.BoughtAt, Drawn: tr.Drawn, KeysAfter: tr.KeysAfter, Chest: tr.Chest, Revealed: game.RowMask(tr.RevealedRows)}
	switch {
	case tr.RevealedRows > uint8(game.AllRows):
		return game.Ticket{}, fmt.Errorf("%w: ticket %d: revealed_rows %d", ErrInvalid, tr.ID, tr.RevealedRows)
	case tr.Drawn != (tr.Outcome != nil):
		return game.Ticket{}, fmt.Errorf("%w: ticket %d: drawn %v but outcome %v", ErrInvalid, tr.ID, tr.Drawn, tr.Outcome != nil)
	case tr.BoughtAt.IsZero():
		return game.Ticket{}, fmt.Errorf("%w: ticket %d: bought_at missing", ErrInvalid, tr.ID)
	}
	if tr.Outcome != nil {
		g, err := game.ParseGrid(tr.Outcome.Grid)
		if err != nil {
			return game.Ticket{}, fmt.Errorf("%w: ticket %d: %v", ErrInvalid, tr.ID, err)
		}
		t.Outcome = game.Outcome{Tier: tr.Outcome.Tier, Prize: tr.Outcome.PrizeCents, Key: tr.Outcome.Key, Row: tr.Outcome.Row, Grid: g}
	}
	return t, nil
}

// Decode validates the record and returns the guild's settings (nil if
// none) and audit log, oldest first.
func (g GuildRecord) Decode() (*game.Settings, []game.AuditEntry, error) {
	if g.GuildID == 0 {
		return nil, nil, fmt.Errorf("%w: guild_id missing", ErrInvalid)
	}
	var s *game.Settings
	if g.Settings != nil {
		d, err := time.ParseDuration(g.Settings.DailyCooldown)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: daily_cooldown: %v", ErrInvalid, err)
		}
		h, err := g.Settings.House.house()
		if err != nil {
			return nil, nil, err
		}
		s = &game.Settings{
			StartingBalance: g.Settings.StartingBalanceCents, DailyAmount: g.Settings.DailyAmountCents,
			DailyCooldown: d, PublicPlays: g.Settings.PublicPlays, Channel: g.Settings.ChannelID,
			House: h,
		}
		if err := s.Check(); err != nil {
			return nil, nil, fmt.Errorf("%w: settings: %w", ErrInvalid, err)
		}
	}
	if len(g.Audit) > AuditLimit {
		return nil, nil, fmt.Errorf("%w: %d audit entries, at most %d", ErrInvalid, len(g.Audit), AuditLimit)
	}
	audit := make([]game.AuditEntry, 0, len(g.Audit))
	for i, a := range g.Audit {
		e := game.AuditEntry{At: a.At, Guild: g.GuildID, Actor: a.ActorID, Target: a.TargetID, Action: a.Action, Amount: a.AmountCents, Reason: a.Reason}
		if err := e.Check(); err != nil {
			return nil, nil, fmt.Errorf("%w: audit[%d]: %w", ErrInvalid, i, err)
		}
		audit = append(audit, e)
	}
	return s, audit, nil
}

// house decodes h: game.DefaultHouse when it is absent (see
// SettingsRecord.House); the bounds are game.Settings.Check's.
func (h *HouseRecord) house() (game.House, error) {
	if h == nil {
		return game.DefaultHouse, nil
	}
	out := game.House{MaxStakeDay: h.MaxStakeDayCents, RealityPlays: h.RealityPlays}
	for _, f := range []struct {
		name string
		s    string
		d    *time.Duration
	}{{"min_interval", h.MinInterval, &out.MinInterval}, {"reality_every", h.RealityEvery, &out.RealityEvery}} {
		d, err := time.ParseDuration(f.s)
		if err != nil {
			return out, fmt.Errorf("%w: settings.house.%s: %v", ErrInvalid, f.name, err)
		}
		*f.d = d
	}
	return out, nil
}

// Decode validates every record of d and reports the first wrong one by its
// index and ids: ErrInvalid for a malformed record, ErrDuplicate for a
// player or guild present twice. Players of a version 1 dump get seeds
// read from seeds (crypto/rand.Reader).
func (d *Dump) Decode(seeds io.Reader) (*DecodedDump, error) {
	if d.Version < 1 || d.Version > LegacyDumpVersion {
		return nil, fmt.Errorf("%w: dump version %d, want 1 to %d", ErrInvalid, d.Version, LegacyDumpVersion)
	}
	out := &DecodedDump{Version: d.Version}
	seen := make(map[PlayerID]int, len(d.Players))
	for i, r := range d.Players {
		dp, err := r.Player(seeds)
		id := dp.ID
		if err != nil {
			return nil, fmt.Errorf("players[%d] (guild %d, user %d): %w", i, r.GuildID, r.UserID, err)
		}
		if j, ok := seen[id]; ok {
			return nil, fmt.Errorf("players[%d] (guild %d, user %d): %w: same player as players[%d]", i, r.GuildID, r.UserID, ErrDuplicate, j)
		}
		seen[id] = i
		out.Players = append(out.Players, dp)
	}
	gseen := make(map[uint64]int, len(d.Guilds))
	for i, g := range d.Guilds {
		s, a, err := g.Decode()
		if err != nil {
			return nil, fmt.Errorf("guilds[%d] (guild %d): %w", i, g.GuildID, err)
		}
		if j, ok := gseen[g.GuildID]; ok {
			return nil, fmt.Errorf("guilds[%d] (guild %d): %w: same guild as guilds[%d]", i, g.GuildID, ErrDuplicate, j)
		}
		gseen[g.GuildID] = i
		out.Guilds = append(out.Guilds, DecodedGuild{Guild: g.GuildID, Settings: s, Audit: a})
	}
	return out, nil
}

func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s: a JSON %s does not fit, at byte %d", te.Field, te.Value, te.Offset)
	}
	return err.Error()
}
