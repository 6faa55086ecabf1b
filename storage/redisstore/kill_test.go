package redisstore_test

import (
	"context"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// The crash test (storetest.Kill) on a single server, a Cluster and a
// Sentinel set: processes killed at random moments leave the players, the
// leaderboard and the audit log in agreement.

func TestKill(t *testing.T) {
	storetest.Kill(t, func(t *testing.T) (string, uint64) { return redistest.URL(t), 1 }, openAt)
}

// openAt opens a store on url, as another process does.
func openAt(url string, opts storage.Options) (storage.Store, error) {
	return redisstore.Open(context.Background(), url, opts)
}

func TestClusterKill(t *testing.T) { storetest.Kill(t, uniqueGuild(redistest.ClusterURL), openAt) }

func TestSentinelKill(t *testing.T) { storetest.Kill(t, uniqueGuild(redistest.SentinelURL), openAt) }

// uniqueGuild gives storetest.Kill a guild of its own on the server of
// urlOf, removed at the end of the test.
func uniqueGuild(urlOf func(testing.TB) string) func(*testing.T) (string, uint64) {
	return func(t *testing.T) (string, uint64) {
		url, guild := urlOf(t), redistest.UniqueGuild(t)
		redistest.CleanupGuild(t, url, guild)
		return url, guild
	}
}
