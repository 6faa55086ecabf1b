package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestMigrateLegacyRecord puts in Redis a player as the release before the
// schema wrote it (the golden JSON record of package legacy, with three of
// its history lines): its first read rewrites it once in the schema, its
// reveals and remembered operations beside it, and it plays on.
func TestMigrateLegacyRecord(t *testing.T) {
	payload, err := os.ReadFile("../legacy/testdata/redis-player.json")
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
	old, err := legacy.DecodeRedis(payload)
	if err != nil {
		t.Fatal(err)
	}
	want, err := old.Player.Migrate()
	if err != nil {
		t.Fatal(err)
	}
	st, _, admin := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	tag := fmt.Sprintf("{%d:%d}", id.Guild, id.User)
	if err := admin.HSet(ctx, "p:"+tag, "v", "41", "p", string(payload)).Err(); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines { // the list is newest first
		if err := admin.LPush(ctx, "h:"+tag, string(l)).Err(); err != nil {
			t.Fatal(err)
		}
	}

	v := mustLoad(t, st, id)
	if v.Version != 42 || v.Player.Balance != want.Player.Balance || v.Player.Seed != want.Player.Seed || v.Player.TicketSeq != want.Player.TicketSeq {
		t.Fatalf("migrated %+v, version %d; want %+v", v.Player, v.Version, want.Player)
	}
	p, err := admin.HGet(ctx, "p:"+tag, "p").Result()
	if err != nil || !strings.HasPrefix(p, `{"f":1,`) {
		t.Fatalf("stored payload after the migration: %.60q, %v", p, err)
	}
	if a, err := admin.HGet(ctx, "p:"+tag, "a").Result(); err != nil || a != old.Audit {
		t.Fatalf("the pending moderator log line: %q, %v; want %q", a, err, old.Audit)
	}
	rs, err := st.Reveals(ctx, id)
	if err != nil || len(rs) != len(want.Reveals) || rs[0].Seed != want.Reveals[0].Seed {
		t.Fatalf("reveals %+v, %v; want %d", rs, err, len(want.Reveals))
	}
	raw, _ := admin.LRange(ctx, "h:"+tag, 0, -1).Result()
	for _, l := range raw {
		if legacy.IsEntry([]byte(l)) {
			t.Errorf("history line not rewritten: %s", l)
		}
	}
	if h := historyLen(t, st, id); h != 3 {
		t.Fatalf("%d history lines after the migration, want 3", h)
	}
	if n, _ := admin.LLen(ctx, "q:"+tag).Result(); n != int64(len(want.Ops)) {
		t.Fatalf("%d operations remembered, want %d", n, len(want.Ops))
	}
	// A remembered operation of the old record is still a repeat.
	first := want.Ops[0]
	a, err := storage.Apply(ctx, st, grant(id, first.ID, 1))
	if err != nil || !a.Repeated || a.Result != first.Result {
		t.Fatalf("repeat of a migrated operation: %+v, %v; want its result %+v", a, err, first.Result)
	}
	a = mustApply(t, st, grant(id, "after-migration", 1))
	if a.Player.Balance != want.Player.Balance+1 {
		t.Fatalf("a grant after the migration: %+v", a.Player)
	}
	if v := mustLoad(t, st, id); v.Version != 43 {
		t.Fatalf("version %d after one write, want 43", v.Version)
	}
}

// TestRefuseUnknownRecord: a record of a format this program does not know
// is refused, named, and left as it is.
func TestRefuseUnknownRecord(t *testing.T) {
	st, _, admin := newStore(t, redistest.URL(t), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 3}
	const rec = `{"f":2,"b":100}`
	if err := admin.HSet(ctx, "p:{1:3}", "v", "5", "p", rec).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := st.Load(ctx, id)
	if err == nil || !strings.Contains(err.Error(), "p:{1:3}") || !strings.Contains(err.Error(), "field f") {
		t.Fatalf("Load of an unknown format: %v", err)
	}
	_, err = storage.Apply(ctx, st, grant(id, "g", 5))
	if err == nil {
		t.Fatal("a grant over an unknown format succeeded")
	}
	if p, _ := admin.HGet(ctx, "p:{1:3}", "p").Result(); p != rec {
		t.Fatalf("the record changed: %s", p)
	}
}
