package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
)

// TestMigrateGobRecords opens a file holding a player as the release
// before the schema wrote it (the golden gob record of package legacy,
// with three of its history lines): Open rewrites it once in the schema,
// its reveals and remembered operations beside it, and it plays on.
func TestMigrateGobRecords(t *testing.T) {
	gobRec, err := os.ReadFile("../legacy/testdata/bolt-player.gob")
	if err != nil {
		t.Fatal(err)
	}
	linesJSON, err := os.ReadFile("../legacy/testdata/history-lines.json")
	if err != nil {
		t.Fatal(err)
	}
	var lines []json.RawMessage
	if err := json.Unmarshal(linesJSON, &lines); err != nil {
		t.Fatal(err)
	}
	old, err := legacy.DecodeBolt(gobRec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := old.Player.Migrate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clefs.db")
	id := storage.PlayerID{Guild: 1, User: 2}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		pk := playerKey(id)
		for i, l := range lines {
			if err := tx.Bucket(bucketHistory).Put(seqKey(pk, uint64(i+1)), l); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketPlayers).Put(pk, gobRec)
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Migrated != 1 {
		t.Fatalf("Open migrated %d players, want 1", st.Migrated)
	}
	ctx := context.Background()
	v, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Version != old.Version || v.Player.Balance != want.Player.Balance || v.Player.TicketSeq != want.Player.TicketSeq || v.Player.Seed != want.Player.Seed {
		t.Fatalf("migrated player %+v, version %d; want %+v, version %d", v.Player, v.Version, want.Player, old.Version)
	}
	rs, err := st.Reveals(ctx, id)
	if err != nil || len(rs) != len(want.Reveals) || rs[len(rs)-1].Seed != want.Reveals[len(want.Reveals)-1].Seed {
		t.Fatalf("reveals %+v, %v; want %d", rs, err, len(want.Reveals))
	}
	hist, err := st.History(ctx, id, 10)
	if err != nil || len(hist) != 3 || hist[0].Kind != game.KindPlay || !hist[2].Fair {
		t.Fatalf("history %+v, %v", hist, err)
	}
	if err := st.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketHistory).ForEach(func(k, v []byte) error {
			if legacy.IsEntry(v) {
				t.Errorf("history line %x not rewritten: %s", k, v)
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	// A remembered operation of the old record is still a repeat.
	first := want.Ops[len(want.Ops)-1]
	now := time.Now()
	a, err := storage.Apply(ctx, st, storage.Step{ID: id, Op: first.ID, Now: now, Do: func(p game.Player) (game.Step, error) { return p.Grant(1, now) }})
	if err != nil || !a.Repeated || a.Result != first.Result {
		t.Fatalf("repeat of a migrated operation: %+v, %v; want its result %+v", a, err, first.Result)
	}
	// The player plays on, and a second Open migrates nothing.
	a, err = storage.Apply(ctx, st, storage.Step{ID: id, Op: "after", Now: now, Do: func(p game.Player) (game.Step, error) { return p.Grant(1, now) }})
	if err != nil || a.Player.Balance != want.Player.Balance+1 {
		t.Fatalf("a grant after the migration: %+v, %v", a.Player, err)
	}
	var raw []byte
	_ = st.db.View(func(tx *bolt.Tx) error { raw = bytes.Clone(tx.Bucket(bucketPlayers).Get(playerKey(id))); return nil })
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte(`{"v":`)) {
		t.Fatalf("stored record %q is not the schema's envelope", raw)
	}
	st, err = Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Migrated != 0 {
		t.Fatalf("second Open migrated %d players", st.Migrated)
	}
}

// TestOpenRefusesBrokenLegacy: a record that is neither the schema nor a
// readable legacy record stops Open, naming the player, and the file is
// left as it was.
func TestOpenRefusesBrokenLegacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucketIfNotExists(bucketPlayers)
		return b.Put(playerKey(storage.PlayerID{Guild: 5, User: 6}), []byte{0x13, 0x37})
	})
	_ = db.Close()
	if _, err := Open(path, storage.Options{}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("5/6")) {
		t.Fatalf("Open over a broken record: %v; want an error naming player 5/6", err)
	}
}
