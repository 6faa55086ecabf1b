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

func TestClusterKill(t *testing.T) {
	storetest.Kill(t, func(t *testing.T) (string, uint64) {
		url, guild := redistest.ClusterURL(t), redistest.UniqueGuild(t)
		redistest.CleanupGuild(t, url, guild)
		return url, guild
	}, openAt)
}

func TestSentinelKill(t *testing.T) {
	storetest.Kill(t, func(t *testing.T) (string, uint64) {
		url, guild := redistest.SentinelURL(t), redistest.UniqueGuild(t)
		redistest.CleanupGuild(t, url, guild)
		return url, guild
	}, openAt)
}
