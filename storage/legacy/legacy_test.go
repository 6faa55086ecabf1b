package legacy_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
)

// The golden files are records that the release before the schema wrote
// (its own code, run once): the same player as the embedded store's gob
// and as the Redis store's JSON, and three of its history lines.
func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGoldenRecordsMigrate(t *testing.T) {
	bolt, err := legacy.DecodeBolt(read(t, "bolt-player.gob"))
	if err != nil {
		t.Fatal(err)
	}
	rb := read(t, "redis-player.json")
	if !legacy.IsRedis(rb) {
		t.Fatal("the Redis golden record is not recognised as legacy")
	}
	redis, err := legacy.DecodeRedis(rb)
	if err != nil {
		t.Fatal(err)
	}
	if bolt.Version != 41 || bolt.HSeq != 14 {
		t.Errorf("bolt record version %d, history seq %d; want 41, 14", bolt.Version, bolt.HSeq)
	}
	if redis.Audit == "" || redis.Write != "GOLDENWRITETOKEN" {
		t.Errorf("Redis record audit %q, write %q", redis.Audit, redis.Write)
	}
	if !reflect.DeepEqual(bolt.Player, redis.Player) {
		t.Fatal("the gob and the JSON golden records decode to different players")
	}
	m, err := bolt.Player.Migrate()
	if err != nil {
		t.Fatal(err)
	}
	// What the generator did: 13 tickets, two rotations, limits, a grant,
	// the last ticket drawn with one row shown (player-fields.json).
	var want struct {
		Balance, StartingBalance int64
		TicketSeq                uint64
		SeedNo                   int64
		ClientSeed               string
		Revealed                 []struct{ No int64 }
		Ops                      []struct{ ID string }
		Care                     struct{ Reminder int64 }
	}
	if err := json.Unmarshal(read(t, "player-fields.json"), &want); err != nil {
		t.Fatal(err)
	}
	p := m.Player
	if p.Balance != want.Balance || p.StartingBalance != want.StartingBalance || p.TicketSeq != want.TicketSeq ||
		p.SeedNo != want.SeedNo || p.ClientSeed != want.ClientSeed || int64(p.Care.Reminder) != want.Care.Reminder {
		t.Errorf("migrated %+v, want %+v", p, want)
	}
	if len(m.Reveals) != len(want.Revealed) || len(m.Reveals) != 2 || m.Reveals[1].No != want.Revealed[1].No {
		t.Errorf("%d reveals, want %d", len(m.Reveals), len(want.Revealed))
	}
	if len(m.Ops) != len(want.Ops) || m.Ops[0].ID != want.Ops[0].ID || m.Ops[0].Result.Amount != -game.Stake {
		t.Errorf("%d operations (first %+v), want %d", len(m.Ops), m.Ops[0], len(want.Ops))
	}
	if p.Ticket == nil || !p.Ticket.Drawn || p.Ticket.Revealed != 0b001 || p.Care.Limits[game.LimitStakeDay].Amount != 5000 {
		t.Errorf("ticket %+v, limits %+v", p.Ticket, p.Care.Limits)
	}
}

func TestGoldenHistoryLines(t *testing.T) {
	var lines []json.RawMessage
	if err := json.Unmarshal(read(t, "history-lines.json"), &lines); err != nil {
		t.Fatal(err)
	}
	kinds := []game.Kind{game.KindPlay, game.KindGrant, game.KindPlay}
	for i, l := range lines {
		if !legacy.IsEntry(l) {
			t.Fatalf("line %d not recognised as legacy", i)
		}
		e, err := legacy.DecodeEntry(l)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != kinds[i] || e.At.IsZero() {
			t.Errorf("line %d: %+v", i, e)
		}
		if e.Kind == game.KindPlay && (!e.Fair || e.TicketID == 0 || e.Grid == (game.Grid{})) {
			t.Errorf("line %d: a play without its verification data: %+v", i, e)
		}
	}
}
