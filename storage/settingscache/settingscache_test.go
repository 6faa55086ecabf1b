package settingscache

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// countingStore answers Guild with {Channel: guild}, counting the calls;
// it can fail, and block until released. RunGuild succeeds or fails as
// told. Every other method is left nil: the tests must not call them.
type countingStore struct {
	storage.Store
	calls   atomic.Int64
	fail    atomic.Bool
	setErr  error
	entered chan struct{} // if not nil, Settings signals here then waits on release
	release chan struct{}
}

var errDown = errors.New("store down")

func (s *countingStore) Guild(_ context.Context, guild uint64) (storage.VersionedGuild, error) {
	s.calls.Add(1)
	if s.entered != nil {
		s.entered <- struct{}{}
		<-s.release
	}
	if s.fail.Load() {
		return storage.VersionedGuild{}, errDown
	}
	return storage.VersionedGuild{Guild: game.Guild{Settings: game.Settings{Channel: guild}}, Version: 1}, nil
}

func (s *countingStore) RunGuild(context.Context, storage.GuildStep) (storage.GuildApplied, error) {
	return storage.GuildApplied{}, s.setErr
}

// settings reads the guild's settings through sc.
func settings(ctx context.Context, sc *Store, guild uint64) (game.Settings, error) {
	g, err := sc.Guild(ctx, guild)
	return g.Settings, err
}

// update sets the guild's settings through sc, as a moderator would.
func update(ctx context.Context, sc storage.Store, guild uint64, set game.Settings, op string) error {
	_, err := sc.RunGuild(ctx, storage.GuildStep{Guild: guild, Op: op, Move: game.ChangeSettings{Patch: storetest.FullPatch(set)}, Now: time.Now()})
	return err
}

func TestCache(t *testing.T) {
	ctx := context.Background()

	t.Run("hit, expiry, errors not cached", func(t *testing.T) {
		c := storetest.NewClock()
		st := &countingStore{}
		sc := New(st, time.Second, c.Now)
		for range 3 {
			if set, err := settings(ctx, sc, 7); err != nil || set.Channel != 7 {
				t.Fatalf("Settings: %+v, %v", set, err)
			}
		}
		if n := st.calls.Load(); n != 1 {
			t.Fatalf("3 reads within the TTL made %d store calls, want 1", n)
		}
		c.Advance(time.Second - time.Nanosecond)
		if _, err := settings(ctx, sc, 7); err != nil || st.calls.Load() != 1 {
			t.Fatalf("read just before expiry: %v, %d store calls", err, st.calls.Load())
		}
		c.Advance(time.Nanosecond)
		st.fail.Store(true)
		if _, err := settings(ctx, sc, 7); !errors.Is(err, errDown) {
			t.Fatalf("an expired entry hid the store error: %v", err)
		}
		st.fail.Store(false)
		if _, err := settings(ctx, sc, 7); err != nil {
			t.Fatal(err)
		}
		if n := st.calls.Load(); n != 3 {
			t.Fatalf("after expiry and an error: %d store calls, want 3", n)
		}
	})

	t.Run("RunGuild invalidates, even when it fails", func(t *testing.T) {
		for _, setErr := range []error{nil, errDown} {
			st := &countingStore{setErr: setErr}
			sc := New(st, time.Hour, storetest.NewClock().Now)
			if _, err := settings(ctx, sc, 7); err != nil {
				t.Fatal(err)
			}
			if err := update(ctx, sc, 7, game.Settings{}, "op"); !errors.Is(err, setErr) {
				t.Fatalf("RunGuild returned %v, want %v", err, setErr)
			}
			if _, err := settings(ctx, sc, 7); err != nil {
				t.Fatal(err)
			}
			if n := st.calls.Load(); n != 2 {
				t.Fatalf("setErr=%v: %d store reads, want 2 (the entry dropped)", setErr, n)
			}
		}
	})

	t.Run("bounded", func(t *testing.T) {
		c := storetest.NewClock()
		st := &countingStore{}
		sc := New(st, time.Second, c.Now)
		for g := uint64(1); g <= 3*maxGuilds; g++ {
			if _, err := settings(ctx, sc, g); err != nil {
				t.Fatal(err)
			}
			if n := sc.len(); n > maxGuilds {
				t.Fatalf("%d entries after %d guilds, bound %d", n, g, maxGuilds)
			}
		}
		c.Advance(time.Second) // all expired: the next insert sweeps them
		if _, err := settings(ctx, sc, 1<<40); err != nil {
			t.Fatal(err)
		}
		if n := sc.len(); n != 1 {
			t.Fatalf("%d entries after the sweep, want 1", n)
		}
	})

	t.Run("a read in flight during an invalidation is not cached", func(t *testing.T) {
		st := &countingStore{entered: make(chan struct{}), release: make(chan struct{})}
		sc := New(st, time.Second, storetest.NewClock().Now)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = settings(ctx, sc, 9)
		}()
		<-st.entered // the read has started and holds the old value
		if err := update(ctx, sc, 9, game.Settings{}, "op"); err != nil {
			t.Fatal(err)
		}
		close(st.release)
		<-done
		if n := sc.len(); n != 0 {
			t.Fatalf("the stale read was cached (%d entries)", n)
		}
	})

	t.Run("off", func(t *testing.T) {
		st := &countingStore{}
		sc := New(st, 0, nil)
		for range 3 {
			if _, err := settings(ctx, sc, 7); err != nil {
				t.Fatal(err)
			}
		}
		if n := st.calls.Load(); n != 3 || sc.len() != 0 {
			t.Fatalf("cache off: %d store calls, %d entries", n, sc.len())
		}
	})
}

// TestOverARealStore: a change through the decorator is seen at once; a
// change made behind its back (another process on the same backend) is
// seen once the TTL has passed, not before.
func TestOverARealStore(t *testing.T) {
	ctx := context.Background()
	c := storetest.NewClock()
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ttl, guild = time.Second, 1100000000000000000
	sc := New(bolt, ttl, c.Now)
	t.Cleanup(func() { _ = sc.Close() })

	channel := func() uint64 {
		t.Helper()
		set, err := settings(ctx, sc, guild)
		if err != nil {
			t.Fatal(err)
		}
		return set.Channel
	}
	if ch := channel(); ch != 0 {
		t.Fatalf("default settings: channel %d", ch)
	}
	if err := update(ctx, sc, guild, game.Settings{Channel: 5}, "through the cache"); err != nil {
		t.Fatal(err)
	}
	if ch := channel(); ch != 5 {
		t.Fatalf("a change through the decorator is not seen at once: channel %d", ch)
	}
	if g, err := sc.Guild(ctx, guild); err != nil || g.Version != 1 || len(g.Ops) != 1 || g.Ops[0] != "through the cache" {
		t.Fatalf("cached guild %+v, %v; want version 1 with its operation", g, err)
	}
	if err := update(ctx, bolt, guild, game.Settings{Channel: 6}, "behind its back"); err != nil {
		t.Fatal(err)
	}
	c.Advance(ttl - time.Nanosecond)
	if ch := channel(); ch != 5 {
		t.Fatalf("the entry was dropped before the TTL: channel %d", ch)
	}
	c.Advance(time.Nanosecond)
	if ch := channel(); ch != 6 {
		t.Fatalf("another process's change is not seen after the TTL: channel %d", ch)
	}
}
