package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// Guild implements storage.Store, with the store's default settings for a
// guild never written.
func (s *Store) Guild(ctx context.Context, guild uint64) (storage.VersionedGuild, error) {
	if guild == 0 {
		return storage.VersionedGuild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	var g storage.VersionedGuild
	err := s.view(ctx, "guild", func(tx *bolt.Tx) (err error) {
		g, err = s.guild(tx, guild)
		return err
	})
	return g, err
}

// guild reads the guild in tx: the store's defaults if it was never written.
func (s *Store) guild(tx *bolt.Tx, guild uint64) (storage.VersionedGuild, error) {
	if v := tx.Bucket(bucketGuilds).Get(guildKey(guild)); v != nil {
		return decodeGuild(guild, v)
	}
	return storage.VersionedGuild{Guild: game.Guild{Settings: s.defaults}}, nil
}

// RunGuild implements storage.Store: it applies the step to the guild
// inside one write transaction (no conflict can happen; bbolt may run the
// transaction, hence the step, more than once) and writes the guild
// (storage.ErrInvalid if storage.GuildStep.Next or the schema refuses it,
// nothing written) with its audit entry.
func (s *Store) RunGuild(ctx context.Context, step storage.GuildStep) (storage.GuildApplied, error) {
	if err := step.Check(); err != nil {
		return storage.GuildApplied{}, err
	}
	guild := step.Guild
	var (
		out     storage.GuildApplied
		refused error
	)
	err := s.batch(ctx, "run guild", func(tx *bolt.Tx) error {
		refused = nil
		cur, err := s.guild(tx, guild)
		if err != nil {
			return err
		}
		var w storage.GuildWrite
		if w, out, refused = step.Next(cur); refused != nil || w.Skip {
			return nil
		}
		if err := putGuild(tx, guild, w.Guild, cur.Version+1); errors.Is(err, storage.ErrInvalid) {
			out, refused = storage.GuildApplied{Guild: cur}, err
			return nil
		} else if err != nil {
			return err
		}
		if w.Audit != nil {
			v, err := schema.EncodeAudit(guild, "", *w.Audit)
			if err != nil {
				return fmt.Errorf("guild %d: %w", guild, err)
			}
			if err := appendAudit(tx, guild, v); err != nil {
				return err
			}
		}
		out.Guild = storage.VersionedGuild{Guild: w.Guild, Version: cur.Version + 1}
		return nil
	})
	if err != nil {
		return storage.GuildApplied{}, err
	}
	return out, refused
}

// Jobs implements storage.Store: the keys of the jobs bucket, written with
// the guild in one transaction, so that it is never behind.
func (s *Store) Jobs(ctx context.Context) ([]uint64, error) {
	var out []uint64
	err := s.view(ctx, "jobs", func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(k, _ []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("jobs: key %x is not a guild", k)
			}
			out = append(out, binary.BigEndian.Uint64(k))
			return nil
		})
	})
	return out, err
}

// Audit implements storage.Store.
func (s *Store) Audit(ctx context.Context, guild uint64, n int) ([]game.AuditEntry, error) {
	if guild == 0 || n < 0 {
		return nil, fmt.Errorf("%w: audit of guild %d, %d entries", storage.ErrInvalid, guild, n)
	}
	var out []game.AuditEntry
	err := s.view(ctx, "audit", func(tx *bolt.Tx) (err error) {
		out, err = latest(tx.Bucket(bucketAudit), guildKey(guild), n, "audit", decodeAudit(guild))
		return err
	})
	return out, err
}

// Leaderboard implements storage.Store. bbolt keeps no counts in its
// tree, so the caller's rank is found by counting the entries before
// theirs, in the time the package doc says.
func (s *Store) Leaderboard(ctx context.Context, guild uint64, n int, user uint64) (storage.Board, error) {
	if guild == 0 || n < 0 {
		return storage.Board{}, fmt.Errorf("%w: leaderboard of guild %d, %d rows", storage.ErrInvalid, guild, n)
	}
	var b storage.Board
	err := s.view(ctx, "leaderboard", func(tx *bolt.Tx) error {
		b = storage.Board{Top: []storage.LeaderboardEntry{}, Players: int(count(tx, guild))}
		prefix := guildKey(guild)
		c := tx.Bucket(bucketBoard).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(b.Top) < n; k, _ = c.Next() {
			u, bal := parseBoardKey(k)
			b.Top = append(b.Top, storage.LeaderboardEntry{User: u, Balance: bal, Rank: len(b.Top) + 1})
			if u == user {
				e := b.Top[len(b.Top)-1]
				b.You = &e
			}
		}
		if user == 0 || b.You != nil {
			return nil
		}
		id := storage.PlayerID{Guild: guild, User: user}
		_, r, err := s.players.get(id, tx.Bucket(bucketPlayers).Get(playerKey(id)))
		if err != nil || r == nil {
			return err
		}
		key := boardKey(id, r.Player.Balance)
		rank := 1
		for k, _ := c.Seek(prefix); k != nil && bytes.Compare(k, key) < 0; k, _ = c.Next() {
			rank++
		}
		b.You = &storage.LeaderboardEntry{User: user, Balance: r.Player.Balance, Rank: rank}
		return nil
	})
	return b, err
}
