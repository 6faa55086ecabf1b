package fairpage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
)

// clefsVerify runs clefs verify with args and returns its error, "" when
// it accepts them, with path (if any) written "export" as the page writes
// an export's name.
func clefsVerify(t *testing.T, path string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cli.Main(context.Background(), append([]string{"verify"}, args...), &out, &errOut)
	if err == nil {
		return ""
	}
	msg := strings.TrimPrefix(err.Error(), "verify: ")
	if path != "" {
		msg = strings.ReplaceAll(msg, path, "export")
	}
	return msg
}

// cliExport is what clefs verify -export prints for the public export ex:
// its summary, and apart its MISMATCH and BROKEN lines, sorted.
func cliExport(t *testing.T, ex any) (summary string, problems []string) {
	t.Helper()
	path := writeExport(t, ex)
	var out bytes.Buffer
	_ = cli.Main(context.Background(), []string{"verify", "-export", path}, &out, &out) // exits 1 on a break
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if strings.HasPrefix(l, "MISMATCH guild ") || strings.HasPrefix(l, "BROKEN guild ") {
			problems = append(problems, l)
		} else {
			lines = append(lines, l)
		}
	}
	slices.Sort(problems)
	return strings.Join(lines, "\n"), problems
}

// writeExport writes ex as JSON to a file of the test's and returns its
// path.
func writeExport(t *testing.T, ex any) string {
	t.Helper()
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sameAsCLI checks that the page's report on ex sums up as clefs verify
// -export does and, in English, lists the same problems in its words.
func sameAsCLI(t *testing.T, name string, ex any, rep pageReport) {
	t.Helper()
	summary, problems := cliExport(t, ex)
	if rep.Summary != summary {
		t.Errorf("%s: the page sums up\n%s\nclefs verify -export\n%s", name, rep.Summary, summary)
	}
	var page []string
	for _, p := range rep.Problems {
		page = append(page, p.En)
	}
	slices.Sort(page)
	if !slices.Equal(page, problems) {
		t.Errorf("%s: the page lists\n%s\nclefs verify -export\n%s", name, strings.Join(page, "\n"), strings.Join(problems, "\n"))
	}
}

// testRefusals feeds every kind of damaged public export to clefs verify
// -export and to the page: both refuse it, with the same words (the page
// shows clefs verify's, after its own lead-in).
func testRefusals(t *testing.T, ctx context.Context, b built) {
	good, err := json.Marshal(b.ex)
	if err != nil {
		t.Fatal(err)
	}
	ticket := firstPlay(t, b.ex, 2)
	chest := -1
	for i, l := range b.ex.H {
		if l.Kind == "chest" {
			chest = i
		}
	}
	type doc = map[string]any
	line := func(m doc, i int) doc { return m["h"].([]any)[i].(doc) }
	reveal := func(m doc, i int) doc { return m["r"].([]any)[i].(doc) }
	for _, c := range []struct {
		name   string
		change func(m doc)
		text   func(s string) string // instead of change
		words  bool                  // the same words, not only both refusing
	}{
		{"a ticket number of 2^53", func(m doc) { line(m, ticket)["t"] = json.Number("9007199254740992") }, nil, true},
		{"a ticket number of 2^64", func(m doc) { line(m, ticket)["t"] = json.Number("18446744073709551616") }, nil, true},
		{"a chest number of 2^53", func(m doc) { line(m, chest)["c"] = json.Number("9007199254740992") }, nil, true},
		{"a client seed with a control character", func(m doc) { reveal(m, 0)["c"] = "a\u0007b" }, nil, true},
		{"a client seed of 65 bytes", func(m doc) { reveal(m, 0)["c"] = strings.Repeat("x", 65) }, nil, true},
		{"the zero server seed", func(m doc) { reveal(m, 1)["s"] = strings.Repeat("0", 64) }, nil, true},
		{"a server seed of 63 digits", func(m doc) { reveal(m, 1)["s"] = strings.Repeat("a", 63) }, nil, true},
		{"a server seed between spaces", func(m doc) { reveal(m, 1)["s"] = " " + b.ex.R[1].Server }, nil, true},
		{"3 keys held before a ticket", func(m doc) { line(m, ticket)["kb"] = 3 }, nil, true},
		{"an unknown field", func(m doc) { line(m, ticket)["zz"] = 1 }, nil, true},
		{"a negative ticket number", func(m doc) { line(m, ticket)["t"] = -1 }, nil, true},
		{"a time of 1.5 ms", func(m doc) { line(m, 0)["at"] = 1.5 }, nil, true},
		{"a ticket number as a string", func(m doc) { line(m, ticket)["t"] = "2" }, nil, true},
		{"a line that is a number", func(m doc) { m["h"].([]any)[0] = 5 }, nil, true},
		{"a null line", func(m doc) { m["h"].([]any)[0] = nil }, nil, true},
		{"version 3", func(m doc) { m["v"] = 3 }, nil, true},
		{"a guild that is no snowflake", func(m doc) { m["guild"] = "12a" }, nil, true},
		{"a user 0", func(m doc) { m["user"] = "0" }, nil, true},
		{"51 revealed seeds", func(m doc) {
			for len(m["r"].([]any)) < 51 {
				m["r"] = append(m["r"].([]any), reveal(m, 0))
			}
		}, nil, true},
		{"an unknown kind", func(m doc) { line(m, 0)["k"] = "bonus" }, nil, true},
		{"a ticket thrown away by a bonus", func(m doc) { line(m, 0)["d"] = 3 }, nil, true},
		{"a negative balance", func(m doc) { line(m, 0)["b"] = -1 }, nil, true},
		{"a balance past the limit", func(m doc) { line(m, 0)["b"] = json.Number("1000000000001") }, nil, true},
		{"a play placed after a ticket", func(m doc) { line(m, ticket)["n"] = 1 }, nil, true},
		{"a daily placed past 2^53", func(m doc) { line(m, 0)["n"] = json.Number("9007199254740992") }, nil, true},
		{"an unknown tier", func(m doc) { line(m, ticket)["tr"] = "crown" }, nil, true},
		{"a play without its ticket", func(m doc) { delete(line(m, ticket), "t") }, nil, true},
		{"a grid of 3 letters", func(m doc) { line(m, ticket)["g"] = "GGG" }, nil, true},
		{"a grid with a bad letter", func(m doc) { line(m, ticket)["g"] = "GGGGXGGGG" }, nil, true},
		{"a grid without the keys held", func(m doc) { delete(line(m, ticket), "kb") }, nil, true},
		{"an unknown lot", func(m doc) { line(m, chest)["l"] = "diamond" }, nil, true},
		{"a daily with a key", func(m doc) { line(m, 0)["key"] = true }, nil, true},
		{"a chest number on a ticket", func(m doc) { line(m, ticket)["c"] = 4 }, nil, true},
		{"a tier on a chest", func(m doc) { line(m, chest)["tr"] = "loss" }, nil, true},
		{"a lot on a ticket", func(m doc) { line(m, ticket)["l"] = "gold" }, nil, true},
		{"a ticket's amount of 10^13", func(m doc) { line(m, ticket)["a"] = json.Number("10000000000000") }, nil, true},
		{"a chest's amount not its lot's", func(m doc) { line(m, chest)["a"] = 1 }, nil, true},
		{"a daily of 10^13", func(m doc) { line(m, 0)["a"] = json.Number("10000000000000") }, nil, true},
		{"a grid that does not show its tier", func(m doc) {
			l := line(m, ticket)
			l["tr"], l["a"], l["key"] = "gem", game.TierGem.Prize()-game.Stake, false
		}, nil, true},
		{"a key on a winning ticket", func(m doc) {
			l := line(m, ticket)
			l["tr"], l["a"], l["key"] = "gem", game.TierGem.Prize()-game.Stake, true
		}, nil, true},
		{"a commitment without its draw", func(m doc) { line(m, 0)["cm"] = b.ex.H[ticket].Commitment }, nil, true},
		{"a commitment of 3 digits", func(m doc) { line(m, ticket)["cm"] = "abc" }, nil, true},
		{"a reveal's numbers past 2^53", func(m doc) { reveal(m, 1)["t2"] = json.Number("9007199254740992") }, nil, true},
		{"a seed number -1", func(m doc) { reveal(m, 0)["no"] = -1 }, nil, true},
		{"a reveal's time -5", func(m doc) { reveal(m, 0)["ra"] = -5 }, nil, true},
		{"a seed number 0", func(m doc) { reveal(m, 0)["no"] = 0 }, nil, true},
		{"a reveal without its time", func(m doc) { delete(reveal(m, 0), "ra") }, nil, true},
		{"a line without its time", func(m doc) { delete(line(m, ticket), "at") }, nil, true},
		{"a next commitment of 3 digits", func(m doc) { reveal(m, 0)["nc"] = "abc" }, nil, true},
		{"a next commitment and a time both bad", func(m doc) { reveal(m, 0)["nc"] = "abc"; reveal(m, 0)["ca"] = -1 }, nil, true},
		{"a field named as an object's property", func(m doc) { line(m, 0)["constructor"] = 1 }, nil, true},
		{"a field in capitals", func(m doc) { delete(line(m, ticket), "kb"); line(m, ticket)["KB"] = 5 }, nil, true},
		{"the reveals out of order", func(m doc) { r := m["r"].([]any); r[0], r[1] = r[1], r[0] }, nil, true},
		{"a reveal's tickets overlapping the next", func(m doc) { reveal(m, 0)["t2"] = json.Number("7") }, nil, true},
		{"a ticket line before a placed line of a later ticket", func(m doc) {
			h := m["h"].([]any)
			h[0].(doc)["n"] = 3
		}, nil, true},
		{"more than 4 MiB", nil, func(s string) string { return s[:len(s)-1] + strings.Repeat(" ", 4<<20) + "}" }, true},
		{"data after the export", nil, func(s string) string { return s + " {}" }, false},
		{"not JSON", nil, func(s string) string { return s[:len(s)/2] }, false},
		{"no version", nil, func(s string) string { return strings.Replace(s, `"v":1,`, "", 1) }, false},
	} {
		text := string(good)
		if c.change != nil {
			var m doc
			dec := json.NewDecoder(strings.NewReader(text))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			c.change(m)
			raw, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			text = string(raw)
		} else {
			text = c.text(text)
		}
		path := filepath.Join(t.TempDir(), "export.json")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		want := clefsVerify(t, path, "-export", path)
		got := eval[pageReport](t, ctx, `clefs.checkExport(`+js(text)+`)`)
		switch {
		case want == "" || strings.HasPrefix(want, "mismatch"):
			t.Errorf("%s: clefs verify does not refuse it (%q): the case shows nothing", c.name, want)
		case got.OK || got.Field != "export":
			t.Errorf("%s: clefs verify says %q, the page accepts it: %+v", c.name, want, got)
		case c.words && got.Cli != want:
			t.Errorf("%s: clefs verify says\n\t%q\nthe page\n\t%q", c.name, want, got.Cli)
		case c.words && !strings.Contains(got.Error, want):
			t.Errorf("%s: the page shows %q, not clefs verify's words %q", c.name, got.Error, want)
		}
	}
	// A dump is clefs verify's: the page says so.
	if got := eval[pageReport](t, ctx, `clefs.checkExport('{"version":4,"players":[],"guilds":[]}')`); got.OK || !strings.Contains(got.Error, "clefs verify -export") {
		t.Errorf("a dump: %+v, want it sent to clefs verify -export", got)
	}
}
