package boltstore_test

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// fill writes players players of guild 1, each with a few plays, and
// closes the store.
func fill(t *testing.T, path string, players int) {
	t.Helper()
	ctx := context.Background()
	st := openAt(t, path, storage.Options{})
	defer st.Close()
	now := storage.Timestamp(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	for u := range players {
		id := storage.PlayerID{Guild: 1, User: uint64(u + 1)}
		for k := range 3 {
			_, err := st.Run(ctx, storage.Step{ID: id, Op: "buy" + string(rune('a'+k)), Create: true, Start: 500,
				Seeds: storetest.Seeds(uint64(u)), Now: now,
				Move: game.Buy{}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDamagedPagesAreNamed: garbage over the file's pages (from offset
// 4096, as a bad disk or a stray write would leave it) makes every way in
// an error that names the file and says it is damaged, never a panic; and
// CheckFile lists the damage, by page or bucket, with no "panic" in words.
func TestDamagedPagesAreNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	fill(t, path, 200)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 64<<10)
	_, _ = rand.Read(garbage)
	if _, err := f.WriteAt(garbage, 4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(path)

	_, err = boltstore.Open(path, storage.Options{})
	if !errors.Is(err, storage.ErrDamaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "Backups and recovery") {
		t.Fatalf("Open of a damaged file: %v, want storage.ErrDamaged naming the file and the way out", err)
	}
	var problems []string
	if err := boltstore.CheckFile(path, func(p string) { problems = append(problems, p) }); err == nil && len(problems) == 0 {
		t.Fatal("CheckFile found nothing wrong in a damaged file")
	}
	for _, p := range append(problems, err.Error()) { // words for an operator: what is damaged, no panic
		if strings.Contains(p, "panic") || strings.Contains(p, "key :") || !strings.HasPrefix(p, "pages: ") && !strings.HasPrefix(p, "bucket ") && p != err.Error() {
			t.Errorf("CheckFile or Open says %q", p)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("opening or checking the damaged file changed it")
	}
}

// TestDamagedRecordIsNamed: a record that does not decode (its pages
// sound) fails only the reads of that player, naming it, and CheckFile
// lists it by its guild and user, with every other record passing.
func TestDamagedRecordIsNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	fill(t, path, 5)
	edit(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("players")).Put(playerKey(storage.PlayerID{Guild: 1, User: 3}), []byte(`{"v":3,"p":{"f":1,"b":"oops"}}`))
	})

	var problems []string
	if err := boltstore.CheckFile(path, func(p string) { problems = append(problems, p) }); err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "player 1/3") {
		t.Fatalf("CheckFile: %q, want one problem naming player 1/3", problems)
	}
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatalf("Open with one damaged record: %v", err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Load(ctx, storage.PlayerID{Guild: 1, User: 3}); err == nil || !strings.Contains(err.Error(), "1/3") {
		t.Errorf("Load of the damaged player: %v, want an error naming it", err)
	}
	if v, err := st.Load(ctx, storage.PlayerID{Guild: 1, User: 2}); err != nil || !v.Exists() {
		t.Errorf("Load of a sound player beside it: %v, %v", v, err)
	}
}

// TestDamagedRecords: storetest.Damage, with a field of a record (keep)
// or the whole record (lose) overwritten in the file, the store closed.
func TestDamagedRecords(t *testing.T) {
	var path string
	storetest.Damage(t, func(t *testing.T, opts storage.Options) storage.Store {
		path = filepath.Join(t.TempDir(), "clefs.db")
		return reopen(t, path, opts)
	}, func(t *testing.T, st storage.Store, keep, lose storage.PlayerID) storage.Store {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		edit(t, path, func(tx *bolt.Tx) error {
			players := tx.Bucket([]byte("players"))
			var rec struct {
				V uint64                     `json:"v"`
				P map[string]json.RawMessage `json:"p"`
			}
			if err := json.Unmarshal(players.Get(playerKey(keep)), &rec); err != nil {
				return err
			}
			rec.P["b"] = json.RawMessage(`"oops"`)
			v, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if err := players.Put(playerKey(keep), v); err != nil {
				return err
			}
			return players.Put(playerKey(lose), []byte("garbage"))
		})
		return reopen(t, path, storage.Options{})
	})
}

func playerKey(id storage.PlayerID) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, id.Guild), id.User)
}

func reopen(t *testing.T, path string, opts storage.Options) storage.Store {
	t.Helper()
	st := openAt(t, path, opts)
	t.Cleanup(func() { _ = st.Close() })
	return st
}
