package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

func str(x any) string { s, _ := x.(string); return s }

// decodePlayer reads the fields v, p and s of a player's record and, when
// not "", the result remembered for an operation (Repeat). A record whose
// v (a versionError), p or s does not read is returned as
// storage.Versioned.Damaged says, with Damaged as the error; one whose
// result does not decode is only an error (*storage.DamagedError): a
// repeat is no step.
func decodePlayer(id storage.PlayerID, v, p, s, result string) (storage.Versioned, error) {
	if v == "" || v == "0" {
		return storage.Versioned{}, nil
	}
	var out storage.Versioned
	var verr error
	if n, err := strconv.ParseUint(v, 10, 64); err != nil {
		verr = fmt.Errorf("%s: %w", recordKey(id), versionError(v))
	} else {
		out.Version = n
	}
	if result != "" {
		r, err := schema.DecodeResult(recordKey(id)+" operation", []byte(result))
		if err != nil {
			return storage.Versioned{}, &storage.DamagedError{ID: id, Err: err}
		}
		out.Repeat = &r
	}
	var err error
	if out.Player, err = schema.DecodePlayerParts(recordKey(id), []byte(p), []byte(s)); err != nil {
		out.Player, _ = schema.DecodeSeeds(recordKey(id)+" s", []byte(s))
	}
	if err = cmp.Or(verr, err); err != nil {
		out.Damaged = &storage.DamagedError{ID: id, Err: err}
		return out, out.Damaged
	}
	return out, nil
}

// versionError is a record's field v that does not read as a version: the
// repair's write compares it as it is (Run).
type versionError string

func (v versionError) Error() string {
	return fmt.Sprintf("version %q is not a decimal counter", string(v))
}

// Load returns the player's state and version (0 if never written). It
// reads Redis, never the cache, and refreshes the cache.
func (s *Store) Load(ctx context.Context, id storage.PlayerID) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	return s.load(ctx, id, "")
}

// load reads the player and, when op is not "", the result remembered for
// op (Repeat), in one command.
func (s *Store) load(ctx context.Context, id storage.PlayerID, op string) (storage.Versioned, error) {
	vals, err := s.rdb.HMGet(ctx, recordKey(id), "v", "p", "s", "o:"+op).Result()
	if err != nil {
		return storage.Versioned{}, s.wrap(fmt.Sprintf("load %d/%d", id.Guild, id.User), err)
	}
	// For op "", o: is no field: an operation's ID is never empty.
	v, err := decodePlayer(id, str(vals[0]), str(vals[1]), str(vals[2]), str(vals[3]))
	if err != nil {
		return v, err
	}
	s.cache.put(id, storage.Versioned{Player: v.Player, Version: v.Version})
	return v, nil
}

// Reveals implements storage.Store: LRANGE on r:{guild}:user.
func (s *Store) Reveals(ctx context.Context, id storage.PlayerID) (game.Reveals, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	vals, err := s.rdb.LRange(ctx, revealsKey(id), 0, game.MaxReveals-1).Result()
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("reveals of %d/%d", id.Guild, id.User), err)
	}
	return decodeReveals(id, vals)
}

// decodeReveals reads a list of reveals, newest first, and returns them
// oldest first.
func decodeReveals(id storage.PlayerID, raw []string) (game.Reveals, error) {
	rs, err := decodeList(raw, func(b []byte) (game.SeedReveal, error) { return schema.DecodeReveal(revealsKey(id), b) })
	if err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	slices.Reverse(rs)
	return rs, nil
}

func decodeList[T any](raw []string, dec func([]byte) (T, error)) ([]T, error) {
	out := make([]T, len(raw))
	for i, r := range raw {
		var err error
		if out[i], err = dec([]byte(r)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// History implements storage.Store: LRANGE on h:{guild}:user and
// o:{guild}:user, in one round trip, merged (game.MergeHistory).
func (s *Store) History(ctx context.Context, id storage.PlayerID, n int) ([]game.Entry, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: history of %d lines", storage.ErrInvalid, n)
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	if n == 0 {
		return []game.Entry{}, nil
	}
	n = min(n, storage.HistoryLimit)
	var main, others *redis.StringSliceCmd
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		main = p.LRange(ctx, historyKey(id), 0, int64(n-1))
		others = p.LRange(ctx, othersKey(id), 0, int64(n-1))
		return nil
	}); err != nil {
		return nil, s.wrap(fmt.Sprintf("history %d/%d", id.Guild, id.User), err)
	}
	return mergeHistory(id, main.Val(), others.Val(), n)
}

// mergeHistory reads the two lists of a player's history, newest first,
// and returns their newest n lines, newest first.
func mergeHistory(id storage.PlayerID, rawMain, rawOthers []string, n int) ([]game.Entry, error) {
	main, err := decodeList(rawMain, func(b []byte) (game.Entry, error) { return schema.DecodeLine(historyKey(id), b) })
	others, oerr := decodeList(rawOthers, func(b []byte) (game.Entry, error) { return schema.DecodeLine(othersKey(id), b) })
	if err = cmp.Or(err, oerr); err != nil {
		return nil, &storage.DamagedError{ID: id, Err: err}
	}
	return storage.MergeNewest(main, others, n), nil
}

// Audit implements storage.Store: LRANGE on a:{guild}.
func (s *Store) Audit(ctx context.Context, guild uint64, n int) ([]game.AuditEntry, error) {
	if guild == 0 || n < 0 {
		return nil, fmt.Errorf("%w: audit of guild %d, %d entries", storage.ErrInvalid, guild, n)
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	if n == 0 {
		return []game.AuditEntry{}, nil
	}
	raw, err := s.rdb.LRange(ctx, auditKey(guild), 0, int64(min(n, storage.AuditLimit)-1)).Result()
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("audit of guild %d", guild), err)
	}
	return decodeAuditLines(guild, raw)
}

func decodeAuditLines(guild uint64, raw []string) ([]game.AuditEntry, error) {
	out, err := decodeList(raw, func(b []byte) (game.AuditEntry, error) {
		e, _, err := schema.DecodeAudit(auditKey(guild)+" line", guild, b)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: audit of guild %d: %w", guild, err)
	}
	return out, nil
}

// Leaderboard implements storage.Store in one round trip: ZRANGE for the
// top n, ZRANK and ZSCORE for user, ZCARD; O(log N + n). Scores are
// opposite balances (see score), so ZRANGE's order is the contract's:
// richest first, then lowest user ID.
func (s *Store) Leaderboard(ctx context.Context, guild uint64, n int, user uint64) (storage.Board, error) {
	if guild == 0 || n < 0 {
		return storage.Board{}, fmt.Errorf("%w: leaderboard of guild %d, %d rows", storage.ErrInvalid, guild, n)
	}
	key := boardKey(guild)
	var (
		top   *redis.ZSliceCmd
		rank  *redis.IntCmd
		sc    *redis.FloatCmd
		count *redis.IntCmd
	)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if n > 0 {
			top = p.ZRangeWithScores(ctx, key, 0, int64(n-1))
		}
		if user != 0 {
			rank = p.ZRank(ctx, key, member(user))
			sc = p.ZScore(ctx, key, member(user))
		}
		count = p.ZCard(ctx, key)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) { // Nil: user is not on the board
		return storage.Board{}, s.wrap(fmt.Sprintf("leaderboard of guild %d", guild), err)
	}
	b := storage.Board{Top: []storage.LeaderboardEntry{}, Players: int(count.Val())}
	if top != nil {
		for i, z := range top.Val() {
			m, _ := z.Member.(string)
			e, err := boardEntry(m, z.Score, i+1)
			if err != nil {
				return storage.Board{}, fmt.Errorf("redisstore: leaderboard of guild %d: %w", guild, err)
			}
			b.Top = append(b.Top, e)
		}
	}
	if rank != nil && rank.Err() == nil && sc.Err() == nil {
		e, err := boardEntry(member(user), sc.Val(), int(rank.Val())+1)
		if err != nil {
			return storage.Board{}, fmt.Errorf("redisstore: leaderboard of guild %d: %w", guild, err)
		}
		b.You = &e
	}
	return b, nil
}

func boardEntry(m string, sc float64, rank int) (storage.LeaderboardEntry, error) {
	u, err := parseMember(m)
	if err != nil {
		return storage.LeaderboardEntry{}, err
	}
	bal := -sc
	if bal != math.Trunc(bal) || bal < 0 || bal > float64(game.MaxBalance) {
		return storage.LeaderboardEntry{}, fmt.Errorf("user %d: score %v is not a balance", u, sc)
	}
	return storage.LeaderboardEntry{User: u, Balance: int64(bal), Rank: rank}, nil
}

// Players implements storage.Store from the leaderboard (ZSCAN, then
// sorted here), which every write of a player sets in the same script.
func (s *Store) Players(ctx context.Context, guild uint64, fn func(user uint64) error) error {
	if guild == 0 {
		return fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	var users []uint64
	it := s.rdb.ZScan(ctx, boardKey(guild), 0, "", 1000).Iterator()
	for i := 0; it.Next(ctx); i++ {
		if i%2 == 1 { // ZSCAN gives a member, then its score
			continue
		}
		u, err := parseMember(it.Val())
		if err != nil {
			return fmt.Errorf("redisstore: %s: %w", boardKey(guild), err)
		}
		users = append(users, u)
	}
	if err := it.Err(); err != nil {
		return s.wrap(fmt.Sprintf("leaderboard of guild %d", guild), err)
	}
	slices.Sort(users)
	for _, u := range slices.Compact(users) { // ZSCAN may return a member twice
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}
