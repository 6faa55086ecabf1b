package schema

import (
	"fmt"
	"strconv"

	"github.com/lesclefsdutresor/clefs/game"
)

// DumpPlayer is one player in a dump: its record and the lines kept
// beside it. The remembered operations are not dumped: a dump is imported
// into a store that no operation has reached yet.
type DumpPlayer struct {
	Guild   string   `json:"guild"` // snowflake, decimal
	User    string   `json:"user"`  // snowflake, decimal
	Player  Player   `json:"p"`
	History []Line   `json:"h,omitempty"` // oldest first, within game.CheckHistory's bounds
	Reveals []Reveal `json:"r,omitempty"` // oldest first, at most game.MaxReveals
}

// NewDumpPlayer returns the dump form of a player of guild and user, with
// its history and reveals, oldest first: its public export's, and its record.
func NewDumpPlayer(guild, user uint64, p game.Player, hist []game.Entry, reveals game.Reveals) DumpPlayer {
	x := NewPublicExport(guild, user, hist, reveals)
	return DumpPlayer{Guild: x.Guild, User: x.User, Player: FromPlayer(p), History: x.History, Reveals: x.Reveals}
}

// Game returns what d holds, checked: the IDs, the player, its history
// and its reveals (their chain, game.Player.CheckReveals); record names it
// in errors.
func (d DumpPlayer) Game(record string) (guild, user uint64, p game.Player, hist []game.Entry, reveals game.Reveals, err error) {
	if guild, err = Snowflake(record, "guild", d.Guild); err != nil {
		return
	}
	if user, err = Snowflake(record, "user", d.User); err != nil {
		return
	}
	if p, err = d.Player.Game(record); err != nil {
		return
	}
	if hist, reveals, err = linesOf(record, d.History, d.Reveals); err != nil {
		return
	}
	err = revealsErr(record, p.CheckReveals(reveals))
	return
}

// linesOf returns the history h and the reveals r of record, each line and
// reveal checked, and the history against game.CheckHistory; the reveals'
// chain is the caller's to check.
func linesOf(record string, h []Line, r []Reveal) ([]game.Entry, game.Reveals, error) {
	if len(h) > game.MaxHistory {
		return nil, nil, fieldErr(record, "h", "%d lines, at most %d", len(h), game.MaxHistory)
	}
	var hist []game.Entry
	for i, l := range h {
		e, err := l.Game(fmt.Sprintf("%s h[%d]", record, i))
		if err != nil {
			return nil, nil, err
		}
		hist = append(hist, e)
	}
	if err := game.CheckHistory(hist); err != nil {
		return nil, nil, &FieldError{Record: record, Field: "h", Err: err}
	}
	var reveals game.Reveals
	for i, x := range r {
		gr, err := x.Game(fmt.Sprintf("%s r[%d]", record, i))
		if err != nil {
			return nil, nil, err
		}
		reveals = append(reveals, gr)
	}
	return hist, reveals, nil
}

// Snowflake reads a Discord ID written as a decimal string: 1..2^64−1.
func Snowflake(record, field, s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, fieldErr(record, field, "%q is not a snowflake (a decimal number from 1)", s)
	}
	return v, nil
}

// DumpGuild is one guild in a dump: its settings, absent if its
// moderators never set any, and its moderator log, oldest first. The
// operations it remembers and its reset-guild's progress are not dumped:
// a dump is imported into a store that no operation has reached yet.
type DumpGuild struct {
	Guild    string         `json:"guild"`           // snowflake, decimal
	Settings *GuildSettings `json:"s,omitempty"`     // as a guild record's s
	Audit    []AuditLine    `json:"audit,omitempty"` // oldest first; their id is left out
}

// NewDumpGuild returns the dump form of guild: its settings (nil if never
// set) and its moderator log, oldest first.
func NewDumpGuild(guild uint64, s *game.Settings, audit []game.AuditEntry) DumpGuild {
	d := DumpGuild{Guild: strconv.FormatUint(guild, 10)}
	if s != nil {
		gs := FromGuild(game.Guild{Settings: *s}).Settings
		d.Settings = &gs
	}
	for _, e := range audit {
		d.Audit = append(d.Audit, FromAudit("", e))
	}
	return d
}

// Game returns what d holds, checked: the guild's ID, its settings (nil if
// none; game.Settings.Check) and its log (game.AuditEntry.Check); record
// names it in errors. How many lines a store keeps is the store's bound,
// for the caller to check.
func (d DumpGuild) Game(record string) (guild uint64, s *game.Settings, audit []game.AuditEntry, err error) {
	if guild, err = Snowflake(record, "guild", d.Guild); err != nil {
		return 0, nil, nil, err
	}
	if d.Settings != nil {
		gs, err := d.Settings.Game(record, "s")
		if err != nil {
			return 0, nil, nil, err
		}
		s = &gs
	}
	audit = make([]game.AuditEntry, 0, len(d.Audit))
	for i, l := range d.Audit {
		if l.ID != "" {
			return 0, nil, nil, fieldErr(record, fmt.Sprintf("audit[%d].id", i), "a dump's lines have no id")
		}
		e, err := l.Game(fmt.Sprintf("%s audit[%d]", record, i), guild)
		if err != nil {
			return 0, nil, nil, err
		}
		audit = append(audit, e)
	}
	return guild, s, audit, nil
}
