package commands

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

func nop(context.Context, *request) (reply, error) { return reply{}, nil }

func TestRouterMatch(t *testing.T) {
	var r router
	r.add("v1:row:{user}:{ticket}:{row}", "reveal", nop)
	r.add("v1:auto:{user}:{ticket}", "auto", nop)
	r.add("v1:{x}:{user}:{ticket}", "other", nop) // a literal route registered first wins
	cases := []struct {
		id, kind string
		vars     map[string]string
	}{
		{"v1:row:1:2:0", "reveal", map[string]string{"user": "1", "ticket": "2", "row": "0"}},
		{"v1:auto:7:8", "auto", map[string]string{"user": "7", "ticket": "8"}},
		{"v1:zzz:7:8", "other", map[string]string{"x": "zzz", "user": "7"}},
		{"v1:row:1:2", "other", map[string]string{"x": "row"}},
		{"v1:row:1::0", "", nil},
		{"v1:row:1:2:0:", "", nil},
		{"v1:auto:7", "", nil},
		{"", "", nil},
		{"::::::::", "", nil},
		{"v1:auto:" + strings.Repeat("1", 100), "", nil},
	}
	for _, c := range cases {
		rt, p, ok := r.match(c.id)
		if ok != (c.kind != "") {
			t.Errorf("%q: matched %v", c.id, ok)
			continue
		}
		if !ok {
			continue
		}
		if rt.kind != c.kind {
			t.Errorf("%q: kind %q, want %q", c.id, rt.kind, c.kind)
		}
		for k, v := range c.vars {
			if got := p.get(k); got != v {
				t.Errorf("%q: %s=%q, want %q", c.id, k, got, v)
			}
		}
	}
}

func TestRouterPanicsOnBadPatterns(t *testing.T) {
	for _, pat := range []string{
		"", "v1::x", "v1:{}", "v1:{a}:{a}", "v1:Row", "v1:a b", "a:b:c:d:e:f:g", "v1:{A}",
		"v1:row:{user}:{ticket}:{row}", // duplicate of the registered one
		"v1:row:{u}:{t}:{r}",           // same shape, other names
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("pattern %q did not panic", pat)
				}
			}()
			var r router
			r.add("v1:row:{user}:{ticket}:{row}", "reveal", nop)
			r.add(pat, "x", nop)
		}()
	}
}

func TestParseUint(t *testing.T) {
	cases := []struct {
		s      string
		lo, hi uint64
		want   uint64
		ok     bool
	}{
		{"0", 0, 2, 0, true},
		{"2", 0, 2, 2, true},
		{"3", 0, 2, 0, false},
		{"00", 0, 9, 0, false},
		{"01", 0, 9, 0, false},
		{"+1", 0, 9, 0, false},
		{"-1", 0, 9, 0, false},
		{" 1", 0, 9, 0, false},
		{"1_0", 0, 99, 0, false},
		{"18446744073709551615", 1, 1<<64 - 1, 1<<64 - 1, true},
		{"18446744073709551616", 1, 1<<64 - 1, 0, false},
		{"", 0, 9, 0, false},
		{"٣", 0, 9, 0, false},
	}
	for _, c := range cases {
		got, ok := parseUint(c.s, c.lo, c.hi)
		if ok != c.ok || got != c.want {
			t.Errorf("parseUint(%q) = %d, %v; want %d, %v", c.s, got, ok, c.want, c.ok)
		}
	}
}

// TestCustomIDsRoundTrip checks that every ID the cards build is parsed
// back by the App's router to the same values.
func TestCustomIDsRoundTrip(t *testing.T) {
	a := New(Config{Logger: discardLogger()}, nil)
	const u, tk = uint64(1<<64 - 1), uint64(1<<63 - 1)
	for id, want := range map[string]string{
		rowID(u, tk, 2):       "reveal",
		autoID(u, tk):         "auto",
		againID(u, 0):         "again",
		chestID(u, 1<<63-1):   "chest",
		resetOKID(u, 1<<40):   "admin reset-guild confirm",
		resetStopID(u, 1<<40): "admin reset-guild cancel",
	} {
		if len(id) > maxCustomID {
			t.Errorf("%q longer than 100", id)
		}
		rt, p, ok := a.buttons.match(id)
		if !ok || rt.kind != want {
			t.Errorf("%q: matched %v kind %v", id, ok, rt)
			continue
		}
		if got, ok := parseSnowflake(p.get("user")); !ok || got != u {
			t.Errorf("%q: user %d", id, got)
		}
	}
}

// rowID is the custom ID of one row's button, made on its own: cardIDs's
// reference.
func rowID(user, ticket uint64, row int) string {
	var buf [64]byte
	b := append(buf[:0], "v1:row:"...)
	b = strconv.AppendUint(b, user, 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, ticket, 10)
	b = append(b, ':', byte('0'+row))
	return string(b)
}

// TestCardIDs: the IDs of a card's buttons, made together, are the ones
// made one by one.
func TestCardIDs(t *testing.T) {
	for _, c := range [][2]uint64{{1, 1}, {1<<64 - 1, 1<<63 - 1}, {1234567890123456789, 42}, {7, 0}} {
		u, tk := c[0], c[1]
		rows, auto, again := cardIDs(u, tk)
		for r := range 3 {
			if rows[r] != rowID(u, tk, r) {
				t.Errorf("row %d of %d/%d: %q, want %q", r, u, tk, rows[r], rowID(u, tk, r))
			}
		}
		if auto != autoID(u, tk) || again != againID(u, tk) {
			t.Errorf("%d/%d: auto %q, again %q; want %q, %q", u, tk, auto, again, autoID(u, tk), againID(u, tk))
		}
	}
}

func FuzzParseCustomID(f *testing.F) {
	a := New(Config{Logger: discardLogger()}, nil)
	for _, s := range []string{"v1:row:1:2:0", "v1:auto:1:1", "v1:chest:9:1", "v1:rg:1:1700000000", "", ":", "v1:row:01:2:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		rt, p, ok := a.buttons.match(id)
		if !ok {
			return
		}
		if len(id) > maxCustomID {
			t.Fatalf("matched a %d-char ID", len(id))
		}
		// Whatever matched must rebuild to itself when its numbers are valid.
		u, uok := parseSnowflake(p.get("user"))
		switch rt.kind {
		case "reveal":
			tk, tok := parseUint(p.get("ticket"), 1, 1<<63-1)
			r, rok := parseUint(p.get("row"), 0, 2)
			if uok && tok && rok && rowID(u, tk, int(r)) != id {
				t.Fatalf("%q parsed to %d %d %d", id, u, tk, r)
			}
		case "auto":
			tk, tok := parseUint(p.get("ticket"), 1, 1<<63-1)
			if uok && tok && autoID(u, tk) != id {
				t.Fatalf("%q parsed to %d %d", id, u, tk)
			}
		}
	})
}
