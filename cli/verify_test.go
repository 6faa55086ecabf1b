package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

const (
	vectorSeed       = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	vectorCommitment = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = Main(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// mustCLI is runCLI's standard output, failing the test on an error.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, _, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyTicket checks clefs verify against test vectors of
// docs/FAIRNESS.md, section 6.
func TestVerifyTicket(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"barrel on row 3", []string{"-client-seed", "3f9a0c1d2e4b5a69", "-nonce", "2", "-keys", "1"}, []string{
			"ticket #2, 1 key held before",
			"    gem     pipe    bomb\n    gem     candle  candle\n  * barrel  barrel  barrel\n",
			"result: three barrels on row 3, 0.50 credits", "key:    none",
		}},
		{"a key with none held", []string{"-client-seed", "3f9a0c1d2e4b5a69", "-nonce", "7", "-keys", "0"}, []string{
			// CPPGPRRKP
			"    candle  pipe    pipe\n    gem     pipe    barrel\n    barrel  key     pipe\n",
			"result: no winning row", "key:    one (1 key of 3 after)",
		}},
		{"the same ticket with two keys held", []string{"-client-seed", "3f9a0c1d2e4b5a69", "-nonce", "7", "-keys", "2"}, []string{
			// RPBRPSCSG
			"    barrel  pipe    bomb\n    barrel  pipe    sabre\n    candle  sabre   gem\n", "key:    none",
		}},
		{"the legacy empty client seed", []string{"-client-seed", "", "-nonce", "1"}, []string{
			`client seed  ""`, "    barrel  gem     bomb\n    key     bomb    pipe\n    bomb    sabre   bomb\n",
		}},
		{"a ticket and its chest", []string{"-client-seed", "3f9a0c1d2e4b5a69", "-nonce", "1", "-chest", "10", "-commitment", vectorCommitment}, []string{
			"commitment   " + vectorCommitment + "  (matches -commitment)", "chest #10: one gold coin, 5.00 credits",
		}},
		{"a chest alone", []string{"-client-seed", "3f9a0c1d2e4b5a69", "-chest", "145467"}, []string{
			"chest #145467: three gold coins, 10,000.00 credits",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCLI(t, append([]string{"verify", "-server-seed", vectorSeed}, tc.args...)...)
			if err != nil {
				t.Fatalf("verify: %v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "ticket #") != slices.Contains(tc.args, "-nonce") {
				t.Errorf("a ticket printed without -nonce, or none with it:\n%s", out)
			}
		})
	}
}

// TestVerifyBadInput: every mistake is a usage error (exit status 2) that
// says what is wrong, and prints no ticket.
func TestVerifyBadInput(t *testing.T) {
	seed := []string{"-server-seed", vectorSeed}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nonce", "1"}, "-server-seed and -client-seed"},
		{[]string{"-server-seed", "abc", "-client-seed", "x", "-nonce", "1"}, "64 hex digits"},
		{[]string{"-server-seed", strings.Repeat("0", 64), "-client-seed", "x", "-nonce", "1"}, "zero server seed"},
		{append(seed, "-client-seed", "x"), "-nonce N"},
		{append(seed, "-client-seed", "x", "-nonce", "0"), "start at 1"},
		{append(seed, "-client-seed", "x", "-nonce", "1", "-keys", "3"), "-keys 3"},
		{append(seed, "-client-seed", "x", "-chest", "2", "-keys", "1"), "-keys goes with -nonce"},
		{append(seed, "-client-seed", "x", "-chest", "0"), "start at 1"},
		{append(seed, "-client-seed", strings.Repeat("x", 65), "-nonce", "1"), "invalid client seed"},
		{append(seed, "-client-seed", "a\x00b", "-nonce", "1"), "control character"},
		{append(seed, "-client-seed", "x", "-nonce", "1", "-commitment", "zz"), "-commitment"},
		{append(seed, "-client-seed", "x", "-nonce", "-1"), "invalid value"},
		{[]string{"-export", "f.json", "-nonce", "1"}, "does not go with -export"},
		{append(seed, "-client-seed", "x", "-nonce", "1", "extra"), "unexpected argument"},
	} {
		out, stderr, err := runCLI(t, append([]string{"verify"}, tc.args...)...)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("verify %q: err %v (exit %d), want a usage error with %q\n%s", tc.args, err, ExitCode(err), tc.want, stderr)
		}
		if out != "" {
			t.Errorf("verify %q printed %q", tc.args, out)
		}
	}
}

// TestVerifyLegacyClientSeed: a client seed chosen before the rule on
// invisible characters (docs/FAIRNESS.md section 1) still verifies, with
// the page's warning, and draws what game draws.
func TestVerifyLegacyClientSeed(t *testing.T) {
	seed, err := game.ParseSeed(vectorSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"a\u200bb", "\ufeffclé", "a\u00a0b"} {
		out, _, err := runCLI(t, "verify", "-server-seed", vectorSeed, "-client-seed", client, "-nonce", "3", "-keys", "1")
		if err != nil {
			t.Fatalf("client seed %q: %v", client, err)
		}
		o, err := game.SeededDrawer{}.Ticket(seed, client, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		row := o.Grid.Row(0)
		i := strings.IndexFunc(client, game.RefusedInClientSeed)
		if want := fmt.Sprintf("%-7s %-7s %s", row[0], row[1], row[2]); !strings.Contains(out, want) ||
			!strings.Contains(out, "warning: "+legacyClientWarning(client, i)) {
			t.Errorf("client seed %q: want row %q and the warning:\n%s", client, want, out)
		}
	}
	if out, _, _ := runCLI(t, "verify", "-server-seed", vectorSeed, "-client-seed", "abc", "-nonce", "3"); strings.Contains(out, "warning") {
		t.Errorf("a seed of today warned:\n%s", out)
	}
}

// writeFile writes a dump to a file of its own and returns its path.
func writeFile(tb testing.TB, write func(f *os.File) error) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "players.json")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := write(f); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// writeDump writes players as a dump of the current version, as clefs
// export writes it.
func writeDump(tb testing.TB, players ...storage.DecodedPlayer) string {
	tb.Helper()
	return writeFile(tb, func(f *os.File) error {
		return storage.EncodeDump(f, &storage.DecodedDump{Players: players, Guilds: []storage.DecodedGuild{}})
	})
}

// TestVerifyExport checks a dump: the draws under revealed seeds match,
// the others are counted; a tampered revealed seed and a tampered grid are
// reported as mismatches, and exit 1.
func TestVerifyExport(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{7})
	var players []storage.DecodedPlayer
	for u := range 3 {
		players = append(players, storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, rng, 20, 15))
	}
	chests := 0
	for _, p := range players {
		if len(p.Reveals) != 1 {
			t.Fatalf("player %d keeps %d reveals, want the one of its rotation", p.ID.User, len(p.Reveals))
		}
		for _, h := range p.History {
			if h.Kind == game.KindChest && h.Chest <= p.Player.SeedChest {
				chests++
			}
		}
	}
	want := "(45 tickets and " + groupInt(int64(chests)) + " chests of 3 players recomputed from their revealed seeds)"
	out, _, err := runCLI(t, "verify", "-export", writeDump(t, players...))
	if err != nil {
		t.Fatalf("verify -export: %v\n%s", err, out)
	}
	if !strings.Contains(out, want) || !strings.Contains(out, "draws not checked: 17 drawn under seeds still secret") {
		t.Fatalf("output:\n%s\nwant %q and the draws not checked", out, want)
	}
	if !strings.HasSuffix(out, "all match\n") || strings.Contains(out, "BROKEN") {
		t.Fatalf("output:\n%s\nwant \"all match\"", out)
	}

	// Another seed revealed for player 2: every one of its checked tickets differs.
	tampered := slices.Clone(players)
	p := tampered[1]
	p.Reveals = slices.Clone(p.Reveals)
	seed, err := game.ParseSeed(strings.Repeat("5a", 32))
	if err != nil {
		t.Fatal(err)
	}
	p.Reveals[0].Seed = seed
	tampered[1] = p
	out, _, err = runCLI(t, "verify", "-export", writeDump(t, tampered...))
	if ExitCode(err) != 1 || !errors.Is(err, errMismatch) {
		t.Fatalf("a tampered seed: err %v, want a mismatch\n%s", err, out)
	}
	if !strings.Contains(out, "MISMATCH guild 1 user 2 ticket 1 (seed 1)") || strings.Contains(out, "user 1 ") || strings.Contains(out, "user 3 ") {
		t.Errorf("a tampered seed of user 2: output\n%s", out)
	}

	// A grid shown that is not the one drawn (a valid grid, of another ticket).
	tampered = slices.Clone(players)
	p = tampered[0]
	p.History = slices.Clone(p.History)
	var first, other = -1, -1
	for i, h := range p.History {
		if h.Kind != game.KindPlay || h.TicketID > 15 {
			continue
		}
		if first < 0 {
			first = i
		} else if other < 0 && h.Tier == p.History[first].Tier && h.Key == p.History[first].Key && h.Grid != p.History[first].Grid {
			other = i
		}
	}
	if other < 0 {
		t.Fatal("no two verifiable tickets of the same result to swap grids")
	}
	p.History[first].Grid = p.History[other].Grid
	tampered[0] = p
	out, _, err = runCLI(t, "verify", "-export", writeDump(t, tampered...))
	if !errors.Is(err, errMismatch) || !strings.Contains(out, "draws:       47 checked, 0 unchecked, 1 broken") || strings.Count(out, "MISMATCH") != 1 {
		t.Errorf("a swapped grid: err %v\n%s", err, out)
	}
}

// TestVerifyExportRefuses: a missing file, a broken dump, a store's file,
// a record the dump cannot hold (first or in the middle) and a player twice
// are errors (exit 1, nothing printed) that name the cause and, for the
// store, how to export from it.
func TestVerifyExportRefuses(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	writeAt(t, broken, []byte(`{"version": 4, "players": [`))
	bad := storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: 1}, rand.NewChaCha8([32]byte{}), 3, 3)
	v3 := filepath.Join(dir, "v3.json")
	writeAt(t, v3, []byte(`{"version": 3, "players": []}`))
	bad.Player.Balance++ // the books no longer balance
	store := filepath.Join(dir, "clefs.db")
	openStore(t, "", store).Close()
	// A wrong player in the middle of a dump, which verify reads a player at
	// a time, fails it as a wrong first player does.
	rng := rand.NewChaCha8([32]byte{5})
	var players []storage.DecodedPlayer
	for u := range 3 {
		players = append(players, storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, rng, 8, 5))
	}
	middle := slices.Clone(players)
	middle[1].Player.Balance++
	players[1] = players[0] // the same player twice
	for _, tc := range []struct {
		path, want string
		is         error
	}{
		{store, "is a store file, not an export: export from it first, one player's public export (clefs export -public -data " + store, nil},
		{filepath.Join(dir, "missing.json"), "no such file", nil},
		{broken, "read dump", nil},
		{v3, "dump version 3, which this release no longer reads: convert it with clefs 0.3.0 first", nil},
		{writeDump(t, bad), "players[0] (guild 1, user 1)", storage.ErrInvalid},
		{writeDump(t, middle...), "players[1] (guild 1, user 2)", storage.ErrInvalid},
		{writeDump(t, players...), "players[1] (guild 1, user 1)", storage.ErrDuplicate},
	} {
		out, _, err := runCLI(t, "verify", "-export", tc.path)
		if ExitCode(err) != 1 || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) || out != "" {
			t.Errorf("verify -export %s: err %v, output %q; want %q", filepath.Base(tc.path), err, out, tc.want)
		}
	}
}

// BenchmarkVerifyExport checks a dump of 23,000 players whose history
// holds about 45 tickets each under a revealed seed: just over 10^6
// tickets (target: under 10 s, within 200 MB). Run it once; -verify-dump
// keeps the dump, to time clefs verify -export on it (BENCHMARKS.md):
//
//	go test -run '^$' -bench 'VerifyExport$' -benchmem -benchtime 1x ./cli/ -args -verify-dump /tmp/dump1m.json
func BenchmarkVerifyExport(b *testing.B) { benchVerifyExport(b, 23_000) }

// BenchmarkVerifyExportSmall checks a dump of 2,300 players of 51 tickets
// each, about 10^5 tickets under revealed seeds: a tenth of
// BenchmarkVerifyExport, quick enough to profile and to read allocations
// per check from:
//
//	go test -run '^$' -bench VerifyExportSmall -benchmem -cpuprofile cpu.out ./cli/
func BenchmarkVerifyExportSmall(b *testing.B) { benchVerifyExport(b, 2_300) }

// benchVerifyExport times clefs verify -export on a dump of players of 51
// tickets each.
func benchVerifyExport(b *testing.B, players int) {
	path, checked := benchDump(b, players, 51)
	b.ResetTimer()
	for b.Loop() {
		var out bytes.Buffer
		if err := Main(context.Background(), []string{"verify", "-export", path}, &out, &out); err != nil {
			b.Fatal(err, out.String())
		}
		if !strings.Contains(out.String(), "("+groupInt(int64(checked))+" tickets") {
			b.Fatalf("want %d tickets checked:\n%s", checked, out.String())
		}
	}
	b.ReportMetric(float64(checked), "tickets")
	b.ReportMetric(float64(b.N)*float64(checked)/b.Elapsed().Seconds(), "tickets/s")
}

// dumpOut is where benchDump writes its dump, to time clefs verify on it
// (BENCHMARKS.md): a temporary file if not given.
var dumpOut = flag.String("verify-dump", "", "benchmarks: write the generated dump to this file")

// benchDump writes a dump of players players who each played tickets
// tickets, all but the last under a revealed seed, and returns its path
// and how many tickets verify recomputes in it.
func benchDump(b *testing.B, players, tickets int) (path string, checked int) {
	b.Helper()
	rng := rand.NewChaCha8([32]byte{9})
	dump := make([]storage.DecodedPlayer, 0, players)
	for u := range players {
		p := storetest.PlayedPlayer(b, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, rng, tickets, tickets-1)
		for _, h := range p.History {
			if h.Kind == game.KindPlay && h.TicketID <= p.Player.SeedTicket {
				checked++
			}
		}
		dump = append(dump, p)
	}
	if *dumpOut == "" {
		return writeDump(b, dump...), checked
	}
	writeAt(b, *dumpOut, encodeDump(b, dump...))
	return *dumpOut, checked
}

// TestVerifyExportLinks checks a real dump and its public export, then
// tampers with the dump, and with its public export where it carries what
// is tampered with, in the ways a cheat could hide while each draw still
// recomputes (and a grid redrawn, which does not), and checks that each is
// reported as a broken link naming the player and the ticket, with exit
// status 1.
func TestVerifyExportLinks(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{23})
	id := storage.PlayerID{Guild: 1, User: 7}
	clean := storetest.PlayedPlayer(t, id, rng, 40, 8) // seeds 1..4 revealed, 5 current
	if len(clean.Reveals) != 4 || len(clean.History) >= storage.HistoryLimit {
		t.Fatalf("%d reveals, %d lines: want 4 reveals and a whole history", len(clean.Reveals), len(clean.History))
	}
	out, _, err := runCLI(t, "verify", "-export", writeDump(t, clean))
	if err != nil || !strings.HasSuffix(out, "\nall match\n") {
		t.Fatalf("the clean dump: %v\n%s", err, out)
	}
	// Its public export: the draws under revealed seeds recompute, the
	// links to the player's state (not in the export) are unchecked.
	out, _, err = runCLI(t, "verify", "-export", writePublic(t, clean))
	if err != nil || strings.Contains(out, "BROKEN") {
		t.Fatalf("the clean public export: %v\n%s", err, out)
	}
	for _, want := range []string{
		"draws:       35 checked", // tickets 1..32 and their chests
		" checked, 0 unchecked, 0 broken (32 tickets and ",
		"keys chain:  ", "seed ranges: ",
		"draws not checked: 8 drawn under seeds still secret", // tickets 33..40
		"\nall match (a public export holds no player state",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the clean public export lacks %q:\n%s", want, out)
		}
	}
	bad := writeTemp(t, `{"v":3,"guild":"1","user":"7","h":[],"r":[]}`)
	if _, _, err := runCLI(t, "verify", "-export", bad); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "field v") {
		t.Errorf("a version 3 public export: %v", err)
	}
	var d game.SeededDrawer
	index := func(h []game.Entry, ok func(e game.Entry) bool) int {
		t.Helper()
		for i, e := range h {
			if ok(e) {
				return i
			}
		}
		t.Fatal("no such line")
		return -1
	}
	revealed := func(e game.Entry) bool { return e.TicketID <= clean.Player.SeedTicket }
	for _, tc := range []struct {
		name   string
		tamper func(p *storage.DecodedPlayer) string // returns a break the output must name
		draws  bool                                  // whether a draw no longer recomputes too
		public bool                                  // whether a public export says it alike
	}{
		{"a grid redrawn", func(p *storage.DecodedPlayer) string {
			i := index(p.History, func(e game.Entry) bool { return e.Kind == game.KindPlay && revealed(e) && !e.Tier.Winning() })
			e := &p.History[i]
			g := []byte(e.Grid.String())
			g[0], g[8] = g[8], g[0]
			if g[0] == g[8] {
				g[0], g[4] = g[4], g[0]
			}
			grid, err := game.ParseGrid(string(g))
			if err != nil {
				t.Fatal(err)
			}
			e.Grid = grid
			return "MISMATCH guild 1 user 7 ticket " + itoa(e.TicketID)
		}, true, true},
		{"keys held raised from 1 to 2, grid redrawn to match", func(p *storage.DecodedPlayer) string {
			i := index(p.History, func(e game.Entry) bool { return e.Kind == game.KindPlay && e.KeysBefore == 1 && revealed(e) })
			e := &p.History[i]
			r, _ := p.Reveals.Seed(seedOf(p.Reveals, e.TicketID))
			o, err := d.Ticket(r.Seed, r.ClientSeed, e.TicketID, 2)
			if err != nil {
				t.Fatal(err)
			}
			e.KeysBefore, e.Grid, e.Tier, e.Key = 2, o.Grid, o.Tier, o.Key
			return "BROKEN guild 1 user 7 ticket " + itoa(e.TicketID) + ": keys chain: records keys held before it: 2; the line before leaves 1"
		}, false, true},
		{"a chest line deleted", func(p *storage.DecodedPlayer) string {
			i := index(p.History, func(e game.Entry) bool { return e.Kind == game.KindChest })
			next := p.History[i+1].TicketID
			p.History = slices.Delete(p.History, i, i+1)
			return "BROKEN guild 1 user 7 ticket " + itoa(next) + ": keys chain: bought while the chest of the third key before it was not opened"
		}, false, false},
		{"a revealed seed's range shrunk to hide a ticket", func(p *storage.DecodedPlayer) string {
			p.Reveals[1].LastTicket--
			return "BROKEN guild 1 user 7 ticket " + itoa(p.Reveals[1].LastTicket+1) + ": seed ranges: drawn under seed 2"
		}, false, false},
		{"the first seed's range shrunk from its start", func(p *storage.DecodedPlayer) string {
			p.Reveals[0].FirstTicket++
			return "BROKEN guild 1 user 7 ticket 1: seed ranges: drawn under seed 1"
		}, false, false},
		{"a revealed seed deleted", func(p *storage.DecodedPlayer) string {
			first := p.Reveals[2].FirstTicket
			p.Reveals = slices.Delete(p.Reveals, 2, 3)
			return "BROKEN guild 1 user 7 ticket " + itoa(first) + ": seed ranges: lies in no revealed seed's range"
		}, false, true},
		{"the first revealed seed deleted", func(p *storage.DecodedPlayer) string {
			p.Reveals = p.Reveals[1:]
			return "BROKEN guild 1 user 7 seed 2: seed ranges: seeds 1 to 1 are missing"
		}, false, false},
		{"seeds swapped between two reveals", func(p *storage.DecodedPlayer) string {
			p.Reveals[0].Seed, p.Reveals[1].Seed = p.Reveals[1].Seed, p.Reveals[0].Seed
			return "BROKEN guild 1 user 7 ticket 1: commitments: lies in seed 1's range but records seed 2's commitment"
		}, true, true},
		{"a gap in ticket numbers", func(p *storage.DecodedPlayer) string {
			i := index(p.History, func(e game.Entry) bool { return e.Kind == game.KindPlay && e.TicketID == 10 })
			p.History = slices.Delete(p.History, i, i+1)
			return "BROKEN guild 1 user 7 ticket 11: numbers: follows ticket 9: 1 missing, 0 thrown away by a reset"
		}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := clean
			p.History, p.Reveals = slices.Clone(clean.History), slices.Clone(clean.Reveals)
			want := tc.tamper(&p)
			files := map[string]string{"dump": writeDump(t, p)}
			if tc.public {
				files["public export"] = writePublic(t, p)
			}
			for kind, file := range files {
				out, _, err := runCLI(t, "verify", "-export", file)
				if ExitCode(err) != 1 || !errors.Is(err, errMismatch) {
					t.Errorf("%s: err %v, want exit 1", kind, err)
				}
				if !strings.Contains(out, want) || !strings.Contains(out, "\nBROKEN: ") || strings.Contains(out, "all match") {
					t.Errorf("%s: output lacks %q:\n%s", kind, want, out)
				}
				if strings.Contains(out, "MISMATCH") != tc.draws {
					t.Errorf("%s: a draw mismatch reported: %v, want %v:\n%s", kind, !tc.draws, tc.draws, out)
				}
			}
		})
	}
}

// seedOf is the number of the kept reveal that drew ticket n.
func seedOf(rs game.Reveals, n uint64) int64 {
	for _, r := range rs {
		if r.HasTicket(n) {
			return r.No
		}
	}
	return -1
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestVerifyFlags: -commitment takes the 8 digits a card shows as well as
// all 64 (one the seed does not hash to is a failure, exit 1, that names
// both), and -chest every unsigned 64-bit number, drawn or refused with an
// error naming the flag, never wrapped.
func TestVerifyFlags(t *testing.T) {
	base := []string{"verify", "-server-seed", vectorSeed, "-client-seed", "x", "-nonce", "1"}
	out, _, err := runCLI(t, append(base, "-commitment", strings.ToUpper(vectorCommitment[:8]))...)
	if err != nil || !strings.Contains(out, "(matches the 8 digits shown on the card)") {
		t.Errorf("8 digits: %v\n%s", err, out)
	}
	for _, wrong := range []string{"deadbeef", strings.Repeat("ab", 32)} {
		out, _, err = runCLI(t, append(base, "-commitment", wrong)...)
		if ExitCode(err) != 1 || !errors.Is(err, errMismatch) || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), vectorCommitment) ||
			!strings.Contains(out, "NOT the commitment given, "+wrong) {
			t.Errorf("-commitment %s: %v, want a mismatch naming both commitments\n%s", wrong, err, out)
		}
	}
	for _, bad := range []string{"630dcd2966", "630dcd2", vectorCommitment + "00"} {
		_, _, err = runCLI(t, append(base, "-commitment", bad)...)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), "-commitment: want 64 hex digits, or the 8 the card shows") {
			t.Errorf("-commitment %s: %v", bad, err)
		}
	}
	chest := []string{"verify", "-server-seed", vectorSeed, "-client-seed", "x", "-chest"}
	out, _, err = runCLI(t, append(chest, "9223372036854775807")...)
	if err != nil || !strings.Contains(out, "chest #9223372036854775807: ") {
		t.Errorf("-chest 2^63-1: %v\n%s", err, out)
	}
	for _, n := range []string{"9223372036854775808", "18446744073709551615"} {
		out, _, err = runCLI(t, append(chest, n)...)
		if err != nil || !strings.Contains(out, "chest #"+n+": ") {
			t.Errorf("-chest %s (chest numbers are unsigned 64-bit): %v\n%s", n, err, out)
		}
	}
	// Numbers in decimal digits only, as the page reads them (the same
	// table drives its test).
	for _, row := range numberGrammar(t, "testdata/numbers.txt") {
		var d decimal
		err := d.Set(row[0])
		if got := fmt.Sprint(uint64(d)); err == nil && got != row[1] || err != nil && row[1] != "refused" {
			t.Errorf("number %q: %s, %v; want %s", row[0], got, err, row[1])
		}
		_, _, err = runCLI(t, append(chest, row[0])...)
		if row[1] == "refused" && (ExitCode(err) != 2 || !strings.Contains(err.Error(), "invalid value "+strconv.Quote(row[0])+" for flag -chest: ")) {
			t.Errorf("-chest %q: %v", row[0], err)
		}
	}
}

// numberGrammar is the table at path (testdata/numbers.txt): inputs, and the
// number each is or "refused".
func numberGrammar(t testing.TB, path string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		q, want, ok := strings.Cut(line, "\t")
		if strings.HasPrefix(line, "#") {
			continue
		}
		in, err := strconv.Unquote(q)
		if !ok || err != nil {
			t.Fatalf("numbers.txt: bad line %q", line)
		}
		rows = append(rows, [2]string{in, want})
	}
	return rows
}

// TestSeedDraws: the drawer verify -export keys once per seed draws what
// game.SeededDrawer draws, as seeds and client seeds change between
// draws, errors included.
func TestSeedDraws(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{6})
	seeds := make([]game.Seed, 3)
	for i := range seeds {
		var err error
		if seeds[i], err = game.NewSeed(rng); err != nil {
			t.Fatal(err)
		}
	}
	var want game.SeededDrawer
	var got seedDraws
	for i := range 60 {
		seed, client := seeds[i%5%3], []string{"a", "b"}[i%7%2]
		n, keys := uint64(i/4), i%4 // ticket 0 and 3 keys held are errors
		wo, werr := want.Ticket(seed, client, n, keys)
		o, err := got.Ticket(seed, client, n, keys)
		if o != wo || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("ticket %d, %d keys: %v, %v; SeededDrawer: %v, %v", n, keys, o, err, wo, werr)
		}
		wc, werr := want.Chest(seed, client, int64(i)-1)
		c, err := got.Chest(seed, client, int64(i)-1)
		if c != wc || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("chest %d: %v, %v; SeededDrawer: %v, %v", i-1, c, err, wc, werr)
		}
	}
	if _, err := got.Ticket(game.Seed{}, "a", 1, 0); err == nil {
		t.Fatal("a zero seed drew")
	}
}
