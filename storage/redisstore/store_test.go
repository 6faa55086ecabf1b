package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func TestRunWritesRecordHistoryAndIndex(t *testing.T) {
	st, _, _ := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	if v := mustLoad(t, st, id); v.Exists() || v.Version != 0 {
		t.Fatalf("Load of a new player = %+v", v)
	}
	for i, b := range []int64{700, 300} {
		if a, err := st.Run(ctx, set(id, fmt.Sprint("s", i), b)); err != nil || a.Player.Balance != b || a.Created != (i == 0) {
			t.Fatalf("set %d = %+v, %v", b, a, err)
		}
	}
	seed, _ := game.NewSeed(seeds())
	got := mustLoad(t, st, id)
	if got.Version != 2 || got.Player.Balance != 300 || got.Player.Seed != seed || !got.Player.CreatedAt.Equal(now) {
		t.Fatalf("Load = %+v", got)
	}
	h, err := st.History(ctx, id, 10)
	if err != nil || len(h) != 2 || h[0].Balance != 300 || h[1].Balance != 700 {
		t.Fatalf("History = %+v, %v (want newest first)", h, err)
	}
	if e := indexed(t, st, id); e == nil || e.Balance != 300 || e.Rank != 1 {
		t.Fatalf("leaderboard row %+v", e)
	}
}

// Two stores (two processes) on one database: the second one's cache is
// stale; its compare-and-set fails, and it carries on with the record the
// script returned, without reading it again: two round trips in all.
func TestConflictUsesTheRecordTheScriptReturns(t *testing.T) {
	url := redistest.URL(t)
	a, _, _ := newStore(t, url, nil)
	b, rt, _ := newStore(t, url, nil)
	id := storage.PlayerID{Guild: 1, User: 2}
	mustApply(t, b, set(id, "s1", 100)) // b caches version 1
	mustApply(t, a, set(id, "s2", 200)) // version 2, behind b's back
	before := rt.n.Load()
	g := mustApply(t, b, grant(id, "g", 5))
	if n := rt.n.Load() - before; n != 2 {
		t.Fatalf("a conflict took %d round trips, want 2", n)
	}
	if g.Before.Balance != 200 || g.Player.Balance != 205 || mustLoad(t, b, id).Version != 3 {
		t.Fatalf("Run = %+v", g)
	}
	if e := indexed(t, a, id); e == nil || e.Balance != 205 {
		t.Fatalf("leaderboard row %+v", e)
	}
}

// The cache makes the usual step one round trip; without it, two.
func TestCacheSavesTheRead(t *testing.T) {
	url := redistest.URL(t)
	for _, tc := range []struct {
		size int
		want int64
	}{{redisstore.DefaultCacheSize, 1}, {0, 2}} {
		t.Run(fmt.Sprintf("size %d", tc.size), func(t *testing.T) {
			st, rt, admin := newStore(t, url, nil, redisstore.WithCacheSize(tc.size))
			_ = admin.FlushDB(context.Background())
			id := storage.PlayerID{Guild: 1, User: 2}
			create(t, st, id, 1000)
			for i := range 3 {
				before := rt.n.Load()
				mustApply(t, st, grant(id, fmt.Sprint("g", i), 1))
				if n := rt.n.Load() - before; n != tc.want { // the audit line included
					t.Fatalf("a grant took %d round trips, want %d", n, tc.want)
				}
			}
		})
	}
}

// A transition that fails on a cached state is checked against Redis: the
// error must not come from a stale guess.
func TestErrorOnStaleCacheIsChecked(t *testing.T) {
	url := redistest.URL(t)
	a, _, _ := newStore(t, url, nil)
	b, _, _ := newStore(t, url, nil)
	id := storage.PlayerID{Guild: 1, User: 2}
	create(t, a, id, 0)
	if _, err := a.Run(context.Background(), buy(id, "b1")); !errors.Is(err, game.ErrInsufficientFunds) {
		t.Fatalf("buy with 0: %v", err)
	}
	mustApply(t, b, grant(id, "g", 100)) // a's cache still says 0
	got := mustApply(t, a, buy(id, "b2"))
	if got.Player.Balance != 100-game.Stake || got.Result.Ticket != 1 {
		t.Fatalf("buy after a grant elsewhere: %+v", got)
	}
}

// before is a hook that calls fn before each script the client sends.
type before struct{ fn func() }

func (h before) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h before) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h before) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if cmds[0].Name() == "evalsha" {
			h.fn()
		}
		return next(ctx, cmds)
	}
}

// ErrConflict after MaxAttempts lost races; nothing of the step is
// written and the index matches the record.
func TestErrConflict(t *testing.T) {
	url := redistest.URL(t)
	a, _, _ := newStore(t, url, nil)
	b, _, _ := newStore(t, url, nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	mustApply(t, a, set(id, "s", 1))
	// Another process writes every time, just before a's script.
	calls := 0
	a.Client().AddHook(before{func() {
		calls++
		mustApply(t, b, set(id, fmt.Sprint("other", calls), int64(10+calls)))
	}})
	if _, err := a.Run(ctx, set(id, "mine", 777)); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("Run under a storm: %v, want ErrConflict", err)
	}
	if calls != storage.MaxAttempts {
		t.Fatalf("%d scripts sent, want %d", calls, storage.MaxAttempts)
	}
	v := mustLoad(t, b, id)
	if v.Player.Balance == 777 {
		t.Fatal("the conflicting write landed")
	}
	if e := indexed(t, b, id); e == nil || e.Balance != v.Player.Balance {
		t.Fatalf("leaderboard row %+v, record balance %d", e, v.Player.Balance)
	}
}

// resend is a hook that runs every command and pipeline twice, as go-redis
// does when a reply times out after Redis ran the command: the caller sees
// the second run's replies.
type resend struct{ on bool }

func (r *resend) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *resend) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if r.on {
			_ = next(ctx, cmd)
		}
		return next(ctx, cmd)
	}
}
func (r *resend) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if r.on {
			_ = next(ctx, cmds)
		}
		return next(ctx, cmds)
	}
}

// Every write is safe to send twice: the operation is applied once, its
// first result answered, and the audit line kept once.
func TestEveryWriteIsSafeToResend(t *testing.T) {
	url := redistest.URL(t)
	o, _ := redis.ParseURL(url)
	client := redis.NewClient(o)
	r := &resend{}
	client.AddHook(r)
	st := redisstore.New(client, storage.Options{})
	defer st.Close()
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	create(t, st, id, 1000)
	r.on = true
	g := mustApply(t, st, grant(id, "g", 500))
	b := mustApply(t, st, buy(id, "b"))
	rv := mustApply(t, st, reveal(id, "r", b.Result.Ticket))
	if _, err := st.RunGuild(ctx, storage.GuildStep{Guild: 1, Op: "s", Move: game.ChangeSettings{Patch: storetest.FullPatch(game.Settings{DailyAmount: 5}), Actor: 7}, Now: now}); err != nil {
		t.Fatal(err)
	}
	r.on = false
	// A resent write reads as a repeat of itself, with its own result.
	if g.Result.Amount != 500 || b.Result.Ticket != 1 || !rv.Result.Drawn {
		t.Errorf("the resent writes answered %+v, %+v, %+v", g.Result, b.Result, rv.Result)
	}
	v := mustLoad(t, st, id)
	if want := int64(1000 + 500 - game.Stake + rv.Player.Ticket.Outcome.Prize); v.Player.Balance != want || v.Version != 4 {
		t.Fatalf("balance %d version %d, want %d and 4", v.Player.Balance, v.Version, want)
	}
	if n := historyLen(t, st, id); n != 3 {
		t.Fatalf("%d history lines, want 3 (created, grant, play)", n)
	}
	if n := auditLen(t, st, 1); n != 2 {
		t.Fatalf("%d audit entries, want 2 (grant, settings)", n)
	}
	if gd, _ := st.Guild(ctx, 1); gd.Version != 1 {
		t.Fatalf("guild version %d, want 1", gd.Version)
	}
}

// An audit entry is written with its write, and only then: a write that
// conflicts and is then refused logs nothing.
func TestAuditOnlyWithTheWrite(t *testing.T) {
	url := redistest.URL(t)
	a, _, _ := newStore(t, url, nil)
	b, _, _ := newStore(t, url, nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	create(t, a, id, 100)
	mustApply(t, b, grant(id, "other", -100))
	// a's first try (on its cached balance of 100) conflicts, its second
	// is refused (nothing left to debit): no entry.
	if _, err := a.Run(ctx, grant(id, "mine", -50)); !errors.Is(err, game.ErrInvalid) {
		t.Fatal(err)
	}
	if n := auditLen(t, a, 1); n != 1 {
		t.Fatalf("%d audit entries, want 1 (b's grant)", n)
	}
	log, err := a.Audit(ctx, 1, 10)
	if err != nil || len(log) != 1 || log[0].Guild != 1 || log[0].Action != "grant" || log[0].Amount != -100 || !log[0].At.Equal(now) {
		t.Fatalf("Audit = %+v, %v", log, err)
	}
}

func TestLeaderboardTiesAndRanks(t *testing.T) {
	st, _, _ := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	const g = 5
	// Users chosen so that their decimal strings sort differently from
	// their values, with ties on balance.
	balances := map[uint64]int64{9: 100, 10: 100, 100: 100, 2: 50, 1 << 62: 300, 18446744073709551615: 100, 3: 0, 11: 0}
	for u, b := range balances {
		mustApply(t, st, set(storage.PlayerID{Guild: g, User: u}, "s", b))
	}
	want := []storage.LeaderboardEntry{
		{User: 1 << 62, Balance: 300, Rank: 1},
		{User: 9, Balance: 100, Rank: 2},
		{User: 10, Balance: 100, Rank: 3},
		{User: 100, Balance: 100, Rank: 4},
		{User: 18446744073709551615, Balance: 100, Rank: 5},
		{User: 2, Balance: 50, Rank: 6},
		{User: 3, Balance: 0, Rank: 7},
		{User: 11, Balance: 0, Rank: 8},
	}
	b, err := st.Leaderboard(ctx, g, 100, 0)
	if err != nil || !slices.Equal(b.Top, want) || b.Players != 8 || b.You != nil {
		t.Fatalf("Leaderboard = %+v, %v\nwant %+v", b, err, want)
	}
	// Check against the contract's own sort.
	sorted := slices.Clone(want)
	storage.SortLeaderboard(sorted)
	if !slices.Equal(sorted, want) {
		t.Fatalf("SortLeaderboard disagrees: %+v", sorted)
	}
	b, err = st.Leaderboard(ctx, g, 3, 11)
	if err != nil || !slices.Equal(b.Top, want[:3]) || b.You == nil || *b.You != want[7] || b.Players != 8 {
		t.Fatalf("Leaderboard(3, user 11) = %+v, %v", b, err)
	}
	b, err = st.Leaderboard(ctx, g, 0, 12345)
	if err != nil || len(b.Top) != 0 || b.You != nil || b.Players != 8 {
		t.Fatalf("Leaderboard(0, a stranger) = %+v, %v", b, err)
	}
	b, err = st.Leaderboard(ctx, 6, 10, 9)
	if err != nil || len(b.Top) != 0 || b.You != nil || b.Players != 0 {
		t.Fatalf("Leaderboard of an empty guild = %+v, %v", b, err)
	}
	if _, err := st.Leaderboard(ctx, g, -1, 0); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("n = -1: %v", err)
	}
}

func TestGuildSettings(t *testing.T) {
	url := redistest.URL(t)
	o, _ := redis.ParseURL(url)
	def := game.Settings{StartingBalance: 2000, DailyAmount: 100}
	st := redisstore.New(redis.NewClient(o), storage.Options{Defaults: def})
	defer st.Close()
	ctx := context.Background()
	g, err := st.Guild(ctx, 1)
	if err != nil || g.Settings != def || g.Version != 0 || len(g.Ops) != 0 {
		t.Fatalf("Guild of a new guild = %+v, %v", g, err)
	}
	set := func(op string, daily int64) (storage.VersionedGuild, error) {
		ap, err := st.RunGuild(ctx, storage.GuildStep{Guild: 1, Op: op, Move: game.ChangeSettings{Patch: game.SettingsPatch{DailyAmount: &daily}, Actor: 7}, Now: now})
		return ap.Guild, err
	}
	for i := range game.MaxGuildOps + 5 {
		g, err = set(fmt.Sprint("op", i), int64(i+1))
		if err != nil || g.Version != uint64(i+1) || g.Settings.DailyAmount != int64(i+1) || g.Settings.StartingBalance != 2000 {
			t.Fatalf("RunGuild %d = %+v, %v", i, g, err)
		}
	}
	if len(g.Ops) != game.MaxGuildOps || g.Ops[0] != "op5" {
		t.Fatalf("Ops = %d, first %q", len(g.Ops), g.Ops[0])
	}
	again, err := set("op68", 1)
	if err != nil || again.Version != g.Version || again.Settings.DailyAmount != 69 {
		t.Fatalf("repeat = %+v, %v", again, err)
	}
	if n := auditLen(t, st, 1); n != game.MaxGuildOps+5 {
		t.Fatalf("%d audit entries", n)
	}
	if got, _ := st.Guild(ctx, 1); got.Version != g.Version || !slices.Equal(got.Ops, g.Ops) || got.Settings != g.Settings {
		t.Fatalf("Guild = %+v, want %+v", got, g)
	}
}

func TestScriptCacheFlushed(t *testing.T) {
	st, _, admin := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	create(t, st, id, 100)
	if err := admin.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	mustApply(t, st, grant(id, "g", 1))
	if v := mustLoad(t, st, id); v.Player.Balance != 101 || v.Version != 2 {
		t.Fatalf("after SCRIPT FLUSH: %+v", v)
	}
	if n := auditLen(t, st, 1); n != 1 {
		t.Fatalf("%d audit entries", n)
	}
}

func TestRedisDownAndClosed(t *testing.T) {
	addr, stop := redistest.StartServer(t)
	ctx := context.Background()
	st, err := redisstore.Open(ctx, "redis://"+addr+"/0?max_retries=-1&dial_timeout=1s", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := storage.PlayerID{Guild: 1, User: 2}
	create(t, st, id, 100)
	stop()
	if err := st.Ping(ctx); err == nil {
		t.Fatal("Ping succeeded with Redis stopped")
	}
	_, err = st.Run(ctx, grant(id, "g", 1))
	if err == nil || !strings.Contains(err.Error(), "redisstore: run 1/2") {
		t.Fatalf("Apply with Redis stopped: %v, want a wrapped error", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(ctx, id); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Load after Close: %v", err)
	}
	if _, err := st.Run(ctx, grant(id, "g", 1)); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Apply after Close: %v", err)
	}
}

func TestNewClientURLs(t *testing.T) {
	cases := []struct {
		url  string
		ok   bool
		kind string
	}{
		{"redis://localhost:6379/0", true, "*redis.Client"},
		{"rediss://user:pw@example.com:6380/2", true, "*redis.Client"},
		{"redis+cluster://localhost:7000?addr=localhost:7001", true, "*redis.ClusterClient"},
		{"redis+sentinel://localhost:26379?master_name=mymaster", true, "*redis.Client"},
		{"localhost:6379", false, ""},
		{"http://localhost", false, ""},
		{"redis+ring://localhost", false, ""},
		{"redis://localhost:6379/notadb", false, ""},
	}
	for _, c := range cases {
		cl, err := redisstore.NewClient(c.url)
		if (err == nil) != c.ok {
			t.Errorf("NewClient(%q) error %v, want ok=%v", c.url, err, c.ok)
			continue
		}
		if err != nil {
			continue
		}
		if got := fmt.Sprintf("%T", cl); got != c.kind {
			t.Errorf("NewClient(%q) is %s, want %s", c.url, got, c.kind)
		}
		cl.Close()
	}
}

// failDel fails every DEL: a rollback that cannot delete.
type failDel struct{}

func (failDel) DialHook(next redis.DialHook) redis.DialHook { return next }
func (failDel) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "del" {
			cmd.SetErr(errors.New("DEL refused by the test"))
			return cmd.Err()
		}
		return next(ctx, cmd)
	}
}
func (failDel) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "del" {
				return errors.New("DEL refused by the test")
			}
		}
		return next(ctx, cmds)
	}
}

// TestImportReportsAFailedRollback: an import stopped half-way deletes what
// it wrote; when it cannot, the error says so, with the cause, instead of
// reporting the cause alone as if the store were as it was.
func TestImportReportsAFailedRollback(t *testing.T) {
	ctx := context.Background()
	src, _, _ := newStore(t, redistest.URL(t), nil)
	ids := []storage.PlayerID{{Guild: 40, User: 1}, {Guild: 40, User: 2}}
	for _, id := range ids {
		create(t, src, id, 1000)
	}
	dd, err := storage.ExportDump(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	dst, _, admin := newStore(t, redistest.URL(t), nil)
	// The second player exists already when the import reaches it.
	if err := admin.HSet(ctx, "p:{40}:2", "v", "1", "p", "{}").Err(); err != nil {
		t.Fatal(err)
	}
	dst.Client().AddHook(failDel{})
	// The check before writing sees the second player: nothing written.
	if err := dst.Import(ctx, dd); !errors.Is(err, storage.ErrDuplicate) || strings.Contains(err.Error(), "rollback") {
		t.Fatalf("import over an existing player: %v", err)
	}
	// Written meanwhile, after the check: the first player is written,
	// the second refused, and the rollback cannot delete the first.
	if err := admin.Del(ctx, "p:{40}:2").Err(); err != nil {
		t.Fatal(err)
	}
	dd.Players[1].Player.Balance = -1 // refused by the write, after the first is written
	err = dst.Import(ctx, dd)
	if err == nil || !strings.Contains(err.Error(), "rollback failed") || !strings.Contains(err.Error(), "players[1]") {
		t.Fatalf("import whose rollback fails: %v; want the cause and the failed rollback", err)
	}
}

// TestMalformedLeaderboardMember: a member the store never writes (not a
// 20-digit user ID, by hand) is an error naming the key, not a row.
func TestMalformedLeaderboardMember(t *testing.T) {
	st, _, admin := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	mustApply(t, st, set(storage.PlayerID{Guild: 8, User: 1}, "s", 100))
	admin.ZAdd(ctx, "lb:{8}", redis.Z{Score: -5, Member: "not-a-user"})
	if _, err := st.Leaderboard(ctx, 8, 10, 0); err == nil || !strings.Contains(err.Error(), `"not-a-user"`) {
		t.Errorf("Leaderboard with a malformed member: %v", err)
	}
	if err := st.Players(ctx, 8, func(uint64) error { return nil }); err == nil || !strings.Contains(err.Error(), "lb:{8}") {
		t.Errorf("Players with a malformed member: %v", err)
	}
}
