package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestLayout: Open records the layout in a database this project never
// wrote and opens one that has it; it refuses, rewriting nothing, one that
// a release of another layout wrote (0.3.0's keys, without the marker) and
// one whose marker names another layout, with an error that names the key
// and the way out.
func TestLayout(t *testing.T) {
	ctx := context.Background()
	want := strconv.Itoa(storage.LayoutVersion)
	for _, tc := range []struct {
		name   string
		keys   map[string]string // written before Open
		refuse string            // what the refusal names; "" if Open succeeds
	}{
		{"empty", nil, ""},
		{"another application's keys", map[string]string{"session:abc": "x", "q:{x}": "y"}, ""},
		{"marked", map[string]string{"clefs:layout": want, "p:{1}:2": "x"}, ""},
		{"0.3.0 player", map[string]string{"p:{1:2}": "x"}, `"p:{1:2}" and no clefs:layout`},
		{"0.3.0 guild", map[string]string{"s:{1}": "x"}, `"s:{1}" and no clefs:layout`},
		{"another layout", map[string]string{"clefs:layout": "3"}, `clefs:layout is "3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := redistest.URL(t)
			o, err := redis.ParseURL(url)
			if err != nil {
				t.Fatal(err)
			}
			admin := redis.NewClient(o)
			defer admin.Close()
			for k, v := range tc.keys {
				if err := admin.Set(ctx, k, v, 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			st, err := redisstore.Open(ctx, url, storage.Options{})
			if tc.refuse != "" {
				if err == nil {
					st.Close()
					t.Fatal("Open succeeded")
				}
				if !errors.Is(err, storage.ErrLayout) || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), "clefs import") {
					t.Fatalf("Open: %v; want storage.ErrLayout naming %s and clefs import", err, tc.refuse)
				}
				if n, _ := admin.DBSize(ctx).Result(); n != int64(len(tc.keys)) {
					t.Fatalf("%d keys after the refusal, want the %d there were", n, len(tc.keys))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			if v, err := admin.Get(ctx, "clefs:layout").Result(); err != nil || v != want {
				t.Fatalf("clefs:layout = %q, %v; want %s", v, err, want)
			}
			st, err = redisstore.Open(ctx, url, storage.Options{}) // again, with the marker
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		})
	}
}

// TestRefuseUnknownRecord: a record of a format this program does not know
// is refused, named, and left as it is.
func TestRefuseUnknownRecord(t *testing.T) {
	st, _, admin := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 3}
	const rec = `{"f":2,"b":100}`
	if err := admin.HSet(ctx, "p:{1}:3", "v", "5", "p", rec).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := st.Load(ctx, id)
	if err == nil || !strings.Contains(err.Error(), "p:{1}:3") || !strings.Contains(err.Error(), "field f") {
		t.Fatalf("Load of an unknown format: %v", err)
	}
	if _, err := st.Run(ctx, grant(id, "g", 5)); err == nil {
		t.Fatal("a grant over an unknown format succeeded")
	}
	if p, _ := admin.HGet(ctx, "p:{1}:3", "p").Result(); p != rec {
		t.Fatalf("the record changed: %s", p)
	}
}
