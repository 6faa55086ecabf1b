package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// publicPlayer plays a few tickets, revealing its first seed after three,
// and returns the player, its history and its reveals.
func publicPlayer(t *testing.T) (game.Player, []game.Entry, game.Reveals) {
	t.Helper()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	seed := func(b byte) game.Seed {
		var s game.Seed
		for i := range s {
			s[i] = b + byte(i)
		}
		return s
	}
	p, err := game.NewPlayer(100*game.Stake, seed(1), "c0ffee", now)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithNextSeed(seed(2))
	var hist []game.Entry
	var rs game.Reveals
	var d game.SeededDrawer
	step := func(s game.Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p, hist = s.Player, append(hist, s.History...)
		if s.Reveal != nil {
			rs = append(rs, *s.Reveal)
		}
	}
	for i := range 6 {
		if i == 3 {
			step(p.Rotate(seed(3), now))
		}
		step(p.Buy(game.House{}, now))
		step(p.Reveal(d, p.TicketSeq, game.AllRows, now))
		if p.ChestDue {
			step(p.OpenChest(d, p.ChestSeq+1, now))
		}
	}
	return p, hist, rs
}

func TestPublicExportRoundTrip(t *testing.T) {
	p, hist, rs := publicPlayer(t)
	x := schema.NewPublicExport(1<<63+5, 42, hist, rs)
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"v":1,"guild":"9223372036854775813","user":"42","h":[`)) {
		t.Errorf("export starts %.60s", b)
	}
	// Nothing of the player's secrets: neither the current nor the next seed.
	for _, s := range []game.Seed{p.Seed, p.NextSeed} {
		if bytes.Contains(b, []byte(s.Hex())) {
			t.Errorf("export holds a secret seed %s", s.Hex())
		}
	}
	got, err := schema.DecodePublicExport("x.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Guild != 1<<63+5 || got.User != 42 || len(got.History) != len(hist) || len(got.Reveals) != len(rs) {
		t.Fatalf("decoded %d/%d, %d lines, %d reveals", got.Guild, got.User, len(got.History), len(got.Reveals))
	}
	for i := range hist {
		if !reflect.DeepEqual(schema.FromEntry(got.History[i]), schema.FromEntry(hist[i])) {
			t.Errorf("line %d: %+v, want %+v", i, schema.FromEntry(got.History[i]), schema.FromEntry(hist[i]))
		}
	}
	if got.Reveals[0].Seed != rs[0].Seed || got.Reveals[0].LastTicket != 3 {
		t.Errorf("reveal %+v", got.Reveals[0])
	}
}

func TestPublicExportEmptyLists(t *testing.T) {
	b, err := json.Marshal(schema.NewPublicExport(1, 2, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":1,"guild":"1","user":"2","h":[],"r":[]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if _, err := schema.DecodePublicExport("x", b); err != nil {
		t.Error(err)
	}
}

func TestBadPublicExports(t *testing.T) {
	_, hist, rs := publicPlayer(t)
	good, err := json.Marshal(schema.NewPublicExport(1, 2, hist, rs))
	if err != nil {
		t.Fatal(err)
	}
	twice := rs[0]
	twice.No = 5
	chain, err := json.Marshal(schema.NewPublicExport(1, 2, hist, game.Reveals{twice, rs[0]}))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ in, want string }{
		"a dump":               {`{"version":4,"players":[],"guilds":[]}`, "unknown field"},
		"version 2":            {strings.Replace(string(good), `"v":1`, `"v":2`, 1), "field v"},
		"no version":           {`{"guild":"1","user":"2","h":[],"r":[]}`, "field v"},
		"bad guild":            {strings.Replace(string(good), `"guild":"1"`, `"guild":"x"`, 1), "field guild"},
		"zero user":            {strings.Replace(string(good), `"user":"2"`, `"user":"0"`, 1), "field user"},
		"a player":             {strings.Replace(string(good), `"v":1`, `"v":1,"p":{}`, 1), "unknown field"},
		"bad line":             {strings.Replace(string(good), `"k":"play"`, `"k":"cheat"`, 1), "h[0]"},
		"reveals out of order": {string(chain), "field r"},
		"trailing data":        {string(good) + "{}", "data after"},
	} {
		_, err := schema.DecodePublicExport("x.json", []byte(tc.in))
		if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", name, err, tc.want)
		}
	}
}
