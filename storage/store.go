package storage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lesclefsdutresor/clefs/game"
)

// Errors of a Store. Callers test them with errors.Is; every other error is
// internal (the backend is unreachable, a record is corrupt…) and is wrapped
// with context. A call that returns an error has written nothing, except
// where said.
var (
	ErrInvalid   = errors.New("storage: invalid argument")
	ErrDuplicate = errors.New("storage: duplicate record")
	ErrClosed    = errors.New("storage: store is closed")
	// ErrNoPlayer is returned by Run when the player was never written
	// and the step does not create players (a moderator's reset of someone
	// who never played, a button of a deleted player…).
	ErrNoPlayer = errors.New("storage: no such player")
	// ErrConflict is returned by Run (RunGuild) when the step kept
	// seeing a record that another writer changed before it could be
	// written (MaxAttempts times): under a storm of writes to one player.
	// Nothing was written.
	ErrConflict = errors.New("storage: too many concurrent changes, try again")
)

// LayoutVersion is the version of the stores' layout that this build
// reads and writes (docs/STORAGE.md §6); a store's Open refuses another,
// or none, with ErrLayout.
const LayoutVersion = 2

// ErrLayout is returned by a store's Open when the store was written by a
// release whose layout this build does not read (see LayoutVersion). The
// error wrapping it names the file or key.
var ErrLayout = errors.New("storage: store written by another release; export it with that release and import the dump")

// ErrDamaged is returned (wrapped, naming the file or key) when the store
// or one of its records is damaged (docs/operating.md, "A damaged file",
// "A damaged record"); a player's record is then a *DamagedError. Nothing
// was written.
var ErrDamaged = errors.New("storage: damaged")

// DamagedError is a player's record (or a line kept beside it) that does
// not decode or breaks the schema's bounds: not a failure of the store,
// which answered, and not worth trying again. It matches ErrDamaged only,
// never the errors of the decoding it wraps in Err (a game.ErrInvalid
// there is no refusal by the rules).
type DamagedError struct {
	ID  PlayerID
	Err error // what is wrong, naming the key
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("storage: damaged record of player %d/%d: %v", e.ID.Guild, e.ID.User, e.Err)
}

// Unwrap returns ErrDamaged.
func (e *DamagedError) Unwrap() error { return ErrDamaged }

// MaxAttempts bounds the compare-and-set retries of one Run or RunGuild.
const MaxAttempts = 64

// PlayerID names a player: a Discord user in a guild (both snowflakes).
type PlayerID struct {
	Guild uint64
	User  uint64
}

// Versioned is a player's state as stored, with the version that
// compare-and-set checks. Version 0 means the player was never written:
// Player is then the zero value.
type Versioned struct {
	Player  game.Player
	Version uint64
	// Repeat, set by a store's Run only, is the result that the step's
	// operation had when it was applied: the player remembers it, so nothing
	// was written and Player is the state as it is.
	Repeat *game.Result
	// Damaged, when not nil, says the stored record does not decode: Player
	// is then what could be read of it (its seeds, if they decode on their
	// own: schema.DecodeSeeds) and Version the version stored (0 if that is
	// unreadable too).
	Damaged *DamagedError
}

// Exists reports whether the player was ever written.
func (v Versioned) Exists() bool { return v.Version != 0 }

// Write is what one step writes, atomically (Run.Next gives it to a
// store): the player's new state, its history lines and, for a
// moderator's action, the audit entry.
type Write struct {
	// Player is the new state. Its Balance also goes to the guild's
	// leaderboard index.
	Player game.Player
	// History lines to append, oldest first, to the two capped lists of
	// docs/STORAGE.md §3 (game.MainLine; MergeNewest).
	History []game.Entry
	// Reveals are the seeds revealed, oldest first, kept beside the
	// player (the last game.MaxReveals; Store.Reveals).
	Reveals []game.SeedReveal
	// Result is what the step's operation answers, remembered
	// beside the player with the operation's ID (the last game.MaxOps),
	// so that a repeat of the operation is answered with it.
	Result game.Result
	// Audit, when not nil, is appended to the guild's moderator log (the
	// last AuditLimit kept).
	Audit *game.AuditEntry
}

// VersionedGuild is a guild's state as stored (game.Guild: its settings,
// the operations applied to it, its reset-guild's progress), with the
// version that compare-and-set checks (0: never written; the settings are
// then the store's defaults).
type VersionedGuild struct {
	game.Guild
	Version uint64
}

// Exists reports whether the guild was ever written.
func (g VersionedGuild) Exists() bool { return g.Version != 0 }

// GuildWrite is what one guild step writes, atomically (GuildStep.Next
// gives it to a store): the guild's new state, as game's transition
// returned it (the store adds and trims nothing), and the audit entry;
// with Skip, it writes nothing.
type GuildWrite struct {
	Skip  bool
	Guild game.Guild
	// Audit, when not nil, is appended to the guild's moderator log (the
	// last AuditLimit kept); its Guild may be 0 (the guild written).
	Audit *game.AuditEntry
}

// LeaderboardEntry is one row of a guild's leaderboard.
type LeaderboardEntry struct {
	User    uint64
	Balance int64
	Rank    int // 1 for the richest; ties broken by user ID, lowest first
}

// Board is a guild's leaderboard as one caller sees it.
type Board struct {
	Top     []LeaderboardEntry // the first n, richest first
	You     *LeaderboardEntry  // the caller's own row, nil if not on the board
	Players int                // players on the board
}

// Store persists players and guilds. It decides nothing: the rules are in
// package game, and Run applies them (game.Apply). Every method is safe for
// concurrent use by many goroutines and by many processes sharing the
// backend.
type Store interface {
	// Load returns the player's state and version; a player never written
	// has Version 0. It creates nothing. A record that does not decode is
	// a *DamagedError, with what could be read of it (Versioned.Damaged).
	Load(ctx context.Context, id PlayerID) (Versioned, error)

	// Run runs s in one atomic step of the store (package doc): Start, then
	// Run.Next on the player and a compare-and-set write, again on the fresh
	// state while another writer comes first, at most MaxAttempts times
	// (then ErrConflict). If the player remembers s.Op (checked in the same
	// step), it writes nothing and returns the first result with Repeated
	// set. A record that does not decode is its *DamagedError, unless
	// s.Repair: the store then replaces it (Run.ReadBeside), keeping its
	// leaderboard entry.
	//
	// Errors: the move's (game.ErrInsufficientFunds…), ErrNoPlayer,
	// ErrInvalid, ErrConflict, a *DamagedError, or internal; Applied then
	// holds the player as it is, for the reply.
	Run(ctx context.Context, s Step) (Applied, error)

	// Reveals returns the seeds the player revealed that the store keeps
	// (the last game.MaxReveals), oldest first.
	Reveals(ctx context.Context, id PlayerID) (game.Reveals, error)

	// History returns up to n of the player's most recent history lines,
	// newest first.
	History(ctx context.Context, id PlayerID, n int) ([]game.Entry, error)
	// Leaderboard returns the guild's n richest players and the row of user
	// (0: none), from an index kept with every write: O(log N) in the
	// guild's players.
	Leaderboard(ctx context.Context, guild uint64, n int, user uint64) (Board, error)
	// Players calls fn with the user ID of every player of the guild, in
	// increasing order, until fn returns an error (returned as is).
	Players(ctx context.Context, guild uint64, fn func(user uint64) error) error
	// Audit returns up to n of the guild's most recent moderator actions,
	// newest first.
	Audit(ctx context.Context, guild uint64, n int) ([]game.AuditEntry, error)

	// Guild returns the guild's state (the default settings if never
	// written) and version.
	Guild(ctx context.Context, guild uint64) (VersionedGuild, error)
	// RunGuild is Run for a guild (GuildStep.Check, GuildStep.Next:
	// game.ApplyGuild): the guild and the audit entry in one atomic
	// compare-and-set. A step that changes nothing writes nothing.
	// Errors: the move's (game.ErrInvalid…), ErrInvalid, ErrConflict, or
	// internal; GuildApplied then holds the guild as it is.
	RunGuild(ctx context.Context, s GuildStep) (GuildApplied, error)

	// Jobs returns, in increasing order, the guilds whose record may have
	// a reset-guild in progress (game.GuildReset), from an index RunGuild
	// keeps, so that a process takes up the jobs of one that died. A guild
	// listed may have finished meanwhile, never the reverse.
	Jobs(ctx context.Context) ([]uint64, error)

	// Ping checks that the backend answers.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Restorer is a store that clefs restore processes (docs/operating.md,
// "Restoring"; game.Restore) under the ID of a restore recorded in the store
// while it runs. The bot refuses to serve a store with a restore pending.
type Restorer interface {
	// Restoring returns the ID of the restore pending ("" if none): a
	// snapshot of the embedded store is written with one.
	Restoring(ctx context.Context) (string, error)
	// SetRestoring records id as the restore pending; "" ends it.
	SetRestoring(ctx context.Context, id string) error
	// Guilds returns every guild that has players, in increasing order.
	Guilds(ctx context.Context) ([]uint64, error)
}

// Options configure a store. The zero value is usable.
type Options struct {
	// Defaults are the settings of a guild whose moderators set none.
	Defaults game.Settings
}

// MergeNewest merges the two lists a store keeps of a player's history
// (game.MainLine), each newest first, and returns the newest n lines,
// newest first: game.MergeHistory for stores, which read their lists from
// the newest end. It reuses the lists' arrays.
func MergeNewest(main, others []game.Entry, n int) []game.Entry {
	if len(others) > 0 {
		slices.Reverse(main)
		slices.Reverse(others)
		main = game.MergeHistory(main, others)
		slices.Reverse(main)
	}
	return main[:min(n, len(main))]
}

// Limits every store keeps.
const (
	HistoryLimit = game.MaxHistory // history lines kept per player: its last game.MaxTicketLines tickets and game.MaxOtherLines others
	AuditLimit   = 1000            // moderator actions kept per guild
)

// ValidateID checks that both parts of a player's id are set.
func ValidateID(id PlayerID) error {
	if id.Guild == 0 || id.User == 0 {
		return fmt.Errorf("%w: player id %d/%d", ErrInvalid, id.Guild, id.User)
	}
	return nil
}

// SortLeaderboard orders entries by balance, highest first, then by user id.
func SortLeaderboard(entries []LeaderboardEntry) {
	slices.SortFunc(entries, func(a, b LeaderboardEntry) int {
		return cmp.Or(cmp.Compare(b.Balance, a.Balance), cmp.Compare(a.User, b.User))
	})
}
