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
	const other = guild + 1000
	e.setSettings(guild+1, "settings", defaults, "a guild without a job")
	for _, g := range []uint64{other, guild} {
		e.mustGuild(g, "rg:1", game.BeginReset{Actor: mod})
	}
	jobs(guild, other)
	e.mustGuild(guild, "rg:1", game.Lease{Holder: "a", TTL: time.Minute})
	e.mustGuild(guild, "rg:1", game.Progress{Holder: "a", After: 10, Count: 1, TTL: time.Minute})
	jobs(guild, other)
	e.mustGuild(guild, "rg:1", game.EndReset{Holder: "a"})
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
	e.mustGuild(guild, op, game.BeginReset{Actor: mod})
	now := e.clock.Now()
	for round := range 3 {
		const n = 8
		var (
			mu      sync.Mutex
			winners []string
		)
		race(t, n, func(i int) error {
			holder := fmt.Sprintf("round%d-proc%d", round, i)
			_, err := e.st.RunGuild(e.ctx, storage.GuildStep{Guild: guild, Op: op, Move: game.Lease{Holder: holder, TTL: time.Minute}, Now: now})
			if err == nil {
				mu.Lock()
				winners = append(winners, holder)
				mu.Unlock()
			} else if !errors.Is(err, game.ErrLeaseHeld) {
				return fmt.Errorf("%s: %w", holder, err)
			}
			return nil
		})
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
