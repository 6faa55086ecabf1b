package loadtest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// StoreTimer accumulates the time spent inside store calls made with a
// context carrying it (see WithStoreTimer). It is safe for concurrent use.
type StoreTimer struct {
	ns    atomic.Int64
	calls atomic.Int64

	// The calls' latencies by method, for a TimedStore's StepTimes: kept
	// here until Flush, so that recording them (a lock, a map, a
	// histogram) is not counted in the handler's time.
	mu      sync.Mutex
	pending []stepTime
}

type stepTime struct {
	name string
	d    time.Duration
}

// Reset zeroes the timer.
func (t *StoreTimer) Reset() {
	t.ns.Store(0)
	t.calls.Store(0)
	t.mu.Lock()
	t.pending = t.pending[:0]
	t.mu.Unlock()
}

// Flush records in st (if not nil) the latencies of the calls timed since
// the last Flush or Reset, by method.
func (t *StoreTimer) Flush(st *StepTimes) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.pending {
		if st != nil {
			st.add(s.name, s.d)
		}
	}
	t.pending = t.pending[:0]
}

// Elapsed returns the time accumulated since the last Reset.
func (t *StoreTimer) Elapsed() time.Duration { return time.Duration(t.ns.Load()) }

// Calls returns the number of store calls since the last Reset.
func (t *StoreTimer) Calls() int64 { return t.calls.Load() }

type timerKey struct{}

// WithStoreTimer returns a context whose store calls, through a TimedStore,
// add their duration to t.
func WithStoreTimer(ctx context.Context, t *StoreTimer) context.Context {
	return context.WithValue(ctx, timerKey{}, t)
}

// TimedStore is a storage.Store that forwards every call to the store it
// wraps and adds the call's duration to the StoreTimer found in the call's
// context, if any. It lets the load generator split an interaction's time
// into the store's part and the handler's part. With a StoreTimer, the
// latencies by method reach Steps when the timer is flushed; without one,
// at once.
//
// It embeds the wrapped store, so that a method added to storage.Store later
// is forwarded (untimed) without breaking the build.
type TimedStore struct {
	storage.Store
	// Steps, if not nil, records each step's latency by method name.
	Steps *StepTimes
}

// StepTimes records the latency of each store method called through a
// TimedStore. It is safe for concurrent use.
type StepTimes struct {
	mu    sync.Mutex
	steps map[string]*histogram
}

func (st *StepTimes) add(name string, d time.Duration) {
	st.mu.Lock()
	h := st.steps[name]
	if h == nil {
		if st.steps == nil {
			st.steps = map[string]*histogram{}
		}
		h = &histogram{}
		st.steps[name] = h
	}
	st.mu.Unlock()
	h.add(int64(d))
}

// Reset forgets every latency recorded.
func (st *StepTimes) Reset() {
	st.mu.Lock()
	st.steps = nil
	st.mu.Unlock()
}

// Summary returns the latency summary of each method called, by name.
func (st *StepTimes) Summary() map[string]Latency {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make(map[string]Latency, len(st.steps))
	for name, h := range st.steps {
		out[name] = h.summary()
	}
	return out
}

var _ storage.Store = TimedStore{}

// begin starts timing a store call made with ctx: the StoreTimer ctx
// carries (nil if none) and the time. It is cheap, and end allocates
// nothing: the handler's overhead measured around a TimedStore is not
// the TimedStore's.
func (s TimedStore) begin(ctx context.Context) (*StoreTimer, time.Time) {
	t, _ := ctx.Value(timerKey{}).(*StoreTimer)
	if t == nil && s.Steps == nil {
		return nil, time.Time{}
	}
	return t, time.Now()
}

// end ends timing the call of method name begun at start.
func (s TimedStore) end(t *StoreTimer, name string, start time.Time) {
	if start.IsZero() {
		return
	}
	d := time.Since(start)
	switch {
	case t == nil:
		s.Steps.add(name, d)
	case s.Steps == nil:
		t.ns.Add(int64(d))
		t.calls.Add(1)
	default:
		t.ns.Add(int64(d))
		t.calls.Add(1)
		t.mu.Lock()
		t.pending = append(t.pending, stepTime{name, d})
		t.mu.Unlock()
	}
}

// Player forwards to the wrapped store.
func (s TimedStore) Player(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Player", start)
	return s.Store.Player(ctx, id)
}

// Buy forwards to the wrapped store.
func (s TimedStore) Buy(ctx context.Context, id storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Buy", start)
	return s.Store.Buy(ctx, id)
}

// Reveal forwards to the wrapped store.
func (s TimedStore) Reveal(ctx context.Context, id storage.PlayerID, ticketID uint64, rows storage.RowMask) (storage.Player, storage.Ticket, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Reveal", start)
	return s.Store.Reveal(ctx, id, ticketID, rows)
}

// OpenChest forwards to the wrapped store.
func (s TimedStore) OpenChest(ctx context.Context, id storage.PlayerID, seq int64) (storage.Player, game.Chest, bool, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "OpenChest", start)
	return s.Store.OpenChest(ctx, id, seq)
}

// ClaimDaily forwards to the wrapped store.
func (s TimedStore) ClaimDaily(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "ClaimDaily", start)
	return s.Store.ClaimDaily(ctx, id)
}

// Grant forwards to the wrapped store.
func (s TimedStore) Grant(ctx context.Context, actor uint64, id storage.PlayerID, amount int64, reason string) (storage.Player, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Grant", start)
	return s.Store.Grant(ctx, actor, id, amount, reason)
}

// SetBalance forwards to the wrapped store.
func (s TimedStore) SetBalance(ctx context.Context, actor uint64, id storage.PlayerID, balance int64, reason string) (storage.Player, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "SetBalance", start)
	return s.Store.SetBalance(ctx, actor, id, balance, reason)
}

// ResetPlayer forwards to the wrapped store.
func (s TimedStore) ResetPlayer(ctx context.Context, actor uint64, id storage.PlayerID, reason string) (storage.Player, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "ResetPlayer", start)
	return s.Store.ResetPlayer(ctx, actor, id, reason)
}

// ResetGuild forwards to the wrapped store.
func (s TimedStore) ResetGuild(ctx context.Context, actor uint64, guild uint64, reason string) (int, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "ResetGuild", start)
	return s.Store.ResetGuild(ctx, actor, guild, reason)
}

// History forwards to the wrapped store.
func (s TimedStore) History(ctx context.Context, id storage.PlayerID, n int) ([]storage.HistoryEntry, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "History", start)
	return s.Store.History(ctx, id, n)
}

// Leaderboard forwards to the wrapped store.
func (s TimedStore) Leaderboard(ctx context.Context, guild uint64, n int) ([]storage.LeaderboardEntry, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Leaderboard", start)
	return s.Store.Leaderboard(ctx, guild, n)
}

// Audit forwards to the wrapped store.
func (s TimedStore) Audit(ctx context.Context, guild uint64, n int) ([]storage.AuditEntry, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Audit", start)
	return s.Store.Audit(ctx, guild, n)
}

// Settings forwards to the wrapped store.
func (s TimedStore) Settings(ctx context.Context, guild uint64) (storage.Settings, error) {
	t, start := s.begin(ctx)
	defer s.end(t, "Settings", start)
	return s.Store.Settings(ctx, guild)
}

// SetSettings forwards to the wrapped store.
func (s TimedStore) SetSettings(ctx context.Context, actor uint64, guild uint64, st storage.Settings, reason string) error {
	t, start := s.begin(ctx)
	defer s.end(t, "SetSettings", start)
	return s.Store.SetSettings(ctx, actor, guild, st, reason)
}

// Ping forwards to the wrapped store.
func (s TimedStore) Ping(ctx context.Context) error {
	t, start := s.begin(ctx)
	defer s.end(t, "Ping", start)
	return s.Store.Ping(ctx)
}
