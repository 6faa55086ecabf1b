package boltstore

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// TestIndexDrift damages the leaderboard index by hand (bolt writes it with
// the player, so only a bug or an edited file can): CheckIndex reports each
// difference, RebuildIndex repairs them all, then finds nothing to do.
func TestIndexDrift(t *testing.T) {
	ctx := context.Background()
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := storage.Timestamp(time.Now())
	for u := uint64(1); u <= 5; u++ {
		if _, err := storage.Apply(ctx, st, storage.Step{ID: storage.PlayerID{Guild: 1, User: u}, Op: "set", Create: true, Seeds: storetest.Seeds(u), Now: now,
			Do: func(p game.Player) (game.Step, error) { return p.SetBalance(int64(u)*100, now) }}); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := st.Leaderboard(ctx, 1, 10, 3)
	if err := st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBoard)
		_ = b.Delete(boardKey(storage.PlayerID{Guild: 1, User: 2}, 200))                // missing
		_ = b.Delete(boardKey(storage.PlayerID{Guild: 1, User: 4}, 400))                // wrong
		_ = b.Put(boardKey(storage.PlayerID{Guild: 1, User: 4}, 999), nil)              // …balance
		_ = b.Put(boardKey(storage.PlayerID{Guild: 1, User: 9}, 50), nil)               // no player
		_ = b.Put(boardKey(storage.PlayerID{Guild: 1, User: 5}, 7), nil)                // a second entry
		return tx.Bucket(bucketCounts).Put(guildKey(1), []byte{0, 0, 0, 0, 0, 0, 0, 9}) // wrong count
	}); err != nil {
		t.Fatal(err)
	}
	var drifts []storage.IndexDrift
	if err := st.CheckIndex(ctx, func(d storage.IndexDrift) error {
		drifts = append(drifts, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	id := func(u uint64) storage.PlayerID { return storage.PlayerID{Guild: 1, User: u} }
	want := []storage.IndexDrift{
		{ID: id(5), Balance: 500, Indexed: 7, Player: true, Index: true}, // the second entry, after the right one
		{ID: id(2), Balance: 200, Player: true},
		{ID: id(4), Balance: 400, Indexed: 999, Player: true, Index: true},
		{ID: id(9), Indexed: 50, Index: true},
	}
	if !slices.Equal(drifts, want) {
		t.Fatalf("drifts:\n got %+v\nwant %+v", drifts, want)
	}
	n, err := st.RebuildIndex(ctx)
	if err != nil || n != 6 {
		t.Fatalf("RebuildIndex: %d changes, %v; want 6", n, err)
	}
	if n, err := st.RebuildIndex(ctx); err != nil || n != 0 {
		t.Fatalf("second RebuildIndex: %d changes, %v", n, err)
	}
	after, _ := st.Leaderboard(ctx, 1, 10, 3)
	if !slices.Equal(after.Top, before.Top) || *after.You != *before.You || after.Players != 5 {
		t.Fatalf("after the repair: %+v, want %+v", after, before)
	}
}

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
	if _, err := storage.Apply(ctx, st, storage.Step{ID: id, Op: "a", Create: true, Start: 100, Seeds: storetest.Seeds(1), Now: now,
		Do: func(p game.Player) (game.Step, error) { return p.Grant(1, now) }}); err != nil {
		t.Fatal(err)
	}
	v, err := st.Load(ctx, id) // cached now
	if err != nil || v.Player.Balance != 101 {
		t.Fatalf("Load: %+v, %v", v, err)
	}
	changed := playerRec{Version: v.Version + 1, Player: v.Player}
	s, err := v.Player.Grant(10, now)
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
	a, err := storage.Apply(ctx, st, storage.Step{ID: id, Op: "b", Now: now, Do: func(p game.Player) (game.Step, error) { return p.Grant(1, now) }})
	if err != nil || a.Player.Balance != 112 {
		t.Fatalf("Apply after a change behind the cache: %+v, %v", a.Player, err)
	}
}

// TestIndexMalformedKeys: board keys of the wrong length (which boardKey
// never writes) are reported by CheckIndex, not an error, and removed by
// RebuildIndex.
func TestIndexMalformedKeys(t *testing.T) {
	ctx := context.Background()
	st, err := Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := storage.Timestamp(time.Now())
	if _, err := storage.Apply(ctx, st, storage.Step{ID: storage.PlayerID{Guild: 1, User: 1}, Op: "set", Create: true, Seeds: storetest.Seeds(1), Now: now,
		Do: func(p game.Player) (game.Step, error) { return p.SetBalance(100, now) }}); err != nil {
		t.Fatal(err)
	}
	long := append(boardKey(storage.PlayerID{Guild: 1, User: 2}, 50), 0)
	if err := st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBoard)
		if err := b.Put(long, nil); err != nil {
			return err
		}
		return b.Put([]byte("bad"), nil)
	}); err != nil {
		t.Fatal(err)
	}
	var drifts []storage.IndexDrift
	if err := st.CheckIndex(ctx, func(d storage.IndexDrift) error { drifts = append(drifts, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(drifts) != 2 || drifts[0].ID != (storage.PlayerID{Guild: 1}) || !strings.Contains(drifts[0].Malformed, "25 bytes long") ||
		drifts[1].ID != (storage.PlayerID{}) || !strings.Contains(drifts[1].Malformed, "3 bytes long") {
		t.Fatalf("drifts: %+v; want the 25-byte key of guild 1 and the 3-byte key", drifts)
	}
	if n, err := st.RebuildIndex(ctx); err != nil || n != 2 {
		t.Fatalf("RebuildIndex: %d changes, %v; want 2", n, err)
	}
	drifts = nil
	if err := st.CheckIndex(ctx, func(d storage.IndexDrift) error { drifts = append(drifts, d); return nil }); err != nil || len(drifts) != 0 {
		t.Fatalf("after RebuildIndex: %+v, %v", drifts, err)
	}
	if b, err := st.Leaderboard(ctx, 1, 10, 0); err != nil || len(b.Top) != 1 || b.Top[0].Balance != 100 {
		t.Fatalf("leaderboard after the repair: %+v, %v", b, err)
	}
}
