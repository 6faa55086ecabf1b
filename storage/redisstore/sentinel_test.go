package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
		// Retried as a user would: under load, WAIT may time out.
		for try := 0; ; try++ {
			if _, err := st.Run(ctx, set(storage.PlayerID{Guild: 1, User: u}, "create", 100_000)); err == nil {
				break
			} else if try == 10 {
				t.Fatal(err)
			}
		}
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

// A write that no replica took in time is never acknowledged: not when it
// is made, nor when its operation is tried again and found written (a
// repeat, which WAIT alone would pass: the retry's connection wrote
// nothing), for a player's step and a guild's. Open waits for one replica
// when the master has one, and for none otherwise.
func TestUnreplicatedWriteIsNotAcknowledged(t *testing.T) {
	ctx := context.Background()
	for url, want := range map[string]int{redistest.URL(t): 0, redistest.SentinelURL(t): 1} {
		st, err := redisstore.Open(ctx, url, storage.Options{})
		if err != nil || st.MinReplicas() != want {
			t.Fatalf("%s: Open: %v, waits for %d replicas, want %d", redisstore.RedactURL(url), err, st.MinReplicas(), want)
		}
		st.Close()
	}
	// A server without replicas, told to wait for one.
	st, _, _ := newStore(t, redistest.URL(t), nil, redisstore.WithReplicaAck(1, 10*time.Millisecond))
	id := storage.PlayerID{Guild: 1, User: 1}
	for try := range 3 {
		a, err := st.Run(ctx, set(id, "create", 100))
		if err == nil || !strings.Contains(err.Error(), "0 of 1 replicas") {
			t.Fatalf("player, try %d: repeated %v, %v; want unacknowledged", try, a.Repeated, err)
		}
		g, err := st.RunGuild(ctx, storage.GuildStep{Guild: 1, Op: "s", Move: game.ChangeSettings{Patch: storetest.FullPatch(game.Settings{DailyAmount: 5}), Actor: 7}, Now: now})
		if err == nil || !strings.Contains(err.Error(), "0 of 1 replicas") {
			t.Fatalf("guild, try %d: repeated %v, %v; want unacknowledged", try, g.Repeated, err)
		}
	}
	if v := mustLoad(t, st, id); v.Version != 1 || v.Player.Balance != 100 {
		t.Fatalf("the master holds %+v, want the first try's write, once", v)
	}
}
