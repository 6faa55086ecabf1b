package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func TestConformance(t *testing.T) { storetest.Run(t, open) }

// open is the conformance suite's OpenFunc: a store on a fresh database.
func open(t *testing.T, opts storage.Options) storage.Store {
	t.Helper()
	return mustOpen(t, redistest.URL(t), opts)
}

// TestDamagedRecords: storetest.Damage, with a record's field p (keep) or
// its fields p, s and v (lose) overwritten by hand, as an operator might,
// then the store opened again (its cache knows the records as it wrote
// them).
func TestDamagedRecords(t *testing.T) {
	var url string
	storetest.Damage(t, func(t *testing.T, opts storage.Options) storage.Store {
		url = redistest.URL(t)
		return mustOpen(t, url, opts)
	}, func(t *testing.T, st storage.Store, keep, lose storage.PlayerID) storage.Store {
		o, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(o)
		defer c.Close()
		ctx := context.Background()
		key := func(id storage.PlayerID) string { return fmt.Sprintf("p:{%d}:%d", id.Guild, id.User) }
		if err := c.HSet(ctx, key(keep), "p", "garbage").Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.HSet(ctx, key(lose), "p", `{"f":1,"b":"oops"}`, "s", "{", "v", "x1").Err(); err != nil {
			t.Fatal(err)
		}
		_ = st.Close()
		return mustOpen(t, url, storage.Options{})
	})
}

func mustOpen(t *testing.T, url string, opts storage.Options) storage.Store {
	t.Helper()
	st, err := openAt(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}
