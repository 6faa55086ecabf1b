package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// The buckets, as docs/STORAGE.md §5 lists them.
var (
	bucketPlayers = []byte("players") // guild|user → {"v": version, "p": the player's record}
	bucketHistory = []byte("history") // guild|user|seq → a ticket line (game.MainLine)
	bucketOthers  = []byte("others")  // guild|user|seq → any other history line
	bucketReveals = []byte("reveals") // guild|user|seq → a revealed seed
	bucketOpSeq   = []byte("opseq")   // guild|user|seq → an operation's ID
	bucketOps     = []byte("ops")     // guild|user|operation ID → its result
	bucketAudit   = []byte("audit")   // guild|seq → an audit line (schema.AuditLine)
	bucketGuilds  = []byte("guilds")  // guild → {"v": version, "p": the guild's record}
	bucketBoard   = []byte("board")   // guild|^balance|user → nothing: the leaderboard
	bucketCounts  = []byte("counts")  // guild → players of the guild (8 bytes)
	bucketJobs    = []byte("jobs")    // guild → nothing: the guilds with a job in progress (Jobs)
	bucketMeta    = []byte("meta")    // "layout" → storage.LayoutVersion in decimal ASCII; "restore" → the restore pending
)

var allBuckets = [][]byte{bucketPlayers, bucketHistory, bucketOthers, bucketReveals, bucketOpSeq, bucketOps, bucketAudit, bucketGuilds, bucketBoard, bucketCounts, bucketJobs, bucketMeta}

var (
	layoutKey  = []byte("layout")
	restoreKey = []byte("restore")
	layout     = []byte(strconv.Itoa(storage.LayoutVersion))
)

// Store is the embedded store: one bbolt file, one read-write transaction
// per Update. It is safe for concurrent use.
type Store struct {
	db       *bolt.DB
	defaults game.Settings
	closed   atomic.Bool
	players  recordCache
}

var (
	_ storage.Store    = (*Store)(nil)
	_ storage.Dumper   = (*Store)(nil)
	_ storage.Restorer = (*Store)(nil)
)

// Open opens (creating it with mode 0600 if needed) the store at path; a
// second process opening it fails after a second. Commits are fsynced and
// shared by concurrent steps. A file of another layout is refused with
// storage.ErrLayout, a damaged one with storage.ErrDamaged, both naming
// the way out; nothing in it is changed.
func Open(path string, opts storage.Options) (_ *Store, err error) {
	defer guard(path, &err)
	if err := opts.Defaults.Check(); err != nil {
		return nil, fmt.Errorf("boltstore: default settings: %w: %w", storage.ErrInvalid, err)
	}
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
	if err := checkOnOpen(db); err != nil {
		_ = db.Close()
		return nil, damagedErr(path, err)
	}
	var other string // what is wrong with the file's layout, if anything
	if err := db.View(func(tx *bolt.Tx) error { other = checkLayout(tx); return nil }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if other != "" {
		_ = db.Close()
		return nil, layoutErr(path, other)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(layoutKey, layout)
	}); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: init %s: %w", path, err)
	}
	return &Store{db: db, defaults: opts.Defaults, players: recordCache{m: map[storage.PlayerID]cachedRecord{}}}, nil
}

// layoutErr is the error of a file of another layout (checkLayout says
// what): the way out.
func layoutErr(path, other string) error {
	return fmt.Errorf("boltstore: %s %s, and this release reads layout %d: %w: stop the bot; "+
		"with the release that wrote the file, run clefs export -data %s -o dump.json; "+
		"then, with this one, clefs import -data NEW_FILE dump.json and clefs audit -data NEW_FILE "+
		"(docs/operating.md, \"Upgrading a store\"); the file was not changed",
		path, other, storage.LayoutVersion, storage.ErrLayout, path)
}

// checkLayout says what keeps this build from reading the file of tx ("" if
// nothing); a file without records is fine: Open marks it.
func checkLayout(tx *bolt.Tx) string {
	if m := tx.Bucket(bucketMeta); m != nil {
		if v := m.Get(layoutKey); !bytes.Equal(v, layout) {
			return fmt.Sprintf("has layout %q: it was written by another release", v)
		}
		return ""
	}
	records := false
	_ = tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
		k, _ := b.Cursor().First()
		records = records || k != nil
		return nil
	})
	if records {
		return "holds records but no layout marker: it was written by an older release, clefs 0.3.0 or earlier"
	}
	return ""
}

// IsFile reports whether the file at path is a bbolt file (a store, a
// snapshot), as opening it read-only tells, or one a process holds.
func IsFile(path string) (ok bool) {
	defer func() { _ = recover() }() // not a bbolt file bbolt can read: ok stays false
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
	if err == nil {
		_ = db.Close()
	}
	return err == nil || errors.Is(err, berrors.ErrTimeout)
}

// Close closes the file; later calls return storage.ErrClosed, a second
// Close nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("boltstore: close: %w", err)
	}
	return nil
}

// Ping reports whether the store is open and its file still there.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if _, err := os.Stat(s.db.Path()); err != nil {
		return fmt.Errorf("boltstore: ping: %w", err)
	}
	return s.view(ctx, "ping", func(*bolt.Tx) error { return nil })
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

// batch runs fn in a write transaction shared with other goroutines'
// (bbolt's Batch). fn may run more than once, so it assigns its results
// afresh; it returns an error only for a failure of the store, and carries
// a refusal out with a nil error, having written nothing.
func (s *Store) batch(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	return s.tx(ctx, op, s.db.Batch, fn)
}

func (s *Store) view(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	return s.tx(ctx, op, s.db.View, fn)
}

// tx runs fn in a transaction of run (the DB's Batch or View), guarded.
func (s *Store) tx(ctx context.Context, op string, run func(func(*bolt.Tx) error) error, fn func(tx *bolt.Tx) error) (err error) {
	defer guard(s.db.Path(), &err)
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := run(fn); err != nil {
		return s.wrap(op, err)
	}
	return nil
}

func (s *Store) wrap(op string, err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) || s.closed.Load() {
		return storage.ErrClosed
	}
	return fmt.Errorf("boltstore: %s: %w", op, err)
}

func guildKey(guild uint64) []byte { return binary.BigEndian.AppendUint64(nil, guild) }

func playerKey(id storage.PlayerID) []byte { return seqKey(guildKey(id.Guild), id.User) }

func opKey(id storage.PlayerID, op string) []byte { return append(playerKey(id), op...) }

// seqKey is prefix then seq, in a new slice (prefix clipped: append copies it).
func seqKey(prefix []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(slices.Clip(prefix), seq)
}

// boardKey sorts a guild's players by balance, highest first (balances are
// never negative, so ^balance orders them backwards), then by user.
func boardKey(id storage.PlayerID, balance int64) []byte {
	return seqKey(seqKey(guildKey(id.Guild), ^uint64(balance)), id.User)
}

func parseBoardKey(k []byte) (user uint64, balance int64) {
	return binary.BigEndian.Uint64(k[16:]), int64(^binary.BigEndian.Uint64(k[8:]))
}

func decodeGuild(guild uint64, v []byte) (storage.VersionedGuild, error) {
	var e envelope
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return storage.VersionedGuild{}, fmt.Errorf("decode guild %d: %w", guild, err)
	}
	g, err := schema.DecodeGuild(fmt.Sprintf("guild %d", guild), e.P)
	if err != nil {
		return storage.VersionedGuild{}, fmt.Errorf("decode guild %d: %w", guild, err)
	}
	return storage.VersionedGuild{Guild: g, Version: e.V}, nil
}

// putGuild writes the guild g at version, and its entry in the index of
// guilds with a job in progress (Jobs), in the same transaction. A guild
// the schema cannot keep as it is is storage.ErrInvalid, nothing written.
func putGuild(tx *bolt.Tx, guild uint64, g game.Guild, version uint64) error {
	b, err := schema.EncodeGuild(g)
	if err != nil {
		return fmt.Errorf("%w: guild %d: %w", storage.ErrInvalid, guild, err)
	}
	jobs := tx.Bucket(bucketJobs)
	if g.Reset != nil && !g.Reset.Finished() {
		err = jobs.Put(guildKey(guild), nil)
	} else {
		err = jobs.Delete(guildKey(guild))
	}
	if err != nil {
		return fmt.Errorf("guild %d: jobs index: %w", guild, err)
	}
	v, err := json.Marshal(envelope{V: version, P: b})
	if err != nil {
		return fmt.Errorf("encode guild: %w", err)
	}
	if err := tx.Bucket(bucketGuilds).Put(guildKey(guild), v); err != nil {
		return fmt.Errorf("put guild: %w", err)
	}
	return nil
}

// decodeAudit is a decoder for latest of the audit bucket's lines; record
// is "audit <key in hex>", whose first 8 bytes are the guild.
func decodeAudit(guild uint64) func(record string, v []byte) (game.AuditEntry, error) {
	return func(record string, v []byte) (game.AuditEntry, error) {
		e, _, err := schema.DecodeAudit(record, guild, v)
		return e, err
	}
}

func count(tx *bolt.Tx, guild uint64) uint64 {
	v := tx.Bucket(bucketCounts).Get(guildKey(guild))
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}
