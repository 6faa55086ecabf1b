package schema

import (
	"fmt"
	"strconv"

	"github.com/lesclefsdutresor/clefs/game"
)

// GuildVersion is the format of the guild records this package writes:
// the field f of a guild record.
const GuildVersion = 1

// GuildRecord is the stored form of a guild (game.Guild): its settings,
// the IDs of the operations it remembers, and its last reset-guild.
type GuildRecord struct {
	Format   int           `json:"f"` // GuildVersion
	Settings GuildSettings `json:"s"`
	Ops      []string      `json:"o,omitempty"` // operation IDs, oldest first
	Reset    *ResetRecord  `json:"r,omitempty"` // the last reset-guild, in progress or finished
}

// GuildSettings is the stored form of a guild's settings (game.Settings).
type GuildSettings struct {
	Start    int64       `json:"b0,omitempty"` // the starting balance, cents
	Daily    int64       `json:"d,omitempty"`  // the daily bonus, cents; 0: none
	Cooldown int64       `json:"dc,omitempty"` // between two daily bonuses, ms
	Public   bool        `json:"pub,omitempty"`
	Channel  string      `json:"ch,omitempty"` // the only channel where plays are allowed, snowflake; "": anywhere
	House    *HouseRules `json:"h,omitempty"`  // absent: no rules (all zero)
}

// HouseRules is the stored form of a guild's responsible-play rules
// (game.House).
type HouseRules struct {
	MaxStakeDay  int64 `json:"sd,omitempty"` // cents a player may stake per day; 0: no cap
	MinInterval  int64 `json:"mi,omitempty"` // between two tickets of a player, ms; 0: none
	RealityPlays int   `json:"rp,omitempty"` // a reality check after this many plays; 0: none
	RealityEvery int64 `json:"re,omitempty"` // a reality check after this long, ms; 0: none
}

// ResetRecord is the stored form of a reset-guild's progress
// (game.GuildReset).
type ResetRecord struct {
	Op      string `json:"op"`
	Actor   string `json:"ac,omitempty"` // the moderator, snowflake
	Reason  string `json:"rs,omitempty"` // the moderator's words
	Started int64  `json:"at"`           // ms
	After   string `json:"af,omitempty"` // the last user reset, snowflake; "": none yet
	Count   int64  `json:"n,omitempty"`  // players reset so far
	Done    int64  `json:"dn,omitempty"` // when it finished, ms; 0: in progress
	Holder  string `json:"lh,omitempty"` // the process that holds its lease; "": none
	Until   int64  `json:"lu,omitempty"` // when the lease ends, ms; 0: none
}

// FromGuild returns the stored form of g.
func FromGuild(g game.Guild) GuildRecord {
	s := g.Settings
	r := GuildRecord{
		Format: GuildVersion,
		Settings: GuildSettings{
			Start: s.StartingBalance, Daily: s.DailyAmount, Cooldown: s.DailyCooldown.Milliseconds(),
			Public: s.PublicPlays, Channel: snowflakeString(s.Channel),
		},
		Ops: g.Ops,
	}
	if h := s.House; h != (game.House{}) {
		r.Settings.House = &HouseRules{
			MaxStakeDay: h.MaxStakeDay, MinInterval: h.MinInterval.Milliseconds(),
			RealityPlays: h.RealityPlays, RealityEvery: h.RealityEvery.Milliseconds(),
		}
	}
	if x := g.Reset; x != nil {
		r.Reset = &ResetRecord{
			Op: x.Op, Actor: snowflakeString(x.Actor), Reason: x.Reason, Started: ms(x.Started),
			After: snowflakeString(x.After), Count: x.Count, Done: ms(x.Done),
			Holder: x.Holder, Until: ms(x.Until),
		}
	}
	return r
}

// snowflakeString is a snowflake as the schema writes it: "" for 0.
func snowflakeString(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}

// EncodeGuild returns the record of g. g must be sound (game.Guild.Check)
// and its durations whole milliseconds, as they are stored: what cannot
// be read back as it was is not written.
func EncodeGuild(g game.Guild) ([]byte, error) {
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("schema: encode guild: %w", err)
	}
	r := FromGuild(g)
	if back, err := r.Game("guild"); err != nil || back.Settings != g.Settings {
		return nil, fmt.Errorf("schema: encode guild: the settings do not read back as they are (%v)", err)
	}
	return marshal("guild", r)
}

// DecodeGuild reads the guild record b, strictly; record names it in
// errors ("s:{1}"), which are *FieldError. The guild passes
// game.Guild.Check.
func DecodeGuild(record string, b []byte) (game.Guild, error) {
	return decodeAs[game.Guild, GuildRecord](record, b)
}

// Game returns the guild r stores, checked; record names it in errors.
func (r GuildRecord) Game(record string) (game.Guild, error) {
	if r.Format != GuildVersion {
		return game.Guild{}, fieldErr(record, "f", "format %d, this program reads %d", r.Format, GuildVersion)
	}
	s, err := r.Settings.Game(record, "s")
	if err != nil {
		return game.Guild{}, err
	}
	g := game.Guild{Settings: s, Ops: r.Ops}
	for i, op := range r.Ops {
		if err := game.ValidateOp(op); err != nil {
			return game.Guild{}, fieldErr(record, fmt.Sprintf("o[%d]", i), "%v", err)
		}
	}
	if x := r.Reset; x != nil {
		rd := reader{record: record}
		gr := game.GuildReset{Op: x.Op, Reason: x.Reason, Count: x.Count, Holder: x.Holder,
			Actor: rd.snowflake("r.ac", x.Actor), After: rd.snowflake("r.af", x.After),
			Started: rd.at("r.at", x.Started), Done: rd.at("r.dn", x.Done), Until: rd.at("r.lu", x.Until)}
		if rd.err != nil {
			return game.Guild{}, rd.err
		}
		if err := (game.Guild{Settings: s, Reset: &gr}).Check(); err != nil {
			return game.Guild{}, fieldErr(record, "r", "%v", err)
		}
		g.Reset = &gr
	}
	if err := g.Check(); err != nil {
		return game.Guild{}, fieldErr(record, "o", "%v", err)
	}
	return g, nil
}

// Game returns the settings s stores, checked (game.Settings.Check);
// field is where s is in its record ("s").
func (s GuildSettings) Game(record, field string) (game.Settings, error) {
	rd := reader{record: record}
	out := game.Settings{StartingBalance: s.Start, DailyAmount: s.Daily, PublicPlays: s.Public,
		DailyCooldown: rd.duration(field+".dc", s.Cooldown), Channel: rd.snowflake(field+".ch", s.Channel)}
	if h := s.House; h != nil {
		out.House = game.House{MaxStakeDay: h.MaxStakeDay, RealityPlays: h.RealityPlays,
			MinInterval: rd.duration(field+".h.mi", h.MinInterval), RealityEvery: rd.duration(field+".h.re", h.RealityEvery)}
	}
	if rd.err != nil {
		return game.Settings{}, rd.err
	}
	if err := out.Check(); err != nil {
		return game.Settings{}, gameErr(record, field+".", settingsFields, err)
	}
	return out, nil
}

// AuditLine is the stored form of one line of a guild's moderator log
// (game.AuditEntry; the guild is the log's).
type AuditLine struct {
	ID     string `json:"id,omitempty"` // the write that logged it (Redis: "u:<user>:<version>" or "s:<version>"), so that a line sent twice is kept once
	At     int64  `json:"at"`           // ms
	Actor  string `json:"ac,omitempty"` // the moderator, snowflake
	Target string `json:"tg,omitempty"` // the player, snowflake; "": guild-wide
	Action string `json:"x"`            // "grant", "set-balance", "reset", "lift-pause", "reset-guild", "settings" (others kept as they are)
	Amount int64  `json:"am,omitempty"` // cents, or a count (reset-guild)
	Reason string `json:"rs,omitempty"`
}

// FromAudit returns the stored form of e, logged by the write id.
func FromAudit(id string, e game.AuditEntry) AuditLine {
	return AuditLine{ID: id, At: ms(e.At), Actor: snowflakeString(e.Actor), Target: snowflakeString(e.Target),
		Action: e.Action, Amount: e.Amount, Reason: e.Reason}
}

// EncodeAudit returns the line of e, an entry of guild logged by the write
// id ("" for none); e must pass game.AuditEntry.Check as an entry of
// guild.
func EncodeAudit(guild uint64, id string, e game.AuditEntry) ([]byte, error) {
	e, err := e.OfGuild(guild)
	if err != nil {
		return nil, fmt.Errorf("schema: encode audit line: %w", err)
	}
	return marshal("audit line", FromAudit(id, e))
}

// DecodeAudit reads an audit line of guild's log; it returns the entry,
// checked (game.AuditEntry.Check), and the ID of the write that logged it.
func DecodeAudit(record string, guild uint64, b []byte) (game.AuditEntry, string, error) {
	var l AuditLine
	if err := decode(record, b, &l); err != nil {
		return game.AuditEntry{}, "", err
	}
	e, err := l.Game(record, guild)
	return e, l.ID, err
}

// Game returns the entry l stores, of guild's log, checked.
func (l AuditLine) Game(record string, guild uint64) (game.AuditEntry, error) {
	rd := reader{record: record}
	e := game.AuditEntry{Guild: guild, Action: l.Action, Amount: l.Amount, Reason: l.Reason,
		At: rd.at("at", l.At), Actor: rd.snowflake("ac", l.Actor), Target: rd.snowflake("tg", l.Target)}
	if rd.err != nil {
		return game.AuditEntry{}, rd.err
	}
	if err := e.Check(); err != nil {
		return game.AuditEntry{}, gameErr(record, "", auditFields, err)
	}
	return e, nil
}
