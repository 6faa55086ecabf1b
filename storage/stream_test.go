package storage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// streamDump returns what StreamDump hands over from data, and its result.
func streamDump(data []byte) (*storage.DecodedDump, error) {
	var got storage.DecodedDump
	v, err := storage.StreamDump(bytes.NewReader(data), func(p storage.DecodedPlayer) error {
		got.Players = append(got.Players, p)
		return nil
	}, func(g storage.DecodedGuild) error {
		got.Guilds = append(got.Guilds, g)
		return nil
	})
	got.Version = v
	return &got, err
}

// reordered is the dump data with its fields in alphabetical order, the
// version last: a dump StreamDump cannot stream, which it reads whole.
func reordered(t *testing.T, data []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m) // keys sorted
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"guilds":`)) {
		t.Fatalf("reordered dump starts %.40s", b)
	}
	return b
}

// streamedPlayers is a dump of several players who played, and two guilds.
func streamedPlayers(t *testing.T) *storage.DecodedDump {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{4})
	d := &storage.DecodedDump{Version: storage.DumpVersion}
	for u := range 5 {
		d.Players = append(d.Players, storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, rng, 10+5*u, 7))
	}
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, House: game.DefaultHouse}
	d.Guilds = []storage.DecodedGuild{
		{Guild: 1, Settings: &set, Audit: []game.AuditEntry{{At: at, Guild: 1, Actor: 9, Action: game.ActionSettings}}},
		{Guild: 2, Audit: []game.AuditEntry{}},
	}
	return d
}

// encode returns d as EncodeDump writes it.
func encode(t *testing.T, d *storage.DecodedDump) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := storage.EncodeDump(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestStreamDumpAgrees: StreamDump hands over, in order, the players and
// guilds ReadDump returns, which are the ones dumped, whether it streams
// the dump or reads it whole.
func TestStreamDumpAgrees(t *testing.T) {
	in := streamedPlayers(t)
	data := encode(t, in)
	read, err := storage.ReadDump(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, in) {
		t.Fatalf("ReadDump: %+v\nwant %+v", read, in)
	}
	for name, data := range map[string][]byte{"streamed": data, "read whole": reordered(t, data)} {
		got, err := streamDump(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, read) {
			t.Fatalf("%s: StreamDump handed over %+v\nReadDump returned %+v", name, got, read)
		}
	}
}

// TestStreamDumpBrokenPlayer: a wrong player in the middle of a dump
// stops StreamDump with the error ReadDump gives, the one the whole read
// gave before the dump was streamed, after the players before it and not
// one after it.
func TestStreamDumpBrokenPlayer(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(d *storage.DecodedDump)
		want    string
		is      error
		before  int // the players handed over before the error
	}{
		{"books that do not balance", func(d *storage.DecodedDump) { d.Players[2].Player.Balance++ }, "players[2] (guild 1, user 3)", storage.ErrInvalid, 2},
		{"a history line out of bounds", func(d *storage.DecodedDump) { d.Players[2].History[3].Balance = -1 }, "players[2] (guild 1, user 3) h[3]", storage.ErrInvalid, 2},
		{"the same player twice", func(d *storage.DecodedDump) { d.Players[2].ID = d.Players[0].ID }, "players[2] (guild 1, user 1): ", storage.ErrDuplicate, 2},
		{"the same guild twice", func(d *storage.DecodedDump) { d.Guilds[1].Guild = 1 }, "same guild as guilds[0]", storage.ErrDuplicate, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := streamedPlayers(t)
			c.corrupt(d)
			data := encode(t, d)
			_, before := streamDump(reordered(t, data)) // read whole
			dd, err := storage.ReadDump(bytes.NewReader(data))
			if dd != nil || !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ReadDump: %v, %v; want %v naming %q", dd, err, c.is, c.want)
			}
			got, serr := streamDump(data)
			if serr == nil || before == nil || serr.Error() != err.Error() || before.Error() != err.Error() {
				t.Fatalf("errors differ:\nstreamed:   %v\nReadDump:   %v\nread whole: %v", serr, err, before)
			}
			if len(got.Players) != c.before || !reflect.DeepEqual(got.Players, d.Players[:c.before]) {
				t.Fatalf("handed over %d players, want the first %d", len(got.Players), c.before)
			}
		})
	}
}

// TestStreamDumpRefuses: what ReadDump refuses, StreamDump refuses while
// it streams, with ReadDump's words.
func TestStreamDumpRefuses(t *testing.T) {
	good := encode(t, streamedPlayers(t))
	cut := bytes.Index(good, []byte(`"guild": "1",`)) // inside players[0]
	for _, c := range []struct{ name, data, want string }{
		{"cut short", string(good[:len(good)/2]), "unexpected EOF"},
		{"cut after the version", `{"version": 4, "players": [`, "read dump: unexpected EOF"},
		{"trailing data", string(good) + "{}", "trailing data"},
		{"an unknown field", strings.Replace(string(good), `"players": [`, `"cheat": 1, "players": [`, 1), `unknown field "cheat"`},
		{"an unknown field in a player", string(good[:cut]) + `"cheat": 1, ` + string(good[cut:]), `players[0]: json: unknown field "cheat"`},
		{"players twice", strings.Replace(string(good), `"players": [`, `"players": [], "players": [`, 1), `field "players" twice`},
		{"players not an array", `{"version": 4, "players": {}}`, `field "players": want an array`},
		{"a syntax error", `{"version": 4, "players": [} ]}`, "read dump: invalid character"},
		{"an unknown version", `{"version": 6, "players": []}`, "dump version 6, want 4 to 5"},
		{"a version before 4", `{"version": 3, "players": []}`, "dump version 3, which this release no longer reads: convert it with clefs 0.3.0 first"},
		{"a version before 4, read whole", `{"players": [], "version": 1}`, "dump version 1, which this release no longer reads"},
		{"the version as a string", `{"version": "4", "players": []}`, "read dump"},
		{"not an object", `[]`, "read dump"},
		{"the version twice, read whole", `{"players": [], "version": 4, "version": 4}`, `field "version" twice`},
		{"two versions, read whole", `{"version": 6, "players": [], "version": 5}`, "dump version 6, want 4 to 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := streamDump([]byte(c.data))
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("StreamDump: %v; want ErrInvalid with %q", err, c.want)
			}
			if _, rerr := storage.ReadDump(strings.NewReader(c.data)); rerr == nil || rerr.Error() != err.Error() {
				t.Fatalf("ReadDump: %v; StreamDump: %v", rerr, err)
			}
		})
	}
	for _, null := range []string{`{"version": 5, "players": null, "guilds": null}`, `{"version": 5}`} {
		d, err := storage.ReadDump(strings.NewReader(null))
		if err != nil || d.Version != storage.DumpVersion || d.Players == nil || len(d.Players) != 0 || len(d.Guilds) != 0 {
			t.Fatalf("ReadDump(%s): %+v, %v; want an empty dump", null, d, err)
		}
	}
}

// TestStreamDumpStops: an error of the callback stops StreamDump, which
// returns it as it is.
func TestStreamDumpStops(t *testing.T) {
	data := encode(t, streamedPlayers(t))
	stop := errors.New("stop")
	seen := 0
	_, err := storage.StreamDump(bytes.NewReader(data), func(storage.DecodedPlayer) error {
		seen++
		if seen == 3 {
			return stop
		}
		return nil
	}, func(storage.DecodedGuild) error {
		t.Fatal("a guild handed over after the stop")
		return nil
	})
	if err != stop || seen != 3 {
		t.Fatalf("StreamDump: %v after %d players; want the callback's error after 3", err, seen)
	}
}

// TestStreamDumpLeavesNothingOver: a player read after one with a long
// history, seeds revealed and verification data has none of them.
func TestStreamDumpLeavesNothingOver(t *testing.T) {
	full := storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: 1}, rand.NewChaCha8([32]byte{8}), 20, 7)
	p := carePlayer(t)
	plain := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: 2}, Player: p, History: []game.Entry{
		{At: at, Kind: game.KindPause, Balance: p.Balance}, {At: at, Kind: game.KindLift, Balance: p.Balance},
	}}
	bare := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: 3}, Player: p}
	in := &storage.DecodedDump{Version: storage.DumpVersion, Players: []storage.DecodedPlayer{full, plain, bare, full}, Guilds: []storage.DecodedGuild{}}
	in.Players[3].ID.User = 4
	got, err := streamDump(encode(t, in))
	if err != nil || !reflect.DeepEqual(got.Players, in.Players) {
		t.Fatalf("StreamDump: %v\n%+v\nwant %+v", err, got.Players, in.Players)
	}
}
