package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// OpenFunc opens a fresh, empty store with opts for the test t and arranges
// for it to be closed at t's cleanup.
type OpenFunc func(t *testing.T, opts storage.Options) storage.Store

// defaults are the settings of the stores the suite opens, unless a test
// says otherwise.
var defaults = game.Settings{StartingBalance: 1000, DailyAmount: 25, DailyCooldown: time.Hour}

const (
	guild  = 111
	guild2 = 222
	mod    = 999
	start  = 1000 // the starting balance of the players the suite creates
)

func pid(user uint64) storage.PlayerID { return storage.PlayerID{Guild: guild, User: user} }

// Run runs the whole conformance suite against the stores open gives. The
// dump cases run only if the store is a storage.Dumper.
func Run(t *testing.T, open OpenFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open OpenFunc)
	}{
		{"LoadNeverWritten", testLoadNeverWritten},
		{"InvalidArguments", testInvalidArguments},
		{"Update", testUpdate},
		{"UpdateRoundsTimes", testUpdateRoundsTimes},
		{"UpdateRefusesUnsoundPlayer", testUpdateRefusesUnsound},
		{"UpdateRacing", testUpdateRacing},
		{"ApplyConcurrentOps", testApplyConcurrentOps},
		{"UpdateOps", testUpdateOps},
		{"RepeatAfter63", testRepeatAfter63},
		{"RepeatOfFailedLater", testRepeatOfFailedLater},
		{"ConcurrentSameOp", testConcurrentSameOp},
		{"RevealsBeside", testRevealsBeside},
		{"History", testHistory},
		{"Audit", testAudit},
		{"Leaderboard", testLeaderboard},
		{"Players", testPlayers},
		{"Guild", testGuild},
		{"GuildRacing", testGuildRacing},
		{"Jobs", testJobs},
		{"LeaseRacing", testLeaseRacing},
		{"RotateRacing", testRotateRacing},
		{"CanceledContext", testCanceledContext},
		{"Closed", testClosed},
		{"DumpRoundTrip", testDumpRoundTrip},
		{"DumpReveals", testDumpReveals},
		{"ImportDuplicate", testImportDuplicate},
		{"CountPlayers", testCountPlayers},
		{"CareImportRefused", testCareImportRefused},
		{"ConcurrentOnePlayer", testConcurrentOnePlayer},
		{"ConcurrentManyPlayers", testConcurrentManyPlayers},
		{"MemoryFlat", testMemoryFlat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// env is one test's store, with a clock and a source of seeds for the
// players it creates.
type env struct {
	t     *testing.T
	ctx   context.Context
	st    storage.Store
	clock *Clock
	seeds io.Reader
	ops   atomic.Int64
}

func newEnv(t *testing.T, open OpenFunc, set game.Settings) *env {
	t.Helper()
	return &env{t: t, ctx: context.Background(), st: open(t, storage.Options{Defaults: set}), clock: NewClock(), seeds: Seeds(1)}
}

// op returns a new operation ID.
func (e *env) op() string { return fmt.Sprintf("op-%d", e.ops.Add(1)) }

// step returns the Step of do on id under op, creating the player with
// start credits.
func (e *env) step(id storage.PlayerID, op string, do game.Move) storage.Step {
	return storage.Step{ID: id, Op: op, Create: true, Start: start, Seeds: e.seeds, Now: e.clock.Now(), Move: do}
}

// apply applies do to id under a new operation ID.
func (e *env) apply(id storage.PlayerID, do game.Move) (storage.Applied, error) {
	return e.st.Run(e.ctx, e.step(id, e.op(), do))
}

// must is apply, failing the test on an error; it checks the state.
func (e *env) must(id storage.PlayerID, what string, do game.Move) storage.Applied {
	e.t.Helper()
	a, err := e.apply(id, do)
	if err != nil {
		e.t.Fatalf("%s on %v: %v", what, id, err)
	}
	sound(e.t, what, a.Player)
	return a
}

// setSettings changes guild g's settings to set under op, as a moderator
// does (storage.ApplyGuild of game's SetSettings), failing the test on an
// error.
func (e *env) setSettings(g uint64, op string, set game.Settings, reason string) storage.GuildApplied {
	e.t.Helper()
	a, err := storage.ApplyGuild(e.ctx, e.st, g, op, func(gd game.Guild) (game.GuildStep, error) {
		return gd.SetSettings(set, mod, reason, e.clock.Now())
	})
	if err != nil {
		e.t.Fatalf("settings of guild %d under %q: %v", g, op, err)
	}
	return a
}

func (e *env) load(id storage.PlayerID) storage.Versioned {
	e.t.Helper()
	v, err := e.st.Load(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Load(%v): %v", id, err)
	}
	return v
}

// reveals returns the seeds the store keeps revealed for id, failing the
// test on an error.
func (e *env) reveals(id storage.PlayerID) game.Reveals {
	e.t.Helper()
	rs, err := e.st.Reveals(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Reveals(%v): %v", id, err)
	}
	return rs
}

// The transitions, as Step.Do.

func buy(now time.Time) game.Move {
	return game.Buy{}
}

func reveal(d game.Drawer, ticket uint64, rows game.RowMask, now time.Time) game.Move {
	return game.Reveal{Ticket: ticket, Rows: rows, Drawer: d}
}

func openChest(d game.Drawer, seq int64, now time.Time) game.Move {
	return game.OpenChest{Seq: seq, Drawer: d}
}

func grant(amount int64, now time.Time) game.Move {
	return game.Grant{Amount: amount}
}

func setBalance(balance int64, now time.Time) game.Move {
	return game.Grant{Amount: balance, Set: true}
}

// play buys a ticket and reveals all its rows with d, and returns the
// Applied of the reveal.
func (e *env) play(id storage.PlayerID, d game.Drawer) storage.Applied {
	e.t.Helper()
	a := e.must(id, "buy", buy(e.clock.Now()))
	if a.Result.Resumed {
		e.t.Fatalf("buy on %v resumed ticket %d", id, a.Result.Ticket)
	}
	return e.must(id, "reveal", reveal(d, a.Result.Ticket, game.AllRows, e.clock.Now()))
}

// sound fails the test if p breaks the game's invariant.
func sound(t *testing.T, what string, p game.Player) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// newPlayer returns a sound player with balance cents, as Update writes it
// in the tests that do not go through Apply.
func newPlayer(t *testing.T, balance int64, at time.Time) game.Player {
	t.Helper()
	seed, err := game.NewSeed(Seeds(uint64(balance) + 7))
	if err != nil {
		t.Fatal(err)
	}
	p, err := game.NewPlayer(balance, seed, "client", at)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// granted returns p after a grant of amount, for raw Updates.
func granted(t *testing.T, p game.Player, amount int64, at time.Time) game.Step {
	t.Helper()
	s, err := p.Grant(amount, at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func playersOf(t *testing.T, st storage.Store, g uint64) []uint64 {
	t.Helper()
	var users []uint64
	if err := st.Players(context.Background(), g, func(u uint64) error {
		users = append(users, u)
		return nil
	}); err != nil {
		t.Fatalf("Players(%d): %v", g, err)
	}
	return users
}

func testLoadNeverWritten(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	v := e.load(pid(1))
	same(t, "never written", v, storage.Versioned{})
	if v.Exists() {
		t.Fatal("Exists on a player never written")
	}
	if users := playersOf(t, e.st, guild); len(users) != 0 {
		t.Fatalf("Load created players: %v", users)
	}
	if b, err := e.st.Leaderboard(e.ctx, guild, 10, 1); err != nil || len(b.Top) != 0 || b.You != nil || b.Players != 0 {
		t.Fatalf("Load put the player on the leaderboard: %+v, %v", b, err)
	}
	if h, err := e.st.History(e.ctx, pid(1), 10); err != nil || len(h) != 0 {
		t.Fatalf("History of a player never written: %v, %v", h, err)
	}
}

func testInvalidArguments(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	noop := func(storage.Versioned) (storage.Write, error) { return storage.Write{Skip: true}, nil }
	for _, id := range []storage.PlayerID{{}, {Guild: guild}, {User: 1}} {
		_, err := e.st.Load(e.ctx, id)
		wantErr(t, fmt.Sprintf("Load(%v)", id), err, storage.ErrInvalid)
		_, err = e.st.Update(e.ctx, id, "", noop)
		wantErr(t, fmt.Sprintf("Update(%v)", id), err, storage.ErrInvalid)
		_, err = e.st.History(e.ctx, id, 1)
		wantErr(t, fmt.Sprintf("History(%v)", id), err, storage.ErrInvalid)
		_, err = e.st.Reveals(e.ctx, id)
		wantErr(t, fmt.Sprintf("Reveals(%v)", id), err, storage.ErrInvalid)
		_, err = e.apply(id, grant(1, e.clock.Now()))
		wantErr(t, fmt.Sprintf("Apply(%v)", id), err, storage.ErrInvalid)
	}
	_, err := e.st.History(e.ctx, pid(1), -1)
	wantErr(t, "History(-1)", err, storage.ErrInvalid)
	_, err = e.st.Guild(e.ctx, 0)
	wantErr(t, "Guild(0)", err, storage.ErrInvalid)
	_, err = e.st.UpdateGuild(e.ctx, 0, func(storage.VersionedGuild) (storage.GuildWrite, error) { return storage.GuildWrite{Skip: true}, nil })
	wantErr(t, "UpdateGuild(0)", err, storage.ErrInvalid)
	_, err = e.st.Leaderboard(e.ctx, 0, 10, 0)
	wantErr(t, "Leaderboard(guild 0)", err, storage.ErrInvalid)
	_, err = e.st.Leaderboard(e.ctx, guild, -1, 0)
	wantErr(t, "Leaderboard(n -1)", err, storage.ErrInvalid)
	_, err = e.st.Audit(e.ctx, 0, 10)
	wantErr(t, "Audit(guild 0)", err, storage.ErrInvalid)
	_, err = e.st.Audit(e.ctx, guild, -1)
	wantErr(t, "Audit(n -1)", err, storage.ErrInvalid)
	wantErr(t, "Players(0)", e.st.Players(e.ctx, 0, func(uint64) error { return nil }), storage.ErrInvalid)
	// A reason too long is refused, nothing written.
	long := make([]rune, game.MaxReason+1)
	for i := range long {
		long[i] = 'é'
	}
	_, err = e.st.Update(e.ctx, pid(1), "", func(storage.Versioned) (storage.Write, error) {
		p := newPlayer(t, 10, e.clock.Now())
		return storage.Write{Player: p, Audit: &game.AuditEntry{At: e.clock.Now(), Guild: guild, Actor: mod, Target: 1, Action: "grant", Reason: string(long)}}, nil
	})
	wantErr(t, "Update with a reason too long", err, storage.ErrInvalid)
	if v := e.load(pid(1)); v.Exists() {
		t.Fatalf("a refused Update wrote %+v", v)
	}
}

func testUpdate(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	now := e.clock.Now()
	p0 := newPlayer(t, 500, now)
	calls := 0
	v1, err := e.st.Update(e.ctx, id, "", func(v storage.Versioned) (storage.Write, error) {
		calls++
		if v.Exists() || v.Version != 0 || !reflect.DeepEqual(v.Player, game.Player{}) {
			t.Errorf("fn of a new player saw %+v", v)
		}
		return storage.Write{Player: p0}, nil
	})
	if err != nil || calls == 0 {
		t.Fatalf("first Update: %v (%d calls)", err, calls)
	}
	same(t, "first Update", v1, storage.Versioned{Player: p0, Version: v1.Version})
	if v1.Version == 0 {
		t.Fatal("first Update returned version 0")
	}
	same(t, "Load after Update", e.load(id), v1)

	// A second write bumps the version and is what Load reads.
	s := granted(t, p0, 7, now)
	v2, err := e.st.Update(e.ctx, id, "", func(v storage.Versioned) (storage.Write, error) {
		if !reflect.DeepEqual(v, v1) {
			t.Errorf("fn saw %+v, want %+v", v, v1)
		}
		return storage.Write{Player: s.Player, History: s.History}, nil
	})
	if err != nil || v2.Version <= v1.Version || v2.Player.Balance != 507 {
		t.Fatalf("second Update: %+v, %v (first version %d)", v2, err, v1.Version)
	}
	same(t, "Load after the second Update", e.load(id), v2)

	// Skip writes nothing and returns the state fn saw.
	got, err := e.st.Update(e.ctx, id, "", func(storage.Versioned) (storage.Write, error) {
		return storage.Write{Skip: true, Player: p0}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Update that skipped", got, v2)
	same(t, "Load after a skip", e.load(id), v2)

	// fn's error is returned as is, nothing written.
	errMine := errors.New("mine")
	got, err = e.st.Update(e.ctx, id, "", func(storage.Versioned) (storage.Write, error) {
		return storage.Write{Player: p0}, errMine
	})
	if err != errMine { //nolint:errorlint // the contract: as is
		t.Fatalf("fn's error came back as %v, want it as is", err)
	}
	same(t, "Update that failed", got, v2)
	same(t, "Load after a failed Update", e.load(id), v2)

	// fn's error on a new player creates nothing.
	_, err = e.st.Update(e.ctx, pid(2), "", func(storage.Versioned) (storage.Write, error) { return storage.Write{}, errMine })
	if err != errMine { //nolint:errorlint
		t.Fatalf("fn's error on a new player: %v", err)
	}
	if v := e.load(pid(2)); v.Exists() {
		t.Fatal("a failed Update created the player")
	}
	same(t, "players", playersOf(t, e.st, guild), []uint64{1})
}

// testUpdateRoundsTimes: every time written comes back as
// storage.Timestamp made it, from Update and from Load alike, so that a
// dump round-trips.
func testUpdateRoundsTimes(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2026, 5, 1, 12, 30, 15, 123_456_789, paris)
	p := newPlayer(t, 1000, at)
	s, err := p.Buy(game.House{}, at.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d := &Drawer{}
	s2, err := s.Player.Reveal(d, s.Result.Ticket, 1, at.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	s3, err := s2.Player.ClaimDaily(10, time.Hour, at.Add(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	audit := &game.AuditEntry{At: at, Guild: guild, Actor: mod, Target: 1, Action: "grant", Amount: 1, Reason: "r"}
	v, err := e.st.Update(e.ctx, id, "", func(storage.Versioned) (storage.Write, error) {
		return storage.Write{Player: s3.Player, History: append(s2.History, s3.History...), Audit: audit}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Load after Update", e.load(id), v)
	q := v.Player
	if q.CreatedAt != storage.Timestamp(at) || q.Ticket.BoughtAt != storage.Timestamp(at.Add(time.Second)) || q.LastDaily != storage.Timestamp(at.Add(3*time.Second)) {
		t.Fatalf("times stored as %v, %v, %v; want them through storage.Timestamp", q.CreatedAt, q.Ticket.BoughtAt, q.LastDaily)
	}
	if s.Player.Ticket.BoughtAt != at.Add(time.Second) {
		t.Fatal("the store modified the ticket the caller gave it")
	}
	h, err := e.st.History(e.ctx, id, 10)
	if err != nil || len(h) != 2 || h[0].At != storage.Timestamp(at.Add(3*time.Second)) || h[1].At != storage.Timestamp(at.Add(2*time.Second)) {
		t.Fatalf("history %+v, %v", h, err)
	}
	a, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil || len(a) != 1 || a[0].At != storage.Timestamp(at) {
		t.Fatalf("audit %+v, %v", a, err)
	}
}

// testUpdateRefusesUnsound: the leaderboard index needs a balance in
// range; a player that fails game.Player.Check is never written.
func testUpdateRefusesUnsound(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	for _, edit := range []func(*game.Player){
		func(p *game.Player) { p.Balance = -1; p.StartingBalance = -1 },
		func(p *game.Player) { p.Balance++ },
		func(p *game.Player) { p.Seed = game.Seed{} },
	} {
		p := newPlayer(t, 10, e.clock.Now())
		edit(&p)
		_, err := e.st.Update(e.ctx, pid(1), "", func(storage.Versioned) (storage.Write, error) { return storage.Write{Player: p}, nil })
		wantErr(t, "Update of an unsound player", err, storage.ErrInvalid)
		if v := e.load(pid(1)); v.Exists() {
			t.Fatalf("an unsound player was written: %+v", v)
		}
	}
}

// testUpdateRacing: goroutines update one player at once through raw
// Updates, each adding 1 to the balance it sees. A stale version is never
// written: every Update writes on top of exactly the state its fn saw, the
// versions returned are all different, and nothing is lost.
func testUpdateRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	base := newPlayer(t, 1000, e.clock.Now())
	const n = 32
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		versions = map[uint64]bool{}
		calls    atomic.Int64
	)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var saw storage.Versioned
			v, err := e.st.Update(e.ctx, id, "", func(v storage.Versioned) (storage.Write, error) {
				calls.Add(1)
				saw = v
				p := base
				if v.Exists() {
					p = v.Player
				}
				s, err := p.Grant(1, e.clock.Now())
				return storage.Write{Player: s.Player, History: s.History}, err
			})
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
				return
			}
			want := base.Balance + 1
			if saw.Exists() {
				want = saw.Player.Balance + 1
			}
			if v.Player.Balance != want || v.Version <= saw.Version {
				t.Errorf("goroutine %d wrote balance %d version %d over balance %d version %d", g, v.Player.Balance, v.Version, saw.Player.Balance, saw.Version)
			}
			mu.Lock()
			defer mu.Unlock()
			if versions[v.Version] {
				t.Errorf("version %d written twice", v.Version)
			}
			versions[v.Version] = true
		}()
	}
	wg.Wait()
	v := e.load(id)
	if v.Player.Balance != base.Balance+n || v.Player.Stats.GrantedCents != n {
		t.Fatalf("after %d racing Updates: balance %d, granted %d; want %d, %d", n, v.Player.Balance, v.Player.Stats.GrantedCents, base.Balance+n, n)
	}
	if calls.Load() < n {
		t.Fatalf("fn ran %d times for %d Updates", calls.Load(), n)
	}
	if h, _ := e.st.History(e.ctx, id, storage.HistoryLimit); len(h) != n {
		t.Fatalf("%d history lines, want %d", len(h), n)
	}
}

// testApplyConcurrentOps: goroutines apply grants of 1 cent through Apply;
// with distinct operation IDs every one counts, with one shared ID exactly
// one does, and all see its result.
func testApplyConcurrentOps(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	const n = 48
	run := func(id storage.PlayerID, op func(g int) string) []storage.Applied {
		out := make([]storage.Applied, n)
		var wg sync.WaitGroup
		for g := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := e.st.Run(e.ctx, e.step(id, op(g), grant(1, e.clock.Now())))
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
				}
				out[g] = a
			}()
		}
		wg.Wait()
		return out
	}
	run(pid(1), func(g int) string { return fmt.Sprintf("grant-%d", g) })
	if p := e.load(pid(1)).Player; p.Balance != start+n || p.Stats.GrantedCents != n {
		t.Fatalf("%d grants of distinct operations: balance %d, granted %d", n, p.Balance, p.Stats.GrantedCents)
	}
	res := run(pid(2), func(int) string { return "the-same-click" })
	// One write, as many as one grant alone makes.
	e.must(pid(3), "one grant", grant(1, e.clock.Now()))
	one := e.load(pid(3)).Version
	v := e.load(pid(2))
	if p := v.Player; p.Balance != start+1 || p.Stats.GrantedCents != 1 || v.Version != one {
		t.Fatalf("%d grants of one operation: balance %d, granted %d, version %d; want %d, 1, %d", n, p.Balance, p.Stats.GrantedCents, v.Version, start+1, one)
	}
	if h, _ := e.st.History(e.ctx, pid(2), storage.HistoryLimit); len(h) != 1 {
		t.Fatalf("%d grants of one operation wrote %d history lines", n, len(h))
	}
	applied, created := -1, 0
	for g, a := range res {
		if !a.Repeated {
			if applied >= 0 {
				t.Fatalf("goroutines %d and %d both applied the operation", applied, g)
			}
			applied = g
		}
		if a.Created {
			created++
		}
	}
	if applied < 0 || created != 1 {
		t.Fatalf("%d goroutines created the player, none applied the operation (%v); want 1 and 1", created, applied)
	}
	first := res[applied].Result
	if first.Amount != 1 || first.Balance != start+1 {
		t.Fatalf("the grant's result %+v", first)
	}
	for g, a := range res {
		if a.Result != first || a.Player.Balance != start+1 {
			t.Errorf("goroutine %d got result %+v, balance %d; want the first result %+v", g, a.Result, a.Player.Balance, first)
		}
	}
}
