package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// allPlayers returns the ID of every player record, by guild then user,
// with SCAN (on every master).
func (s *Store) allPlayers(ctx context.Context) ([]storage.PlayerID, error) {
	var ids []storage.PlayerID
	if err := scan(ctx, s.rdb, "p:{*}:*", func(k string) {
		if g, u, ok := parseKey(k); ok && u != 0 {
			ids = append(ids, storage.PlayerID{Guild: g, User: u})
		}
	}); err != nil {
		return nil, s.wrap("scan players", err)
	}
	slices.SortFunc(ids, func(a, b storage.PlayerID) int {
		return cmp.Or(cmp.Compare(a.Guild, b.Guild), cmp.Compare(a.User, b.User))
	})
	return slices.Compact(ids), nil // SCAN may return a key twice
}

// CountPlayers implements storage.Dumper: the player records found with
// SCAN (on every master) that hold a player, checked with HEXISTS in
// pipelines of 256.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for chunk := range slices.Chunk(ids, 256) {
		cmds := make([]*redis.BoolCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				cmds[i] = p.HExists(ctx, recordKey(id), "v")
			}
			return nil
		}); err != nil {
			return 0, s.wrap("count players", err)
		}
		for _, c := range cmds {
			if c.Val() {
				n++
			}
		}
	}
	return n, nil
}

// ExportPlayers implements storage.Dumper. It SCANs the player records
// (on every master), the source of truth, and reads them with their
// history in pipelines of 256. It is not a snapshot: stop the bot first.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.DecodedPlayer) error) error {
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return err
	}
	for chunk := range slices.Chunk(ids, 256) {
		recs := make([]*redis.SliceCmd, len(chunk))
		hists := make([]*redis.StringSliceCmd, len(chunk))
		others := make([]*redis.StringSliceCmd, len(chunk))
		revs := make([]*redis.StringSliceCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				recs[i] = p.HMGet(ctx, recordKey(id), "v", "p", "s")
				hists[i] = p.LRange(ctx, historyKey(id), 0, -1)
				others[i] = p.LRange(ctx, othersKey(id), 0, -1)
				revs[i] = p.LRange(ctx, revealsKey(id), 0, -1)
			}
			return nil
		}); err != nil {
			return s.wrap("export players", err)
		}
		for i, id := range chunk {
			v := recs[i].Val()
			st, err := decodePlayer(id, str(v[0]), str(v[1]), str(v[2]), "")
			if err == nil && !st.Exists() {
				continue // deleted since the scan
			}
			hist, herr := mergeHistory(id, hists[i].Val(), others[i].Val(), storage.HistoryLimit)
			rs, rerr := decodeReveals(id, revs[i].Val())
			if err := fn(storage.ExportedPlayer(id, st.Player, hist, rs, errors.Join(err, herr, rerr))); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExportGuilds implements storage.Dumper: every guild with settings
// (s:{guild}) or moderator log (a:{guild}), found with SCAN.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.DecodedGuild) error) error {
	seen := map[uint64]bool{}
	if err := scan(ctx, s.rdb, "[sa]:{*}", func(k string) {
		if g, u, ok := parseKey(k); ok && u == 0 {
			seen[g] = true
		}
	}); err != nil {
		return s.wrap("export guilds", err)
	}
	for _, g := range slices.Sorted(maps.Keys(seen)) {
		var (
			rec *redis.SliceCmd
			log *redis.StringSliceCmd
		)
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			rec = p.HMGet(ctx, settingsKey(g), "v", "p")
			log = p.LRange(ctx, auditKey(g), 0, -1)
			return nil
		}); err != nil {
			return s.wrap("export guilds", err)
		}
		gd, err := s.decodeGuild(g, str(rec.Val()[0]), str(rec.Val()[1]))
		if err != nil {
			return err
		}
		var set *game.Settings
		if gd.Version != 0 {
			set = &gd.Settings
		}
		audit, err := decodeAuditLines(g, log.Val())
		if err != nil {
			return err
		}
		if set == nil && len(audit) == 0 {
			continue
		}
		slices.Reverse(audit) // oldest first
		if err := fn(storage.DecodedGuild{Guild: g, Settings: set, Audit: audit}); err != nil {
			return err
		}
	}
	return nil
}

// Import implements storage.Dumper. It checks first that none of d's
// players and guilds exists, then writes each with the step's script at
// version 1, "must not exist". Should a write fail, it deletes what it
// wrote. It must not run while the bot plays.
func (s *Store) Import(ctx context.Context, d *storage.DecodedDump) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	pc := make([]*redis.IntCmd, len(d.Players))
	gc := make([]*redis.IntCmd, len(d.Guilds))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, dp := range d.Players {
			pc[i] = p.Exists(ctx, recordKey(dp.ID), historyKey(dp.ID), othersKey(dp.ID), revealsKey(dp.ID), opsKey(dp.ID))
		}
		for i, dg := range d.Guilds {
			gc[i] = p.Exists(ctx, settingsKey(dg.Guild), auditKey(dg.Guild))
		}
		return nil
	}); err != nil {
		return s.wrap("import", err)
	}
	for i, c := range pc {
		if c.Val() > 0 {
			id := d.Players[i].ID
			return fmt.Errorf("players[%d] (guild %d, user %d): %w: already in the store", i, id.Guild, id.User, storage.ErrDuplicate)
		}
	}
	for i, c := range gc {
		if c.Val() > 0 {
			return fmt.Errorf("guilds[%d] (guild %d): %w: already in the store", i, d.Guilds[i].Guild, storage.ErrDuplicate)
		}
	}
	var written []storage.PlayerID
	var guilds []uint64
	// undo deletes what the import wrote before cause stopped it; what it
	// could not delete is reported with cause, so that the operator knows
	// the store is not as it was.
	undo := func(cause error) error {
		ctx := context.WithoutCancel(ctx)
		var failed []error
		for chunk := range slices.Chunk(written, 256) {
			_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, id := range chunk {
					p.Del(ctx, recordKey(id), historyKey(id), othersKey(id), revealsKey(id), opsKey(id))
					p.ZRem(ctx, boardKey(id.Guild), member(id.User))
				}
				return nil
			})
			if err != nil {
				failed = append(failed, err)
			}
		}
		for _, g := range guilds {
			if err := s.rdb.Del(ctx, settingsKey(g), auditKey(g)).Err(); err != nil {
				failed = append(failed, err)
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("%w; and the rollback failed, %d players and %d guilds may be left in the store (clefs audit, or delete their keys): %w",
				cause, len(written), len(guilds), errors.Join(failed...))
		}
		return cause
	}
	for i, dp := range d.Players {
		id := dp.ID
		name := fmt.Sprintf("players[%d] (guild %d, user %d)", i, id.Guild, id.User)
		e, err := encodeWrite(id, 1, "", storage.Write{Player: dp.Player, History: dp.History, Reveals: dp.Reveals})
		if err != nil {
			return undo(fmt.Errorf("%s: %w", name, err))
		}
		res, err := s.write(ctx, id, "0", e)
		if err != nil {
			return undo(s.wrap("import", err))
		}
		if !res.ok {
			return undo(fmt.Errorf("%s: %w: written meanwhile", name, storage.ErrDuplicate))
		}
		written = append(written, id)
	}
	for i, dg := range d.Guilds {
		name := fmt.Sprintf("guilds[%d] (guild %d)", i, dg.Guild)
		lines := make([]string, len(dg.Audit))
		for j, a := range dg.Audit {
			line, err := storage.EncodeAudit(a, dg.Guild, "")
			if err != nil {
				return undo(fmt.Errorf("%s: audit[%d]: %w", name, j, err))
			}
			lines[j] = string(line)
		}
		guilds = append(guilds, dg.Guild)
		if dg.Settings == nil { // the log alone
			if lines = lines[max(0, len(lines)-storage.AuditLimit):]; len(lines) > 0 {
				if err := s.rdb.LPush(ctx, auditKey(dg.Guild), lines).Err(); err != nil {
					return undo(s.wrap("import", err))
				}
			}
			continue
		}
		b, err := schema.EncodeGuild(game.Guild{Settings: *dg.Settings})
		if err != nil {
			return undo(fmt.Errorf("%s: %w: %w", name, storage.ErrInvalid, err))
		}
		res, err := s.cas(ctx, settingsKey(dg.Guild), auditKey(dg.Guild), 0, string(b), storage.AuditLimit, lines)
		if err != nil {
			return undo(s.wrap("import", err))
		}
		if !res.ok {
			return undo(fmt.Errorf("%s: %w: written meanwhile", name, storage.ErrDuplicate))
		}
	}
	return nil
}
