package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// ExportPlayers implements storage.Dumper from one read transaction (a
// consistent snapshot): fn must not write to the store.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.DecodedPlayer) error) error {
	return s.view(ctx, "export players", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPlayers).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			id := storage.PlayerID{Guild: binary.BigEndian.Uint64(k), User: binary.BigEndian.Uint64(k[8:])}
			r, err := decodePlayer(id, v)
			hist, herr := history(tx, id, storage.HistoryLimit)
			rs, rerr := reveals(tx, id)
			if err := fn(storage.ExportedPlayer(id, r.Player, hist, rs, errors.Join(err, herr, rerr))); err != nil {
				return err
			}
		}
		return nil
	})
}

// CountPlayers implements storage.Dumper: the number of keys of the
// players bucket, which bbolt counts from its pages.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	n := 0
	err := s.view(ctx, "count players", func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketPlayers).Stats().KeyN
		return nil
	})
	return n, err
}

// ExportGuilds implements storage.Dumper from one read transaction: fn
// must not write to the store.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.DecodedGuild) error) error {
	return s.view(ctx, "export guilds", func(tx *bolt.Tx) error {
		ids := append(guildsOf(tx.Bucket(bucketGuilds)), guildsOf(tx.Bucket(bucketAudit))...)
		slices.Sort(ids)
		for _, g := range slices.Compact(ids) {
			if err := ctx.Err(); err != nil {
				return err
			}
			var set *game.Settings // nil: never written
			if v := tx.Bucket(bucketGuilds).Get(guildKey(g)); v != nil {
				cur, err := decodeGuild(g, v)
				if err != nil {
					return err
				}
				set = &cur.Settings
			}
			audit, err := latest(tx.Bucket(bucketAudit), guildKey(g), storage.AuditLimit, "audit", decodeAudit(g))
			if err != nil {
				return err
			}
			slices.Reverse(audit) // oldest first in a dump
			if err := fn(storage.DecodedGuild{Guild: g, Settings: set, Audit: audit}); err != nil {
				return err
			}
		}
		return nil
	})
}

// guildsOf returns the guilds of a bucket whose keys start with the guild,
// in increasing order, jumping from one guild to the next.
func guildsOf(b *bolt.Bucket) []uint64 {
	var out []uint64
	c := b.Cursor()
	for k, _ := c.First(); k != nil; {
		if len(k) < 8 { // not a key the store writes: a file edited by hand
			k, _ = c.Next()
			continue
		}
		g := binary.BigEndian.Uint64(k)
		out = append(out, g)
		if g == ^uint64(0) {
			break
		}
		k, _ = c.Seek(guildKey(g + 1))
	}
	return out
}

// Import adds every player and guild of d (validated by storage.ReadDump)
// in one write transaction, all or nothing, each at version 1, every time
// rounded by storage.Timestamp. A player or guild already in the store is
// storage.ErrDuplicate, naming the record; a player that fails
// game.Player.Check is storage.ErrInvalid.
func (s *Store) Import(ctx context.Context, d *storage.DecodedDump) error {
	if d == nil {
		return fmt.Errorf("%w: nil dump", storage.ErrInvalid)
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	var refused error // the import's refusal, returned as is
	refuse := func(err error) error {
		refused = err
		return err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		for i, dp := range d.Players {
			id := dp.ID
			name := fmt.Sprintf("players[%d] (guild %d, user %d)", i, id.Guild, id.User)
			old, err := decodePlayer(id, tx.Bucket(bucketPlayers).Get(playerKey(id)))
			if err != nil {
				return err
			}
			if old != nil {
				return refuse(fmt.Errorf("%s: %w: already in the store", name, storage.ErrDuplicate))
			}
			pw, err := prepare(id, nil, "", storage.Write{Player: dp.Player, History: dp.History, Reveals: dp.Reveals})
			if err != nil {
				return refuse(fmt.Errorf("%s: %w", name, err))
			}
			if err := pw.write(tx); err != nil {
				return err
			}
		}
		for i, dg := range d.Guilds {
			name := fmt.Sprintf("guilds[%d] (guild %d)", i, dg.Guild)
			gk := guildKey(dg.Guild)
			if k, _ := tx.Bucket(bucketAudit).Cursor().Seek(gk); tx.Bucket(bucketGuilds).Get(gk) != nil || k != nil && bytes.HasPrefix(k, gk) {
				return refuse(fmt.Errorf("%s: %w: already in the store", name, storage.ErrDuplicate))
			}
			if dg.Settings != nil {
				if err := putGuild(tx, dg.Guild, game.Guild{Settings: *dg.Settings}, 1); err != nil {
					return err
				}
			}
			for j, a := range dg.Audit {
				v, err := storage.EncodeAudit(a, dg.Guild, "")
				if err != nil {
					return refuse(fmt.Errorf("%s: audit[%d]: %w", name, j, err))
				}
				if err := appendAudit(tx, dg.Guild, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	switch {
	case refused != nil:
		return refused
	case err != nil:
		return s.wrap("import", err)
	}
	return nil
}
