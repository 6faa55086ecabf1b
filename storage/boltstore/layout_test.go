package boltstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// edit changes the bbolt file at path by hand, as docs/STORAGE.md lays it
// out, with the store closed.
func edit(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// marker returns the file's layout marker, nil if there is none.
func marker(t *testing.T, path string) []byte {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v []byte
	_ = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("meta")); b != nil {
			v = bytes.Clone(b.Get([]byte("layout")))
		}
		return nil
	})
	return v
}

// storeWithPlayer is a file of this release holding one player, 1/1.
func storeWithPlayer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clefs.db")
	fill(t, path, 1)
	return path
}

// TestLayoutMarker: a new file gets the layout marker, and so does a file
// whose buckets are all empty (0.3.0 created them at its first start);
// a marked file opens again with its records.
func TestLayoutMarker(t *testing.T) {
	want := []byte("2")
	path := storeWithPlayer(t)
	if got := marker(t, path); !bytes.Equal(got, want) {
		t.Fatalf("a new file's layout marker: %q, want %q", got, want)
	}
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatalf("a file of this layout: %v", err)
	}
	if v, err := st.Load(context.Background(), storage.PlayerID{Guild: 1, User: 1}); err != nil || !v.Exists() {
		t.Fatalf("the player after reopening: %+v, %v", v, err)
	}
	st.Close()

	empty := filepath.Join(t.TempDir(), "empty.db")
	edit(t, empty, func(tx *bolt.Tx) error {
		for _, name := range []string{"players", "history", "guilds", "board"} {
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	})
	st, err = boltstore.Open(empty, storage.Options{})
	if err != nil {
		t.Fatalf("a file of empty buckets without a marker: %v", err)
	}
	st.Close()
	if got := marker(t, empty); !bytes.Equal(got, want) {
		t.Fatalf("the layout marker given to a file of empty buckets: %q, want %q", got, want)
	}
}

// TestLayoutRefused: a file written by 0.3.0 (this layout but for the
// marker), one written before the schema (a gob player), and files marked
// with another layout are refused at Open with storage.ErrLayout, naming
// the file and the way out, and are left byte for byte as they were;
// CheckFile says the same, listing nothing.
func TestLayoutRefused(t *testing.T) {
	v030 := storeWithPlayer(t)
	edit(t, v030, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("meta")) })
	gob := filepath.Join(t.TempDir(), "gob.db")
	edit(t, gob, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("players"))
		if err != nil {
			return err
		}
		return b.Put([]byte("\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02"), []byte("\x3f\xff\x81\x03\x01\x01\x06record"))
	})
	marked := func(v string) string {
		path := storeWithPlayer(t)
		edit(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("layout"), []byte(v)) })
		return path
	}
	for _, tc := range []struct {
		name, path, says string
	}{
		{"0.3.0", v030, "no layout marker: it was written by an older release, clefs 0.3.0 or earlier"},
		{"before the schema", gob, "no layout marker: it was written by an older release, clefs 0.3.0 or earlier"},
		{"layout 1", marked("1"), `has layout "1"`},
		{"layout 3", marked("3"), `has layout "3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := boltstore.Open(tc.path, storage.Options{})
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, storage.ErrLayout) {
				t.Fatalf("Open: %v; want storage.ErrLayout", err)
			}
			// CheckFile (clefs audit) refuses it alike, and judges none of
			// its records, nor the missing bucket meta, as damage.
			var problems []string
			if cerr := boltstore.CheckFile(tc.path, func(p string) { problems = append(problems, p) }); cerr == nil || cerr.Error() != err.Error() || problems != nil {
				t.Errorf("CheckFile: %v, listing %q; want Open's error alone", cerr, problems)
			}
			for _, want := range []string{tc.path, tc.says, "this release reads layout 2", "clefs export -data " + tc.path, "clefs import", "the file was not changed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Open's error %q lacks %q", err, want)
				}
			}
			if after, err := os.ReadFile(tc.path); err != nil || !bytes.Equal(after, before) {
				t.Fatalf("a refused file was changed (%v)", err)
			}
		})
	}
}
