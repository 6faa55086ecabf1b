package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// This file reads the guild records and moderator log lines written
// before the schema: the Go structs storage.Settings (later game.Settings)
// and storage.AuditEntry (later game.AuditEntry) as encoding/json wrote
// them, field names and all. The release before the schema wrote the
// first three fields of BoltGuild and RedisGuild; Reset came with the
// guild transitions just before the schema, and reads the same way.

// GuildSettings is storage.Settings (game.Settings) of that release.
type GuildSettings struct {
	StartingBalance int64
	DailyAmount     int64
	DailyCooldown   time.Duration // nanoseconds
	PublicPlays     bool
	Channel         uint64
	House           HouseRules
}

// HouseRules is game.House of that release.
type HouseRules struct {
	MaxStakeDay  int64
	MinInterval  time.Duration
	RealityPlays int
	RealityEvery time.Duration
}

// GuildReset is game.GuildReset as it was written before the schema.
type GuildReset struct {
	Op      string
	Actor   uint64
	Reason  string
	Started time.Time
	After   uint64
	Count   int64
	Done    time.Time
}

// BoltGuild is the embedded store's value in its guilds bucket.
type BoltGuild struct {
	Version  uint64        `json:"v"`
	Settings GuildSettings `json:"s"`
	Ops      []string      `json:"o,omitempty"`
	Reset    *GuildReset   `json:"r,omitempty"`
}

// RedisGuild is the Redis store's field p of s:{guild}.
type RedisGuild struct {
	Settings GuildSettings
	Ops      []string    `json:",omitempty"`
	Reset    *GuildReset `json:",omitempty"`
	Audit    string      `json:",omitempty"` // the moderator log line of its last write, in the form DecodeRedisAudit reads
}

// game returns the guild of these fields, durations cut to whole
// milliseconds and times rounded to them, as the schema keeps them. It is
// not checked: the caller writes it through the schema, which checks it.
func guildOf(s GuildSettings, ops []string, r *GuildReset) game.Guild {
	ms := func(d time.Duration) time.Duration { return d.Truncate(time.Millisecond) }
	g := game.Guild{
		Settings: game.Settings{
			StartingBalance: s.StartingBalance, DailyAmount: s.DailyAmount, DailyCooldown: ms(s.DailyCooldown),
			PublicPlays: s.PublicPlays, Channel: s.Channel,
			House: game.House{MaxStakeDay: s.House.MaxStakeDay, MinInterval: ms(s.House.MinInterval),
				RealityPlays: s.House.RealityPlays, RealityEvery: ms(s.House.RealityEvery)},
		},
		Ops: ops,
	}
	if r != nil {
		g.Reset = &game.GuildReset{Op: r.Op, Actor: r.Actor, Reason: r.Reason, Started: stamp(r.Started),
			After: r.After, Count: r.Count, Done: stamp(r.Done)}
	}
	return g
}

// stamp rounds t to whole milliseconds, UTC; the zero time stays zero.
func stamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// houseOf is h in the form of that release.
func houseOf(h game.House) HouseRules {
	return HouseRules{MaxStakeDay: h.MaxStakeDay, MinInterval: h.MinInterval, RealityPlays: h.RealityPlays, RealityEvery: h.RealityEvery}
}

// strict parses b into v, refusing unknown fields and trailing data.
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the record")
	}
	return nil
}

// keys returns the top-level keys of the JSON object b (nil if b is not
// one).
func keys(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// IsBoltGuild reports whether b, a value of the embedded store's guilds
// bucket, is of the form before the schema (its settings in s; the
// schema's value has the record in p).
func IsBoltGuild(b []byte) bool {
	_, ok := keys(b)["s"]
	return ok
}

// DecodeBoltGuild reads a guilds value written before the schema. house is
// the store's default house rules: a record written before house rules
// existed has none, and reads with them, as its players would have had.
func DecodeBoltGuild(b []byte, house game.House) (version uint64, g game.Guild, err error) {
	r := BoltGuild{Settings: GuildSettings{House: houseOf(house)}}
	if err := strict(b, &r); err != nil {
		return 0, game.Guild{}, fmt.Errorf("legacy guild record: %w", err)
	}
	return r.Version, guildOf(r.Settings, r.Ops, r.Reset), nil
}

// IsRedisGuild reports whether b, the field p of s:{guild}, is of the
// form before the schema (Go field names; the schema's record has f).
func IsRedisGuild(b []byte) bool {
	_, ok := keys(b)["Settings"]
	return ok
}

// DecodeRedisGuild reads the field p of s:{guild} written before the
// schema, and the moderator log line it carried; house as in
// DecodeBoltGuild.
func DecodeRedisGuild(b []byte, house game.House) (g game.Guild, audit string, err error) {
	r := RedisGuild{Settings: GuildSettings{House: houseOf(house)}}
	if err := strict(b, &r); err != nil {
		return game.Guild{}, "", fmt.Errorf("legacy guild record: %w", err)
	}
	return guildOf(r.Settings, r.Ops, r.Reset), r.Audit, nil
}

// boltAudit is storage.AuditEntry of that release, as the embedded store
// wrote it in its audit bucket.
type boltAudit struct {
	At     time.Time
	Guild  uint64
	Actor  uint64
	Target uint64
	Action string
	Amount int64
	Reason string
}

// redisAudit is the Redis store's line in a:{guild} before the schema.
type redisAudit struct {
	ID     string    `json:"id,omitempty"`
	At     time.Time `json:"at"`
	Actor  uint64    `json:"actor,string"`
	Target uint64    `json:"target,string"`
	Action string    `json:"action"`
	Amount int64     `json:"amount"`
	Reason string    `json:"reason"`
}

// IsAudit reports whether b is a moderator log line written before the
// schema, by either store (the schema's line names its action x).
func IsAudit(b []byte) bool {
	m := keys(b)
	_, bolt := m["Action"]
	_, redis := m["action"]
	return bolt || redis
}

// DecodeAudit reads a moderator log line of guild written before the
// schema by either store: the entry, its time rounded to milliseconds,
// and the ID of the write that logged it (Redis lines only). It is not
// checked: the caller checks it (game.AuditEntry.Check) where it keeps it.
func DecodeAudit(guild uint64, b []byte) (e game.AuditEntry, id string, err error) {
	if _, ok := keys(b)["Action"]; ok {
		var a boltAudit
		if err := strict(b, &a); err != nil {
			return game.AuditEntry{}, "", fmt.Errorf("legacy audit line: %w", err)
		}
		if a.Guild != guild {
			return game.AuditEntry{}, "", fmt.Errorf("legacy audit line of guild %d in guild %d's log", a.Guild, guild)
		}
		return game.AuditEntry{At: stamp(a.At), Guild: guild, Actor: a.Actor, Target: a.Target, Action: a.Action, Amount: a.Amount, Reason: a.Reason}, "", nil
	}
	var a redisAudit
	if err := strict(b, &a); err != nil {
		return game.AuditEntry{}, "", fmt.Errorf("legacy audit line: %w", err)
	}
	return game.AuditEntry{At: stamp(a.At), Guild: guild, Actor: a.Actor, Target: a.Target, Action: a.Action, Amount: a.Amount, Reason: a.Reason}, a.ID, nil
}
