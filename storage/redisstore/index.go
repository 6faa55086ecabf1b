package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
)

// scan calls fn with every key matching pattern, on every master of a
// cluster (one after the other: fn need not be safe for concurrent use).
func (s *Store) scan(ctx context.Context, pattern string, fn func(key string)) error {
	one := func(ctx context.Context, c redis.Cmdable) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			fn(it.Val())
		}
		return it.Err()
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return one(ctx, c)
		})
	}
	return one(ctx, s.rdb)
}

// allPlayers returns the ID of every player record, by guild then user,
// with SCAN (on every master).
func (s *Store) allPlayers(ctx context.Context) ([]storage.PlayerID, error) {
	var ids []storage.PlayerID
	if err := s.scan(ctx, "p:{*}", func(k string) {
		if g, u, ok := parseTag(k); ok && u != 0 {
			ids = append(ids, storage.PlayerID{Guild: g, User: u})
		}
	}); err != nil {
		return nil, s.wrap("scan players", err)
	}
	slices.SortFunc(ids, func(a, b storage.PlayerID) int {
		if c := cmp.Compare(a.Guild, b.Guild); c != 0 {
			return c
		}
		return cmp.Compare(a.User, b.User)
	})
	return slices.Compact(ids), nil // SCAN may return a key twice
}

// balances reads the balance and version of each player (0, 0 for one
// that does not exist), in pipelines of 256.
func (s *Store) balances(ctx context.Context, ids []storage.PlayerID) (bal []int64, ver []uint64, err error) {
	bal, ver = make([]int64, len(ids)), make([]uint64, len(ids))
	for start := 0; start < len(ids); start += 256 {
		chunk := ids[start:min(start+256, len(ids))]
		cmds := make([]*redis.SliceCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				cmds[i] = p.HMGet(ctx, recordKey(id), "v", "p")
			}
			return nil
		}); err != nil {
			return nil, nil, s.wrap("read balances", err)
		}
		for i, c := range cmds {
			v, p := c.Val()[0], c.Val()[1]
			vs, _ := v.(string)
			ps, _ := p.(string)
			if vs == "" {
				continue
			}
			// Only the balance: a cheaper parse than the whole record
			// (the field b of the schema, or Player.Balance of a record
			// of the release before it, not migrated yet).
			var r struct {
				B      int64 `json:"b"`
				Player struct{ Balance int64 }
			}
			id := chunk[i]
			if err := json.Unmarshal([]byte(ps), &r); err != nil {
				return nil, nil, fmt.Errorf("redisstore: player %d/%d: corrupt record: %w", id.Guild, id.User, err)
			}
			if ver[start+i], err = strconv.ParseUint(vs, 10, 64); err != nil {
				return nil, nil, fmt.Errorf("redisstore: player %d/%d: version %q: %w", id.Guild, id.User, vs, err)
			}
			bal[start+i] = r.B + r.Player.Balance
		}
	}
	return bal, ver, nil
}

// CountPlayers implements storage.Dumper: the player records found with
// SCAN (on every master) that hold a player, checked with HEXISTS in
// pipelines of 256.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for start := 0; start < len(ids); start += 256 {
		chunk := ids[start:min(start+256, len(ids))]
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

// indexIssue is a drift, and for a malformed entry its member as stored.
type indexIssue struct {
	storage.IndexDrift
	member string
}

// drifts returns the differences between the players and the index,
// guild by guild: its malformed members, then user by user. Each
// difference found is read again once, so that a write in flight is not
// reported.
func (s *Store) drifts(ctx context.Context) ([]indexIssue, error) {
	ids, err := s.allPlayers(ctx)
	if err != nil {
		return nil, err
	}
	guilds := map[uint64][]uint64{}
	for _, id := range ids {
		guilds[id.Guild] = append(guilds[id.Guild], id.User)
	}
	if err := s.scan(ctx, "lb:{*}", func(k string) {
		if g, u, ok := parseTag(k); ok && u == 0 {
			if _, seen := guilds[g]; !seen {
				guilds[g] = nil
			}
		}
	}); err != nil {
		return nil, s.wrap("scan leaderboards", err)
	}
	order := make([]uint64, 0, len(guilds))
	for g := range guilds {
		order = append(order, g)
	}
	slices.Sort(order)
	var out []indexIssue
	for _, g := range order {
		users := guilds[g]
		pids := make([]storage.PlayerID, len(users))
		for i, u := range users {
			pids[i] = storage.PlayerID{Guild: g, User: u}
		}
		bal, _, err := s.balances(ctx, pids)
		if err != nil {
			return nil, err
		}
		board, bad, err := s.scanBoard(ctx, g)
		if err != nil {
			return nil, err
		}
		for _, b := range bad {
			out = append(out, indexIssue{storage.IndexDrift{ID: storage.PlayerID{Guild: g}, Malformed: b.reason}, b.member})
		}
		var found []storage.IndexDrift
		for i, u := range users {
			idx, ok := board[u]
			if !ok || idx != bal[i] {
				found = append(found, storage.IndexDrift{ID: pids[i], Balance: bal[i], Indexed: idx, Player: true, Index: ok})
			}
			delete(board, u)
		}
		for u, idx := range board {
			found = append(found, storage.IndexDrift{ID: storage.PlayerID{Guild: g, User: u}, Indexed: idx, Index: true})
		}
		if found, err = s.confirm(ctx, found); err != nil {
			return nil, err
		}
		slices.SortFunc(found, func(a, b storage.IndexDrift) int { return cmp.Compare(a.ID.User, b.ID.User) })
		for _, d := range found {
			out = append(out, indexIssue{IndexDrift: d})
		}
	}
	return out, nil
}

// confirm reads each drift again and keeps those still there, as they
// are now.
func (s *Store) confirm(ctx context.Context, found []storage.IndexDrift) ([]storage.IndexDrift, error) {
	var out []storage.IndexDrift
	for _, d := range found {
		now, err := s.drift(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		if now.Player != now.Index || now.Balance != now.Indexed {
			out = append(out, now)
		}
	}
	return out, nil
}

// drift reads one player and its index entry.
func (s *Store) drift(ctx context.Context, id storage.PlayerID) (storage.IndexDrift, error) {
	st, err := s.load(ctx, id, "")
	if err != nil {
		return storage.IndexDrift{}, err
	}
	d := storage.IndexDrift{ID: id, Balance: st.Player.Balance, Player: st.Exists()}
	sc, err := s.rdb.ZScore(ctx, boardKey(id.Guild), member(id.User)).Result()
	switch {
	case err == redis.Nil:
	case err != nil:
		return storage.IndexDrift{}, s.wrap("read the leaderboard", err)
	default:
		// A score that is not a balance is no entry: drifts reports it as
		// malformed, and RebuildIndex sets it again.
		if e, err := boardEntry(member(id.User), sc, 0); err == nil {
			d.Indexed, d.Index = e.Balance, true
		}
	}
	return d, nil
}

// CheckIndex implements storage.Indexer. It SCANs every player record (on
// every master), reads their balances and compares them with each guild's
// index, read with ZSCAN. It is meant for the audit subcommand: it reads
// everything. While the bot plays, a write landing between the two reads
// is read again before being reported.
func (s *Store) CheckIndex(ctx context.Context, fn func(storage.IndexDrift) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	found, err := s.drifts(ctx)
	if err != nil {
		return err
	}
	for _, d := range found {
		if err := fn(d.IndexDrift); err != nil {
			return err
		}
	}
	return nil
}

// RebuildIndex implements storage.Indexer. It removes the malformed
// members CheckIndex would report (the bot never writes one, so that is
// safe while it plays); then for each drift, it sets the entry from the
// player's balance (or removes it),
// then reads the player's version again: if the player was written
// meanwhile (and its writer's ZADD may have landed before ours), it sets
// the entry again from the new balance. So it is safe while the bot plays.
func (s *Store) RebuildIndex(ctx context.Context) (int, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	found, err := s.drifts(ctx)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, d := range found {
		if d.Malformed == "" {
			continue
		}
		n, err := s.rdb.ZRem(ctx, boardKey(d.ID.Guild), d.member).Result()
		if err != nil {
			return changed, s.wrap("rebuild the leaderboard", err)
		}
		changed += int(n)
	}
	for _, d := range found {
		if d.Malformed != "" {
			continue
		}
		for range storage.MaxAttempts {
			st, err := s.load(ctx, d.ID, "")
			if err != nil {
				return changed, err
			}
			var n int64
			if st.Exists() {
				n, err = s.rdb.ZAddArgs(ctx, boardKey(d.ID.Guild), redis.ZAddArgs{Ch: true, Members: []redis.Z{{Score: score(st.Player.Balance), Member: member(d.ID.User)}}}).Result()
			} else {
				n, err = s.rdb.ZRem(ctx, boardKey(d.ID.Guild), member(d.ID.User)).Result()
			}
			if err != nil {
				return changed, s.wrap("rebuild the leaderboard", err)
			}
			changed += int(n)
			again, err := s.load(ctx, d.ID, "")
			if err != nil {
				return changed, err
			}
			if again.Version == st.Version {
				break
			}
		}
	}
	return changed, nil
}
