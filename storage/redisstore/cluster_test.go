package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// openFlushed returns an OpenFunc on url that empties the database (every
// master of a cluster) and then opens it: for a private cluster or Sentinel set that
// only this test uses. The store it returns is not a storage.Dumper: the
// suite's dump tests open two stores and compare them, and on one database
// (a cluster has only db 0) both would be the same data. Dumps are covered
// on a single server, where each store has a database of its own.
func openFlushed(url string) func(t *testing.T, opts storage.Options) storage.Store {
	return func(t *testing.T, opts storage.Options) storage.Store {
		t.Helper()
		ctx := context.Background()
		client, err := redisstore.NewClient(url)
		if err != nil {
			t.Fatal(err)
		}
		flush := func(ctx context.Context, c *redis.Client) error { return c.FlushDB(ctx).Err() }
		if cc, ok := client.(*redis.ClusterClient); ok {
			err = cc.ForEachMaster(ctx, flush)
		} else {
			err = client.FlushDB(ctx).Err()
		}
		client.Close()
		if err != nil {
			t.Fatal(err)
		}
		st, err := redisstore.Open(ctx, url, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return struct{ storage.Store }{st}
	}
}

func TestClusterConformance(t *testing.T) {
	storetest.Run(t, openFlushed(redistest.StartCluster(t)))
}

// A guild's keys share one slot, hence one master, and the guilds spread
// over the masters; each guild's leaderboard and log agree with its
// players.
func TestClusterKeepsAGuildOnOneNode(t *testing.T) {
	url := redistest.ClusterURL(t)
	ctx := context.Background()
	st, err := redisstore.Open(ctx, url, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// 40 random guilds leave a master without any once in millions of runs.
	const guilds, players = 40, 8
	ids := make([]uint64, guilds)
	users := []uint64{}
	for u := uint64(1); u <= players; u++ {
		users = append(users, u)
	}
	var wg sync.WaitGroup
	for i := range ids {
		ids[i] = redistest.UniqueGuild(t)
		redistest.CleanupGuild(t, url, ids[i])
		for _, u := range users {
			wg.Go(func() {
				id := storage.PlayerID{Guild: ids[i], User: u}
				steps := []storage.Step{grant(id, "g", 100), buy(id, "b"), reveal(id, "r", 1)}
				steps[0].Create, steps[0].Start, steps[0].Seeds = true, 1000, seeds()
				if u != 1 { // a moderator's grant for the first player only
					steps[0].Move = game.Grant{Amount: 100}
				}
				for _, s := range steps {
					if _, err := st.Run(ctx, s); err != nil {
						t.Errorf("player %v: %s: %v", id, s.Op, err) // not Fatal: another goroutine
						return
					}
				}
			})
		}
	}
	wg.Wait()
	var mu sync.Mutex
	where := map[uint64][]string{} // guild → the masters holding its keys
	err = st.Client().(*redis.ClusterClient).ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		for _, g := range ids {
			it := c.Scan(ctx, 0, redistest.GuildPattern(g), 1000).Iterator()
			if it.Next(ctx) {
				mu.Lock()
				where[g] = append(where[g], c.Options().Addr)
				mu.Unlock()
			}
			if err := it.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	perMaster := map[string]int{}
	for _, g := range ids {
		if len(where[g]) != 1 {
			t.Fatalf("guild %d has keys on %v, want one master", g, where[g])
		}
		perMaster[where[g][0]]++
		agree(t, st, g, users)
		if n := auditLen(t, st, g); n != 1 {
			t.Fatalf("guild %d: %d audit entries, want 1", g, n)
		}
	}
	t.Logf("guilds per master: %v", perMaster)
	if len(perMaster) != redistest.ClusterMasters {
		t.Fatalf("the guilds are on %d masters, want %d", len(perMaster), redistest.ClusterMasters)
	}
}

// On a cluster, WAIT goes to the master of the guild's slot, on the
// script's connection: a step of a guild whose master has a replica is
// acknowledged, one of a guild whose master has none is not (a pipeline
// sent WAIT to any node). Open waits for none when a master has none.
func TestClusterWaitsOnTheGuildsMaster(t *testing.T) {
	ctx := context.Background()
	url := redistest.StartClusterWithReplica(t)
	st, err := redisstore.Open(ctx, url, storage.Options{})
	if err != nil || st.MinReplicas() != 0 {
		t.Fatalf("Open: %v, waits for %d replicas, want 0", err, st.MinReplicas())
	}
	st.Close()
	st, err = redisstore.Open(ctx, url, storage.Options{}, redisstore.WithReplicaAck(1, 250*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first, _, _ := strings.Cut(strings.TrimPrefix(url, "redis+cluster://"), ",") // the replicated master
	seen := map[bool]int{}
	for g := uint64(1); g <= 12; g++ {
		m, err := st.Client().(*redis.ClusterClient).MasterForKey(ctx, fmt.Sprintf("s:{%d}", g))
		if err != nil {
			t.Fatal(err)
		}
		replicated := m.Options().Addr == first
		seen[replicated]++
		// A replica slow to acknowledge (a loaded machine) is tried again,
		// as a player would: the repeat waits for the replica too.
		_, err = st.Run(ctx, set(storage.PlayerID{Guild: g, User: 1}, "create", 100))
		for try := 1; err != nil && replicated && try < 5; try++ {
			_, err = st.Run(ctx, set(storage.PlayerID{Guild: g, User: 1}, "create", 100))
		}
		if (err == nil) != replicated {
			t.Fatalf("guild %d on %s (replicated %v): %v", g, m.Options().Addr, replicated, err)
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("guilds by replicated master: %v, want both kinds", seen)
	}
}
