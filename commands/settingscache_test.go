package commands

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// playIsRefused plays as alice and reports whether the play was refused for
// the channel (true), or went through (false); visibility is returned too.
func playIsRefused(tb testing.TB, e *env) (refused, ephemeral bool) {
	tb.Helper()
	h := e.slash(alice, "en-US", "play")
	if h.ephemeral() && len(h.buttons()) == 0 {
		h.expectUserError("plays happen in")
		return true, true
	}
	return false, h.ephemeral()
}

func TestSettingsCacheAdminChangeSeenAtOnce(t *testing.T) {
	eachStore(t, testSettingsCacheAdminChangeSeenAtOnce)
}

func testSettingsCacheAdminChangeSeenAtOnce(t *testing.T, newEnv func(testing.TB) *env) {
	e := newEnv(t)
	if refused, eph := playIsRefused(t, e); refused || eph {
		t.Fatalf("default settings: refused=%v ephemeral=%v, want a public play", refused, eph)
	}
	// The clock does not move: only the invalidation can make the change seen.
	e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000555"})
	if refused, _ := playIsRefused(t, e); !refused {
		t.Fatal("a play in another channel went through right after /admin settings channel")
	}
	e.admin(moderator, modPermsSet, "settings", opt{"any-channel", optBool, true}, opt{"public-plays", optBool, false})
	if refused, eph := playIsRefused(t, e); refused || !eph {
		t.Fatalf("after any-channel and private plays: refused=%v ephemeral=%v", refused, eph)
	}
}

func TestSettingsCacheOtherProcessSeenAfterTTL(t *testing.T) {
	eachStore(t, testSettingsCacheOtherProcessSeenAfterTTL)
}

func testSettingsCacheOtherProcessSeenAfterTTL(t *testing.T, newEnv func(testing.TB) *env) {
	e := newEnv(t)
	other := New(e.cfg, e.store) // another bot process on the same store
	if refused, _ := playIsRefused(t, e); refused {
		t.Fatal("default settings refused the play")
	}
	first := e.app
	e.app = other
	if h := e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000555"}); !strings.Contains(h.text(), "Settings saved") {
		t.Fatalf("admin settings on the other App:\n%s", h.text())
	}
	e.app = first
	e.clock.Add(DefaultSettingsTTL - time.Nanosecond)
	if refused, _ := playIsRefused(t, e); refused {
		t.Fatal("the cached settings were dropped before the TTL")
	}
	e.clock.Add(time.Nanosecond)
	if refused, _ := playIsRefused(t, e); !refused {
		t.Fatalf("the other process's change is not seen after the TTL (%v)", DefaultSettingsTTL)
	}
}

func TestSettingsCacheOff(t *testing.T) {
	e := newEnv(t)
	e.cfg.SettingsTTL = -1
	e.app = New(e.cfg, e.store)
	if refused, _ := playIsRefused(t, e); refused {
		t.Fatal("default settings refused the play")
	}
	set, _ := e.store.Settings(t.Context(), testGuild)
	set.Channel = 1110000000000000555
	if err := e.store.SetSettings(t.Context(), moderator, testGuild, set, ""); err != nil {
		t.Fatal(err)
	}
	if refused, _ := playIsRefused(t, e); !refused {
		t.Fatal("with SettingsTTL < 0 a change in the store is not seen at once")
	}
}

// countingSettings is a store whose Settings counts its calls, can fail, and
// can block until released.
type countingSettings struct {
	storage.Store
	calls   atomic.Int64
	fail    atomic.Bool
	entered chan struct{} // if not nil, Settings signals here then waits on release
	release chan struct{}
}

func (s *countingSettings) Settings(_ context.Context, guild uint64) (storage.Settings, error) {
	s.calls.Add(1)
	if s.entered != nil {
		s.entered <- struct{}{}
		<-s.release
	}
	if s.fail.Load() {
		return storage.Settings{}, errors.New("store down")
	}
	return storage.Settings{Channel: guild}, nil
}

func TestSettingsCacheUnit(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}

	t.Run("hit, expiry, errors not cached", func(t *testing.T) {
		st := &countingSettings{}
		sc := newSettingsCache(time.Second, c.Now)
		for range 3 {
			if set, err := sc.get(ctx, st, 7); err != nil || set.Channel != 7 {
				t.Fatalf("get: %+v, %v", set, err)
			}
		}
		if n := st.calls.Load(); n != 1 {
			t.Fatalf("3 gets within the TTL made %d store calls, want 1", n)
		}
		c.Add(time.Second)
		st.fail.Store(true)
		if _, err := sc.get(ctx, st, 7); err == nil {
			t.Fatal("an expired entry hid a store error")
		}
		st.fail.Store(false)
		if _, err := sc.get(ctx, st, 7); err != nil {
			t.Fatal(err)
		}
		if n := st.calls.Load(); n != 3 {
			t.Fatalf("after expiry and an error: %d store calls, want 3", n)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		st := &countingSettings{}
		sc := newSettingsCache(time.Second, c.Now)
		for g := uint64(1); g <= 3*maxCachedGuilds; g++ {
			if _, err := sc.get(ctx, st, g); err != nil {
				t.Fatal(err)
			}
			if n := sc.len(); n > maxCachedGuilds {
				t.Fatalf("%d entries after %d guilds, bound %d", n, g, maxCachedGuilds)
			}
		}
		c.Add(time.Second) // all expired: the next insert sweeps them
		if _, err := sc.get(ctx, st, 1<<40); err != nil {
			t.Fatal(err)
		}
		if n := sc.len(); n > maxCachedGuilds {
			t.Fatalf("%d entries after the sweep", n)
		}
	})

	t.Run("a read in flight during an invalidation is not cached", func(t *testing.T) {
		st := &countingSettings{entered: make(chan struct{}), release: make(chan struct{})}
		sc := newSettingsCache(time.Second, c.Now)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = sc.get(ctx, st, 9)
		}()
		<-st.entered // the read has started and holds the old value
		sc.invalidate(9)
		close(st.release)
		wg.Wait()
		if n := sc.len(); n != 0 {
			t.Fatalf("the stale read was cached (%d entries)", n)
		}
	})

	t.Run("off", func(t *testing.T) {
		st := &countingSettings{}
		sc := newSettingsCache(-1, c.Now)
		for range 3 {
			if _, err := sc.get(ctx, st, 7); err != nil {
				t.Fatal(err)
			}
		}
		if n := st.calls.Load(); n != 3 || sc.len() != 0 {
			t.Fatalf("cache off: %d store calls, %d entries", n, sc.len())
		}
	})
}
