package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Load returns the player's state and version (0 and the zero Player if it
// was never written). It creates nothing.
func (s *Store) Load(ctx context.Context, id storage.PlayerID) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	var v storage.Versioned
	err := s.view(ctx, "load", func(tx *bolt.Tx) error {
		r, err := getPlayer(tx, id)
		if r != nil {
			v = storage.Versioned{Player: r.Player, Version: r.Version}
		}
		return err
	})
	return v, err
}

// Update calls fn on the player inside one write transaction, which no
// other writer can interleave with: the version fn sees is always the
// current one, so fn runs once per attempt of the transaction and the
// compare-and-set cannot fail (ErrConflict never happens here). The
// transaction is shared with the Updates of other goroutines (one fsync for
// all): bbolt may then run it, hence fn, again, which a pure fn allows. fn
// must not call the store: it runs inside its write transaction.
//
// The write is refused with storage.ErrInvalid, writing nothing, when the
// player fails game.Player.Check (the leaderboard index needs a balance in
// range), when the audit entry's reason is invalid or its guild is not the
// player's (0 means the player's). Every time written goes through
// storage.Timestamp; the state returned is the one stored.
func (s *Store) Update(ctx context.Context, id storage.PlayerID, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	if fn == nil {
		return storage.Versioned{}, fmt.Errorf("%w: nil update function", storage.ErrInvalid)
	}
	var (
		out     storage.Versioned
		refused error
	)
	err := s.batch(ctx, "update", func(tx *bolt.Tx) error {
		out, refused = storage.Versioned{}, nil
		r, err := getPlayer(tx, id)
		if err != nil {
			return err
		}
		cur := storage.Versioned{}
		if r != nil {
			cur = storage.Versioned{Player: r.Player, Version: r.Version}
		}
		out = cur
		w, err := fn(cur)
		if err != nil {
			refused = err
			return nil
		}
		if w.Skip {
			return nil
		}
		w, err = normalize(id, w)
		if err != nil {
			refused = err
			return nil
		}
		if out, err = writePlayer(tx, id, r, w); err != nil {
			out = cur
			return err
		}
		return nil
	})
	if err != nil {
		return storage.Versioned{}, err
	}
	return out, refused
}

// normalize checks w and returns it with every time rounded by
// storage.Timestamp; it never modifies what w's pointers refer to.
func normalize(id storage.PlayerID, w storage.Write) (storage.Write, error) {
	p := w.Player
	p.CreatedAt = storage.Timestamp(p.CreatedAt)
	p.LastDaily = storage.Timestamp(p.LastDaily)
	if p.Ticket != nil {
		t := *p.Ticket
		t.BoughtAt = storage.Timestamp(t.BoughtAt)
		p.Ticket = &t
	}
	if err := p.Check(); err != nil {
		return w, fmt.Errorf("%w: player %d/%d: %w", storage.ErrInvalid, id.Guild, id.User, err)
	}
	w.Player = p
	if len(w.History) > 0 {
		h := make([]game.Entry, len(w.History))
		for i, e := range w.History {
			e.At = storage.Timestamp(e.At)
			h[i] = e
		}
		w.History = h
	}
	if w.Audit != nil {
		a, err := normalizeAudit(*w.Audit, id.Guild)
		if err != nil {
			return w, err
		}
		w.Audit = &a
	}
	return w, nil
}

func normalizeAudit(a storage.AuditEntry, guild uint64) (storage.AuditEntry, error) {
	if a.Guild == 0 {
		a.Guild = guild
	}
	if a.Guild != guild {
		return a, fmt.Errorf("%w: audit entry of guild %d written with guild %d", storage.ErrInvalid, a.Guild, guild)
	}
	if err := storage.ValidateReason(a.Reason); err != nil {
		return a, err
	}
	a.At = storage.Timestamp(a.At)
	return a, nil
}

// writePlayer writes w over the player's record old (nil if new): the
// player with the next version, its history lines (the oldest trimmed past
// storage.HistoryLimit), its leaderboard entry and the audit entry.
func writePlayer(tx *bolt.Tx, id storage.PlayerID, old *playerRec, w storage.Write) (storage.Versioned, error) {
	r := playerRec{Version: 1, Player: w.Player}
	board := tx.Bucket(bucketBoard)
	if old != nil {
		r.Version, r.HSeq = old.Version+1, old.HSeq
		if old.Player.Balance != w.Player.Balance {
			if err := board.Delete(boardKey(id, old.Player.Balance)); err != nil {
				return storage.Versioned{}, fmt.Errorf("delete leaderboard entry: %w", err)
			}
		}
	} else if err := addCount(tx, id.Guild, 1); err != nil {
		return storage.Versioned{}, err
	}
	if old == nil || old.Player.Balance != w.Player.Balance {
		if err := board.Put(boardKey(id, w.Player.Balance), nil); err != nil {
			return storage.Versioned{}, fmt.Errorf("put leaderboard entry: %w", err)
		}
	}
	pk := playerKey(id)
	hb := tx.Bucket(bucketHistory)
	for _, h := range w.History {
		r.HSeq++
		if err := putJSON(hb, seqKey(pk, r.HSeq), h, "history"); err != nil {
			return storage.Versioned{}, err
		}
		if r.HSeq > storage.HistoryLimit {
			if err := hb.Delete(seqKey(pk, r.HSeq-storage.HistoryLimit)); err != nil {
				return storage.Versioned{}, fmt.Errorf("trim history: %w", err)
			}
		}
	}
	if err := putJSON(tx.Bucket(bucketPlayers), pk, r, "player"); err != nil {
		return storage.Versioned{}, err
	}
	if w.Audit != nil {
		if err := appendAudit(tx, *w.Audit); err != nil {
			return storage.Versioned{}, err
		}
	}
	return storage.Versioned{Player: r.Player, Version: r.Version}, nil
}

// appendAudit appends e to its guild's log, dropping the oldest entry past
// storage.AuditLimit. The sequence continues from the guild's last key.
func appendAudit(tx *bolt.Tx, e storage.AuditEntry) error {
	gk := guildKey(e.Guild)
	ab := tx.Bucket(bucketAudit)
	var seq uint64
	if k, _ := lastUnder(ab.Cursor(), gk); k != nil {
		seq = seqOf(k)
	}
	seq++
	if err := putJSON(ab, seqKey(gk, seq), e, "audit"); err != nil {
		return err
	}
	if seq > storage.AuditLimit {
		if err := ab.Delete(seqKey(gk, seq-storage.AuditLimit)); err != nil {
			return fmt.Errorf("trim audit: %w", err)
		}
	}
	return nil
}

func seqOf(k []byte) uint64 {
	var seq uint64
	for _, b := range k[len(k)-8:] {
		seq = seq<<8 | uint64(b)
	}
	return seq
}

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

// latest decodes up to n of the JSON values under prefix (followed by an
// 8-byte sequence), newest first; what names them in errors.
func latest[T any](b *bolt.Bucket, prefix []byte, n int, what string) ([]T, error) {
	out := []T{}
	c := b.Cursor()
	for k, v := lastUnder(c, prefix); k != nil && len(out) < n; k, v = c.Prev() {
		if len(k) != len(prefix)+8 || !bytes.HasPrefix(k, prefix) {
			break
		}
		var e T
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, fmt.Errorf("decode %s %x: %w", what, k, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// History returns up to n of the player's most recent history lines, newest
// first (none for a player never written).
func (s *Store) History(ctx context.Context, id storage.PlayerID, n int) ([]game.Entry, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: history of %d lines", storage.ErrInvalid, n)
	}
	var out []game.Entry
	err := s.view(ctx, "history", func(tx *bolt.Tx) (err error) {
		out, err = latest[game.Entry](tx.Bucket(bucketHistory), playerKey(id), n, "history")
		return err
	})
	return out, err
}

// Players calls fn with the user ID of every player of the guild, in
// increasing order, until fn returns an error (returned as is). It reads
// the players a thousand at a time, outside any transaction while fn runs,
// so fn may use the store (a guild's reset applies a step to each player).
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
