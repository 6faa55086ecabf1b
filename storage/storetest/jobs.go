package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// testJobs: a guild is listed by Jobs from the write that starts its
// reset-guild until the one that finishes it; guilds without a job are
// not; the list is in increasing order.
func testJobs(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	jobs := func(want ...uint64) {
		t.Helper()
		got, err := e.st.Jobs(e.ctx)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Jobs: %v, %v; want %v", got, err, want)
		}
	}
	jobs()
	step := func(g uint64, op string, f func(game.Guild) (game.GuildStep, error)) storage.GuildApplied {
		t.Helper()
		ap, err := storage.ApplyGuild(e.ctx, e.st, g, op, f)
		if err != nil {
			t.Fatalf("guild %d, %s: %v", g, op, err)
		}
		return ap
	}
	const other = guild + 1000
	e.setSettings(guild+1, "settings", defaults, "a guild without a job")
	for _, g := range []uint64{other, guild} {
		step(g, "rg:1", func(gd game.Guild) (game.GuildStep, error) { return gd.StartReset("rg:1", mod, "", e.clock.Now()) })
	}
	jobs(guild, other)
	lease := func(holder string) func(game.Guild) (game.GuildStep, error) {
		return func(gd game.Guild) (game.GuildStep, error) {
			return gd.TakeLease("rg:1", holder, e.clock.Now(), time.Minute)
		}
	}
	step(guild, "rg:1", lease("a"))
	step(guild, "rg:1", func(gd game.Guild) (game.GuildStep, error) {
		return gd.ResetProgress("rg:1", "a", 10, 1, e.clock.Now(), time.Minute)
	})
	jobs(guild, other)
	// A second reset while one runs starts nothing.
	if ap, err := storage.ApplyGuild(e.ctx, e.st, guild, "rg:2", func(gd game.Guild) (game.GuildStep, error) {
		return gd.StartReset("rg:2", mod, "", e.clock.Now())
	}); !errors.Is(err, game.ErrResetRunning) || ap.Guild.Reset == nil || ap.Guild.Reset.Op != "rg:1" || ap.Guild.Reset.Count != 1 {
		t.Fatalf("a second reset while one runs: %+v, %v", ap.Guild.Reset, err)
	}
	step(guild, "rg:1", func(gd game.Guild) (game.GuildStep, error) { return gd.FinishReset("rg:1", "a", e.clock.Now()) })
	jobs(other)
	// Another write of the finished guild keeps it off the list.
	e.setSettings(guild, "settings-2", defaults, "after the reset")
	jobs(other)
}

// testLeaseRacing: processes that race for a reset-guild's lease at the
// same time never both get it.
func testLeaseRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	const op = "rg:race"
	if _, err := storage.ApplyGuild(e.ctx, e.st, guild, op, func(gd game.Guild) (game.GuildStep, error) {
		return gd.StartReset(op, mod, "", e.clock.Now())
	}); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	for round := range 3 {
		const n = 8
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				holder := fmt.Sprintf("round%d-proc%d", round, i)
				_, err := storage.ApplyGuild(e.ctx, e.st, guild, op, func(gd game.Guild) (game.GuildStep, error) {
					return gd.TakeLease(op, holder, now, time.Minute)
				})
				switch {
				case err == nil:
					mu.Lock()
					winners = append(winners, holder)
					mu.Unlock()
				case !errors.Is(err, game.ErrLeaseHeld):
					t.Errorf("%s: %v", holder, err)
				}
			}()
		}
		wg.Wait()
		g, err := e.st.Guild(e.ctx, guild)
		if err != nil {
			t.Fatal(err)
		}
		if len(winners) != 1 || g.Reset.Holder != winners[0] {
			t.Fatalf("round %d: %v took the lease, the guild says %q", round, winners, g.Reset.Holder)
		}
		now = now.Add(time.Minute) // the lease expires: the next round races again
	}
}
