package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

var (
	bucketPlayers = []byte("players") // guild|user → playerRec
	bucketHistory = []byte("history") // guild|user|seq → HistoryEntry
	bucketGuilds  = []byte("guilds")  // guild → guildRec
	bucketAudit   = []byte("audit")   // guild|seq → AuditEntry
)

// Store is the embedded store: one bbolt file, one transaction per step.
type Store struct {
	db     *bolt.DB
	opts   storage.Options
	closed atomic.Bool
}

var (
	_ storage.Store  = (*Store)(nil)
	_ storage.Dumper = (*Store)(nil)
)

// playerRec is a player as stored, with the sequence of its last history entry.
type playerRec struct {
	P    storage.Player `json:"p"`
	HSeq uint64         `json:"h"`
}

// guildRec is a guild as stored.
type guildRec struct {
	Settings *storage.Settings `json:"s,omitempty"`
	ASeq     uint64            `json:"a"`
}

// Open opens (creating it with mode 0600 if needed) the store at path. The
// file is locked: a second process opening it waits up to one second, then
// fails. Commits are fsynced; concurrent steps share a commit (bbolt's Batch).
func Open(path string, opts storage.Options) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("boltstore: open %s: the file is in use by another process (is the bot running? stop it first): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	// 64 concurrent players fill a batch in well under a millisecond; a
	// short delay keeps latency low without losing the shared fsync.
	db.MaxBatchDelay = 2 * time.Millisecond
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketPlayers, bucketHistory, bucketGuilds, bucketAudit} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: init %s: %w", path, err)
	}
	return &Store{db: db, opts: opts.WithDefaults()}, nil
}

// Path returns the file of the store.
func (s *Store) Path() string { return filepath.Clean(s.db.Path()) }

// Close closes the file; later calls return storage.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("boltstore: close: %w", err)
	}
	return nil
}

// Ping reports whether the store is open.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if _, err := os.Stat(s.db.Path()); err != nil {
		return fmt.Errorf("boltstore: ping: %w", err)
	}
	return nil
}

func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: %w", err)
	}
	return nil
}

func (s *Store) now() time.Time { return storage.Timestamp(s.opts.Now()) }

// batch runs fn in a shared write transaction. fn may run more than once; it
// must assign its results afresh on every call.
func (s *Store) batch(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := s.db.Batch(fn); err != nil {
		if errors.Is(err, berrors.ErrDatabaseNotOpen) {
			return storage.ErrClosed
		}
		return fmt.Errorf("boltstore: %s: %w", op, err)
	}
	return nil
}

func (s *Store) view(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := s.db.View(fn); err != nil {
		if errors.Is(err, berrors.ErrDatabaseNotOpen) {
			return storage.ErrClosed
		}
		return fmt.Errorf("boltstore: %s: %w", op, err)
	}
	return nil
}

func playerKey(id storage.PlayerID) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, id.Guild)
	binary.BigEndian.PutUint64(k[8:], id.User)
	return k
}

func seqKey(prefix []byte, seq uint64) []byte {
	k := make([]byte, len(prefix)+8)
	copy(k, prefix)
	binary.BigEndian.PutUint64(k[len(prefix):], seq)
	return k
}

func guildKey(guild uint64) []byte { return binary.BigEndian.AppendUint64(nil, guild) }

func getPlayer(tx *bolt.Tx, id storage.PlayerID) (*playerRec, error) {
	v := tx.Bucket(bucketPlayers).Get(playerKey(id))
	if v == nil {
		return nil, nil
	}
	var r playerRec
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("decode player %d/%d: %w", id.Guild, id.User, err)
	}
	r.P.ID = id
	return &r, nil
}

func getGuild(tx *bolt.Tx, guild uint64) (guildRec, error) {
	var g guildRec
	v := tx.Bucket(bucketGuilds).Get(guildKey(guild))
	if v == nil {
		return g, nil
	}
	if err := json.Unmarshal(v, &g); err != nil {
		return g, fmt.Errorf("decode guild %d: %w", guild, err)
	}
	return g, nil
}

func (s *Store) settings(tx *bolt.Tx, guild uint64) (storage.Settings, error) {
	g, err := getGuild(tx, guild)
	if err != nil || g.Settings == nil {
		return s.opts.Defaults, err
	}
	return *g.Settings, nil
}

// loadOrCreate returns the player, built (not yet written) with the guild's
// starting balance if it does not exist.
func (s *Store) loadOrCreate(tx *bolt.Tx, id storage.PlayerID, now time.Time) (*playerRec, bool, error) {
	r, err := getPlayer(tx, id)
	if err != nil || r != nil {
		return r, false, err
	}
	set, err := s.settings(tx, id.Guild)
	if err != nil {
		return nil, false, err
	}
	return &playerRec{P: newPlayer(id, set.StartingBalance, now)}, true, nil
}

// save writes the player and appends its history entries, dropping the oldest
// beyond storage.HistoryLimit.
func save(tx *bolt.Tx, r *playerRec, hist []storage.HistoryEntry) error {
	pk := playerKey(r.P.ID)
	hb := tx.Bucket(bucketHistory)
	for _, h := range hist {
		r.HSeq++
		v, err := json.Marshal(h)
		if err != nil {
			return fmt.Errorf("encode history: %w", err)
		}
		if err := hb.Put(seqKey(pk, r.HSeq), v); err != nil {
			return fmt.Errorf("put history: %w", err)
		}
		if r.HSeq > storage.HistoryLimit {
			if err := hb.Delete(seqKey(pk, r.HSeq-storage.HistoryLimit)); err != nil {
				return fmt.Errorf("trim history: %w", err)
			}
		}
	}
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode player: %w", err)
	}
	if err := tx.Bucket(bucketPlayers).Put(pk, v); err != nil {
		return fmt.Errorf("put player: %w", err)
	}
	return nil
}

func appendAudit(tx *bolt.Tx, e storage.AuditEntry) error {
	g, err := getGuild(tx, e.Guild)
	if err != nil {
		return err
	}
	g.ASeq++
	gk := guildKey(e.Guild)
	ab := tx.Bucket(bucketAudit)
	v, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit: %w", err)
	}
	if err := ab.Put(seqKey(gk, g.ASeq), v); err != nil {
		return fmt.Errorf("put audit: %w", err)
	}
	if g.ASeq > storage.AuditLimit {
		if err := ab.Delete(seqKey(gk, g.ASeq-storage.AuditLimit)); err != nil {
			return fmt.Errorf("trim audit: %w", err)
		}
	}
	return putGuild(tx, e.Guild, g)
}

func putGuild(tx *bolt.Tx, guild uint64, g guildRec) error {
	v, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("encode guild: %w", err)
	}
	if err := tx.Bucket(bucketGuilds).Put(guildKey(guild), v); err != nil {
		return fmt.Errorf("put guild: %w", err)
	}
	return nil
}

// Player returns the player's state, creating the player if needed.
func (s *Store) Player(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, err
	}
	var p storage.Player
	found := false
	if err := s.view(ctx, "player", func(tx *bolt.Tx) error {
		r, err := getPlayer(tx, id)
		if r != nil {
			p, found = r.P, true
		}
		return err
	}); err != nil || found {
		return p, err
	}
	now := s.now()
	err := s.batch(ctx, "create player", func(tx *bolt.Tx) error {
		r, created, err := s.loadOrCreate(tx, id, now)
		if err != nil {
			return err
		}
		p = r.P
		if created {
			return save(tx, r, nil)
		}
		return nil
	})
	return p, err
}

// Buy debits the stake and opens a ticket, or returns the open one.
func (s *Store) Buy(ctx context.Context, id storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, storage.Ticket{}, false, err
	}
	// Fast path, read only: an open ticket is handed back without a write.
	var open storage.Player
	if err := s.view(ctx, "buy", func(tx *bolt.Tx) error {
		r, err := getPlayer(tx, id)
		if r != nil && r.P.Ticket != nil && r.P.Ticket.Open() {
			open = r.P
		}
		return err
	}); err != nil {
		return storage.Player{}, storage.Ticket{}, false, err
	}
	if open.Ticket != nil {
		return open, *open.Ticket, true, nil
	}
	var (
		t       storage.Ticket
		resumed bool
	)
	p, err := s.playerStep(ctx, "buy", id, func(_ *bolt.Tx, p *storage.Player, now time.Time) (h []storage.HistoryEntry, changed bool, err error) {
		t, resumed, err = buy(p, now)
		return nil, !resumed, err
	})
	return p, t, resumed, err
}

// Reveal draws the ticket at the first call and records the rows shown.
func (s *Store) Reveal(ctx context.Context, id storage.PlayerID, ticketID uint64, rows storage.RowMask) (storage.Player, storage.Ticket, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, storage.Ticket{}, err
	}
	// Fast path, read only: a click on rows already shown of a drawn ticket
	// (a double click, a re-render) needs no write transaction.
	if rows&^storage.AllRows == 0 {
		var p storage.Player
		done := false
		if err := s.view(ctx, "reveal", func(tx *bolt.Tx) error {
			r, err := getPlayer(tx, id)
			if r != nil && r.P.Ticket != nil && r.P.Ticket.ID == ticketID && r.P.Ticket.Drawn && r.P.Ticket.Revealed&rows == rows {
				p, done = r.P, true
			}
			return err
		}); err != nil {
			return storage.Player{}, storage.Ticket{}, err
		}
		if done {
			return p, *p.Ticket, nil
		}
	}
	var t storage.Ticket
	p, err := s.playerStep(ctx, "reveal", id, func(_ *bolt.Tx, p *storage.Player, now time.Time) ([]storage.HistoryEntry, bool, error) {
		h, changed, err := reveal(p, ticketID, rows, s.opts.Drawer, now)
		if err == nil {
			t = *p.Ticket
			t.DrawnNow = len(h) > 0
		}
		return h, changed, err
	})
	if err != nil {
		return p, storage.Ticket{}, err
	}
	return p, t, nil
}

// OpenChest draws and credits the due chest, once.
func (s *Store) OpenChest(ctx context.Context, id storage.PlayerID, seq int64) (storage.Player, game.Chest, bool, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, game.Chest{}, false, err
	}
	var (
		c      game.Chest
		opened bool
	)
	p, err := s.playerStep(ctx, "open chest", id, func(_ *bolt.Tx, p *storage.Player, now time.Time) (h []storage.HistoryEntry, changed bool, err error) {
		c, h, changed, err = openChest(p, seq, s.opts.Drawer, now)
		opened = changed
		return h, changed, err
	})
	if err != nil {
		return p, game.Chest{}, false, err
	}
	return p, c, opened, nil
}

// ClaimDaily credits the guild's daily bonus if the cooldown has passed.
func (s *Store) ClaimDaily(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, err
	}
	return s.playerStep(ctx, "daily", id, func(tx *bolt.Tx, p *storage.Player, now time.Time) ([]storage.HistoryEntry, bool, error) {
		set, err := s.settings(tx, id.Guild)
		if err != nil {
			return nil, false, err
		}
		h, err := claimDaily(p, set, now)
		return h, true, err
	})
}

// playerStep runs one atomic step on a player in a batched write
// transaction (one fsync shared with the steps running at the same time).
// fn changes *p and returns the history entries to append and whether it
// changed anything. An error from fn is a refusal: nothing is written but
// the player if this step created it, and the player comes back as it was.
// bbolt's Batch may run the transaction more than once, so fn must set its
// results afresh on every call.
func (s *Store) playerStep(ctx context.Context, op string, id storage.PlayerID,
	fn func(tx *bolt.Tx, p *storage.Player, now time.Time) (h []storage.HistoryEntry, changed bool, err error)) (storage.Player, error) {
	now := s.now()
	var (
		p       storage.Player
		stepErr error
	)
	err := s.batch(ctx, op, func(tx *bolt.Tx) error {
		p, stepErr = storage.Player{}, nil
		r, created, err := s.loadOrCreate(tx, id, now)
		if err != nil {
			return err
		}
		before := r.P
		h, changed, err := fn(tx, &r.P, now)
		if err != nil {
			stepErr, p = err, before
			if created {
				return save(tx, &playerRec{P: before}, nil)
			}
			return nil
		}
		p = r.P
		if changed || created {
			return save(tx, r, h)
		}
		return nil
	})
	if err == nil {
		err = stepErr
	}
	return p, err
}

// moderate runs a moderator's step on one player and records it in the audit log.
func (s *Store) moderate(ctx context.Context, op string, actor uint64, id storage.PlayerID, amount int64, reason string,
	step func(p *storage.Player, set storage.Settings, now time.Time) ([]storage.HistoryEntry, int64, error)) (storage.Player, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Player{}, err
	}
	if err := storage.ValidateReason(reason); err != nil {
		return storage.Player{}, err
	}
	now := s.now()
	var (
		p       storage.Player
		stepErr error
	)
	err := s.batch(ctx, op, func(tx *bolt.Tx) error {
		r, _, err := s.loadOrCreate(tx, id, now)
		if err != nil {
			return err
		}
		set, err := s.settings(tx, id.Guild)
		if err != nil {
			return err
		}
		before := r.P
		h, amt, err := step(&r.P, set, now)
		if err != nil {
			// Nothing is written, not even a new player: the step failed.
			stepErr, p = err, before
			return nil
		}
		stepErr, p = nil, r.P
		if err := save(tx, r, h); err != nil {
			return err
		}
		return appendAudit(tx, storage.AuditEntry{At: now, Guild: id.Guild, Actor: actor, Target: id.User, Action: op, Amount: amt, Reason: reason})
	})
	if err == nil {
		err = stepErr
	}
	return p, err
}

// Grant adds amount to the player's balance; recorded in the audit log.
func (s *Store) Grant(ctx context.Context, actor uint64, id storage.PlayerID, amount int64, reason string) (storage.Player, error) {
	return s.moderate(ctx, "grant", actor, id, amount, reason, func(p *storage.Player, _ storage.Settings, now time.Time) ([]storage.HistoryEntry, int64, error) {
		h, err := grant(p, amount, now)
		return h, amount, err
	})
}

// SetBalance sets the player's balance; recorded in the audit log.
func (s *Store) SetBalance(ctx context.Context, actor uint64, id storage.PlayerID, balance int64, reason string) (storage.Player, error) {
	return s.moderate(ctx, "set-balance", actor, id, balance, reason, func(p *storage.Player, _ storage.Settings, now time.Time) ([]storage.HistoryEntry, int64, error) {
		h, err := setBalance(p, balance, now)
		return h, balance, err
	})
}

// ResetPlayer puts the player back to a new player's state; recorded in the audit log.
func (s *Store) ResetPlayer(ctx context.Context, actor uint64, id storage.PlayerID, reason string) (storage.Player, error) {
	return s.moderate(ctx, "reset", actor, id, 0, reason, func(p *storage.Player, set storage.Settings, now time.Time) ([]storage.HistoryEntry, int64, error) {
		return reset(p, set.StartingBalance, now), set.StartingBalance, nil
	})
}

// ResetGuild resets every player of the guild in one transaction.
func (s *Store) ResetGuild(ctx context.Context, actor uint64, guild uint64, reason string) (int, error) {
	if guild == 0 {
		return 0, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if err := storage.ValidateReason(reason); err != nil {
		return 0, err
	}
	now := s.now()
	var n int
	err := s.batch(ctx, "reset guild", func(tx *bolt.Tx) error {
		n = 0
		set, err := s.settings(tx, guild)
		if err != nil {
			return err
		}
		prefix := guildKey(guild)
		var recs []*playerRec
		c := tx.Bucket(bucketPlayers).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var r playerRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode player %x: %w", k, err)
			}
			r.P.ID = storage.PlayerID{Guild: guild, User: binary.BigEndian.Uint64(k[8:])}
			recs = append(recs, &r)
		}
		for _, r := range recs {
			if err := save(tx, r, reset(&r.P, set.StartingBalance, now)); err != nil {
				return err
			}
		}
		n = len(recs)
		return appendAudit(tx, storage.AuditEntry{At: now, Guild: guild, Actor: actor, Action: "reset-guild", Amount: int64(n), Reason: reason})
	})
	return n, err
}

// History returns up to n of the player's latest entries, newest first.
func (s *Store) History(ctx context.Context, id storage.PlayerID, n int) ([]storage.HistoryEntry, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: n %d", storage.ErrInvalid, n)
	}
	var out []storage.HistoryEntry
	err := s.view(ctx, "history", func(tx *bolt.Tx) (err error) {
		out, err = latest[storage.HistoryEntry](tx.Bucket(bucketHistory), playerKey(id), n, "history")
		return err
	})
	return out, err
}

// latest decodes up to n of the JSON values under prefix, newest first
// (see eachReverse); what names them in errors.
func latest[T any](b *bolt.Bucket, prefix []byte, n int, what string) ([]T, error) {
	var out []T
	err := eachReverse(b, prefix, func(v []byte) (bool, error) {
		if len(out) >= n {
			return false, nil
		}
		var e T
		if err := json.Unmarshal(v, &e); err != nil {
			return false, fmt.Errorf("decode %s: %w", what, err)
		}
		out = append(out, e)
		return true, nil
	})
	return out, err
}

// eachReverse calls fn on the values under prefix (a 16- or 8-byte key
// followed by an 8-byte sequence), last first, while fn returns true.
func eachReverse(b *bolt.Bucket, prefix []byte, fn func(v []byte) (bool, error)) error {
	c := b.Cursor()
	k, v := c.Seek(seqKey(prefix, ^uint64(0)))
	if k == nil {
		k, v = c.Last()
	} else if !bytes.Equal(k, seqKey(prefix, ^uint64(0))) {
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, v = c.Prev() {
		more, err := fn(v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// Leaderboard returns up to n players of the guild by balance, highest first
// (ties by user id).
func (s *Store) Leaderboard(ctx context.Context, guild uint64, n int) ([]storage.LeaderboardEntry, error) {
	if n < 0 || guild == 0 {
		return nil, fmt.Errorf("%w: guild %d, n %d", storage.ErrInvalid, guild, n)
	}
	var all []storage.LeaderboardEntry
	err := s.view(ctx, "leaderboard", func(tx *bolt.Tx) error {
		all = nil
		prefix := guildKey(guild)
		c := tx.Bucket(bucketPlayers).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var r playerRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode player %x: %w", k, err)
			}
			all = append(all, storage.LeaderboardEntry{User: binary.BigEndian.Uint64(k[8:]), Balance: r.P.Balance, Won: r.P.Stats.WonCents})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	storage.SortLeaderboard(all)
	if len(all) > n {
		all = all[:n]
	}
	return all, nil
}

// Audit returns up to n of the guild's latest moderator actions, newest first.
func (s *Store) Audit(ctx context.Context, guild uint64, n int) ([]storage.AuditEntry, error) {
	if n < 0 || guild == 0 {
		return nil, fmt.Errorf("%w: guild %d, n %d", storage.ErrInvalid, guild, n)
	}
	var out []storage.AuditEntry
	err := s.view(ctx, "audit", func(tx *bolt.Tx) (err error) {
		out, err = latest[storage.AuditEntry](tx.Bucket(bucketAudit), guildKey(guild), n, "audit")
		return err
	})
	return out, err
}

// Settings returns the guild's settings, or the defaults.
func (s *Store) Settings(ctx context.Context, guild uint64) (storage.Settings, error) {
	if guild == 0 {
		return storage.Settings{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	var set storage.Settings
	err := s.view(ctx, "settings", func(tx *bolt.Tx) error {
		var err error
		set, err = s.settings(tx, guild)
		return err
	})
	return set, err
}

// SetSettings replaces the guild's settings; recorded in the audit log.
func (s *Store) SetSettings(ctx context.Context, actor uint64, guild uint64, set storage.Settings, reason string) error {
	if guild == 0 {
		return fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if err := storage.ValidateSettings(set); err != nil {
		return err
	}
	if err := storage.ValidateReason(reason); err != nil {
		return err
	}
	now := s.now()
	return s.batch(ctx, "set settings", func(tx *bolt.Tx) error {
		if err := appendAudit(tx, storage.AuditEntry{At: now, Guild: guild, Actor: actor, Action: "settings", Amount: set.StartingBalance, Reason: reason}); err != nil {
			return err
		}
		g, err := getGuild(tx, guild)
		if err != nil {
			return err
		}
		g.Settings = &set
		return putGuild(tx, guild, g)
	})
}

// ExportPlayers calls fn for every player by guild then user, with history.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.Record) error) error {
	return s.view(ctx, "export players", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPlayers).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var r playerRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode player %x: %w", k, err)
			}
			r.P.ID = storage.PlayerID{Guild: binary.BigEndian.Uint64(k), User: binary.BigEndian.Uint64(k[8:])}
			hist, err := latest[storage.HistoryEntry](tx.Bucket(bucketHistory), k, math.MaxInt, "history")
			if err != nil {
				return err
			}
			slices.Reverse(hist) // oldest first in a dump
			if err := fn(storage.NewRecord(r.P, hist)); err != nil {
				return err
			}
		}
		return nil
	})
}

// ExportGuilds calls fn for every guild with settings or audit entries.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.GuildRecord) error) error {
	return s.view(ctx, "export guilds", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketGuilds).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var g guildRec
			if err := json.Unmarshal(v, &g); err != nil {
				return fmt.Errorf("decode guild %x: %w", k, err)
			}
			audit, err := latest[storage.AuditEntry](tx.Bucket(bucketAudit), k, math.MaxInt, "audit")
			if err != nil {
				return err
			}
			slices.Reverse(audit) // oldest first in a dump
			if g.Settings == nil && len(audit) == 0 {
				continue
			}
			if err := fn(storage.NewGuildRecord(binary.BigEndian.Uint64(k), g.Settings, audit)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Import adds every player and guild of d in one transaction, all or nothing.
func (s *Store) Import(ctx context.Context, d *storage.Dump) error {
	dd, err := d.Decode()
	if err != nil {
		return err
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	var stepErr error
	err = s.db.Update(func(tx *bolt.Tx) error {
		for i, dp := range dd.Players {
			if r, err := getPlayer(tx, dp.Player.ID); err != nil || r != nil {
				if err != nil {
					return err
				}
				stepErr = fmt.Errorf("players[%d] (guild %d, user %d): %w: already in the store", i, dp.Player.ID.Guild, dp.Player.ID.User, storage.ErrDuplicate)
				return stepErr
			}
			r := &playerRec{P: dp.Player}
			if err := save(tx, r, dp.History); err != nil {
				return err
			}
		}
		for i, dg := range dd.Guilds {
			if tx.Bucket(bucketGuilds).Get(guildKey(dg.Guild)) != nil {
				stepErr = fmt.Errorf("guilds[%d] (guild %d): %w: already in the store", i, dg.Guild, storage.ErrDuplicate)
				return stepErr
			}
			for _, a := range dg.Audit {
				if err := appendAudit(tx, a); err != nil {
					return err
				}
			}
			g, err := getGuild(tx, dg.Guild)
			if err != nil {
				return err
			}
			g.Settings = dg.Settings
			if err := putGuild(tx, dg.Guild, g); err != nil {
				return err
			}
		}
		return nil
	})
	if stepErr != nil {
		return stepErr
	}
	if err != nil {
		return fmt.Errorf("boltstore: import: %w", err)
	}
	return nil
}
