package backend_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

func TestOpenBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "clefs.db")
	defaults := game.Settings{StartingBalance: 1234, DailyAmount: 5, DailyCooldown: time.Hour}
	st, err := backend.Open(context.Background(), "", path, storage.Options{Defaults: defaults})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*boltstore.Store); !ok {
		t.Fatalf("Open without a URL gave %T", st)
	}
	if _, ok := st.(storage.Dumper); !ok {
		t.Fatalf("%T is not a storage.Dumper", st)
	}
	if g, err := st.Guild(context.Background(), 1); err != nil || g.Settings != defaults {
		t.Fatalf("a new guild's settings: %+v, %v; want the defaults %+v", g.Settings, err, defaults)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file %v, %v; want mode 600", fi, err)
	}
}

func TestOpenRedis(t *testing.T) {
	st, err := backend.Open(context.Background(), redistest.URL(t), "unused", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*redisstore.Store); !ok {
		t.Fatalf("Open with a URL gave %T", st)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := backend.Open(ctx, "localhost:6379", "", storage.Options{}); err == nil {
		t.Error("Open accepted a URL without a scheme")
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.Open(ctx, "", filepath.Join(file, "clefs.db"), storage.Options{}); err == nil {
		t.Error("Open accepted a data path under a file")
	}
}

func TestDescribe(t *testing.T) {
	abs, err := filepath.Abs("data/x.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ url, path, want string }{
		{"redis://:s3cret@host:6379/0", "ignored", "redis://:xxxxx@host:6379/0"},
		{"redis+sentinel://u:s3cret@h1:26379,h2:26379/0?master_name=m&password=s3cret", "", "xxxxx"},
		{"redis+cluster://:s3cret@h1:7000,h2:7000", "", "h1:7000"},
		{"", "data/x.db", "embedded file " + abs},
	} {
		got := backend.Describe(tt.url, tt.path)
		if !strings.Contains(got, tt.want) || strings.Contains(got, "s3cret") {
			t.Errorf("Describe(%q, %q) = %q, want it to contain %q and no password", tt.url, tt.path, got, tt.want)
		}
	}
}
