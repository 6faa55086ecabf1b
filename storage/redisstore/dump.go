package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// ExportPlayers implements storage.Dumper. It SCANs the player records
// (on every master), the source of truth, and reads them with their
// history in pipelines of 256. It is not a snapshot: stop the bot first.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.DecodedPlayer) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return err
	}
	for start := 0; start < len(ids); start += 256 {
		chunk := ids[start:min(start+256, len(ids))]
		recs := make([]*redis.SliceCmd, len(chunk))
		hists := make([]*redis.StringSliceCmd, len(chunk))
		others := make([]*redis.StringSliceCmd, len(chunk))
		revs := make([]*redis.StringSliceCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				recs[i] = p.HMGet(ctx, recordKey(id), "v", "p", "s", "a")
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
			st, old, err := decodePlayer(id, raw{v: v[0], p: v[1], s: v[2], a: v[3]})
			if err != nil {
				return fmt.Errorf("redisstore: export: %w", err)
			}
			hl, rl := hists[i].Val(), revs[i].Val()
			if old { // the release before the schema: migrate, then read again
				if st, err = s.load(ctx, id, ""); err != nil {
					return err
				}
				if hl, err = s.rdb.LRange(ctx, historyKey(id), 0, -1).Result(); err != nil {
					return s.wrap("export players", err)
				}
				if rl, err = s.rdb.LRange(ctx, revealsKey(id), 0, -1).Result(); err != nil {
					return s.wrap("export players", err)
				}
			}
			if !st.Exists() {
				continue // deleted since the scan
			}
			hist, err := mergeHistory(id, hl, others[i].Val(), storage.HistoryLimit)
			if err != nil {
				return err
			}
			slices.Reverse(hist) // oldest first
			rs := make(game.Reveals, len(rl))
			for j, r := range rl {
				if rs[len(rl)-1-j], err = schema.DecodeReveal(revealsKey(id), []byte(r)); err != nil {
					return fmt.Errorf("redisstore: export: %w", err)
				}
			}
			if err := fn(storage.DecodedPlayer{ID: id, Player: st.Player, History: hist, Reveals: rs}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExportGuilds implements storage.Dumper: every guild with settings
// (s:{guild}) or moderator log (a:{guild}), found with SCAN.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.DecodedGuild) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	seen := map[uint64]bool{}
	for _, pat := range []string{"s:{*}", "a:{*}"} {
		if err := s.scan(ctx, pat, func(k string) {
			if g, u, ok := parseTag(k); ok && u == 0 {
				seen[g] = true
			}
		}); err != nil {
			return s.wrap("export guilds", err)
		}
	}
	guilds := make([]uint64, 0, len(seen))
	for g := range seen {
		guilds = append(guilds, g)
	}
	slices.Sort(guilds)
	for _, g := range guilds {
		var (
			rec *redis.SliceCmd
			log *redis.StringSliceCmd
		)
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			rec = p.HMGet(ctx, settingsKey(g), "v", "p", "a")
			log = p.LRange(ctx, auditKey(g), 0, -1)
			return nil
		}); err != nil {
			return s.wrap("export guilds", err)
		}
		gd, _, err := s.decodeGuild(g, rec.Val()[0], rec.Val()[1], rec.Val()[2])
		if errors.Is(err, errLegacyGuild) {
			gd, _, err = s.guild(ctx, g) // rewritten in the schema first
		}
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
// players and guilds exists, then writes each player with the
// compare-and-set script (version 1, "must not exist": a player written
// meanwhile is ErrDuplicate) and its index entry, then each guild. Should
// a write fail, it deletes what it wrote. It must not run while the bot
// plays.
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
		for start := 0; start < len(written); start += 256 {
			_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, id := range written[start:min(start+256, len(written))] {
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
		if err := dp.Player.CheckReveals(dp.Reveals); err != nil {
			return undo(fmt.Errorf("%s: %w: %w", name, storage.ErrInvalid, err))
		}
		e, err := encodeWrite(id, 1, "", storage.Write{Player: dp.Player, History: dp.History})
		if err != nil {
			return undo(fmt.Errorf("%s: %w", name, err))
		}
		reveals := make([]any, 0, len(dp.Reveals))
		for j := len(dp.Reveals) - 1; j >= 0; j-- { // newest first, as the list keeps them
			r := dp.Reveals[j]
			r.CommittedAt, r.RevealedAt = storage.Timestamp(r.CommittedAt), storage.Timestamp(r.RevealedAt)
			b, err := schema.EncodeReveal(r)
			if err != nil {
				return undo(fmt.Errorf("%s: %w", name, err))
			}
			reveals = append(reveals, string(b))
		}
		res, err := s.write(ctx, id, 0, e, func(p redis.Pipeliner) {
			p.ZAdd(ctx, boardKey(id.Guild), redis.Z{Score: score(dp.Player.Balance), Member: member(id.User)})
			if len(reveals) > 0 {
				p.RPush(ctx, revealsKey(id), reveals...)
			}
		})
		if err != nil {
			return undo(s.wrap("import", err))
		}
		if !res.ok {
			return undo(fmt.Errorf("%s: %w: written meanwhile", name, storage.ErrDuplicate))
		}
		written = append(written, id)
	}
	for i, dg := range d.Guilds {
		if dg.Settings != nil {
			b, err := schema.EncodeGuild(game.Guild{Settings: *dg.Settings})
			if err != nil {
				return undo(fmt.Errorf("guilds[%d] (guild %d): %w: %w", i, dg.Guild, storage.ErrInvalid, err))
			}
			res, err := s.cas(ctx, settingsKey(dg.Guild), "", 0, string(b), "", 0, nil, nil)
			if err != nil {
				return undo(s.wrap("import", err))
			}
			if !res.ok {
				return undo(fmt.Errorf("guilds[%d] (guild %d): %w: written meanwhile", i, dg.Guild, storage.ErrDuplicate))
			}
		}
		guilds = append(guilds, dg.Guild)
		if len(dg.Audit) == 0 {
			continue
		}
		lines := make([]any, len(dg.Audit))
		for j, a := range dg.Audit {
			a, err := storage.NormalizeAudit(a, dg.Guild)
			if err != nil {
				return undo(fmt.Errorf("guilds[%d] (guild %d): audit[%d]: %w", i, dg.Guild, j, err))
			}
			l, err := encodeAudit("", a)
			if err != nil {
				return undo(fmt.Errorf("guilds[%d] (guild %d): audit[%d]: %w", i, dg.Guild, j, err))
			}
			lines[j] = l
		}
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.LPush(ctx, auditKey(dg.Guild), lines...)
			p.LTrim(ctx, auditKey(dg.Guild), 0, storage.AuditLimit-1)
			return nil
		}); err != nil {
			return undo(s.wrap("import", err))
		}
	}
	return nil
}
