package commands

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// testStore is the store of the handlers' tests: the embedded store in a
// temporary file, held to the whole contract by storage/storetest, with
// what some tests need besides: a count of the player writes, and two
// faults to inject: every Run failing with storage.ErrConflict (as
// under a storm of writes to one player), and history lines altered as
// they are read (a tampered history).
type testStore struct {
	*boltstore.Store
	path string

	writes      atomic.Int64
	settingsOps atomic.Int64 // setSettings's operation IDs
	conflict    atomic.Bool
	tamper      func([]game.Entry) // set before the calls it alters
}

func newTestStore(tb testing.TB) *testStore {
	tb.Helper()
	s := &testStore{path: filepath.Join(tb.TempDir(), "clefs.db")}
	s.reopen(tb)
	tb.Cleanup(func() { _ = s.Store.Close() })
	return s
}

// reopen opens the file (again, after Close, as a restarted bot does).
func (s *testStore) reopen(tb testing.TB) {
	tb.Helper()
	st, err := boltstore.Open(s.path, storage.Options{Defaults: testDefaults})
	if err != nil {
		tb.Fatal(err)
	}
	s.Store = st
}

// Run is the store's, counting the writes, or fails with
// storage.ErrConflict, writing nothing, while conflict is set.
func (s *testStore) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	if s.conflict.Load() {
		v, err := s.Store.Load(ctx, step.ID)
		if err != nil {
			return storage.Applied{}, err
		}
		return storage.Applied{Before: v.Player, Player: v.Player}, storage.ErrConflict
	}
	a, err := s.Store.Run(ctx, step)
	if err == nil && !a.Repeated {
		s.writes.Add(1)
	}
	return a, err
}

// History is the store's, passed through tamper when set.
func (s *testStore) History(ctx context.Context, id storage.PlayerID, n int) ([]game.Entry, error) {
	h, err := s.Store.History(ctx, id, n)
	if err == nil && s.tamper != nil {
		s.tamper(h)
	}
	return h, err
}

// writeCount is the number of player writes so far.
func (s *testStore) writeCount() int { return int(s.writes.Load()) }

// setSettings replaces a guild's settings behind the App's back, as
// another process would.
func (s *testStore) setSettings(tb testing.TB, guild uint64, set game.Settings) {
	tb.Helper()
	if _, err := s.RunGuild(context.Background(), storage.GuildStep{Guild: guild, Op: fmt.Sprintf("test-settings-%d", s.settingsOps.Add(1)), Move: game.ChangeSettings{Patch: patchAll(set)}, Now: storage.Timestamp(time.Now())}); err != nil {
		tb.Fatal(err)
	}
}

// patchAll is the patch that sets every setting to set's.
func patchAll(set game.Settings) game.SettingsPatch {
	h := set.House
	return game.SettingsPatch{
		StartingBalance: &set.StartingBalance, DailyAmount: &set.DailyAmount, DailyCooldown: &set.DailyCooldown, PublicPlays: &set.PublicPlays,
		Channel: &set.Channel, MaxStakeDay: &h.MaxStakeDay, MinInterval: &h.MinInterval,
		RealityPlays: &h.RealityPlays, RealityEvery: &h.RealityEvery,
	}
}
