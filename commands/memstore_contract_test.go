package commands

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The handlers' tests trust memStore to keep the parts of the store's
// contract they depend on; these tests hold it to them, through
// storage.Apply as the handlers use it.

// memApply applies do to id as the operation op, creating the player.
func memApply(s *memStore, id storage.PlayerID, op string, now time.Time, do func(game.Player) (game.Step, error)) (storage.Applied, error) {
	return storage.Apply(context.Background(), s, storage.Step{
		ID: id, Op: op, Create: true, Start: 1000, Seeds: rand.NewChaCha8([32]byte{byte(len(op)), 7}), Now: now, Do: do,
	})
}

var memNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func memGrant(amount int64) func(game.Player) (game.Step, error) {
	return func(p game.Player) (game.Step, error) { return p.Grant(amount, memNow) }
}

func memHistory(t *testing.T, s *memStore, id storage.PlayerID) []game.Entry {
	t.Helper()
	h, err := s.History(context.Background(), id, storage.HistoryLimit+10)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestMemStoreRepeatedOperation: an operation remembered is answered with
// its first result and writes nothing, however the transition would
// answer now; an operation that failed or skipped is not remembered.
func TestMemStoreRepeatedOperation(t *testing.T) {
	s := newMemStore(testDefaults)
	id := storage.PlayerID{Guild: testGuild, User: alice}
	first, err := memApply(s, id, "op-1", memNow, memGrant(100))
	if err != nil || first.Repeated || first.Result.Balance != 1100 {
		t.Fatalf("first grant: %+v, %v", first, err)
	}
	v0, _ := s.Load(context.Background(), id)
	writes, lines := s.writeCount(), len(memHistory(t, s, id))

	// Another transition under the same operation: the first result.
	again, err := memApply(s, id, "op-1", memNow, memGrant(5))
	if err != nil || !again.Repeated || again.Result != first.Result || len(again.History) != 0 {
		t.Fatalf("repeat: %+v, %v; want the first result %+v", again, err, first.Result)
	}
	// Even a transition that fails now.
	boom := errors.New("boom")
	again, err = memApply(s, id, "op-1", memNow, func(p game.Player) (game.Step, error) { return game.Step{Player: p}, boom })
	if err != nil || !again.Repeated || again.Result != first.Result {
		t.Fatalf("repeat of a transition that fails now: %+v, %v", again, err)
	}
	v, _ := s.Load(context.Background(), id)
	if v.Version != v0.Version || v.Player.Balance != 1100 || s.writeCount() != writes || len(memHistory(t, s, id)) != lines {
		t.Fatalf("a repeat wrote: version %d → %d, balance %d, writes %d → %d", v0.Version, v.Version, v.Player.Balance, writes, s.writeCount())
	}

	// A failed operation is not remembered: its retry applies.
	if _, err := memApply(s, id, "op-2", memNow, func(p game.Player) (game.Step, error) { return game.Step{Player: p}, boom }); !errors.Is(err, boom) {
		t.Fatalf("failing transition: %v", err)
	}
	if a, err := memApply(s, id, "op-2", memNow, memGrant(1)); err != nil || a.Repeated || a.Player.Balance != 1101 {
		t.Fatalf("retry of a failed operation: %+v, %v", a, err)
	}
	// Nor is one whose write was skipped.
	v, err = s.Update(context.Background(), id, "op-3", func(storage.Versioned) (storage.Write, error) { return storage.Write{Skip: true}, nil })
	if err != nil || v.Repeat != nil {
		t.Fatalf("skipped update: %+v, %v", v, err)
	}
	if a, err := memApply(s, id, "op-3", memNow, memGrant(1)); err != nil || a.Repeated || a.Player.Balance != 1102 {
		t.Fatalf("operation after a skipped update: %+v, %v", a, err)
	}
	// Operations are the player's own.
	bob := storage.PlayerID{Guild: testGuild, User: alice + 1}
	if a, err := memApply(s, bob, "op-1", memNow, memGrant(100)); err != nil || a.Repeated || !a.Created {
		t.Fatalf("another player's op-1: %+v, %v", a, err)
	}
	// An operation ID out of bounds is refused, writing nothing.
	writes = s.writeCount()
	long := strings.Repeat("x", game.MaxOpID+1)
	if _, err := s.Update(context.Background(), id, long, func(v storage.Versioned) (storage.Write, error) {
		return storage.Write{Player: v.Player}, nil
	}); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("Update with an operation of %d bytes: %v, want game.ErrInvalid", len(long), err)
	}
	if _, err := memApply(s, id, long, memNow, memGrant(1)); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("Apply with an operation of %d bytes: %v, want game.ErrInvalid", len(long), err)
	}
	if s.writeCount() != writes {
		t.Errorf("refused operations wrote %d times", s.writeCount()-writes)
	}
	if v, _ := s.Load(context.Background(), id); v.Player.Balance != 1102 {
		t.Errorf("refused operations changed the balance to %d", v.Player.Balance)
	}
}

// TestMemStoreRemembersTheLastMaxOps: the oldest operation is forgotten
// once game.MaxOps newer ones are remembered, and only then.
func TestMemStoreRemembersTheLastMaxOps(t *testing.T) {
	s := newMemStore(testDefaults)
	id := storage.PlayerID{Guild: testGuild, User: alice}
	for i := range game.MaxOps {
		if _, err := memApply(s, id, fmt.Sprintf("op-%d", i), memNow, memGrant(1)); err != nil {
			t.Fatal(err)
		}
	}
	// All game.MaxOps are remembered; the oldest answers its first result.
	a, err := memApply(s, id, "op-0", memNow, memGrant(1))
	if err != nil || !a.Repeated || a.Result.Balance != 1001 {
		t.Fatalf("op-0 after %d operations: %+v, %v", game.MaxOps, a, err)
	}
	// One more: op-0 falls out, op-1 stays.
	if _, err := memApply(s, id, "op-new", memNow, memGrant(1)); err != nil {
		t.Fatal(err)
	}
	if a, err := memApply(s, id, "op-1", memNow, memGrant(1)); err != nil || !a.Repeated || a.Result.Balance != 1002 {
		t.Fatalf("op-1 after %d newer operations: %+v, %v", game.MaxOps-1, a, err)
	}
	before, _ := s.Load(context.Background(), id)
	a, err = memApply(s, id, "op-0", memNow, memGrant(1))
	if err != nil || a.Repeated || a.Player.Balance != before.Player.Balance+1 {
		t.Fatalf("op-0 after %d newer operations: %+v, %v; want it applied again", game.MaxOps, a, err)
	}
}

// TestMemStoreRepeatRacingTheWrite: when another writer applies the same
// operation between fn and the compare-and-set, the operation is found
// under the lock: the other writer's result, and nothing written twice.
func TestMemStoreRepeatRacingTheWrite(t *testing.T) {
	s := newMemStore(testDefaults)
	id := storage.PlayerID{Guild: testGuild, User: alice}
	if _, err := memApply(s, id, "create", memNow, memGrant(1)); err != nil {
		t.Fatal(err)
	}
	var other storage.Applied
	s.interfere = func(storage.PlayerID) {
		s.interfere = nil // the other writer is not interfered with
		var err error
		if other, err = memApply(s, id, "click", memNow, memGrant(7)); err != nil || other.Repeated {
			t.Errorf("the other writer: %+v, %v", other, err)
		}
	}
	a, err := memApply(s, id, "click", memNow, memGrant(100))
	if err != nil || !a.Repeated || a.Result != other.Result {
		t.Fatalf("the racing write: %+v, %v; want the other writer's result %+v", a, err, other.Result)
	}
	if v, _ := s.Load(context.Background(), id); v.Player.Balance != 1008 || v.Player.Stats.GrantedCents != 8 {
		t.Fatalf("balance %d, granted %d: want the one grant of the other writer", v.Player.Balance, v.Player.Stats.GrantedCents)
	}

	// Another operation racing a write is applied again on the new state.
	s.interfere = func(storage.PlayerID) {
		s.interfere = nil
		if _, err := memApply(s, id, "other", memNow, memGrant(7)); err != nil {
			t.Error(err)
		}
	}
	if a, err := memApply(s, id, "mine", memNow, memGrant(100)); err != nil || a.Repeated || a.Player.Balance != 1115 {
		t.Fatalf("a write racing another operation: %+v, %v", a, err)
	}
}

// TestMemStoreKeepsTheLastReveals: every rotation's reveal is kept beside
// the player, the last game.MaxReveals of them, oldest first, chained to
// the player's seeds; a repeated rotation keeps nothing more.
func TestMemStoreKeepsTheLastReveals(t *testing.T) {
	s := newMemStore(testDefaults)
	id := storage.PlayerID{Guild: testGuild, User: alice}
	seeds := rand.NewChaCha8([32]byte{3})
	rotate := func(op string) storage.Applied {
		t.Helper()
		next, err := game.NewSeed(seeds)
		if err != nil {
			t.Fatal(err)
		}
		a, err := memApply(s, id, op, memNow, func(p game.Player) (game.Step, error) { return p.Rotate(next, memNow) })
		if err != nil {
			t.Fatalf("rotate %s: %v", op, err)
		}
		return a
	}
	if rs, err := s.Reveals(context.Background(), id); err != nil || len(rs) != 0 {
		t.Fatalf("reveals of a player never written: %v, %v", rs, err)
	}
	first := rotate("rot-0")
	rs, err := s.Reveals(context.Background(), id)
	if err != nil || len(rs) != 1 || rs[0].No != first.Result.Seed || rs[0].Seed == first.Player.Seed {
		t.Fatalf("after a rotation: %+v, %v (result %+v)", rs, err, first.Result)
	}
	// The reveal is the seed the player had: its commitment was shown.
	if err := first.Player.CheckReveals(rs); err != nil {
		t.Fatal(err)
	}
	if again := rotate("rot-0"); !again.Repeated {
		t.Fatalf("repeated rotation: %+v", again)
	}
	if rs, _ := s.Reveals(context.Background(), id); len(rs) != 1 {
		t.Fatalf("a repeated rotation kept %d reveals", len(rs))
	}
	// A caller's changes to what Reveals returned are its own.
	rs[0].No = 99
	if again, _ := s.Reveals(context.Background(), id); again[0].No == 99 {
		t.Fatal("Reveals returned the store's own slice")
	}

	var last storage.Applied
	for i := 1; i <= game.MaxReveals+2; i++ {
		last = rotate(fmt.Sprintf("rot-%d", i))
	}
	rs, err = s.Reveals(context.Background(), id)
	if err != nil || len(rs) != game.MaxReveals {
		t.Fatalf("after %d rotations: %d reveals kept, want %d (%v)", game.MaxReveals+3, len(rs), game.MaxReveals, err)
	}
	for i, r := range rs {
		if want := last.Player.SeedNo - int64(game.MaxReveals) + int64(i); r.No != want {
			t.Fatalf("reveals[%d] is seed %d, want %d: oldest first, the last %d", i, r.No, want, game.MaxReveals)
		}
	}
	if err := last.Player.CheckReveals(rs); err != nil {
		t.Fatalf("the kept reveals do not chain to the player: %v", err)
	}
	if r, ok := rs.Last(); !ok || r.No != last.Result.Seed {
		t.Fatalf("last reveal %+v, want seed %d", r, last.Result.Seed)
	}
}

// TestMemStoreHistoryBounded: the store keeps the last storage.HistoryLimit
// lines, newest first.
func TestMemStoreHistoryBounded(t *testing.T) {
	s := newMemStore(testDefaults)
	id := storage.PlayerID{Guild: testGuild, User: alice}
	n := storage.HistoryLimit + 5
	for i := range n {
		if _, err := memApply(s, id, fmt.Sprintf("op-%d", i), memNow, memGrant(int64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	h := memHistory(t, s, id)
	if len(h) != storage.HistoryLimit {
		t.Fatalf("%d lines kept, want %d", len(h), storage.HistoryLimit)
	}
	for i, e := range h {
		if want := int64(n - i); e.Kind != game.KindGrant || e.Amount != want {
			t.Fatalf("line %d: %s of %d, want the grant of %d (newest first)", i, e.Kind, e.Amount, want)
		}
	}
	if h, err := s.History(context.Background(), id, 3); err != nil || len(h) != 3 || h[0].Amount != int64(n) {
		t.Fatalf("History(3): %+v, %v", h, err)
	}
}
