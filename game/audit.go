package game

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxReason is the most characters (runes) of a moderator's reason.
const MaxReason = 200

// The actions of the moderator log (AuditEntry.Action).
const (
	ActionGrant      = "grant"       // a grant to a player; Amount is the grant
	ActionSetBalance = "set-balance" // a player's balance set; Amount is the new balance
	ActionReset      = "reset"       // a player reset; Amount is the starting balance
	ActionLiftPause  = "lift-pause"  // a player's pause lifted
	ActionResetGuild = "reset-guild" // every player of the guild reset; Amount is how many
	ActionSettings   = "settings"    // the guild's settings changed; Reason says what changed
)

// AuditEntry records one moderator action in the guild's moderator log,
// which stores keep bounded (docs/STORAGE.md section 4).
type AuditEntry struct {
	At     time.Time
	Guild  uint64 // the guild; 0 in a guild transition's entry, which the store fills in
	Actor  uint64 // the moderator
	Target uint64 // the player, 0 for guild-wide actions
	Action string // one of the Action constants (a store keeps unknown ones as they are)
	Amount int64  // cents, or a count (ActionResetGuild), when relevant
	Reason string
}

// CheckReason checks a moderator's reason (it may be empty): valid UTF-8,
// at most MaxReason characters. The error wraps ErrInvalid.
func CheckReason(reason string) error {
	if !utf8.ValidString(reason) {
		return fmt.Errorf("%w: reason is not valid UTF-8", ErrInvalid)
	}
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return fmt.Errorf("%w: reason has %d characters, at most %d", ErrInvalid, n, MaxReason)
	}
	return nil
}

// Check reports whether e is an entry a moderator log may keep: of a
// guild, with an action, a time and a sound reason. The error is a
// *FieldError.
func (e AuditEntry) Check() error {
	switch {
	case e.Guild == 0:
		return fieldErr("Guild", "audit entry without a guild")
	case e.Action == "":
		return fieldErr("Action", "audit entry without an action")
	case e.At.IsZero():
		return fieldErr("At", "audit entry %q without a time", e.Action)
	}
	if err := CheckReason(e.Reason); err != nil {
		return fieldErr("Reason", "audit entry %q: %w", e.Action, err)
	}
	return nil
}

// OfGuild returns e as an entry of guild (a guild transition's entry has
// Guild 0), checked. The error wraps ErrInvalid, for another guild too.
func (e AuditEntry) OfGuild(guild uint64) (AuditEntry, error) {
	if e.Guild == 0 {
		e.Guild = guild
	}
	if e.Guild != guild {
		return e, fmt.Errorf("%w: audit entry of guild %d written with guild %d", ErrInvalid, e.Guild, guild)
	}
	return e, e.Check()
}
