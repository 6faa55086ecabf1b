package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// ExportPlayers calls fn for every player, by guild then user, with its
// history, from one read transaction (a consistent snapshot). fn must not
// write to the store.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.DecodedPlayer) error) error {
	return s.view(ctx, "export players", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPlayers).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			id := storage.PlayerID{Guild: binary.BigEndian.Uint64(k), User: binary.BigEndian.Uint64(k[8:])}
			r, err := decodePlayer(id, v)
			if err != nil {
				return err
			}
			hist, err := history(tx, k, storage.HistoryLimit)
			if err != nil {
				return err
			}
			slices.Reverse(hist) // oldest first in a dump
			rs, err := reveals(tx, id)
			if err != nil {
				return err
			}
			if err := fn(storage.DecodedPlayer{ID: id, Player: r.Player, History: hist, Reveals: rs}); err != nil {
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

// ExportGuilds calls fn for every guild with settings or audit entries, by
// guild, from one read transaction. fn must not write to the store.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.DecodedGuild) error) error {
	return s.view(ctx, "export guilds", func(tx *bolt.Tx) error {
		ids := append(guildsOf(tx.Bucket(bucketGuilds)), guildsOf(tx.Bucket(bucketAudit))...)
		slices.Sort(ids)
		for _, g := range slices.Compact(ids) {
			if err := ctx.Err(); err != nil {
				return err
			}
			gg, _, ok, err := getGuild(tx, g)
			if err != nil {
				return err
			}
			var set *game.Settings
			if ok {
				set = &gg.Settings
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
		if len(k) < 8 { // a malformed key (see malformedBoardKeys)
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

// Import adds every player and guild of d in one write transaction, all or
// nothing, with their leaderboard index: each player at version 1, each
// guild with settings at version 1, every time rounded by
// storage.Timestamp. A player or guild (settings or audit entries) already
// in the store is storage.ErrDuplicate, naming the record; a player that
// fails game.Player.Check is storage.ErrInvalid.
func (s *Store) Import(ctx context.Context, d *storage.DecodedDump) error {
	if d == nil {
		return fmt.Errorf("%w: nil dump", storage.ErrInvalid)
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	var refused error
	err := s.db.Update(func(tx *bolt.Tx) error {
		for i, dp := range d.Players {
			id := dp.ID
			name := fmt.Sprintf("players[%d] (guild %d, user %d)", i, id.Guild, id.User)
			if err := storage.ValidateID(id); err != nil {
				refused = fmt.Errorf("%s: %w", name, err)
				return refused
			}
			old, err := getPlayer(tx, id)
			if err != nil {
				return err
			}
			if old != nil {
				refused = fmt.Errorf("%s: %w: already in the store", name, storage.ErrDuplicate)
				return refused
			}
			if len(dp.History) > storage.HistoryLimit {
				refused = fmt.Errorf("%s: %w: %d history lines", name, storage.ErrInvalid, len(dp.History))
				return refused
			}
			if err := dp.Player.CheckReveals(dp.Reveals); err != nil {
				refused = fmt.Errorf("%s: %w: %w", name, storage.ErrInvalid, err)
				return refused
			}
			pw, err := prepare(id, nil, "", storage.Write{Player: dp.Player, History: dp.History})
			if err != nil {
				refused = fmt.Errorf("%s: %w", name, err)
				return refused
			}
			if err := pw.write(tx); err != nil {
				return err
			}
			for _, r := range dp.Reveals {
				r.CommittedAt, r.RevealedAt = storage.Timestamp(r.CommittedAt), storage.Timestamp(r.RevealedAt)
				b, err := schema.EncodeReveal(r)
				if err != nil {
					return err
				}
				if _, err := appendCapped(tx.Bucket(bucketReveals), playerKey(id), b, game.MaxReveals); err != nil {
					return fmt.Errorf("reveals: %w", err)
				}
			}
		}
		for i, dg := range d.Guilds {
			name := fmt.Sprintf("guilds[%d] (guild %d)", i, dg.Guild)
			if dg.Guild == 0 {
				refused = fmt.Errorf("%s: %w: guild 0", name, storage.ErrInvalid)
				return refused
			}
			gk := guildKey(dg.Guild)
			if k, _ := tx.Bucket(bucketAudit).Cursor().Seek(gk); tx.Bucket(bucketGuilds).Get(gk) != nil || k != nil && bytes.HasPrefix(k, gk) {
				refused = fmt.Errorf("%s: %w: already in the store", name, storage.ErrDuplicate)
				return refused
			}
			if dg.Settings != nil {
				g := game.Guild{Settings: *dg.Settings}
				if _, err := schema.EncodeGuild(g); err != nil {
					refused = fmt.Errorf("%s: %w: %w", name, storage.ErrInvalid, err)
					return refused
				}
				if err := putGuild(tx, dg.Guild, g, 1); err != nil {
					return err
				}
			}
			if len(dg.Audit) > storage.AuditLimit {
				refused = fmt.Errorf("%s: %w: %d audit entries", name, storage.ErrInvalid, len(dg.Audit))
				return refused
			}
			for j, a := range dg.Audit {
				a, err := storage.NormalizeAudit(a, dg.Guild)
				if err != nil {
					refused = fmt.Errorf("%s: audit[%d]: %w", name, j, err)
					return refused
				}
				v, err := schema.EncodeAudit(dg.Guild, "", a)
				if err != nil {
					return fmt.Errorf("%s: audit[%d]: %w", name, j, err)
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

// CheckIndex calls fn for every difference between the players' balances
// and the leaderboard index, guild by guild, then user by user. The index
// is written in the same transaction as the player, so a difference is a
// bug (or a file edited by hand); the audit subcommand's -repair fixes it
// with RebuildIndex. The differences are collected in one read
// transaction, then given to fn outside it.
func (s *Store) CheckIndex(ctx context.Context, fn func(storage.IndexDrift) error) error {
	var drifts []storage.IndexDrift
	err := s.view(ctx, "check index", func(tx *bolt.Tx) error {
		drifts = nil
		for _, k := range malformedBoardKeys(tx) {
			drifts = append(drifts, malformedDrift(k))
		}
		return eachGuildIndex(tx, func(guild uint64, want, have map[uint64]int64, extra []storage.IndexDrift) error {
			drifts = append(drifts, extra...)
			users := make([]uint64, 0, len(want))
			for u := range want {
				users = append(users, u)
			}
			for u := range have {
				if _, ok := want[u]; !ok {
					users = append(users, u)
				}
			}
			slices.Sort(users)
			for _, u := range users {
				b, player := want[u]
				ix, index := have[u]
				if player && index && b == ix {
					continue
				}
				drifts = append(drifts, storage.IndexDrift{ID: storage.PlayerID{Guild: guild, User: u}, Balance: b, Indexed: ix, Player: player, Index: index})
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, d := range drifts {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// RebuildIndex sets every player's leaderboard entry from its balance,
// removes the entries of players that do not exist and the malformed keys
// (of the wrong length), and recounts each guild's players, in one write
// transaction; it returns how many entries (and counts) it changed: 0 on a
// sound store, and on a second run.
func (s *Store) RebuildIndex(ctx context.Context) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	changed := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		changed = 0
		for _, k := range malformedBoardKeys(tx) {
			if err := tx.Bucket(bucketBoard).Delete(k); err != nil {
				return err
			}
			changed++
		}
		type fix struct {
			del, put [][]byte
			guild    uint64
			count    uint64
			recount  bool
		}
		var fixes []fix
		err := eachGuildIndex(tx, func(guild uint64, want, have map[uint64]int64, extra []storage.IndexDrift) error {
			f := fix{guild: guild, count: uint64(len(want))}
			for _, d := range extra {
				f.del = append(f.del, boardKey(d.ID, d.Indexed))
			}
			for u, ix := range have {
				if b, ok := want[u]; !ok || b != ix {
					f.del = append(f.del, boardKey(storage.PlayerID{Guild: guild, User: u}, ix))
				}
			}
			for u, b := range want {
				if ix, ok := have[u]; !ok || b != ix {
					f.put = append(f.put, boardKey(storage.PlayerID{Guild: guild, User: u}, b))
				}
			}
			f.recount = count(tx, guild) != f.count
			fixes = append(fixes, f)
			return nil
		})
		if err != nil {
			return err
		}
		board, counts := tx.Bucket(bucketBoard), tx.Bucket(bucketCounts)
		for _, f := range fixes {
			for _, k := range f.del {
				if err := board.Delete(k); err != nil {
					return err
				}
			}
			for _, k := range f.put {
				if err := board.Put(k, nil); err != nil {
					return err
				}
			}
			changed += len(f.del) + len(f.put)
			if f.recount {
				changed++
				if f.count == 0 {
					if err := counts.Delete(guildKey(f.guild)); err != nil {
						return err
					}
				} else if err := counts.Put(guildKey(f.guild), binary.BigEndian.AppendUint64(nil, f.count)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, s.wrap("rebuild index", err)
	}
	return changed, nil
}

// eachGuildIndex calls fn for every guild that has players, index entries
// or a count, with the balances of its players (want), the balances its
// index holds (have; a player's first entry) and the player's further
// entries, if any (extra, always a drift).
func eachGuildIndex(tx *bolt.Tx, fn func(guild uint64, want, have map[uint64]int64, extra []storage.IndexDrift) error) error {
	players, board := tx.Bucket(bucketPlayers), tx.Bucket(bucketBoard)
	ids := append(append(guildsOf(players), guildsOf(board)...), guildsOf(tx.Bucket(bucketCounts))...)
	slices.Sort(ids)
	for _, g := range slices.Compact(ids) {
		prefix := guildKey(g)
		want, have := map[uint64]int64{}, map[uint64]int64{}
		var extra []storage.IndexDrift
		c := players.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			r, err := decodePlayer(storage.PlayerID{Guild: g, User: binary.BigEndian.Uint64(k[8:])}, v)
			if err != nil {
				return err
			}
			want[binary.BigEndian.Uint64(k[8:])] = r.Player.Balance
		}
		c = board.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if len(k) != boardKeyLen {
				continue // malformedBoardKeys reports it
			}
			u, b := parseBoardKey(k)
			if _, dup := have[u]; dup {
				w, player := want[u]
				extra = append(extra, storage.IndexDrift{ID: storage.PlayerID{Guild: g, User: u}, Balance: w, Indexed: b, Player: player, Index: true})
				continue
			}
			have[u] = b
		}
		if err := fn(g, want, have, extra); err != nil {
			return err
		}
	}
	return nil
}

// boardKeyLen is the length of a leaderboard key: guild, ^balance, user.
const boardKeyLen = 24

// malformedBoardKeys returns the keys of the board bucket that are not
// leaderboard keys (boardKey never writes them: a bug or a file edited by
// hand), in order. The caller must not keep them past tx.
func malformedBoardKeys(tx *bolt.Tx) [][]byte {
	var bad [][]byte
	c := tx.Bucket(bucketBoard).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != boardKeyLen {
			bad = append(bad, bytes.Clone(k))
		}
	}
	return bad
}

// malformedDrift describes a malformed board key k as an IndexDrift.
func malformedDrift(k []byte) storage.IndexDrift {
	var g uint64
	if len(k) >= 8 {
		g = binary.BigEndian.Uint64(k)
	}
	return storage.IndexDrift{
		ID:        storage.PlayerID{Guild: g},
		Malformed: fmt.Sprintf("leaderboard key %x is %d bytes long, not %d", k, len(k), boardKeyLen),
	}
}
