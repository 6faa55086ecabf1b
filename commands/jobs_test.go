package commands

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// finishJobs runs, to their end, the jobs the store lists, as a runner
// would (the handlers' tests: no runner runs beside them).
func (e *env) finishJobs() {
	e.t.Helper()
	runAllJobs(e.t, e.app, e.store, "test-runner")
}

func runAllJobs(tb testing.TB, a *App, st storage.Store, holder string) {
	tb.Helper()
	ctx := context.Background()
	gs, err := st.Jobs(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, g := range gs {
		if err := a.jobs.runReset(ctx, jobConfig{holder: holder, lease: JobLease, batch: resetBatch}, g); err != nil {
			tb.Fatalf("guild %d: %v", g, err)
		}
	}
}

// jobStores opens each real store, fresh and empty, with the tests'
// defaults.
func jobStores(t *testing.T) map[string]func(t *testing.T) storage.Store {
	opts := storage.Options{Defaults: testDefaults}
	opened := func(t *testing.T, st storage.Store, err error) storage.Store {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return map[string]func(t *testing.T) storage.Store{
		"bolt": func(t *testing.T) storage.Store {
			st, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), opts)
			return opened(t, st, err)
		},
		"redis": func(t *testing.T) storage.Store {
			st, err := redisstore.Open(context.Background(), redistest.URL(t), opts)
			return opened(t, st, err)
		},
	}
}

// beginReset fills guild with n players (fillGuild) and begins its reset
// under op, at the tests' first time, which the returned clock shows.
func beginReset(tb testing.TB, st storage.Store, guild uint64, n int, op, reason string) (*clock, []uint64) {
	tb.Helper()
	clk := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	users := fillGuild(tb, st, guild, n, clk.Now())
	if _, err := st.RunGuild(context.Background(), storage.GuildStep{Guild: guild, Op: op, Move: game.BeginReset{Actor: moderator, Reason: reason}, Now: clk.Now()}); err != nil {
		tb.Fatal(err)
	}
	return clk, users
}

// fillGuild adds n players to guild through the store's import, the k-th
// (user 1000+k) with startCents+1+k credits, and returns their users.
func fillGuild(tb testing.TB, st storage.Store, guild uint64, n int, now time.Time) []uint64 {
	tb.Helper()
	d := &storage.DecodedDump{Version: storage.DumpVersion}
	var src seeds
	users := make([]uint64, n)
	for k := range n {
		seed, err := game.NewSeed(&src)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := game.NewPlayer(startCents+1+int64(k), seed, "client", now)
		if err != nil {
			tb.Fatal(err)
		}
		users[k] = uint64(1000 + k)
		d.Players = append(d.Players, storage.DecodedPlayer{ID: storage.PlayerID{Guild: guild, User: users[k]}, Player: p})
	}
	if err := st.(storage.Dumper).Import(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	return users
}

// TestResetGuildJobResumes, on bolt and Redis: a reset-guild of 1,050
// players whose process stops in the middle of a batch (a crash) is taken
// over by another process once the lease has expired, not before; it
// finishes with every player reset once (one who played after their reset
// keeps their play), the count and one audit entry.
func TestResetGuildJobResumes(t *testing.T) {
	for name, open := range jobStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st := open(t)
			const guild, n, op = 77, 1050, "rg:1310000000000000900"
			clk, users := beginReset(t, st, guild, n, op, "season")
			newApp := func() *App { return New(Config{Now: clk.Now, Logger: discardLogger(), Seeds: &seeds{}}, st) }
			// Process a resets 350 players, records 300, and dies.
			a := New(Config{Now: clk.Now, Logger: discardLogger(), Seeds: &seeds{}}, crashingStore{st, users[349]})
			if err := a.jobs.runReset(ctx, jobConfig{holder: "a", lease: JobLease, batch: 100}, guild); !errors.Is(err, errCrashed) {
				t.Fatalf("a: %v", err)
			}
			g, err := st.Guild(ctx, guild)
			if err != nil || g.Reset.Count != 300 || g.Reset.After != users[299] || g.Reset.Holder != "a" {
				t.Fatalf("after a: %+v, %v", g.Reset, err)
			}
			// Player 320, reset by a but not recorded, plays meanwhile.
			played := storage.PlayerID{Guild: guild, User: users[319]}
			now := storage.Timestamp(clk.Now())
			if _, err := st.Run(ctx, storage.Step{ID: played, Op: "play-320", Now: now,
				Move: game.Grant{Amount: 7}}); err != nil {
				t.Fatal(err)
			}
			// Process b cannot take the lease while it lasts…
			b := newApp()
			if err := b.jobs.runReset(ctx, jobConfig{holder: "b", lease: JobLease, batch: 100}, guild); err != nil {
				t.Fatal(err)
			}
			if g, _ := st.Guild(ctx, guild); g.Reset.Count != 300 || g.Reset.Holder != "a" {
				t.Fatalf("b ran while a held the lease: %+v", g.Reset)
			}
			// …and takes it over once expired, through its runner.
			clk.Add(JobLease)
			runUntilDone(t, b, st, guild, jobConfig{holder: "b", scan: 5 * time.Millisecond, batch: 100})

			g, err = st.Guild(ctx, guild)
			if err != nil || !g.Reset.Finished() || g.Reset.Count != n || g.Reset.Holder != "" || !g.Has(op) {
				t.Fatalf("after b: %+v, %v", g.Reset, err)
			}
			var sum int64
			for _, u := range users {
				v, err := st.Load(ctx, storage.PlayerID{Guild: guild, User: u})
				if err != nil {
					t.Fatal(err)
				}
				sum += v.Player.Balance
			}
			if want := int64(n)*startCents + 7; sum != want {
				t.Fatalf("sum of balances %d, want %d (players × starting balance, and the play after the reset)", sum, want)
			}
			if v, _ := st.Load(ctx, played); v.Player.Balance != startCents+7 {
				t.Fatalf("the player who played after their reset: %d", v.Player.Balance)
			}
			es, err := st.Audit(ctx, guild, 10)
			if err != nil || len(es) != 1 || es[0].Action != game.ActionResetGuild || es[0].Amount != n || es[0].Reason != "season" {
				t.Fatalf("audit: %+v, %v", es, err)
			}
			if js, err := st.Jobs(ctx); err != nil || len(js) != 0 {
				t.Fatalf("jobs after the end: %v, %v", js, err)
			}
		})
	}
}

// crashingStore fails every player step past user after, as a process
// that died there would leave them.
type crashingStore struct {
	storage.Store
	after uint64
}

var errCrashed = errors.New("crashed")

func (s crashingStore) Run(ctx context.Context, st storage.Step) (storage.Applied, error) {
	if st.ID.User > s.after {
		return storage.Applied{}, errCrashed
	}
	return s.Store.Run(ctx, st)
}

// runUntilDone runs a's runner until the guild's reset has finished.
func runUntilDone(t *testing.T, a *App, st storage.Store, guild uint64, c jobConfig) {
	t.Helper()
	runUntil(t, a, c, func() bool {
		g, err := st.Guild(t.Context(), guild)
		return err == nil && g.Reset != nil && g.Reset.Finished()
	})
}

// runUntil runs a's runner until done says so.
func runUntil(t *testing.T, a *App, c jobConfig, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- a.jobs.runJobs(ctx, c) }()
	defer func() {
		cancel()
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("runner: %v", err)
		}
	}()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if done() {
			return
		}
	}
	t.Fatal("the runner did not get there")
}

// TestTwoRunnersOneLease: two processes' runners at once share out
// nothing: one holds the lease, every player is reset once, and the
// count is the players'.
func TestTwoRunnersOneLease(t *testing.T) {
	st := newTestStore(t)
	const guild, n, op = 78, 450, "rg:2"
	clk, _ := beginReset(t, st, guild, n, op, "")
	before := st.writeCount()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, h := range []string{"a", "b"} {
		a := New(Config{Now: clk.Now, Logger: discardLogger(), Seeds: &seeds{}}, st)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = a.jobs.runJobs(ctx, jobConfig{holder: h, scan: time.Millisecond, batch: 10})
		}()
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if g, _ := st.Guild(ctx, guild); g.Reset.Finished() {
			break
		}
	}
	cancel()
	wg.Wait()
	g, _ := st.Guild(t.Context(), guild)
	if !g.Reset.Finished() || g.Reset.Count != n {
		t.Fatalf("reset: %+v", g.Reset)
	}
	if w := st.writeCount() - before; w != n {
		t.Fatalf("%d player writes for %d players: someone was reset twice", w, n)
	}
}

// TestResetGuildInBackground: the confirmation answers at once with the
// progress, the runner resets the guild and edits the confirmation; a
// second confirmation while it runs starts nothing and shows the
// progress; /admin audit shows it at the top, then the finished entry.
func TestResetGuildInBackground(t *testing.T) {
	e := newEnv(t)
	for _, u := range []uint64{alice, bob} {
		e.slash(u, "en-US", "play")
	}
	ask := e.admin(moderator, modPermsSet, "reset-guild", opt{"reason", optString, "new season"})
	h := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rg:").CustomID))
	if !strings.Contains(h.text(), "Resetting… 0 players so far") || len(h.buttons()) != 0 {
		t.Fatalf("confirm:\n%s", h.text())
	}
	if p := e.player(alice); p.Stats.Plays != 1 {
		t.Fatal("the handler reset players itself")
	}
	// Another confirmation while it runs starts nothing.
	other := e.admin(moderator, modPermsSet, "reset-guild")
	msg := other.message()
	msg.ID = "1310000000000000999"
	h2 := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", msg, other.mustButton("v1:rg:").CustomID))
	if !strings.Contains(h2.text(), "already in progress") || !strings.Contains(h2.text(), "Resetting… 0 players so far") {
		t.Fatalf("second confirmation:\n%s", h2.text())
	}
	if txt := e.admin(moderator, modPermsSet, "audit").text(); !strings.Contains(txt, "Server reset in progress**: 0 players reset so far") {
		t.Fatalf("audit while running:\n%s", txt)
	}

	// The runner does the job and edits the first confirmation.
	g, _ := e.store.Guild(t.Context(), testGuild)
	lastEdit := func() string {
		h.rec.mu.Lock()
		defer h.rec.mu.Unlock()
		if len(h.rec.edits) == 0 || h.rec.edits[len(h.rec.edits)-1].Embeds == nil {
			return ""
		}
		return (*h.rec.edits[len(h.rec.edits)-1].Embeds)[0].Description
	}
	runUntil(t, e.app, jobConfig{holder: "r", scan: time.Millisecond, edit: time.Millisecond}, func() bool {
		return strings.Contains(lastEdit(), "2 players were reset")
	})
	if g2, _ := e.store.Guild(t.Context(), testGuild); g2.Reset.Op != g.Reset.Op || g2.Reset.Count != 2 {
		t.Fatalf("the reset run: %+v, want the first one's %s", g2.Reset, g.Reset.Op)
	}
	for _, u := range []uint64{alice, bob} {
		if p := e.player(u); p.Stats.Plays != 0 || p.Balance != startCents {
			t.Fatalf("player %d not reset: %+v", u, p)
		}
	}
	txt := e.admin(moderator, modPermsSet, "audit").text()
	if strings.Contains(txt, "in progress") || !strings.Contains(txt, "server reset") {
		t.Fatalf("audit after:\n%s", txt)
	}
	// The old confirmation pressed again shows the end; nothing changes.
	if txt := e.handle(e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rg:").CustomID)).text(); !strings.Contains(txt, "2 players were reset") {
		t.Fatalf("pressed again:\n%s", txt)
	}
}

// explodingStore panics in every player step, as a bug in a store would.
type explodingStore struct{ storage.Store }

func (explodingStore) Run(context.Context, storage.Step) (storage.Applied, error) {
	panic("store exploded")
}

// TestJobPanicIsRecovered: a panic in a job's goroutines is recovered
// where it happens, logged, and stops only that batch: the reset is left
// to go on later, and the process lives.
func TestJobPanicIsRecovered(t *testing.T) {
	st := newTestStore(t)
	const guild, op = 79, "rg:3"
	clk, _ := beginReset(t, st, guild, 5, op, "")
	var logs syncBuffer
	a := New(Config{Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Seeds: &seeds{}}, explodingStore{st})
	err := a.jobs.runReset(t.Context(), jobConfig{holder: "a", lease: JobLease, batch: 100}, guild)
	if err == nil || !strings.Contains(err.Error(), "store exploded") || !strings.Contains(logs.String(), "panic in a player's reset") {
		t.Fatalf("runReset = %v; logs:\n%s", err, logs.String())
	}
	if g, err := st.Guild(t.Context(), guild); err != nil || g.Reset == nil || g.Reset.Finished() {
		t.Fatalf("the reset after the panic: %+v, %v", g.Reset, err)
	}
}
