package storage

import (
	"context"
	"errors"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Errors returned by a Store. Callers test them with errors.Is; every other
// error is internal (the store is unreachable, data is corrupt…) and is wrapped
// with context. A step that returns an error has changed nothing.
var (
	ErrInsufficientFunds = errors.New("storage: insufficient balance")
	ErrChestDue          = errors.New("storage: the treasure chest must be opened first")
	ErrNoChest           = errors.New("storage: no treasure chest is due")
	ErrUnknownTicket     = errors.New("storage: unknown or stale ticket")
	ErrDailyCooldown     = errors.New("storage: daily bonus already claimed")
	ErrInvalid           = errors.New("storage: invalid argument")
	ErrDuplicate         = errors.New("storage: duplicate record")
	ErrClosed            = errors.New("storage: store is closed")
)

// PlayerID names a player: a Discord user in a guild (both snowflakes).
type PlayerID struct {
	Guild uint64
	User  uint64
}

// RowMask is a set of rows of the grid: bit r set means row r (0..2).
type RowMask uint8

// AllRows is the mask of the three rows.
const AllRows RowMask = 0b111

// Ticket is one play: bought (stake debited), then drawn at the first click,
// then revealed row by row. A ticket is open until all its rows are revealed.
type Ticket struct {
	ID        uint64 // per player, increasing from 1
	BoughtAt  time.Time
	Drawn     bool
	Outcome   game.Outcome // valid when Drawn
	KeysAfter int          // keys held after the draw (0..2; 0 when the chest was won)
	Chest     bool         // the draw gave the third key: the chest is due
	Revealed  RowMask
	// DrawnNow is true only in the Ticket returned by the Reveal call that
	// drew it (never stored), so that exactly one caller counts the draw in
	// metrics, however many clicks raced.
	DrawnNow bool `json:"-"`
}

// Open reports whether the ticket still has rows to reveal.
func (t Ticket) Open() bool { return t.Revealed != AllRows }

// Stats are a player's running totals. The invariant
// Balance = StartingBalance + GrantedCents + WonCents + DailyCents − StakedCents
// holds for every player at every moment (SetBalance records its difference in GrantedCents).
type Stats struct {
	Plays        int64 // tickets bought
	StakedCents  int64
	WonCents     int64 // main game and chest prizes
	GrantedCents int64 // moderators' grants and balance adjustments (may be negative)
	DailyCents   int64 // daily bonuses
	Chests       int64 // chests opened
	BestWinCents int64 // largest single prize
	Wins         int64 // winning plays
	Keys         int64 // keys collected
}

// Player is the state of one player.
type Player struct {
	ID              PlayerID
	StartingBalance int64 // the balance the player was created (or last reset) with
	Balance         int64 // cents
	Keys            int   // 0..2
	ChestPending    bool
	ChestSeq        int64       // chests opened so far (never reset); the next chest is ChestSeq+1
	TicketSeq       uint64      // tickets bought so far (never reset); the next ticket is TicketSeq+1
	Ticket          *Ticket     // the current ticket (open, or the last one played); nil if none
	LastChest       *game.Chest // the last chest opened, for re-showing it
	Stats           Stats
	LastDaily       time.Time // zero if never claimed
	CreatedAt       time.Time
}

// Kind tells what a history entry records.
type Kind string

// History kinds.
const (
	KindPlay  Kind = "play"
	KindChest Kind = "chest"
	KindDaily Kind = "daily"
	KindGrant Kind = "grant"
	KindSet   Kind = "set-balance"
	KindReset Kind = "reset"
)

// HistoryEntry is one line of a player's recent history.
type HistoryEntry struct {
	At       time.Time
	Kind     Kind
	TicketID uint64    // for KindPlay
	Tier     game.Tier // for KindPlay
	Key      bool      // for KindPlay
	Lot      game.Lot  // for KindChest
	Amount   int64     // credits moved, signed: prize − stake for a play, prize, bonus, grant, new − old balance for set-balance and reset
	Balance  int64     // balance after
}

// AuditEntry records one moderator action.
type AuditEntry struct {
	At     time.Time
	Guild  uint64
	Actor  uint64 // the moderator
	Target uint64 // the player, 0 for guild-wide actions
	Action string // "grant", "set-balance", "reset", "reset-guild", "settings"
	Amount int64  // cents, when relevant
	Reason string
}

// Settings are a guild's options, set by its moderators.
type Settings struct {
	StartingBalance int64 // cents, for players created from now on
	DailyAmount     int64 // cents; 0 disables /daily
	DailyCooldown   time.Duration
	PublicPlays     bool   // plays visible to the channel (else ephemeral)
	Channel         uint64 // the only channel where plays are allowed; 0 = anywhere
}

// LeaderboardEntry is one row of a guild's leaderboard.
type LeaderboardEntry struct {
	User    uint64
	Balance int64
	Won     int64
}

// Store is the contract both stores satisfy. Every method is safe for
// concurrent use by many goroutines and many processes sharing the backend;
// every state change is one atomic step. Players are created on first use
// with their guild's starting balance.
type Store interface {
	// Player returns the player's state, creating the player if needed.
	Player(ctx context.Context, id PlayerID) (Player, error)

	// Buy debits the stake and opens a new ticket. If a ticket is already
	// open it is returned instead with resumed=true and nothing is charged.
	// Errors: ErrChestDue, ErrInsufficientFunds (p is then the player's state).
	Buy(ctx context.Context, id PlayerID) (p Player, t Ticket, resumed bool, err error)

	// Reveal shows rows of ticket ticketID. At the first call on a ticket it
	// draws the outcome with the keys held and commits outcome, prize, keys,
	// chest flag, statistics and history at once; every later call (a second
	// click, a retry, another process) returns the stored outcome and never
	// draws again. rows may be 0 to draw without revealing. Revealing rows
	// already shown is not an error. Reveal on the player's last ticket after
	// it was fully revealed returns it unchanged.
	// Errors: ErrUnknownTicket (not the player's current ticket), ErrInvalid.
	Reveal(ctx context.Context, id PlayerID, ticketID uint64, rows RowMask) (Player, Ticket, error)

	// OpenChest draws the treasure chest, credits the prize and clears the
	// chest flag, once. seq must be p.ChestSeq+1 as read by the caller; a
	// repeated call with the seq of the chest just opened returns the same
	// result (a double click pays once). opened is true only for the call
	// that opened the chest, so that exactly one caller counts it in
	// metrics, however many clicks raced.
	// Errors: ErrNoChest (with the player's state).
	OpenChest(ctx context.Context, id PlayerID, seq int64) (p Player, c game.Chest, opened bool, err error)

	// ClaimDaily credits the guild's daily amount if the cooldown has passed.
	// Errors: ErrDailyCooldown (with the player's state), ErrInvalid when disabled.
	ClaimDaily(ctx context.Context, id PlayerID) (Player, error)

	// Grant adds amount (may be negative, not below a zero balance) to the
	// player's balance. Recorded in the audit log.
	Grant(ctx context.Context, actor uint64, id PlayerID, amount int64, reason string) (Player, error)
	// SetBalance sets the balance (≥ 0); the difference counts as granted.
	SetBalance(ctx context.Context, actor uint64, id PlayerID, balance int64, reason string) (Player, error)
	// ResetPlayer puts the player back to a new player's state (keys, ticket,
	// chest and statistics lost, guild starting balance).
	ResetPlayer(ctx context.Context, actor uint64, id PlayerID, reason string) (Player, error)
	// ResetGuild resets every player of the guild; returns how many.
	ResetGuild(ctx context.Context, actor uint64, guild uint64, reason string) (int, error)

	// History returns up to n of the player's most recent entries, newest first.
	History(ctx context.Context, id PlayerID, n int) ([]HistoryEntry, error)
	// Leaderboard returns up to n players of the guild by balance, highest first.
	Leaderboard(ctx context.Context, guild uint64, n int) ([]LeaderboardEntry, error)
	// Audit returns up to n of the guild's most recent moderator actions, newest first.
	Audit(ctx context.Context, guild uint64, n int) ([]AuditEntry, error)

	// Settings returns the guild's settings (defaults if never set).
	Settings(ctx context.Context, guild uint64) (Settings, error)
	// SetSettings replaces the guild's settings. Recorded in the audit log.
	SetSettings(ctx context.Context, actor uint64, guild uint64, s Settings, reason string) error

	// Ping checks that the backend is reachable.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Options configure a store. The zero value is usable.
type Options struct {
	// Source gives the randomness of draws; nil means game.NewSecureSource().
	// It must be safe for concurrent use.
	Source game.Source
	// Now gives the time; nil means time.Now.
	Now func() time.Time
	// Defaults are the settings of a guild whose moderators set none.
	Defaults Settings
	// Drawer draws plays and chests; nil means the game's own draws
	// (game.Play, game.OpenChest) with Source. Tests inject one to force
	// outcomes or to make a draw fail.
	Drawer Drawer
}
