package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

func TestPublicExportRoundTrip(t *testing.T) {
	p, rs, hist, _ := player(t, 12, false) // its first seed revealed after 9 tickets
	x := schema.NewPublicExport(1<<63+5, 42, hist, rs)
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"v":2,"guild":"9223372036854775813","user":"42","h":[`)) {
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
	if got.Reveals[0].Seed != rs[0].Seed || got.Reveals[0].LastTicket != 9 {
		t.Errorf("reveal %+v", got.Reveals[0])
	}
}

func TestPublicExportEmptyLists(t *testing.T) {
	b, err := json.Marshal(schema.NewPublicExport(1, 2, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":2,"guild":"1","user":"2","h":[],"r":[]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if _, err := schema.DecodePublicExport("x", b); err != nil {
		t.Error(err)
	}
}

func TestBadPublicExports(t *testing.T) {
	_, rs, hist, _ := player(t, 12, false)
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
		"version 3":            {strings.Replace(string(good), `"v":2`, `"v":3`, 1), "field v"},
		"no version":           {`{"guild":"1","user":"2","h":[],"r":[]}`, "field v"},
		"bad guild":            {strings.Replace(string(good), `"guild":"1"`, `"guild":"x"`, 1), "field guild"},
		"zero user":            {strings.Replace(string(good), `"user":"2"`, `"user":"0"`, 1), "field user"},
		"a player":             {strings.Replace(string(good), `"v":2`, `"v":2,"p":{}`, 1), "unknown field"},
		"bad line":             {strings.Replace(string(good), `"k":"play"`, `"k":"cheat"`, 1), "h[0]"},
		"reveals out of order": {string(chain), "r[0]: field no"},
		"trailing data":        {string(good) + "{}", "data after"},
	} {
		_, err := schema.DecodePublicExport("x.json", []byte(tc.in))
		if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", name, err, tc.want)
		}
	}
}
