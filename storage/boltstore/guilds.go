package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Guild returns the guild's settings and version: the store's defaults and
// version 0 if they were never written.
func (s *Store) Guild(ctx context.Context, guild uint64) (storage.Guild, error) {
	if guild == 0 {
		return storage.Guild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	var g storage.Guild
	err := s.view(ctx, "guild", func(tx *bolt.Tx) error {
		var err error
		g, err = s.guild(tx, guild)
		return err
	})
	return g, err
}

func (s *Store) guild(tx *bolt.Tx, guild uint64) (storage.Guild, error) {
	r, err := getGuild(tx, guild, s.defaults.House)
	if err != nil || r == nil {
		return storage.Guild{Settings: s.defaults}, err
	}
	return storage.Guild{Settings: r.Settings, Ops: r.Ops, Version: r.Version}, nil
}

// UpdateGuild calls fn on the guild's settings inside one write
// transaction, as Update does for a player (no conflict can happen; fn may
// run more than once and must not call the store), and writes what it
// returns: the settings (storage.ErrInvalid if ValidateSettings refuses
// them, nothing written), the operation appended to Ops (the oldest dropped
// past storage.MaxGuildOps; an empty Op is not recorded) and the audit
// entry. fn's error is returned as is.
func (s *Store) UpdateGuild(ctx context.Context, guild uint64, fn func(storage.Guild) (storage.GuildWrite, error)) (storage.Guild, error) {
	if guild == 0 {
		return storage.Guild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if fn == nil {
		return storage.Guild{}, fmt.Errorf("%w: nil update function", storage.ErrInvalid)
	}
	var (
		out     storage.Guild
		refused error
	)
	err := s.batch(ctx, "update guild", func(tx *bolt.Tx) error {
		refused = nil
		cur, err := s.guild(tx, guild)
		if err != nil {
			return err
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
		if err := storage.ValidateSettings(w.Settings); err != nil {
			refused = err
			return nil
		}
		var audit storage.AuditEntry
		if w.Audit != nil {
			if audit, err = storage.NormalizeAudit(*w.Audit, guild); err != nil {
				refused = err
				return nil
			}
		}
		r := guildRec{Version: cur.Version + 1, Settings: w.Settings, Ops: slices.Clone(cur.Ops)}
		if w.Op != "" {
			r.Ops = append(r.Ops, w.Op)
		}
		if len(r.Ops) > storage.MaxGuildOps {
			r.Ops = slices.Clone(r.Ops[len(r.Ops)-storage.MaxGuildOps:])
		}
		if err := putJSON(tx.Bucket(bucketGuilds), guildKey(guild), r, "guild"); err != nil {
			return err
		}
		if w.Audit != nil {
			v, err := json.Marshal(audit)
			if err != nil {
				return fmt.Errorf("encode audit: %w", err)
			}
			if err := appendAudit(tx, guild, v); err != nil {
				return err
			}
		}
		out = storage.Guild{Settings: r.Settings, Ops: r.Ops, Version: r.Version}
		return nil
	})
	if err != nil {
		return storage.Guild{}, err
	}
	return out, refused
}

// Audit returns up to n of the guild's most recent moderator actions,
// newest first.
func (s *Store) Audit(ctx context.Context, guild uint64, n int) ([]storage.AuditEntry, error) {
	if guild == 0 || n < 0 {
		return nil, fmt.Errorf("%w: audit of guild %d, %d entries", storage.ErrInvalid, guild, n)
	}
	var out []storage.AuditEntry
	err := s.view(ctx, "audit", func(tx *bolt.Tx) (err error) {
		out, err = latest(tx.Bucket(bucketAudit), guildKey(guild), n, "audit", decodeJSON[storage.AuditEntry])
		return err
	})
	return out, err
}

// Leaderboard returns the guild's n richest players, the row of user (0:
// none) and the number of players. The top is a cursor walk of the index,
// O(log N + n); bbolt keeps no counts in its tree, so the caller's rank is
// found by counting the entries before theirs, O(rank) — a few
// milliseconds for a player ranked 100,000th, which the embedded store's
// guilds do not reach. (The Redis store answers it in O(log N).)
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
