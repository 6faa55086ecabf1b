package boltstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// Load implements storage.Store.
func (s *Store) Load(ctx context.Context, id storage.PlayerID) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	var r *playerRec
	var derr error
	err := s.view(ctx, "load", func(tx *bolt.Tx) error {
		_, r, derr = s.players.get(id, tx.Bucket(bucketPlayers).Get(playerKey(id)))
		return nil
	})
	return r.versioned(), cmp.Or(err, derr)
}

// Run implements storage.Store as the package doc says ("Writes"), so that
// a refusal needs no write transaction; that transaction, which bbolt may
// run more than once, looks the operation up again before it writes.
func (s *Store) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	r, err := storage.Start(step)
	if err != nil {
		return storage.Applied{}, err
	}
	id, op, key := step.ID, step.Op, playerKey(step.ID)
	for attempt := 1; ; attempt++ {
		var (
			raw    []byte // the record read, owned
			old    *playerRec
			repeat *game.Result
		)
		if err := s.view(ctx, "run", func(tx *bolt.Tx) (err error) {
			raw, old, _ = s.players.get(id, tx.Bucket(bucketPlayers).Get(key)) // damaged: old says so
			repeat, err = lookupOp(tx, id, op)
			return err
		}); err != nil {
			return storage.Applied{}, err
		}
		cur := old.versioned()
		if repeat != nil {
			cur.Repeat = repeat
			return storage.Repeat(cur), nil
		}
		if r.NeedsBeside(cur) {
			if err := r.ReadBeside(ctx, s); err != nil {
				return storage.Applied{Before: cur.Player, Player: cur.Player}, err
			}
		}
		first, out, err := next(r, id, old, op)
		if err != nil {
			return out, err
		}
		var (
			refused error
			written *playerWrite
			beside  bool // the record changed into a damaged one: read what its repair needs, and again
		)
		firstOut := out // what first did: bbolt may run the function again
		err = s.batch(ctx, "run", func(tx *bolt.Tx) error {
			refused, written, beside, out = nil, nil, false, firstOut
			now := tx.Bucket(bucketPlayers).Get(key)
			if rep, err := lookupOp(tx, id, op); err != nil || rep != nil {
				// Another writer applied op meanwhile.
				_, cur, _ := s.players.get(id, now)
				v := cur.versioned()
				if rep != nil {
					v.Repeat = rep
					out = storage.Repeat(v)
				}
				return err
			}
			if bytes.Equal(now, raw) && (now == nil) == (raw == nil) {
				written = first
				return first.write(tx)
			}
			// Another writer came first: the step again, on the state as
			// it is now.
			old, _ := decodePlayer(id, now)
			if r.NeedsBeside(old.versioned()) {
				beside = true
				return nil
			}
			if written, out, refused = next(r, id, old, op); refused != nil {
				return nil
			}
			return written.write(tx)
		})
		if err != nil {
			return storage.Applied{}, err
		}
		if beside && attempt < storage.MaxAttempts {
			continue
		}
		if written != nil {
			// A record of its own, not a pointer into written, which holds
			// the record it replaced (and so on back).
			rec := written.rec
			s.players.put(id, written.player, &rec)
			out.Player = rec.Player
		}
		if beside {
			return out, fmt.Errorf("boltstore: run %d/%d: %w", id.Guild, id.User, storage.ErrConflict)
		}
		return out, refused
	}
}

// next applies the step r to old, the record read (nil: never written),
// and prepares what it writes; its errors are refusals (prepare).
func next(r *storage.Run, id storage.PlayerID, old *playerRec, op string) (*playerWrite, storage.Applied, error) {
	w, out, err := r.Next(old.versioned())
	if err != nil {
		return nil, out, err
	}
	pw, err := prepare(id, old, op, w)
	return pw, out, err
}

// lookupOp returns the result remembered for the player's operation op,
// nil if none.
func lookupOp(tx *bolt.Tx, id storage.PlayerID, op string) (*game.Result, error) {
	v := tx.Bucket(bucketOps).Get(opKey(id, op))
	if v == nil {
		return nil, nil
	}
	r, err := schema.DecodeResult(fmt.Sprintf("operation %q of %d/%d", op, id.Guild, id.User), v)
	if err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	return &r, nil
}

// Reveals implements storage.Store.
func (s *Store) Reveals(ctx context.Context, id storage.PlayerID) (game.Reveals, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	var out game.Reveals
	err := s.view(ctx, "reveals", func(tx *bolt.Tx) (err error) {
		out, err = reveals(tx, id)
		return err
	})
	return out, err
}

func reveals(tx *bolt.Tx, id storage.PlayerID) (game.Reveals, error) {
	out, err := latest(tx.Bucket(bucketReveals), playerKey(id), game.MaxReveals, "reveal", schema.DecodeReveal)
	if err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	slices.Reverse(out)
	return out, nil
}

// recordCache is the package doc's memo of the codec ("Writes"). A Player
// may be shared (game's transitions never modify what its pointers refer
// to). Past maxCached entries, an arbitrary one is dropped.
type recordCache struct {
	mu sync.Mutex
	m  map[storage.PlayerID]cachedRecord
}

type cachedRecord struct {
	raw []byte
	rec *playerRec
}

const maxCached = 1024

// get returns the record whose stored bytes are v (nil: never written),
// decoded or from the cache, and the bytes, owned by the caller; a damaged
// record (decodePlayer), which is not cached, with its error.
func (c *recordCache) get(id storage.PlayerID, v []byte) ([]byte, *playerRec, error) {
	if v == nil {
		return nil, nil, nil
	}
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && bytes.Equal(e.raw, v) {
		return e.raw, e.rec, nil
	}
	raw := bytes.Clone(v)
	r, err := decodePlayer(id, raw)
	if err == nil {
		c.put(id, raw, r)
	}
	return raw, r, err
}

// put remembers that the record r is stored as raw (which must not change).
func (c *recordCache) put(id storage.PlayerID, raw []byte, r *playerRec) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; !ok && len(c.m) >= maxCached {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[id] = cachedRecord{raw: raw, rec: r}
}

// playerRec is a player as stored: its version and its state; when
// Damaged, what could be read of it (storage.Versioned).
type playerRec struct {
	Version uint64
	Player  game.Player
	Damaged *storage.DamagedError
}

// envelope is the stored value of a player or a guild: {"v": its version,
// "p": its record in the schema (docs/STORAGE.md)}.
type envelope struct {
	V uint64          `json:"v"`
	P json.RawMessage `json:"p"`
}

func encodePlayer(r playerRec) ([]byte, error) {
	p, err := schema.EncodePlayer(r.Player)
	if err != nil {
		return nil, err
	}
	return json.Marshal(envelope{V: r.Version, P: p})
}

// decodePlayer decodes a player's stored record; nil for nil. A record
// that does not decode is returned with Damaged set, holding its version
// and its seeds if they can be read (schema.DecodeSeeds), and Damaged as
// the error.
func decodePlayer(id storage.PlayerID, v []byte) (*playerRec, error) {
	if v == nil {
		return nil, nil
	}
	name := fmt.Sprintf("key %d/%d of bucket players", id.Guild, id.User)
	var e envelope
	if err := json.Unmarshal(v, &e); err != nil || e.V == 0 || len(e.P) == 0 {
		return damaged(id, &playerRec{}, fmt.Errorf("%s: not a versioned record (%v)", name, err))
	}
	p, err := schema.DecodePlayer(name, e.P)
	if err != nil {
		r := &playerRec{Version: e.V}
		var seeds struct {
			SD json.RawMessage `json:"sd"`
		}
		if json.Unmarshal(e.P, &seeds) == nil && seeds.SD != nil {
			r.Player, _ = schema.DecodeSeeds(name+" sd", seeds.SD)
		}
		return damaged(id, r, err)
	}
	return &playerRec{Version: e.V, Player: p}, nil
}

// damaged marks r, what could be read of id's record, damaged by err.
func damaged(id storage.PlayerID, r *playerRec, err error) (*playerRec, error) {
	r.Damaged = &storage.DamagedError{ID: id, Err: err}
	return r, r.Damaged
}

// versioned returns the state of the record r (nil: never written).
func (r *playerRec) versioned() storage.Versioned {
	if r == nil {
		return storage.Versioned{}
	}
	return storage.Versioned{Player: r.Player, Version: r.Version, Damaged: r.Damaged}
}

// playerWrite is a Write checked and encoded, ready to go over the
// record it was computed from.
type playerWrite struct {
	storage.Encoded
	id     storage.PlayerID
	old    *playerRec // nil: a new player
	rec    playerRec
	player []byte // rec, encoded
	op     string // the operation remembered, or ""
}

// prepare checks and encodes w over the record old (nil if the player is
// new): the player with the next version, what it keeps beside it
// (storage.Encode), and the operation op. Its errors are refusals
// (storage.ErrInvalid) or encoding failures.
func prepare(id storage.PlayerID, old *playerRec, op string, w storage.Write) (*playerWrite, error) {
	e, err := storage.Encode(id, op, "", w)
	if err != nil {
		return nil, err
	}
	pw := &playerWrite{Encoded: e, id: id, old: old, rec: playerRec{Version: 1, Player: e.Write.Player}, op: op}
	if old != nil {
		pw.rec.Version = old.Version + 1
	}
	if pw.player, err = encodePlayer(pw.rec); err != nil {
		return nil, fmt.Errorf("boltstore: encode player %d/%d: %w: %w", id.Guild, id.User, storage.ErrInvalid, err)
	}
	return pw, nil
}

// write puts pw in tx, over the record it was prepared from: all a
// player's write holds (docs/STORAGE.md §5), each list trimmed to its bound.
func (pw *playerWrite) write(tx *bolt.Tx) error {
	id, bal := pw.id, pw.rec.Player.Balance
	board := tx.Bucket(bucketBoard)
	moved := pw.old == nil || pw.old.Damaged != nil || pw.old.Player.Balance != bal
	switch {
	case pw.old == nil: // one more player in the guild
		n := binary.BigEndian.AppendUint64(nil, count(tx, id.Guild)+1)
		if err := tx.Bucket(bucketCounts).Put(guildKey(id.Guild), n); err != nil {
			return fmt.Errorf("put count: %w", err)
		}
	case pw.old.Damaged != nil: // its balance unread: look its entry up
		if err := deleteEntry(board, id); err != nil {
			return err
		}
	case moved:
		if err := board.Delete(boardKey(id, pw.old.Player.Balance)); err != nil {
			return fmt.Errorf("delete leaderboard entry: %w", err)
		}
	}
	if moved {
		if err := board.Put(boardKey(id, bal), nil); err != nil {
			return fmt.Errorf("put leaderboard entry: %w", err)
		}
	}
	pk := playerKey(id)
	for _, h := range pw.Main {
		if _, err := appendCapped(tx.Bucket(bucketHistory), pk, h, game.MaxTicketLines); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	for _, h := range pw.Others {
		if _, err := appendCapped(tx.Bucket(bucketOthers), pk, h, game.MaxOtherLines); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	for _, r := range pw.Reveals {
		if _, err := appendCapped(tx.Bucket(bucketReveals), pk, r, game.MaxReveals); err != nil {
			return fmt.Errorf("reveals: %w", err)
		}
	}
	if pw.op != "" {
		if err := rememberOp(tx, id, pw.op, pw.Result); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketPlayers).Put(pk, pw.player); err != nil {
		return fmt.Errorf("put player: %w", err)
	}
	if pw.Audit != nil {
		return appendAudit(tx, pw.Write.Audit.Guild, pw.Audit)
	}
	return nil
}

// deleteEntry deletes id's entry from the leaderboard, whatever its
// balance, reading the guild's entries: for a record whose balance cannot
// be read.
func deleteEntry(board *bolt.Bucket, id storage.PlayerID) error {
	prefix := guildKey(id.Guild)
	c := board.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if u, _ := parseBoardKey(k); u == id.User {
			if err := c.Delete(); err != nil {
				return fmt.Errorf("delete leaderboard entry: %w", err)
			}
			return nil
		}
	}
	return nil
}

// rememberOp records the player's operation op with its encoded result,
// forgetting the oldest past game.MaxOps.
func rememberOp(tx *bolt.Tx, id storage.PlayerID, op string, result []byte) error {
	dropped, err := appendCapped(tx.Bucket(bucketOpSeq), playerKey(id), []byte(op), game.MaxOps)
	if err != nil {
		return fmt.Errorf("operations: %w", err)
	}
	ops := tx.Bucket(bucketOps)
	if dropped != nil {
		if err := ops.Delete(opKey(id, string(dropped))); err != nil {
			return fmt.Errorf("forget operation: %w", err)
		}
	}
	if err := ops.Put(opKey(id, op), result); err != nil {
		return fmt.Errorf("remember operation: %w", err)
	}
	return nil
}

// appendCapped puts v under prefix with the next sequence number and
// deletes the entry that falls past limit, returning its value (nil if
// none). The values under prefix stay numbered without gaps.
func appendCapped(b *bolt.Bucket, prefix, v []byte, limit uint64) ([]byte, error) {
	var seq uint64
	if k, _ := lastUnder(b.Cursor(), prefix); k != nil {
		seq = seqOf(k)
	}
	seq++
	if err := b.Put(seqKey(prefix, seq), v); err != nil {
		return nil, fmt.Errorf("put: %w", err)
	}
	if seq <= limit {
		return nil, nil
	}
	old := seqKey(prefix, seq-limit)
	dropped := bytes.Clone(b.Get(old))
	if err := b.Delete(old); err != nil {
		return nil, fmt.Errorf("trim: %w", err)
	}
	return dropped, nil
}

// appendAudit appends the encoded entry e to the guild's log, dropping the
// oldest entry past storage.AuditLimit.
func appendAudit(tx *bolt.Tx, guild uint64, e []byte) error {
	if _, err := appendCapped(tx.Bucket(bucketAudit), guildKey(guild), e, storage.AuditLimit); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func seqOf(k []byte) uint64 { return binary.BigEndian.Uint64(k[len(k)-8:]) }

// lastUnder positions c on the last key starting with prefix followed by
// exactly 8 bytes, and returns it (nil if none).
func lastUnder(c *bolt.Cursor, prefix []byte) ([]byte, []byte) {
	end := seqKey(prefix, ^uint64(0))
	k, v := c.Seek(end)
	switch {
	case k == nil:
		k, v = c.Last()
	case !bytes.Equal(k, end):
		k, v = c.Prev()
	}
	if k == nil || len(k) != len(prefix)+8 || !bytes.HasPrefix(k, prefix) {
		return nil, nil
	}
	return k, v
}

// latest decodes, with decode, up to n of the values under prefix
// (followed by an 8-byte sequence), newest first; what names them in
// errors.
func latest[T any](b *bolt.Bucket, prefix []byte, n int, what string, decode func(record string, v []byte) (T, error)) ([]T, error) {
	out := []T{}
	c := b.Cursor()
	for k, v := lastUnder(c, prefix); k != nil && len(out) < n; k, v = c.Prev() {
		if len(k) != len(prefix)+8 || !bytes.HasPrefix(k, prefix) {
			break
		}
		e, err := decode(fmt.Sprintf("%s %x", what, k), v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// history returns up to n of the most recent history lines of the player,
// newest first: the last n of each list, merged.
func history(tx *bolt.Tx, id storage.PlayerID, n int) ([]game.Entry, error) {
	pk := playerKey(id)
	main, err := latest(tx.Bucket(bucketHistory), pk, n, "history line", schema.DecodeLine)
	if err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	others, err := latest(tx.Bucket(bucketOthers), pk, n, "history line", schema.DecodeLine)
	if err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	return storage.MergeNewest(main, others, n), nil
}

// History implements storage.Store (no lines for a player never written).
func (s *Store) History(ctx context.Context, id storage.PlayerID, n int) ([]game.Entry, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: history of %d lines", storage.ErrInvalid, n)
	}
	var out []game.Entry
	var derr error
	err := s.view(ctx, "history", func(tx *bolt.Tx) error {
		out, derr = history(tx, id, n)
		return nil
	})
	return out, cmp.Or(err, derr)
}

// Players implements storage.Store. It reads the players a thousand at a
// time, outside any transaction while fn runs, so fn may use the store (a
// guild's reset applies a step to each player).
func (s *Store) Players(ctx context.Context, guild uint64, fn func(user uint64) error) error {
	if guild == 0 {
		return fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	const chunk = 1000
	prefix := guildKey(guild)
	var next uint64 // the first user of the next chunk
	for {
		var users []uint64
		err := s.view(ctx, "players", func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketPlayers).Cursor()
			for k, _ := c.Seek(playerKey(storage.PlayerID{Guild: guild, User: next})); k != nil && bytes.HasPrefix(k, prefix) && len(users) < chunk; k, _ = c.Next() {
				users = append(users, seqOf(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, u := range users {
			if err := fn(u); err != nil {
				return err
			}
		}
		if len(users) < chunk || users[len(users)-1] == ^uint64(0) {
			return nil
		}
		next = users[len(users)-1] + 1
	}
}
