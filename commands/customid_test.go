package commands

import (
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The custom IDs of the buttons, as the tests name them.
func rowID(user, ticket uint64, row int) string {
	return customID{kind: kindRow, user: user, ticket: ticket, row: row}.format()
}
func autoID(user, ticket uint64) string {
	return customID{kind: kindAuto, user: user, ticket: ticket}.format()
}
func againID(user, ticket uint64) string {
	return customID{kind: kindAgain, user: user, ticket: ticket}.format()
}
func chestID(user uint64, seq int64) string {
	return customID{kind: kindChest, user: user, seq: seq}.format()
}

// TestCustomIDWireFormat pins the format of the buttons already posted in
// Discord: a change here breaks every card shown before a restart.
func TestCustomIDWireFormat(t *testing.T) {
	const u = 1000000000000000001
	cases := []struct {
		c    customID
		want string
	}{
		{customID{kind: kindRow, user: u, ticket: 42, row: 2}, "v1:row:1000000000000000001:42:2"},
		{customID{kind: kindAuto, user: u, ticket: 42}, "v1:auto:1000000000000000001:42"},
		{customID{kind: kindAgain, user: u, ticket: 0}, "v1:again:1000000000000000001:0"},
		{customID{kind: kindChest, user: u, seq: 3}, "v1:chest:1000000000000000001:3"},
		{customID{kind: kindResetConfirm, user: u, ts: 1796040000}, "v1:rg:1000000000000000001:1796040000"},
		{customID{kind: kindResetCancel, user: u, ts: 1796040000}, "v1:rgx:1000000000000000001:1796040000"},
		{customID{kind: kindActivity, user: u}, "v1:act:1000000000000000001"},
		{customID{kind: kindRow, user: math.MaxUint64, ticket: math.MaxInt64, row: 0},
			"v1:row:18446744073709551615:9223372036854775807:0"},
	}
	for _, c := range cases {
		if got := c.c.format(); got != c.want {
			t.Errorf("%+v formats as %q, want %q", c.c, got, c.want)
		}
		if got, ok := parseCustomID(c.want); !ok || got != c.c {
			t.Errorf("%q parses as %+v, %v; want %+v", c.want, got, ok, c.c)
		}
		if len(c.want) > maxCustomID {
			t.Errorf("%q is longer than %d", c.want, maxCustomID)
		}
	}
	if got := (customID{}).format(); got != "" {
		t.Errorf("a customID without kind formats as %q", got)
	}
}

func TestParseCustomIDRejects(t *testing.T) {
	const a = "1000000000000000001"
	for _, id := range []string{
		"", ":", "v1", "v1:", "v1:row", "::::::::",
		"v1:row:" + a + ":1",                           // a segment missing
		"v1:row:" + a + ":1:1:1",                       // one too many
		"v1:row:" + a + ":1:3",                         // row out of range
		"v1:row:" + a + ":0:1",                         // ticket 0
		"v1:row:" + a + ":01:1",                        // leading zero
		"v1:row:" + a + ":+1:1",                        // sign
		"v1:row:" + a + ":-1:1",                        // sign
		"v1:row:" + a + ":1: 1",                        // space
		"v1:row:" + a + "::1",                          // empty segment
		"v1:row:0" + a + ":1:1",                        // leading zero on the user
		"v1:row:0:1:1",                                 // user 0
		"v1:row:" + a + ":9223372036854775808:1",       // ticket above int64
		"v1:auto:18446744073709551616:1",               // user above uint64
		"v1:auto:" + a + ":" + strings.Repeat("9", 90), // too long
		"v2:auto:" + a + ":1",                          // unknown version
		"v1:Auto:" + a + ":1",                          // unknown name
		"v1:chest:" + a + ":0",                         // chest 0
		"v1:act:" + a + ":1",                           // act has the user alone
		"v1:act:0",                                     // user 0
		"v1:rg:" + a + ":0",                            // time 0
		"v1:rg:" + a + ":4611686018427387905",          // time above 2^62
		"v1:auto:" + a + ":1:",                         // trailing colon
		"v1:auto:" + a + ":٣",                          // a non-ASCII digit
		"\x00\xff",
	} {
		if c, ok := parseCustomID(id); ok {
			t.Errorf("%q parsed as %+v", id, c)
		}
	}
}

// TestCustomIDRoundTrip: every value in its layout's ranges formats to an ID
// of at most 100 characters that parses back to the same value.
func TestCustomIDRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		l := rapid.SampledFrom(layouts).Draw(rt, "layout")
		c := customID{kind: l.kind}
		for _, s := range l.segments {
			s.set(&c, rapid.Uint64Range(s.lo, s.hi).Draw(rt, "value"))
		}
		id := c.format()
		if len(id) > maxCustomID {
			rt.Fatalf("%q is longer than %d", id, maxCustomID)
		}
		got, ok := parseCustomID(id)
		if !ok || got != c {
			rt.Fatalf("%+v formats as %q, which parses as %+v, %v", c, id, got, ok)
		}
	})
}

// FuzzParseCustomID: whatever parses is a canonical ID: it formats back to
// the very same string, so no two strings name the same button.
func FuzzParseCustomID(f *testing.F) {
	for _, s := range []string{"v1:row:1:2:0", "v1:auto:1:1", "v1:again:1:0", "v1:chest:9:1",
		"v1:rg:1:1700000000", "v1:rgx:1:1700000000", "", ":", "v1:row:01:2:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c, ok := parseCustomID(id)
		if !ok {
			return
		}
		if got := c.format(); got != id {
			t.Fatalf("%q parsed as %+v, which formats as %q", id, c, got)
		}
	})
}

// TestEveryLayoutIsRouted: each kind of the table has a handler (New
// panics otherwise: routeButtons) and a name of its own for the metrics.
func TestEveryLayoutIsRouted(t *testing.T) {
	New(Config{Logger: discardLogger()}, nil)
	names := map[string]bool{}
	for _, l := range layouts {
		if names[l.metric] {
			t.Errorf("metric name %q twice", l.metric)
		}
		names[l.metric] = true
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
