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

// The responsible-play cases (game/care.go): the stores persist the care
// state whole, and a limit holds however many plays come at once, since
// Buy checks it in the same compare-and-set step that debits the stake.

func setLimits(now time.Time, reminder time.Duration, sets ...game.LimitSet) func(game.Player) (game.Step, error) {
	return func(p game.Player) (game.Step, error) { return p.SetLimits(sets, reminder, now) }
}

// carePopulate gives e's store players whose care state has every part
// set (limits in force and waiting, a reminder, a pause, spend and a
// session), and a guild whose settings have house rules; it returns the
// players and the guild.
func carePopulate(t *testing.T, e *env) ([]storage.PlayerID, uint64) {
	t.Helper()
	d := RandomDrawer(5)
	a, b := pid(1), storage.PlayerID{Guild: guild2, User: 2}
	for range 3 {
		e.play(a, d)
		e.play(b, d)
	}
	now := e.clock.Now()
	e.must(a, "limits", setLimits(now, 20*time.Minute,
		game.LimitSet{Kind: game.LimitStakeDay, Amount: 5000}, game.LimitSet{Kind: game.LimitLossWeek, Amount: 3000}))
	e.must(a, "raise", setLimits(now, -1, game.LimitSet{Kind: game.LimitStakeDay, Amount: 0}))
	e.must(b, "pause", func(p game.Player) (game.Step, error) { return p.Pause(now.Add(72*time.Hour), now) })
	set := game.Settings{StartingBalance: 2000, DailyAmount: 30, DailyCooldown: 20 * time.Hour,
		House: game.House{MaxStakeDay: 4000, MinInterval: 1500 * time.Millisecond, RealityPlays: 25, RealityEvery: 30 * time.Minute}}
	if _, err := e.st.UpdateGuild(e.ctx, guild2, func(storage.VersionedGuild) (storage.GuildWrite, error) {
		return storage.GuildWrite{Guild: game.Guild{Settings: set, Ops: []string{"house-1"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return []storage.PlayerID{a, b}, guild2
}

// testCareDumpRoundTrip: the care state of players and the house rules of
// guilds go through a dump and an import unchanged, and the dump says so
// in its own fields.
func testCareDumpRoundTrip(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	if _, ok := e.st.(storage.Dumper); !ok {
		t.Skip("the store is not a storage.Dumper")
	}
	ids, g := carePopulate(t, e)
	data := writeDump(t, e.st)
	raw := readRawDump(t, data)
	ra, rb := raw.Players[0].Player.Care, raw.Players[1].Player.Care
	if ra == nil || rb == nil || ra.Limits["stake-day"].At == 0 || ra.Limits["loss-week"].Amount != 3000 || ra.Reminder != (20*time.Minute).Milliseconds() ||
		ra.Spend == nil || ra.Session == nil || rb.Paused == 0 || raw.Guilds[0].Settings == nil || raw.Guilds[0].Settings.House == nil {
		t.Fatalf("the dump lacks the care state:\n%s", data)
	}
	dd := readDump(t, data)
	e2 := newEnv(t, open, defaults)
	if err := e2.st.(storage.Dumper).Import(e2.ctx, dd); err != nil {
		t.Fatal(err)
	}
	sameStores(t, e.st, e2.st, ids, []uint64{g}, storage.DumpVersion)
	if again := writeDump(t, e2.st); !bytes.Equal(again, data) {
		t.Fatalf("export → import → export differs:\n%s\n---\n%s", firstDiff(data, again), firstDiff(again, data))
	}
	// The imported rules hold: the paused player cannot play.
	_, err := e2.apply(ids[1], buy(e2.clock.Now()))
	wantErr(t, "buy of a paused player after import", err, game.ErrPaused)
}

// testCareImportRefused: a dump whose care state or house rules are bad
// is refused as ErrInvalid, naming the record, and nothing of it is
// written; a decoded dump made bad after Decode is refused by Import too.
func testCareImportRefused(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	if _, ok := e.st.(storage.Dumper); !ok {
		t.Skip("the store is not a storage.Dumper")
	}
	carePopulate(t, e)
	data := writeDump(t, e.st)
	target := newEnv(t, open, defaults)
	before := writeDump(t, target.st)
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
		{"unknown limit name", "players[1]", func(d *rawDump) {
			d.Players[1].Player.Care.Limits = map[string]schema.Limit{"stake-year": {Amount: 100}}
		}},
		{"house out of range", "guilds[0]", func(d *rawDump) {
			d.Guilds[0].Settings.House = &schema.HouseRules{MinInterval: (3 * time.Hour).Milliseconds()}
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
			if bytes.Equal(b, compact(t, data)) {
				t.Fatal("the edit changed nothing")
			}
			dd, err := storage.ReadDump(bytes.NewReader(b), Seeds(3))
			wantErr(t, "ReadDump", err, storage.ErrInvalid)
			if !strings.Contains(err.Error(), c.want) || dd != nil {
				t.Fatalf("ReadDump: %v (%v), want an error naming %s and no dump", err, dd, c.want)
			}
			if after := writeDump(t, target.st); !bytes.Equal(after, before) {
				t.Fatal("a refused dump changed the store")
			}
		})
	}
	// Import checks each player again.
	dd := readDump(t, data)
	dd.Players[1].Player.Care.Limits[game.LimitLossDay] = game.Limit{Amount: 100, Next: 50, At: e.clock.Now()}
	err := target.st.(storage.Dumper).Import(target.ctx, dd)
	wantErr(t, "Import of an unsound care state", err, storage.ErrInvalid)
	if !strings.Contains(err.Error(), "players[1]") {
		t.Fatalf("error %q does not name players[1]", err)
	}
	if after := writeDump(t, target.st); !bytes.Equal(after, before) {
		t.Fatalf("a refused import changed the store:\n%s", after)
	}
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

// compact returns the JSON data without its indentation.
func compact(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
