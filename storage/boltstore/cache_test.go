package boltstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// TestRecordCacheNeverStale: a player changed behind the cache's back (here
// by hand; in production nothing else writes the file) is read as stored.
func TestRecordCacheNeverStale(t *testing.T) {
	ctx := context.Background()
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := storage.PlayerID{Guild: 1, User: 2}
	now := storage.Timestamp(time.Now())
	if _, err := st.Run(ctx, storage.Step{ID: id, Op: "a", Create: true, Start: 100, Seeds: storetest.Seeds(1), Now: now,
		Move: game.Grant{Amount: 1}}); err != nil {
		t.Fatal(err)
	}
	v, err := st.Load(ctx, id) // cached now
	if err != nil || v.Player.Balance != 101 {
		t.Fatalf("Load: %+v, %v", v, err)
	}
	changed := playerRec{Version: v.Version + 1, Player: v.Player}
	s, err := game.Apply(v.Player, game.Grant{Amount: 10}, now)
	if err != nil {
		t.Fatal(err)
	}
	changed.Player = s.Player
	raw, err := encodePlayer(changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketPlayers).Put(playerKey(id), raw) }); err != nil {
		t.Fatal(err)
	}
	if v, err := st.Load(ctx, id); err != nil || v.Player.Balance != 111 || v.Version != changed.Version {
		t.Fatalf("Load after a change behind the cache: %+v, %v", v, err)
	}
	a, err := st.Run(ctx, storage.Step{ID: id, Op: "b", Now: now, Move: game.Grant{Amount: 1}})
	if err != nil || a.Player.Balance != 112 {
		t.Fatalf("Apply after a change behind the cache: %+v, %v", a.Player, err)
	}
}
