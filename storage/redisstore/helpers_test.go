package redisstore_test

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// These tests are in package redisstore_test: redistest imports
// redisstore (its URL parser), so an internal test importing it would be
// a cycle.

// newStore returns a store on a fresh database, its client (with a round
// trip counter), and an admin client on the same database.
func newStore(tb testing.TB, url string, edit func(*redis.Options), options ...redisstore.Option) (*redisstore.Store, *roundTrips, *redis.Client) {
	tb.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatal(err)
	}
	so := *o // NewClient keeps its options: the admin's are its own
	admin := redis.NewClient(o)
	tb.Cleanup(func() { _ = admin.Close() })
	if edit != nil {
		edit(&so)
	}
	client := redis.NewClient(&so)
	rt := &roundTrips{}
	client.AddHook(rt)
	st := redisstore.New(client, storage.Options{}, options...)
	tb.Cleanup(func() { _ = st.Close() })
	if err := st.LoadScripts(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st, rt, admin
}

// roundTrips counts network round trips: a command or a whole pipeline is
// one (go-redis's own resends are not counted).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}
func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

var now = storage.Timestamp(time.Now())

// seeds is a deterministic source of server seeds.
func seeds() *rand.ChaCha8 { return rand.NewChaCha8([32]byte{1}) }

// create creates the player with start credits (a balance set to them:
// one history line).
func create(tb testing.TB, st storage.Store, id storage.PlayerID, start int64) storage.Applied {
	tb.Helper()
	a, err := st.Run(context.Background(), set(id, "create", start))
	if err != nil {
		tb.Fatalf("create %v: %v", id, err)
	}
	return a
}

// set sets the player's balance to b, creating it (with 0 credits first)
// if need be.
func set(id storage.PlayerID, op string, b int64) storage.Step {
	return storage.Step{ID: id, Op: op, Create: true, Seeds: seeds(), Now: now, Move: game.Grant{Amount: b, Set: true}}
}

// grant is a moderator's grant step, with its audit entry.
func grant(id storage.PlayerID, op string, amount int64) storage.Step {
	return storage.Step{ID: id, Op: op, Now: now,
		Move: game.Grant{Amount: amount, By: game.Moderator{Guild: id.Guild, Actor: 7, Target: id.User, Reason: "test"}}}
}

func buy(id storage.PlayerID, op string) storage.Step {
	return storage.Step{ID: id, Op: op, Now: now, Move: game.Buy{}}
}

func reveal(id storage.PlayerID, op string, ticket uint64) storage.Step {
	return storage.Step{ID: id, Op: op, Now: now, Move: game.Reveal{Ticket: ticket, Rows: game.AllRows}}
}

func mustApply(tb testing.TB, st storage.Store, s storage.Step) storage.Applied {
	tb.Helper()
	a, err := st.Run(context.Background(), s)
	if err != nil {
		tb.Fatalf("apply %s: %v", s.Op, err)
	}
	return a
}

func mustLoad(tb testing.TB, st storage.Store, id storage.PlayerID) storage.Versioned {
	tb.Helper()
	v, err := st.Load(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func historyLen(tb testing.TB, st storage.Store, id storage.PlayerID) int {
	tb.Helper()
	h, err := st.History(context.Background(), id, storage.HistoryLimit)
	if err != nil {
		tb.Fatal(err)
	}
	return len(h)
}

func auditLen(tb testing.TB, st storage.Store, guild uint64) int {
	tb.Helper()
	a, err := st.Audit(context.Background(), guild, storage.AuditLimit)
	if err != nil {
		tb.Fatal(err)
	}
	return len(a)
}

// agree checks that the guild's leaderboard is its players' records: one
// row per player of users that exists, at its balance, and no other row.
func agree(tb testing.TB, st storage.Store, guild uint64, users []uint64) {
	tb.Helper()
	exist := 0
	for _, u := range users {
		id := storage.PlayerID{Guild: guild, User: u}
		v, e := mustLoad(tb, st, id), indexed(tb, st, id)
		switch {
		case v.Exists() && (e == nil || e.Balance != v.Player.Balance):
			tb.Fatalf("player %d: balance %d, leaderboard row %+v", u, v.Player.Balance, e)
		case !v.Exists() && e != nil:
			tb.Fatalf("player %d does not exist, leaderboard row %+v", u, e)
		case v.Exists():
			exist++
		}
	}
	b, err := st.Leaderboard(context.Background(), guild, 0, 0)
	if err != nil || b.Players != exist {
		tb.Fatalf("leaderboard of %d players (%v), %d exist", b.Players, err, exist)
	}
}

// indexed returns the player's leaderboard row (nil if not on the board).
func indexed(tb testing.TB, st storage.Store, id storage.PlayerID) *storage.LeaderboardEntry {
	tb.Helper()
	b, err := st.Leaderboard(context.Background(), id.Guild, 0, id.User)
	if err != nil {
		tb.Fatal(err)
	}
	return b.You
}
