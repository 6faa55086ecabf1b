package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// TestLockHonoursTheDeadline: a step waiting for a player's lock, held by
// another step of the same process, gives up when its context ends,
// instead of staying blocked past its deadline; it holds nothing then,
// and the lock works on once released.
func TestLockHonoursTheDeadline(t *testing.T) {
	var ls playerLocks
	id := storage.PlayerID{Guild: 1, User: 2}
	unlock, err := ls.lock(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		u, err := ls.lock(ctx, id)
		if u != nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a waiter past its deadline: %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter is still blocked 10 s after its deadline")
	}
	if n := ls.waiting(); n != 1 {
		t.Fatalf("%d locks after the waiter gave up, want the held one only", n)
	}
	unlock()
	if n := ls.waiting(); n != 0 {
		t.Fatalf("%d locks after the release, want none", n)
	}
	u, err := ls.lock(context.Background(), id)
	if err != nil {
		t.Fatalf("the lock after a waiter gave up: %v", err)
	}
	u()
	// A cancelled context before the lock is free: refused at once, even
	// though the lock is free (select picks at random among ready cases,
	// so check only that it holds nothing when it fails).
	done, stop := context.WithCancel(context.Background())
	stop()
	if u, err := ls.lock(done, id); err == nil {
		u()
	}
	if n := ls.waiting(); n != 0 {
		t.Fatalf("%d locks left, want none", n)
	}
}

// waiting returns how many locks exist (held or waited for), for tests.
func (ls *playerLocks) waiting() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.m)
}
