package commands

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// size returns how many players have a lock held or waited for.
func (ls *playerLocks) size() int { ls.mu.Lock(); defer ls.mu.Unlock(); return len(ls.m) }

func TestPlayerLocksSerialiseOnePlayerOnly(t *testing.T) {
	var ls playerLocks
	ctx := context.Background()
	alice, bob := playerKey{1, 10}, playerKey{1, 11}
	unlockA, err := ls.lock(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	// Another player is not held up.
	unlockB, err := ls.lock(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	unlockB()
	// The same player waits until the holder unlocks.
	got := make(chan struct{})
	go func() {
		defer close(got)
		unlock, err := ls.lock(ctx, alice)
		if err != nil {
			t.Error(err)
			return
		}
		unlock()
	}()
	select {
	case <-got:
		t.Fatal("a second lock of the same player did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	unlockA()
	<-got
	// A waiter gives up with its context.
	unlockA, _ = ls.lock(ctx, alice)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ls.lock(cctx, alice); !errors.Is(err, context.Canceled) {
		t.Fatalf("lock with a cancelled context: %v", err)
	}
	unlockA()
	// A free lock is taken even with an ended context, so that the handler
	// runs and its store call reports the context's end.
	unlock, err := ls.lock(cctx, alice)
	if err != nil {
		t.Fatalf("free lock with a cancelled context: %v", err)
	}
	unlock()
	if n := ls.size(); n != 0 {
		t.Fatalf("%d locks kept after every holder left; memory would grow with players", n)
	}
}

func TestPlayerLocksUnderContention(t *testing.T) {
	var ls playerLocks
	var mu sync.Mutex
	inside := map[playerKey]int{}
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			k := playerKey{1, uint64(g % 4)}
			for n := range 200 {
				// Some waiters give up: the holders stay one at a time.
				if (g+n)%7 == 0 {
					ctx, cancel := context.WithTimeout(context.Background(), time.Microsecond)
					if unlock, err := ls.lock(ctx, k); err == nil {
						unlock()
					}
					cancel()
					k = playerKey{1, uint64((g + n) % 6)}
				}
				unlock, err := ls.lock(context.Background(), k)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside[k]++
				if inside[k] != 1 {
					t.Errorf("%d holders of %v at once", inside[k], k)
				}
				mu.Unlock()
				mu.Lock()
				inside[k]--
				mu.Unlock()
				unlock()
			}
		})
	}
	wg.Wait()
	if n := ls.size(); n != 0 {
		t.Fatalf("%d locks kept", n)
	}
}
