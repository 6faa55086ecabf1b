package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// History implements storage.Store: LRANGE on h:{guild:user} and
// o:{guild:user}, in one round trip, merged (game.MergeHistory).
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
	main, err := decodeHistory(id, rawMain)
	if err != nil {
		return nil, err
	}
	others, err := decodeHistory(id, rawOthers)
	if err != nil {
		return nil, err
	}
	return storage.MergeNewest(main, others, n), nil
}

// decodeHistory reads history lines: in the schema, or, for a player not
// migrated yet, as the release before it wrote them (package legacy).
func decodeHistory(id storage.PlayerID, raw []string) ([]game.Entry, error) {
	out := make([]game.Entry, len(raw))
	for i, r := range raw {
		var err error
		if legacy.IsEntry([]byte(r)) {
			out[i], err = legacy.DecodeEntry([]byte(r))
		} else {
			out[i], err = schema.DecodeLine(historyKey(id), []byte(r))
		}
		if err != nil {
			return nil, fmt.Errorf("redisstore: history of %d/%d: %w", id.Guild, id.User, err)
		}
	}
	return out, nil
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
	out := make([]game.AuditEntry, len(raw))
	for i, r := range raw {
		var err error
		if out[i], _, err = decodeAudit(guild, r); err != nil {
			return nil, fmt.Errorf("redisstore: audit of guild %d: %w", guild, err)
		}
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
	if s.closed.Load() {
		return storage.Board{}, storage.ErrClosed
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

// Players implements storage.Store from the leaderboard index (ZSCAN,
// then sorted here): the players written through this store, as the index
// has them (see Indexer for when it drifts).
func (s *Store) Players(ctx context.Context, guild uint64, fn func(user uint64) error) error {
	if guild == 0 {
		return fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if s.closed.Load() {
		return storage.ErrClosed
	}
	board, err := s.board(ctx, guild)
	if err != nil {
		return err
	}
	users := make([]uint64, 0, len(board))
	for u := range board {
		users = append(users, u)
	}
	slices.Sort(users)
	for _, u := range users {
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

// board reads the guild's whole leaderboard index with ZSCAN: user →
// balance.
func (s *Store) board(ctx context.Context, guild uint64) (map[uint64]int64, error) {
	out, bad, err := s.scanBoard(ctx, guild)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("redisstore: leaderboard of guild %d: %s (clefs audit -repair removes it)", guild, bad[0].reason)
	}
	return out, nil
}

// badMember is a leaderboard member that names no player: not a 20-digit
// user ID, or with a score that is not a balance.
type badMember struct {
	member string // as stored, for ZREM
	reason string
}

// scanBoard reads the guild's leaderboard with ZSCAN: the balance of each
// well-formed member, and the members that are not (bad).
func (s *Store) scanBoard(ctx context.Context, guild uint64) (out map[uint64]int64, bad []badMember, err error) {
	out = map[uint64]int64{}
	it := s.rdb.ZScan(ctx, boardKey(guild), 0, "", 1000).Iterator()
	for it.Next(ctx) {
		m := it.Val()
		if !it.Next(ctx) {
			break
		}
		e, err := parseBoardEntry(m, it.Val())
		if err != nil {
			bad = append(bad, badMember{member: m, reason: err.Error()})
			continue
		}
		out[e.User] = e.Balance
	}
	if err := it.Err(); err != nil {
		return nil, nil, s.wrap(fmt.Sprintf("leaderboard of guild %d", guild), err)
	}
	return out, bad, nil
}

// parseBoardEntry reads a member and its score, as ZSCAN gives them.
func parseBoardEntry(m, score string) (storage.LeaderboardEntry, error) {
	sc, err := parseScore(score)
	if err != nil {
		return storage.LeaderboardEntry{}, err
	}
	return boardEntry(m, sc, 0)
}

func parseScore(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("leaderboard score %q: %w", s, err)
	}
	return f, nil
}
