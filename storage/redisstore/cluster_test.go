// Needs redistest.StartCluster and friends (branch h-redisinfra) and the
// new conformance suite (branch i12-bolt): remove the build tag when
// merging.

package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// openFlushed returns an OpenFunc on url that empties the database (every
// master of a cluster) first: for a private cluster or Sentinel set that
// only this test uses. The store it returns is not a storage.Dumper: the
// suite's dump tests open two stores and compare them, and on one database
// (a cluster has only db 0) both would be the same data. Dumps are covered
// on a single server, where each store has a database of its own.
func openFlushed(url string) func(t *testing.T, opts storage.Options) storage.Store {
	return func(t *testing.T, opts storage.Options) storage.Store {
		t.Helper()
		ctx := context.Background()
		st, err := redisstore.Open(ctx, url, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		flush := func(ctx context.Context, c *redis.Client) error { return c.FlushDB(ctx).Err() }
		if cc, ok := st.Client().(*redis.ClusterClient); ok {
			err = cc.ForEachMaster(ctx, flush)
		} else {
			err = st.Client().FlushDB(ctx).Err()
		}
		if err != nil {
			t.Fatal(err)
		}
		return struct {
			storage.Store
			storage.Indexer
		}{st, st}
	}
}

func TestClusterConformance(t *testing.T) {
	storetest.Run(t, openFlushed(redistest.StartCluster(t)))
}

// A guild's players spread over the cluster's masters (each player has its
// own slot), and everything the guild shares (index, log) stays right.
func TestClusterSpreadsPlayers(t *testing.T) {
	url := redistest.ClusterURL(t)
	guild := redistest.UniqueGuild(t)
	redistest.CleanupGuild(t, url, guild)
	ctx := context.Background()
	st, err := redisstore.Open(ctx, url, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const players = 300
	var wg sync.WaitGroup
	for u := uint64(1); u <= players; u++ {
		wg.Go(func() {
			id := storage.PlayerID{Guild: guild, User: u}
			steps := []storage.Step{grant(id, "g", 100)}
			steps[0].Create, steps[0].Start, steps[0].Seeds = true, 1000, seeds()
			steps = append(steps, buy(id, "b"), reveal(id, "r", 1))
			if u%50 != 0 { // a moderator's grant for one player in 50 only
				steps[0].Audit = nil
			}
			for _, s := range steps {
				if _, err := storage.Apply(ctx, st, s); err != nil {
					t.Errorf("player %d: %s: %v", u, s.Op, err) // not Fatal: another goroutine
					return
				}
			}
		})
	}
	wg.Wait()
	var mu sync.Mutex
	perMaster := map[string]int{}
	err = st.Client().(*redis.ClusterClient).ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, "p:{"+strconv.FormatUint(guild, 10)+":*", 1000).Iterator()
		n := 0
		for it.Next(ctx) {
			n++
		}
		mu.Lock()
		perMaster[c.Options().Addr] = n
		mu.Unlock()
		return it.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for addr, n := range perMaster {
		t.Logf("master %s holds %d of the guild's players", addr, n)
		if n < players/redistest.ClusterMasters/3 {
			t.Errorf("master %s holds %d players: not spread", addr, n)
		}
		total += n
	}
	if len(perMaster) != redistest.ClusterMasters || total != players {
		t.Fatalf("%d masters, %d players; want %d and %d", len(perMaster), total, redistest.ClusterMasters, players)
	}
	b, err := st.Leaderboard(ctx, guild, 5, 50)
	if err != nil || b.Players != players || b.You == nil || len(b.Top) != 5 {
		t.Fatalf("Leaderboard = %+v, %v", b, err)
	}
	if n := auditLen(t, st, guild); n != players/50 {
		t.Fatalf("%d audit entries, want %d", n, players/50)
	}
	err = st.CheckIndex(ctx, func(d storage.IndexDrift) error {
		if d.ID.Guild == guild {
			return fmt.Errorf("drift: %+v", d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
