package storetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// The responsible-play state (game/care.go) goes through dumps whole
// (populate sets every part of it, testDumpRoundTrip checks it), and a bad
// one is refused.

func setLimits(reminder time.Duration, sets ...game.LimitSet) game.Move {
	return game.SetLimits{Sets: sets, Reminder: reminder}
}

// testCareImportRefused: a dump whose care state or house rules are bad
// is refused as ErrInvalid, naming the record, and nothing of it is
// written; a decoded dump made bad after Decode is refused by Import too.
func testCareImportRefused(t *testing.T, open OpenFunc) {
	e := dumperEnv(t, open)
	populate(t, e)
	data := writeDump(t, e.st)
	target := newEnv(t, open, defaults)
	before := writeDump(t, target.st)
	unedited, err := json.Marshal(readRawDump(t, data))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want string
		edit       func(d *rawDump)
	}{
		{"negative limit", "players[0]", func(d *rawDump) {
			d.Players[0].Player.Care.Limits["loss-week"] = schema.Limit{Amount: -100}
		}},
		{"pending not looser", "players[0]", func(d *rawDump) {
			c := d.Players[0].Player.Care
			l := c.Limits["loss-week"]
			l.Next, l.At = 2000, c.Limits["stake-day"].At
			c.Limits["loss-week"] = l
		}},
		{"reminder out of range", "players[0]", func(d *rawDump) { d.Players[0].Player.Care.Reminder = (48 * time.Hour).Milliseconds() }},
		{"unknown limit name", "players[5]", func(d *rawDump) {
			d.Players[5].Player.Care.Limits = map[string]schema.Limit{"stake-year": {Amount: 100}}
		}},
		{"house out of range", "guilds[1]", func(d *rawDump) {
			d.Guilds[1].Settings.House = &schema.HouseRules{MinInterval: (3 * time.Hour).Milliseconds()}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := readRawDump(t, data) // a fresh copy to edit
			c.edit(d)
			// Through the bytes, as clefs import reads them.
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(b, unedited) {
				t.Fatal("the edit changed nothing")
			}
			dd, err := storage.ReadDump(bytes.NewReader(b))
			wantErr(t, "ReadDump", err, storage.ErrInvalid)
			if !strings.Contains(err.Error(), c.want) || dd != nil {
				t.Fatalf("ReadDump: %v (%v), want an error naming %s and no dump", err, dd, c.want)
			}
			sameBytes(t, "a refused dump changed the store", writeDump(t, target.st), before)
		})
	}
	// Import checks each player again.
	dd := readDump(t, data)
	dd.Players[5].Player.Care.Limits[game.LimitLossDay] = game.Limit{Amount: 100, Next: 50, At: e.clock.Now()}
	err = target.st.(storage.Dumper).Import(target.ctx, dd)
	wantErr(t, "Import of an unsound care state", err, storage.ErrInvalid)
	if !strings.Contains(err.Error(), "players[5]") {
		t.Fatalf("error %q does not name players[5]", err)
	}
	sameBytes(t, "a refused import changed the store", writeDump(t, target.st), before)
}

// rawDump is a dump of version storage.DumpVersion as its JSON has it
// (docs/STORAGE.md), for tests that look into it or edit it.
type rawDump struct {
	Version int                 `json:"version"`
	Players []schema.DumpPlayer `json:"players"`
	Guilds  []schema.DumpGuild  `json:"guilds"`
}

// readRawDump parses data strictly into a rawDump: a field it does not
// know fails the test, so that nothing is lost when it is written back.
func readRawDump(t *testing.T, data []byte) *rawDump {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d rawDump
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("a dump that the suite cannot read: %v", err)
	}
	if d.Version != storage.DumpVersion {
		t.Fatalf("a dump of version %d, want %d", d.Version, storage.DumpVersion)
	}
	return &d
}
