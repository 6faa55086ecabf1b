package commands

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// memStore is a storage.Store in memory for the handlers' tests. It keeps
// the contract's rules that the handlers depend on: compare-and-set on a
// version (fn runs again when another writer came first, ErrConflict after
// storage.MaxAttempts), Load creating nothing, history and audit newest
// first and bounded, a leaderboard with ranks (ties by user ID), Players in
// increasing order, guilds written as given once game.Guild.Check passes,
// and ErrClosed after Close. Beside each player it remembers its last
// game.MaxOps operations with their results, looked up under the lock of
// the compare-and-set so that a repeat writes nothing and returns
// Versioned.Repeat, and its last game.MaxReveals revealed seeds (Reveals).
// Every state it writes must pass game.Player.Check.
// The real stores are held to the whole contract by storage/storetest.
type memStore struct {
	defaults game.Settings

	mu      sync.Mutex
	players map[storage.PlayerID]storage.Versioned
	history map[storage.PlayerID][]game.Entry // oldest first
	ops     map[storage.PlayerID][]game.Op    // oldest first, at most game.MaxOps
	reveals map[storage.PlayerID]game.Reveals // oldest first, at most game.MaxReveals
	guilds  map[uint64]storage.VersionedGuild
	audit   map[uint64][]game.AuditEntry // oldest first
	closed  bool
	writes  int // successful player writes, for tests

	// interfere, when set, runs after fn and before the compare-and-set of
	// an Update: a test makes another writer come first with it.
	interfere func(id storage.PlayerID)
}

var _ storage.Store = (*memStore)(nil)

func newMemStore(defaults game.Settings) *memStore {
	return &memStore{
		defaults: defaults,
		players:  map[storage.PlayerID]storage.Versioned{},
		history:  map[storage.PlayerID][]game.Entry{},
		ops:      map[storage.PlayerID][]game.Op{},
		reveals:  map[storage.PlayerID]game.Reveals{},
		guilds:   map[uint64]storage.VersionedGuild{},
		audit:    map[uint64][]game.AuditEntry{},
	}
}

func (s *memStore) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed {
		return storage.ErrClosed
	}
	return nil
}

func (s *memStore) Load(ctx context.Context, id storage.PlayerID) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return storage.Versioned{}, err
	}
	return s.players[id], nil
}

// repeat returns the result remembered for the player's operation op, nil
// if none (or op is ""); s.mu must be held.
func (s *memStore) repeat(id storage.PlayerID, op string) *game.Result {
	if op == "" {
		return nil
	}
	for _, o := range s.ops[id] {
		if o.ID == op {
			r := o.Result
			return &r
		}
	}
	return nil
}

// current returns the player's state and, when it remembers op, the first
// result of op as Repeat.
func (s *memStore) current(ctx context.Context, id storage.PlayerID, op string) (storage.Versioned, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return storage.Versioned{}, err
	}
	v := s.players[id]
	v.Repeat = s.repeat(id, op)
	return v, nil
}

func (s *memStore) Update(ctx context.Context, id storage.PlayerID, op string, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	if fn == nil {
		return storage.Versioned{}, fmt.Errorf("%w: nil update function", storage.ErrInvalid)
	}
	if op != "" {
		if err := game.ValidateOp(op); err != nil {
			return storage.Versioned{}, err
		}
	}
	for range storage.MaxAttempts {
		v, err := s.current(ctx, id, op)
		if err != nil || v.Repeat != nil {
			return v, err
		}
		w, err := fn(v)
		if err != nil || w.Skip {
			return v, err
		}
		if err := w.Player.Check(); err != nil {
			return v, fmt.Errorf("memstore: write %d/%d: %w", id.Guild, id.User, err)
		}
		if w.Reveal != nil {
			if err := w.Player.CheckReveals(game.Reveals{*w.Reveal}); err != nil {
				return v, fmt.Errorf("%w: memstore: write %d/%d: %w", storage.ErrInvalid, id.Guild, id.User, err)
			}
		}
		if w.Audit != nil {
			a, err := storage.NormalizeAudit(*w.Audit, id.Guild)
			if err != nil {
				return v, err
			}
			w.Audit = &a
		}
		if s.interfere != nil {
			s.interfere(id)
		}
		s.mu.Lock()
		if err := s.check(ctx); err != nil {
			s.mu.Unlock()
			return v, err
		}
		if r := s.repeat(id, op); r != nil {
			// Another writer applied op meanwhile: nothing is written.
			cur := s.players[id]
			cur.Repeat = r
			s.mu.Unlock()
			return cur, nil
		}
		if s.players[id].Version != v.Version {
			s.mu.Unlock()
			continue
		}
		nv := storage.Versioned{Player: w.Player, Version: v.Version + 1}
		s.players[id] = nv
		s.history[id] = capped(s.history[id], storage.HistoryLimit, w.History...)
		if w.Reveal != nil {
			s.reveals[id] = capped(s.reveals[id], game.MaxReveals, *w.Reveal)
		}
		if op != "" {
			s.ops[id] = capped(s.ops[id], game.MaxOps, game.Op{ID: op, Result: w.Result})
		}
		if w.Audit != nil {
			s.appendAudit(id.Guild, *w.Audit)
		}
		s.writes++
		s.mu.Unlock()
		return nv, nil
	}
	return storage.Versioned{}, fmt.Errorf("memstore: update %d/%d: %w", id.Guild, id.User, storage.ErrConflict)
}

// capped returns a new slice of old's elements then add's, the oldest
// dropped past limit: old, which readers may hold, is never modified.
func capped[S ~[]E, E any](old S, limit int, add ...E) S {
	all := append(slices.Clone(old), add...)
	return slices.Clip(all[max(0, len(all)-limit):])
}

// Reveals returns the player's kept reveals, oldest first.
func (s *memStore) Reveals(ctx context.Context, id storage.PlayerID) (game.Reveals, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return slices.Clone(s.reveals[id]), nil
}

// appendAudit adds e to the guild's log; s.mu must be held.
func (s *memStore) appendAudit(guild uint64, e game.AuditEntry) {
	a := append(s.audit[guild], e)
	s.audit[guild] = a[max(0, len(a)-storage.AuditLimit):]
}

func (s *memStore) History(ctx context.Context, id storage.PlayerID, n int) ([]game.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	h := s.history[id]
	out := make([]game.Entry, 0, min(n, len(h)))
	for i := len(h) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, h[i])
	}
	return out, nil
}

func (s *memStore) Leaderboard(ctx context.Context, guild uint64, n int, user uint64) (storage.Board, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return storage.Board{}, err
	}
	var all []storage.LeaderboardEntry
	for id, v := range s.players {
		if id.Guild == guild {
			all = append(all, storage.LeaderboardEntry{User: id.User, Balance: v.Player.Balance})
		}
	}
	storage.SortLeaderboard(all)
	b := storage.Board{Players: len(all)}
	for i := range all {
		all[i].Rank = i + 1
		if all[i].User == user && user != 0 {
			e := all[i]
			b.You = &e
		}
	}
	b.Top = all[:min(n, len(all))]
	return b, nil
}

func (s *memStore) Players(ctx context.Context, guild uint64, fn func(user uint64) error) error {
	s.mu.Lock()
	if err := s.check(ctx); err != nil {
		s.mu.Unlock()
		return err
	}
	var users []uint64
	for id := range s.players {
		if id.Guild == guild {
			users = append(users, id.User)
		}
	}
	s.mu.Unlock()
	slices.Sort(users)
	for _, u := range users {
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStore) Audit(ctx context.Context, guild uint64, n int) ([]game.AuditEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	a := s.audit[guild]
	out := make([]game.AuditEntry, 0, min(n, len(a)))
	for i := len(a) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, a[i])
	}
	return out, nil
}

func (s *memStore) Guild(ctx context.Context, guild uint64) (storage.VersionedGuild, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return storage.VersionedGuild{}, err
	}
	if g, ok := s.guilds[guild]; ok {
		return g, nil
	}
	return storage.VersionedGuild{Guild: game.Guild{Settings: s.defaults}}, nil
}

func (s *memStore) UpdateGuild(ctx context.Context, guild uint64, fn func(storage.VersionedGuild) (storage.GuildWrite, error)) (storage.VersionedGuild, error) {
	if guild == 0 {
		return storage.VersionedGuild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	for range storage.MaxAttempts {
		g, err := s.Guild(ctx, guild)
		if err != nil {
			return g, err
		}
		w, err := fn(g)
		if err != nil || w.Skip {
			return g, err
		}
		if w, err = storage.NormalizeGuild(guild, w); err != nil {
			return g, err
		}
		s.mu.Lock()
		if s.guilds[guild].Version != g.Version {
			s.mu.Unlock()
			continue
		}
		ng := storage.VersionedGuild{Guild: w.Guild, Version: g.Version + 1}
		s.guilds[guild] = ng
		if w.Audit != nil {
			s.appendAudit(guild, *w.Audit)
		}
		s.mu.Unlock()
		return ng, nil
	}
	return storage.VersionedGuild{}, fmt.Errorf("memstore: update guild %d: %w", guild, storage.ErrConflict)
}

// Jobs lists the guilds whose record has a reset-guild in progress (the
// records themselves: the memory store needs no index).
func (s *memStore) Jobs(ctx context.Context) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	var out []uint64
	for g, v := range s.guilds {
		if r := v.Reset; r != nil && !r.Finished() {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (s *memStore) Ping(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.check(ctx)
}

func (s *memStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// reopen makes a closed store usable again, as a restarted process finds
// its data.
func (s *memStore) reopen() {
	s.mu.Lock()
	s.closed = false
	s.mu.Unlock()
}

// writeCount is the number of player writes so far.
func (s *memStore) writeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// setSettings replaces a guild's settings, as another process would.
func (s *memStore) setSettings(guild uint64, set game.Settings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.guilds[guild]
	g.Settings, g.Version = set, g.Version+1
	s.guilds[guild] = g
}
