package storage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// dumpOf returns the version 4 dump of the players.
func dumpOf(t *testing.T, players ...storage.DecodedPlayer) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := storage.EncodeDump(&b, &storage.DecodedDump{Players: players}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDumpV4RoundTrip(t *testing.T) {
	p := carePlayer(t)
	h := []game.Entry{{At: at, Kind: game.KindPause, Balance: p.Balance}}
	in := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 812345678901234567, User: 2}, Player: p, History: h}
	b := dumpOf(t, in)
	if !bytes.Contains(b, []byte(`"version": 4`)) || !bytes.Contains(b, []byte(`"guild": "812345678901234567"`)) {
		t.Fatalf("dump %s", b)
	}
	d, err := storage.ReadDump(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != storage.DumpVersion || len(d.Players) != 1 || !reflect.DeepEqual(d.Players[0], in) {
		t.Fatalf("read back %+v\nwant %+v", d.Players, in)
	}
}

// TestDumpRefusesWhatTheBotCannotCarry: the dumps the previous release
// imported although the bot could not play them (a ticket or chest number
// at 2^63−1) are refused, in version 3 as in version 4, naming the record.
func TestDumpRefusesWhatTheBotCannotCarry(t *testing.T) {
	p := validPlayer(t)
	id := storage.PlayerID{Guild: 1, User: 2}
	for _, edit := range []struct {
		name string
		f    func(r *storage.Record)
		want string
	}{
		{"ticket_seq", func(r *storage.Record) { r.TicketSeq = 1<<63 - 1 }, "beyond"},
		{"chest_seq", func(r *storage.Record) { r.ChestSeq = 1<<63 - 1; r.ChestPending = true; r.Keys = 0 }, "beyond"},
	} {
		t.Run("v3 "+edit.name, func(t *testing.T) {
			r := storetest.NewRecord(id, p, nil)
			edit.f(&r)
			b, _ := json.Marshal(storage.Dump{Version: storage.LegacyDumpVersion, Players: []storage.Record{r}})
			_, err := storage.ReadDump(bytes.NewReader(b), nil)
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "players[0] (guild 1, user 2)") || !strings.Contains(err.Error(), edit.want) {
				t.Fatalf("ReadDump: %v", err)
			}
		})
	}
	good := dumpOf(t, storage.DecodedPlayer{ID: id, Player: p})
	for _, c := range []struct{ name, from, to, want string }{
		{"tn", `"tn": 4`, `"tn": 9223372036854775807`, "field tn"},
		{"cn", `"cn": 1`, `"cn": 9223372036854775807`, "field cn"},
		{"unknown field", `"tn": 4`, `"tn": 4, "xx": 1`, `"xx"`},
		{"unknown format", `"f": 1`, `"f": 9`, "field f"},
		{"bad user", `"user": "2"`, `"user": "0"`, "field user"},
		{"unknown version", `"version": 4`, `"version": 5`, "want 1 to 4"},
	} {
		t.Run("v4 "+c.name, func(t *testing.T) {
			b := bytes.Replace(good, []byte(c.from), []byte(c.to), 1)
			if bytes.Equal(b, good) {
				t.Fatalf("%q not in the dump %s", c.from, good)
			}
			d, err := storage.ReadDump(bytes.NewReader(b), nil)
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) || d != nil {
				t.Fatalf("ReadDump: %v; want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

// TestDumpV4Guilds: a version 4 dump's guilds are in the schema (the
// guild's ID a string, its settings as a guild record's s, its log oldest
// first, without the ids the Redis store gives its lines); they read back
// as they were, and a wrong one is refused naming the guild and the field.
func TestDumpV4Guilds(t *testing.T) {
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: 90 * time.Minute, PublicPlays: true, Channel: 1234567890123456789,
		House: game.House{MaxStakeDay: 4000, MinInterval: 3 * time.Second, RealityPlays: 40, RealityEvery: 45 * time.Minute}}
	g := storage.DecodedGuild{Guild: 812345678901234567, Settings: &set, Audit: []game.AuditEntry{
		{At: at, Guild: 812345678901234567, Actor: 9, Action: game.ActionSettings, Reason: "first"},
		{At: at.Add(time.Hour), Guild: 812345678901234567, Actor: 9, Target: 11, Action: game.ActionGrant, Amount: 300, Reason: "second"},
	}}
	none := storage.DecodedGuild{Guild: 3, Audit: []game.AuditEntry{{At: at, Guild: 3, Actor: 9, Action: game.ActionLiftPause}}}
	var buf bytes.Buffer
	if err := storage.EncodeDump(&buf, &storage.DecodedDump{Guilds: []storage.DecodedGuild{g, none}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	var raw struct {
		Guilds []schema.DumpGuild `json:"guilds"`
	}
	if err := json.Unmarshal(good, &raw); err != nil {
		t.Fatal(err)
	}
	if want := schema.NewDumpGuild(g.Guild, g.Settings, g.Audit); !reflect.DeepEqual(raw.Guilds[0], want) || raw.Guilds[1].Settings != nil {
		t.Fatalf("dump's guilds %+v; want %+v first", raw.Guilds, want)
	}
	d, err := storage.ReadDump(bytes.NewReader(good), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Guilds) != 2 || !reflect.DeepEqual(d.Guilds[0], g) || !reflect.DeepEqual(d.Guilds[1], none) {
		t.Fatalf("read back %+v\nwant %+v, %+v", d.Guilds, g, none)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"guild not a snowflake", `"guild": "3"`, `"guild": "x"`, "field guild"},
		{"guild as a number", `"guild": "3"`, `"guild": 3`, "guild"},
		{"unknown settings field", `"b0": 700`, `"b0": 700, "zz": 1`, `"zz"`},
		{"settings out of game's bounds", `"b0": 700`, `"b0": -700`, "guilds[0] (guild 812345678901234567): field s"},
		{"channel not a snowflake", `"ch": "1234567890123456789"`, `"ch": "general"`, "field s.ch"},
		{"audit line without action", `"x": "lift-pause"`, `"x": ""`, "guilds[1] (guild 3) audit[0]"},
		{"audit line with an id", `"x": "lift-pause"`, `"x": "lift-pause", "id": "s:1"`, "field audit[0].id"},
		{"same guild twice", `"guild": "3"`, `"guild": "812345678901234567"`, "same guild as guilds[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Replace(good, []byte(c.from), []byte(c.to), 1)
			if bytes.Equal(b, good) {
				t.Fatalf("%q not in the dump %s", c.from, good)
			}
			d, err := storage.ReadDump(bytes.NewReader(b), nil)
			if !(errors.Is(err, storage.ErrInvalid) || errors.Is(err, storage.ErrDuplicate)) || !strings.Contains(err.Error(), c.want) || d != nil {
				t.Fatalf("ReadDump: %v; want an error mentioning %q", err, c.want)
			}
		})
	}
}

// TestStorageDocBounds: docs/STORAGE.md gives the bounds the code has.
func TestStorageDocBounds(t *testing.T) {
	b, err := os.ReadFile("../docs/STORAGE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	n := func(v int64) string { return game.FormatRat(big.NewRat(v, 1), 0, game.English) }
	for _, want := range []string{
		"a balance in 0.." + n(game.MaxBalance) + " cents",
		"| `b` | cents | balance, 0.." + n(game.MaxBalance) + " |",
		"bounded by 2^53−1 (" + n(game.MaxSeq) + ")",
		fmt.Sprintf("keys held, 0..%d", game.MaxKeys-1),
		fmt.Sprintf("each chest takes three: %d ×", game.MaxKeys),
		"the bonus (0.." + n(game.MaxDailyAmount) + ")",
		"the grant (±" + n(game.MaxGrant) + ")",
		"`reset` (±" + n(game.MaxBalance) + ")",
		"cents at most " + n(game.MaxLimit),
		fmt.Sprintf("%d minutes to %d hours", int(game.MinReminder.Minutes()), int(game.MaxReminder.Hours())),
		fmt.Sprintf("its last %d ticket lines", game.MaxTicketLines),
		fmt.Sprintf("its last %d other lines", game.MaxOtherLines),
		fmt.Sprintf("**Revealed seed** (the last %d per player)", game.MaxReveals),
		fmt.Sprintf("**Operation remembered** (the last %d per player)", game.MaxOps),
		fmt.Sprintf("1 to %d bytes", game.MaxOpID),
		fmt.Sprintf("at most %d bytes", game.MaxOpID),
		fmt.Sprintf("the guild's last %d operations", game.MaxGuildOps),
		"the last " + n(storage.AuditLimit) + " per guild",
		fmt.Sprintf("at most %d characters", game.MaxReason),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/STORAGE.md does not say %q", want)
		}
	}
}
