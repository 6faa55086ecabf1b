package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

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
		{"Run", testRun},
		{"RunRoundsTimes", testRunRoundsTimes},
		{"RunRacing", testRunRacing},
		{"RunOps", testRunOps},
		{"RepeatAfter63", testRepeatAfter63},
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
// does (a ChangeSettings of FullPatch(set)), failing the test on an error.
func (e *env) setSettings(g uint64, op string, set game.Settings, reason string) storage.GuildApplied {
	e.t.Helper()
	return e.mustGuild(g, op, game.ChangeSettings{Patch: FullPatch(set), Actor: mod, Reason: reason})
}

// mustGuild is runGuild, failing the test on an error.
func (e *env) mustGuild(g uint64, op string, m game.GuildMove) storage.GuildApplied {
	e.t.Helper()
	a, err := e.runGuild(g, op, m)
	if err != nil {
		e.t.Fatalf("guild %d, %s: %v", g, op, err)
	}
	return a
}

// runGuild runs m on guild g under op at the clock's time.
func (e *env) runGuild(g uint64, op string, m game.GuildMove) (storage.GuildApplied, error) {
	return e.st.RunGuild(e.ctx, storage.GuildStep{Guild: g, Op: op, Move: m, Now: e.clock.Now()})
}

// FullPatch returns the patch that sets every one of s's settings.
func FullPatch(s game.Settings) game.SettingsPatch {
	return game.SettingsPatch{StartingBalance: &s.StartingBalance, DailyAmount: &s.DailyAmount, DailyCooldown: &s.DailyCooldown,
		PublicPlays: &s.PublicPlays, Channel: &s.Channel, MaxStakeDay: &s.House.MaxStakeDay, MinInterval: &s.House.MinInterval,
		RealityPlays: &s.House.RealityPlays, RealityEvery: &s.House.RealityEvery}
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

// Short forms of the moves the cases make most.

func reveal(d game.Drawer, ticket uint64, rows game.RowMask) game.Move {
	return game.Reveal{Ticket: ticket, Rows: rows, Drawer: d}
}
func openChest(d game.Drawer, seq int64) game.Move { return game.OpenChest{Seq: seq, Drawer: d} }
func grant(amount int64) game.Move                 { return game.Grant{Amount: amount} }
func setBalance(balance int64) game.Move           { return game.Grant{Amount: balance, Set: true} }

// play buys a ticket and reveals all its rows with d, and returns the
// Applied of the reveal.
func (e *env) play(id storage.PlayerID, d game.Drawer) storage.Applied {
	e.t.Helper()
	a := e.must(id, "buy", game.Buy{})
	if a.Result.Resumed {
		e.t.Fatalf("buy on %v resumed ticket %d", id, a.Result.Ticket)
	}
	return e.must(id, "reveal", reveal(d, a.Result.Ticket, game.AllRows))
}

// sound fails the test if p breaks the game's invariant.
func sound(t *testing.T, what string, p game.Player) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// errOf is the error of a call that also returns a value.
func errOf[T any](_ T, err error) error { return err }

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

// race runs fn(0) … fn(n-1) at once, at most 64 at a time, and fails the
// test with the first error any returns.
func race(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(64)
	for i := range n {
		g.Go(func() error { return fn(i) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
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
	calls := map[string]error{
		"History(n -1)":        errOf(e.st.History(e.ctx, pid(1), -1)),
		"Guild(0)":             errOf(e.st.Guild(e.ctx, 0)),
		"RunGuild(0)":          errOf(e.runGuild(0, "op", game.ChangeSettings{})),
		"Leaderboard(guild 0)": errOf(e.st.Leaderboard(e.ctx, 0, 10, 0)),
		"Leaderboard(n -1)":    errOf(e.st.Leaderboard(e.ctx, guild, -1, 0)),
		"Audit(guild 0)":       errOf(e.st.Audit(e.ctx, 0, 10)),
		"Audit(n -1)":          errOf(e.st.Audit(e.ctx, guild, -1)),
		"Players(0)":           e.st.Players(e.ctx, 0, func(uint64) error { return nil }),
	}
	for _, id := range []storage.PlayerID{{}, {Guild: guild}, {User: 1}} {
		calls[fmt.Sprintf("Load(%v)", id)] = errOf(e.st.Load(e.ctx, id))
		calls[fmt.Sprintf("History(%v)", id)] = errOf(e.st.History(e.ctx, id, 1))
		calls[fmt.Sprintf("Reveals(%v)", id)] = errOf(e.st.Reveals(e.ctx, id))
		calls[fmt.Sprintf("Run(%v)", id)] = errOf(e.apply(id, grant(1)))
	}
	for what, err := range calls {
		wantErr(t, what, err, storage.ErrInvalid)
	}
	// Steps refused whole, nothing written: no operation ID, one too long,
	// no move, a moderator's reason too long, an entry of another guild.
	by := game.Moderator{Guild: guild, Actor: mod, Target: 1}
	for name, s := range map[string]storage.Step{
		"no operation":          e.step(pid(1), "", grant(1)),
		"an operation too long": e.step(pid(1), strings.Repeat("x", game.MaxOpID+1), grant(1)),
		"no move":               e.step(pid(1), e.op(), nil),
		"a reason too long":     e.step(pid(1), e.op(), game.Grant{Amount: 1, By: game.Moderator{Guild: guild, Actor: mod, Target: 1, Reason: strings.Repeat("é", game.MaxReason+1)}}),
		"another guild's log":   e.step(pid(1), e.op(), game.Grant{Amount: 1, By: game.Moderator{Guild: guild2, Actor: mod, Target: 1}}),
	} {
		wantErr(t, "Run with "+name, errOf(e.st.Run(e.ctx, s)), storage.ErrInvalid)
		if v := e.load(pid(1)); v.Exists() {
			t.Fatalf("Run with %s wrote %+v", name, v)
		}
	}
	if _, err := e.apply(pid(1), game.Grant{Amount: 1, By: by}); err != nil {
		t.Fatalf("the same grant, sound: %v", err)
	}
}

// testRun: a step creates the player (Created, from the zero Player), the
// next one bumps the version and works on what the last wrote, and Load
// reads what Run returned. A refused move comes back as the move's error
// and writes nothing, on a new player or not; without Create, a player
// never written is ErrNoPlayer.
func testRun(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	a1 := e.must(id, "first grant", grant(7))
	v1 := e.load(id)
	if !a1.Created || a1.Repeated || !reflect.DeepEqual(a1.Before, game.Player{}) || a1.Player.Balance != start+7 || v1.Version == 0 || len(a1.History) != 1 {
		t.Fatalf("first Run: %+v, version %d", a1, v1.Version)
	}
	same(t, "Load after the first Run", v1.Player, a1.Player)
	e.clock.Advance(time.Second)
	a2 := e.must(id, "second grant", grant(3))
	v2 := e.load(id)
	if a2.Created || v2.Version <= v1.Version || a2.Player.Balance != start+10 || a2.Result.Balance != start+10 || a2.Result.Amount != 3 {
		t.Fatalf("second Run: %+v, version %d after %d", a2, v2.Version, v1.Version)
	}
	same(t, "what the second Run worked on", a2.Before, a1.Player)
	same(t, "Load after the second Run", v2.Player, a2.Player)

	// A move refused: its error, the state as it is, nothing written.
	for _, u := range []uint64{1, 2} {
		a, err := e.apply(pid(u), game.Reveal{Ticket: 9, Rows: game.AllRows})
		wantErr(t, fmt.Sprintf("a reveal of no ticket on player %d", u), err, game.ErrUnknownTicket)
		same(t, "the state a refusal returns", a.Player, e.load(pid(u)).Player)
	}
	same(t, "Load after a refused move", e.load(id), v2)
	if v := e.load(pid(2)); v.Exists() {
		t.Fatal("a refused move created the player")
	}
	s := e.step(pid(3), e.op(), grant(1))
	s.Create = false
	wantErr(t, "Run without Create", errOf(e.st.Run(e.ctx, s)), storage.ErrNoPlayer)
	same(t, "players", playersOf(t, e.st, guild), []uint64{1})
}

// testRunRoundsTimes: every time written comes back as storage.Timestamp
// made it, from Run and from Load alike, so that a dump round-trips: moves
// at odd times, in another zone, with nanoseconds.
func testRunRoundsTimes(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	at := time.Date(2026, 5, 1, 12, 30, 15, 123_456_789, time.FixedZone("CET", 3600))
	var a storage.Applied
	for i, m := range []game.Move{game.Buy{}, game.Reveal{Ticket: 1, Rows: 1, Drawer: &Drawer{}}, game.ClaimDaily{Amount: 10, Cooldown: time.Hour},
		game.Grant{Amount: 1, By: game.Moderator{Guild: guild, Actor: mod, Target: 1, Reason: "r"}}} {
		s := e.step(id, e.op(), m)
		s.Now = at.Add(time.Duration(i) * time.Second)
		var err error
		if a, err = e.st.Run(e.ctx, s); err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
	}
	same(t, "Load after Run", e.load(id).Player, a.Player)
	q := a.Player
	if q.CreatedAt != storage.Timestamp(at) || q.Ticket.BoughtAt != storage.Timestamp(at) || q.LastDaily != storage.Timestamp(at.Add(2*time.Second)) {
		t.Fatalf("times stored as %v, %v, %v; want them through storage.Timestamp", q.CreatedAt, q.Ticket.BoughtAt, q.LastDaily)
	}
	h, err := e.st.History(e.ctx, id, 10)
	if err != nil || len(h) != 3 || h[0].At != storage.Timestamp(at.Add(3*time.Second)) || h[2].At != storage.Timestamp(at.Add(time.Second)) {
		t.Fatalf("history %+v, %v", h, err)
	}
	au, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil || len(au) != 1 || au[0].At != storage.Timestamp(at.Add(3*time.Second)) {
		t.Fatalf("audit %+v, %v", au, err)
	}
}

// testRunRacing: goroutines grant 1 cent each to one player at once, each
// under its own operation. None is lost, and each wrote on top of exactly
// the state it worked on (Applied.Before): one created the player, the
// others each saw a different balance.
func testRunRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	const n = 48
	out := make([]storage.Applied, n)
	race(t, n, func(g int) (err error) {
		out[g], err = e.st.Run(e.ctx, e.step(pid(1), fmt.Sprintf("grant-%d", g), grant(1)))
		return err
	})
	if p := e.load(pid(1)).Player; p.Balance != start+n || p.Stats.GrantedCents != n {
		t.Fatalf("%d racing grants: balance %d, granted %d", n, p.Balance, p.Stats.GrantedCents)
	}
	saw := map[int64]bool{}
	for g, a := range out {
		from := a.Before.Balance
		if a.Created {
			from = start
		}
		if a.Player.Balance != from+1 || saw[from] || a.Repeated {
			t.Errorf("goroutine %d wrote balance %d over %d (created %v), seen before: %v", g, a.Player.Balance, a.Before.Balance, a.Created, saw[from])
		}
		saw[from] = true
	}
	if h, _ := e.st.History(e.ctx, pid(1), storage.HistoryLimit); len(h) != n {
		t.Fatalf("%d history lines, want %d", len(h), n)
	}
}
