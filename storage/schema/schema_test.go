package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// seeds is a deterministic source of seeds.
func seeds(n uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0] = byte(n)
	return rand.NewChaCha8(s)
}

// player returns a player after plays tickets (a chest when due), a
// rotation after every 9 of them, and, with care, limits, a reminder and a
// pause; with the reveals and history lines a store keeps beside it.
func player(t testing.TB, plays int, care bool) (game.Player, game.Reveals, []game.Entry, []game.Result) {
	t.Helper()
	src := seeds(7)
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	seed, _ := game.NewSeed(src)
	client, _ := game.NewClientSeed(src)
	p, err := game.NewPlayer(2000, seed, client, now)
	if err != nil {
		t.Fatal(err)
	}
	next, _ := game.NewSeed(src)
	p = p.WithNextSeed(next)
	var rs game.Reveals
	var hist []game.Entry
	var results []game.Result
	step := func(m game.Move) {
		t.Helper()
		s, err := game.Apply(p, m, now)
		if err != nil {
			t.Fatal(err)
		}
		p = s.Player
		hist = append(hist, s.History...)
		results = append(results, s.Result)
		if len(s.Reveals) != 0 {
			rs = append(rs, s.Reveals...)
		}
		now = now.Add(47 * time.Second)
	}
	for i := range plays {
		if p.ChestDue {
			step(game.OpenChest{Seq: p.ChestSeq + 1})
		}
		step(game.Buy{House: game.DefaultHouse})
		step(game.Reveal{Ticket: p.TicketSeq, Rows: game.AllRows})
		if i%9 == 8 {
			fresh, _ := game.NewSeed(src)
			step(game.Rotate{Fresh: fresh})
		}
	}
	if care {
		step(game.SetLimits{Sets: []game.LimitSet{
			{Kind: game.LimitStakeDay, Amount: 500}, {Kind: game.LimitStakeWeek, Amount: 2500},
			{Kind: game.LimitLossDay, Amount: 300}, {Kind: game.LimitLossWeek, Amount: 1000},
		}, Reminder: 45 * time.Minute})
		step(game.SetLimits{Sets: []game.LimitSet{{Kind: game.LimitStakeDay, Amount: 900}}, Reminder: -1})
		step(game.Pause{Until: now.Add(48 * time.Hour)})
	}
	return p, rs, hist, results
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./storage/schema -update once)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed:\n got %s\nwant %s", name, got, want)
	}
}

// TestGolden pins the bytes of every kind of record: a change of the
// schema shows here, and must come with a new version and a reader of the
// old one (docs/STORAGE.md).
func TestGolden(t *testing.T) {
	p, rs, hist, results := player(t, 20, true)
	b, err := schema.EncodePlayer(p)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "player.json", b)
	var lines [][]byte
	for _, e := range hist[len(hist)-6:] {
		l, err := schema.EncodeLine(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	golden(t, "lines.jsonl", append(bytes.Join(lines, []byte("\n")), '\n'))
	r, err := schema.EncodeReveal(rs[len(rs)-1])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "reveal.json", r)
	var res [][]byte
	for _, x := range results[len(results)-8:] {
		b, err := schema.EncodeResult(x)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, b)
	}
	golden(t, "results.jsonl", append(bytes.Join(res, []byte("\n")), '\n'))

	// And they read back as they were.
	back, err := schema.DecodePlayer("golden", b)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("player read back %+v, %v\nwant %+v", back, err, p)
	}
	for i, l := range lines {
		e, err := schema.DecodeLine("golden", l)
		want := hist[len(hist)-6+i]
		if err != nil || !reflect.DeepEqual(e, want) {
			t.Errorf("line %d read back %+v, %v; want %+v", i, e, err, want)
		}
	}
	rb, err := schema.DecodeReveal("golden", r)
	if err != nil || !reflect.DeepEqual(rb, rs[len(rs)-1]) {
		t.Errorf("reveal read back %+v, %v", rb, err)
	}
	for i, b := range res {
		x, err := schema.DecodeResult("golden", b)
		if want := results[len(results)-8+i]; err != nil || !reflect.DeepEqual(x, want) {
			t.Errorf("result %d read back %+v, %v; want %+v", i, x, err, want)
		}
	}
}

// TestRenamingFieldsChangesNothing shows that the Go names of the schema's
// fields play no part in the bytes: each record type, a player's and a
// guild's, rebuilt with every field renamed (same types, same tags),
// encodes to the same bytes. The stored names are the tags, documented in
// docs/STORAGE.md; and no game type is encoded as is (the schema converts
// field by field).
func TestRenamingFieldsChangesNothing(t *testing.T) {
	p, rs, hist, results := player(t, 20, true)
	res, _ := schema.EncodeResult(results[len(results)-1])
	var r schema.Result
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	g, _, audit := guild(t)
	gr := schema.FromGuild(g)
	values := []any{schema.FromPlayer(p), schema.FromEntry(hist[len(hist)-1]), schema.FromReveal(rs[0]), r, *schema.FromPlayer(p).Care,
		gr, gr.Settings, *gr.Settings.House, *gr.Reset, schema.FromAudit("s:1", audit[0]), schema.NewDumpGuild(42, &g.Settings, audit)}
	for _, v := range values {
		rv := reflect.ValueOf(v)
		var fields []reflect.StructField
		for i := range rv.NumField() {
			f := rv.Type().Field(i)
			tag := f.Tag.Get("json")
			if tag == "" || strings.HasPrefix(tag, ",") {
				t.Errorf("%s.%s has no stored name: its Go name would be stored", rv.Type(), f.Name)
			}
			f.Name = fmt.Sprintf("Renamed%d", i)
			fields = append(fields, f)
		}
		renamed := reflect.New(reflect.StructOf(fields)).Elem()
		for i := range rv.NumField() {
			renamed.Field(i).Set(rv.Field(i))
		}
		a, _ := json.Marshal(v)
		b, _ := json.Marshal(renamed.Interface())
		if !bytes.Equal(a, b) {
			t.Errorf("%s: renaming its fields changed the bytes:\n%s\n%s", rv.Type(), a, b)
		}
	}
}

// TestSizes checks the targets of the stored record: a typical one at most
// 1 KB, one at every bound at most 4 KB (what is beside it does not count:
// it is not rewritten by a click).
func TestSizes(t *testing.T) {
	p, _, _, _ := player(t, 40, false)
	b, _ := schema.EncodePlayer(p)
	if len(b) > 1024 {
		t.Errorf("a typical record is %d bytes, more than 1 KB: %s", len(b), b)
	}
	t.Logf("typical record: %d bytes", len(b))
	// Every bound: a client seed of 64 bytes, every limit with a raise
	// waiting, a pause, a ticket open, the largest counters.
	q, _, _, _ := player(t, 40, true)
	q.ClientSeed = strings.Repeat("é", game.MaxClientSeed/2)
	b, err := schema.EncodePlayer(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 4096 {
		t.Errorf("a record at its bounds is %d bytes, more than 4 KB", len(b))
	}
	t.Logf("record at its bounds: %d bytes", len(b))
}

// editJSON returns the JSON object b changed by f (numbers kept as they
// are written).
func editJSON(t *testing.T, b []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, _ := json.Marshal(m)
	return out
}

// TestBadRecords feeds records that are not of the schema: each is
// refused with an error that names the record and the field.
func TestBadRecords(t *testing.T) {
	p, _, _, _ := player(t, 5, true)
	good, _ := schema.EncodePlayer(p)
	edit := func(f func(m map[string]any)) []byte { return editJSON(t, good, f) }
	tests := []struct {
		name  string
		b     []byte
		field string
	}{
		{"unknown version", edit(func(m map[string]any) { m["f"] = 2 }), "field f"},
		{"no version", edit(func(m map[string]any) { delete(m, "f") }), "field f"},
		{"unknown field", edit(func(m map[string]any) { m["zz"] = 1 }), `"zz"`},
		{"ticket numbers beyond 2^53-1", edit(func(m map[string]any) { m["tn"] = uint64(1) << 63 }), "field tn"},
		{"chest numbers beyond 2^53-1", edit(func(m map[string]any) { m["cn"] = uint64(1)<<63 - 1 }), "field cn"},
		{"negative balance", edit(func(m map[string]any) { m["b"] = -1 }), "balance"},
		{"a string for a number", edit(func(m map[string]any) { m["b"] = "12" }), "field b"},
		{"bad seed", edit(func(m map[string]any) { m["sd"].(map[string]any)["s"] = "00" }), "field sd.s"},
		{"zero seed", edit(func(m map[string]any) { m["sd"].(map[string]any)["s"] = strings.Repeat("0", 64) }), "field sd.s"},
		{"bad grid", edit(func(m map[string]any) { m["t"].(map[string]any)["o"].(map[string]any)["g"] = "XXXXXXXXX" }), "field t.o.g"},
		{"unknown tier", edit(func(m map[string]any) { m["t"].(map[string]any)["o"].(map[string]any)["tr"] = "ruby" }), "field t.o.tr"},
		{"unknown limit", edit(func(m map[string]any) {
			m["cr"].(map[string]any)["l"].(map[string]any)["stake-year"] = map[string]any{"a": 5}
		}), "field cr.l"},
		{"time out of range", edit(func(m map[string]any) { m["ca"] = int64(1) << 62 }), "field ca"},
		{"spend day not a UTC midnight", edit(func(m map[string]any) { m["cr"].(map[string]any)["sp"].(map[string]any)["d"] = 1796155380000 }), "spend day"},
		{"reminder out of range", edit(func(m map[string]any) { m["cr"].(map[string]any)["rm"] = int64(48 * time.Hour / time.Millisecond) }), "field cr.rm"},
		{"broken JSON", good[:len(good)-3], "p:{1:2}"},
		{"trailing data", append(bytes.Clone(good), []byte(`{}`)...), "after the record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.DecodePlayer("p:{1:2}", tt.b)
			if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "p:{1:2}") || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v; want schema.ErrInvalid naming p:{1:2} and %q", err, tt.field)
			}
		})
	}
	if _, err := schema.DecodePlayer("p:{1:2}", good); err != nil {
		t.Fatalf("the unedited record is refused: %v", err)
	}
}

// TestBadLines feeds history lines, reveals and results that are not of
// the schema.
func TestBadLines(t *testing.T) {
	for _, tt := range []struct {
		name, b, field string
		decode         func(string, []byte) error
	}{
		{"unknown kind", `{"at":1,"k":"lottery","b":5}`, "field k", line},
		{"play without ticket", `{"at":1,"k":"play","tr":"loss","b":5}`, "field t", line},
		{"grid without keys", `{"at":1,"k":"play","t":3,"tr":"loss","b":5,"g":"GPBSCRGPB"}`, "field g", line},
		{"keys before out of range", `{"at":1,"k":"play","t":3,"tr":"loss","a":-50,"b":5,"kb":3,"g":"GPBSCRGPB"}`, "field kb", line},
		{"a key on a grant", `{"at":1,"k":"grant","a":5,"b":5,"key":true}`, "field key", line},
		{"a tier on a chest", `{"at":1,"k":"chest","l":"gold","tr":"loss","a":500,"b":500}`, "field tr", line},
		{"a lot on a play", `{"at":1,"k":"play","t":3,"tr":"loss","l":"gold","a":-50,"b":5}`, "field l", line},
		{"a chest number on a play", `{"at":1,"k":"play","t":3,"tr":"loss","a":-50,"b":5,"c":4}`, "field c", line},
		{"a grid on a chest", `{"at":1,"k":"chest","l":"gold","a":500,"b":500,"kb":0,"g":"GPBSCRGPB"}`, "field g", line},
		{"a grid that does not show its tier", `{"at":1,"k":"play","t":3,"tr":"gem","a":499950,"b":5,"kb":0,"g":"GPBSCRGPB"}`, "field g", line},
		{"a play's amount not its tier's", `{"at":1,"k":"play","t":3,"tr":"loss","a":10000000000000,"b":5}`, "field a", line},
		{"a grant's amount of 10^13", `{"at":1,"k":"grant","a":10000000000000,"b":5}`, "field a", line},
		{"a chest's amount not its lot's", `{"at":1,"k":"chest","l":"gold","a":501,"b":501}`, "field a", line},
		{"a balance past the maximum", `{"at":1,"k":"grant","a":5,"b":1000000000001}`, "field b", line},
		{"bad commitment", `{"at":1,"k":"chest","l":"gold","a":500,"b":5,"c":1,"cm":"abc"}`, "field cm", line},
		{"ticket beyond 2^53-1", `{"at":1,"k":"play","t":9007199254740992,"tr":"loss","b":5}`, "field t", line},
		{"a play placed", `{"at":1,"k":"play","t":3,"tr":"loss","b":5,"n":2}`, "field n", line},
		{"placed beyond 2^53-1", `{"at":1,"k":"grant","a":5,"b":5,"n":9007199254740992}`, "field n", line},
		{"a ticket thrown away by a grant", `{"at":1,"k":"grant","a":5,"b":5,"d":3}`, "field d", line},
		{"a ticket thrown away beyond 2^53-1", `{"at":1,"k":"reset","a":5,"b":5,"d":9007199254740992}`, "field d", line},
		{"reveal with bad seed", `{"no":1,"s":"zz","t1":1,"t2":0,"c1":1,"c2":0,"ra":1}`, "field s", reveal},
		{"result with bad lot", `{"b":5,"ch":{"l":"ruby","p":5}}`, "field ch.l", result},
		{"result with a lie", `{"b":5,"ch":{"l":"gold","p":5}}`, "field ch.p", result},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode("rec", []byte(tt.b))
			if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v; want schema.ErrInvalid naming %q", err, tt.field)
			}
		})
	}
}

// A line other than a play records its place among the tickets; one
// written before it was recorded is read unplaced, and both go back to
// the lists they came from (game.MainLine).
func TestLinePlaces(t *testing.T) {
	for _, tt := range []struct {
		b      string
		placed bool
		after  uint64
	}{
		{`{"at":1,"k":"grant","a":5,"b":5}`, false, 0},
		{`{"at":1,"k":"grant","a":5,"b":5,"n":0}`, true, 0},
		{`{"at":1,"k":"reset","a":5,"b":5,"n":12}`, true, 12},
		{`{"at":1,"k":"reset","a":5,"b":5,"n":12,"d":0}`, true, 12},  // it threw no ticket away
		{`{"at":1,"k":"reset","a":5,"b":5,"n":12,"d":13}`, true, 12}, // it threw ticket 13 away
	} {
		e, err := schema.DecodeLine("rec", []byte(tt.b))
		if err != nil || e.Placed != tt.placed || e.After != tt.after || game.MainLine(e) == tt.placed {
			t.Fatalf("%s: read %+v, %v; want placed %v after %d", tt.b, e, err, tt.placed, tt.after)
		}
		again, err := schema.EncodeLine(e)
		if err != nil || string(again) != tt.b {
			t.Fatalf("%s: written again as %s, %v", tt.b, again, err)
		}
	}
}

func line(r string, b []byte) error   { _, err := schema.DecodeLine(r, b); return err }
func reveal(r string, b []byte) error { _, err := schema.DecodeReveal(r, b); return err }
func result(r string, b []byte) error { _, err := schema.DecodeResult(r, b); return err }

// BenchmarkPlayer measures the encoding of a typical record (40 plays, a
// chest, rotations) that every click writes and the cache-missing read
// decodes.
func BenchmarkPlayer(b *testing.B) {
	p, _, _, _ := player(b, 40, true)
	enc, _ := schema.EncodePlayer(p)
	b.Run(fmt.Sprintf("Encode%dB", len(enc)), func(b *testing.B) {
		for b.Loop() {
			if _, err := schema.EncodePlayer(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := schema.DecodePlayer("bench", enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A client seed chosen under the earlier rule (a zero-width space or a
// byte-order mark was allowed then) is still read, and still draws: no
// stored player is locked out by the stricter rule for choosing one.
func TestEarlierClientSeedStillRead(t *testing.T) {
	p, _, _, _ := player(t, 3, false)
	p.ClientSeed = "lucky\u200bseed\ufeff"
	if game.ValidateClientSeed(p.ClientSeed) == nil {
		t.Fatal("the seed should not be accepted as a new choice")
	}
	b, err := schema.EncodePlayer(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := schema.DecodePlayer("p:{1:2}", b)
	if err != nil {
		t.Fatalf("a record with an earlier client seed is refused: %v", err)
	}
	if got.ClientSeed != p.ClientSeed {
		t.Fatalf("client seed %q, want %q", got.ClientSeed, p.ClientSeed)
	}
	if _, err := (game.SeededDrawer{}).Ticket(got.Seed, got.ClientSeed, 1, 0); err != nil {
		t.Fatalf("it no longer draws: %v", err)
	}
}

// A dump's history that its two lists could not give back in the same
// order (a chest moved before the ticket it follows) is refused, naming
// the field.
func TestDumpHistoryOrder(t *testing.T) {
	p, rs, hist, _ := player(t, 20, true)
	d := schema.NewDumpPlayer(1, 2, p, hist, rs)
	if _, _, _, _, _, err := d.Game("players[0]"); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(d.History, func(l schema.Line) bool { return l.Kind == "chest" })
	if i < 1 {
		t.Fatal("no chest after a ticket: the test shows nothing")
	}
	chest := d.History[i]
	d.History = slices.Insert(slices.Delete(d.History, i, i+1), 0, chest)
	_, _, _, _, _, err := d.Game("players[0]")
	if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "field h") {
		t.Fatalf("chest moved first: %v; want schema.ErrInvalid naming field h", err)
	}
}
