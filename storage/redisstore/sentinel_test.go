package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func TestSentinelConformance(t *testing.T) {
	storetest.Run(t, openFlushed(redistest.StartSentinel(t)))
}

// During a burst of plays, a Sentinel failover loses no credit: every
// player's balance still adds up (game.Player.Check), every play
// acknowledged is in its player's state, each once, the leaderboard agrees
// with the players, and plays resume within seconds.
func TestSentinelFailoverLosesNoCredit(t *testing.T) {
	url := redistest.StartSentinel(t)
	ctx := context.Background()
	st, err := redisstore.Open(ctx, url, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const players = 8
	for u := uint64(1); u <= players; u++ {
		create(t, st, storage.PlayerID{Guild: 1, User: u}, 100_000)
	}
	var (
		stop       atomic.Bool
		mu         sync.Mutex
		acked      = map[storage.PlayerID][]uint64{} // tickets revealed and acknowledged
		failedAt   []time.Time
		lastOK     atomic.Int64 // unix nanos of the last acknowledged play
		afterFail  atomic.Int64 // of the first acknowledged play after the failover
		failoverAt atomic.Int64
	)
	var wg sync.WaitGroup
	for u := uint64(1); u <= players; u++ {
		wg.Go(func() {
			id := storage.PlayerID{Guild: 1, User: u}
			for i := 0; !stop.Load(); i++ {
				// Each attempt's op IDs are its own; a failed step is
				// tried again with the same ID, as a user would.
				var tk uint64
				for try := 0; !stop.Load(); try++ {
					a, err := st.Run(ctx, buy(id, fmt.Sprint("b", i)))
					if err == nil {
						tk = a.Result.Ticket
						break
					}
					if errors.Is(err, game.ErrChestDue) { // a chest opened but not acknowledged
						_, _ = st.Run(ctx, storage.Step{ID: id, Op: fmt.Sprint("c", i, "-", try), Now: now, Move: game.OpenChest{Seq: a.Player.ChestSeq + 1}})
						continue
					}
					mu.Lock()
					failedAt = append(failedAt, time.Now())
					mu.Unlock()
					time.Sleep(50 * time.Millisecond)
				}
				for !stop.Load() {
					a, err := st.Run(ctx, reveal(id, fmt.Sprint("r", i), tk))
					if err == nil {
						mu.Lock()
						acked[id] = append(acked[id], tk)
						mu.Unlock()
						at := time.Now().UnixNano()
						lastOK.Store(at)
						if f := failoverAt.Load(); f != 0 && at > f {
							afterFail.CompareAndSwap(0, at)
						}
						for a.Player.ChestDue && !stop.Load() {
							a, err = st.Run(ctx, storage.Step{ID: id, Op: fmt.Sprint("c", i), Now: now, Move: game.OpenChest{Seq: a.Player.ChestSeq + 1}})
							if err != nil {
								time.Sleep(50 * time.Millisecond)
							}
						}
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	time.Sleep(time.Second)
	failoverAt.Store(time.Now().UnixNano())
	newMaster := redistest.Failover(t, url)
	t.Logf("failed over to %s", newMaster)
	deadline := time.Now().Add(15 * time.Second)
	for afterFail.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	if afterFail.Load() == 0 {
		t.Fatal("no play succeeded within 15s of the failover")
	}
	t.Logf("plays resumed %v after the failover began; %d failed steps retried",
		time.Duration(afterFail.Load()-failoverAt.Load()).Round(time.Millisecond), len(failedAt))
	for u := uint64(1); u <= players; u++ {
		id := storage.PlayerID{Guild: 1, User: u}
		v := mustLoad(t, st, id)
		if err := v.Player.Check(); err != nil {
			t.Fatalf("player %d: %v", u, err)
		}
		tickets := acked[id]
		if n := uint64(len(tickets)); v.Player.Stats.Plays < int64(n) || (n > 0 && v.Player.TicketSeq < tickets[n-1]) {
			t.Fatalf("player %d: %d plays acknowledged, %d kept (ticket %d): a failover lost acknowledged plays",
				u, n, v.Player.Stats.Plays, v.Player.TicketSeq)
		}
	}
	// The leaderboard and each player were written together, or not at
	// all: the failover cannot part them.
	users := make([]uint64, players)
	for i := range users {
		users[i] = uint64(i + 1)
	}
	agree(t, st, 1, users)
}
