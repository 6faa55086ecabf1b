package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"time"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// randomRun plays n random steps over a few players of two guilds, as the
// handlers would: game's moves through Store.Run, each under its own
// operation ID, with verifiable draws from seeded player seeds.
func randomRun(t *testing.T, st storage.Store, seed uint64, n int) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 1))
	seeds := rand.NewChaCha8([32]byte{byte(seed), 1})
	setup := game.ChangeSettings{Patch: storetest.FullPatch(game.Settings{StartingBalance: 300, DailyAmount: 40}), Actor: 9, Reason: "setup"}
	if _, err := st.RunGuild(ctx, storage.GuildStep{Guild: 2, Op: "setup", Move: setup, Now: storage.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	for k := range n {
		now = now.Add(time.Duration(r.IntN(3600)) * time.Second)
		id := storage.PlayerID{Guild: uint64(1 + r.IntN(2)), User: uint64(1 + r.IntN(12))}
		g, err := st.Guild(ctx, id.Guild)
		if err != nil {
			t.Fatal(err)
		}
		v, err := st.Load(ctx, id) // what the player's card shows
		if err != nil {
			t.Fatal(err)
		}
		set, p := g.Settings, v.Player
		step := storage.Step{ID: id, Op: "op" + strconv.Itoa(k), Create: true, Start: set.StartingBalance, Seeds: seeds, Now: now}
		by := game.Moderator{Guild: id.Guild, Actor: 9, Target: id.User}
		switch x := r.IntN(100); {
		case x < 50:
			step.Move = game.Buy{}
			if p.ChestDue {
				step.Move = game.OpenChest{Seq: p.ChestSeq + 1}
			}
		case x < 85:
			reveal := game.Reveal{Rows: game.RowMask(r.IntN(8))} // of ticket 0 without one: ErrUnknownTicket
			if p.Ticket != nil {
				reveal.Ticket = p.Ticket.ID
			}
			step.Create, step.Move = false, reveal
		case x < 90:
			step.Move = game.ClaimDaily{Amount: set.DailyAmount, Cooldown: set.DailyCooldown}
		case x < 95:
			by.Reason = "random"
			step.Move = game.Grant{Amount: int64(r.IntN(2000) - 500), By: by}
		case x < 98:
			step.Move = game.Grant{Amount: int64(r.IntN(5000)), Set: true, By: by}
		default:
			by.Reason = "oops"
			step.Create, step.Move = false, game.Reset{Start: set.StartingBalance, By: by}
		}
		_, err = st.Run(ctx, step)
		switch {
		case err == nil, errors.Is(err, game.ErrInsufficientFunds), errors.Is(err, game.ErrInvalid),
			errors.Is(err, game.ErrNoChest), errors.Is(err, game.ErrUnknownTicket), errors.Is(err, game.ErrDailyCooldown),
			errors.Is(err, game.ErrChestDue), errors.Is(err, storage.ErrNoPlayer):
		default:
			t.Fatalf("random step on %v: %v", id, err)
		}
	}
}

func openStore(t *testing.T, url, path string) storage.Store {
	t.Helper()
	opts := storage.Options{Defaults: game.Settings{StartingBalance: 1000, DailyAmount: 25}}
	st, err := backend.Open(context.Background(), url, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src.db")
	st := openStore(t, "", src)
	randomRun(t, st, 1, 500)
	st.Close()

	out1 := mustCLI(t, "export", "-data", src)
	dumpFile := filepath.Join(t.TempDir(), "dump.json")
	if _, _, err := runCLI(t, "export", "-data", src, "-o", dumpFile); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dumpFile); string(b) != out1 {
		t.Fatal("export -o differs from export to stdout")
	}
	d, err := storage.ReadDump(strings.NewReader(out1))
	if err != nil || d.Version != storage.DumpVersion || len(d.Players) < 20 || len(d.Guilds) != 2 {
		t.Fatalf("dump: %v; want version %d with at least 20 players and 2 guilds", err, storage.DumpVersion)
	}
	// The dump holds every player as the store does: its record, every
	// field of it, and its history.
	st = openStore(t, "", src)
	var keys, chests, tickets, plays, granted int
	for i, dp := range d.Players {
		v, err := st.Load(context.Background(), dp.ID)
		if err != nil || !v.Exists() {
			t.Fatalf("players[%d] %v: %v, exists %v", i, dp.ID, err, v.Exists())
		}
		want, err1 := schema.EncodePlayer(v.Player)
		got, err2 := schema.EncodePlayer(dp.Player)
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("players[%d] %v: dumped as\n%s\nstored as\n%s (%v, %v)", i, dp.ID, got, want, err2, err1)
		}
		hist, err := st.History(context.Background(), dp.ID, storage.HistoryLimit)
		if err != nil || len(hist) != len(dp.History) {
			t.Fatalf("players[%d] %v: %d history lines dumped, %d stored (%v)", i, dp.ID, len(dp.History), len(hist), err)
		}
		for j, e := range dp.History {
			want, err1 := schema.EncodeLine(hist[len(hist)-1-j]) // History is newest first
			got, err2 := schema.EncodeLine(e)
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("players[%d] %v: history line %d dumped as %s, stored as %s", i, dp.ID, j, got, want)
			}
		}
		p := dp.Player
		if p.Keys > 0 || p.ChestDue {
			keys++
		}
		if p.Stats.Chests > 0 {
			chests++
		}
		if p.Ticket != nil {
			tickets++
		}
		if p.Stats.Plays > 0 && p.Stats.StakedCents > 0 && p.Stats.WonCents > 0 {
			plays++
		}
		if p.Stats.GrantedCents != 0 {
			granted++
		}
	}
	st.Close()
	if keys == 0 || chests == 0 || tickets == 0 || plays == 0 || granted == 0 {
		t.Errorf("the dump lacks players with keys (%d), chests (%d), a ticket (%d), plays and wins (%d), grants (%d)", keys, chests, tickets, plays, granted)
	}

	// The documented way up: embedded store → Redis, then back to a file.
	url := redistest.URL(t)
	if out, _, err := runCLI(t, "import", "-redis", url, dumpFile); err != nil || !strings.Contains(out, "imported") {
		t.Fatalf("import into Redis: %q, %v", out, err)
	}
	out2 := mustCLI(t, "export", "-redis", url)
	if out2 != out1 {
		t.Fatalf("export → import into Redis → export differs:\n%s", firstDiff(out1, out2))
	}
	dst := filepath.Join(t.TempDir(), "dst.db")
	if _, _, err := runCLI(t, "import", "-data", dst, "-i", dumpFile); err != nil {
		t.Fatal(err)
	}
	out3 := mustCLI(t, "export", "-data", dst)
	if out3 != out1 {
		t.Fatalf("export → import into a file → export differs:\n%s", firstDiff(out1, out3))
	}
	// Each import wrote the leaderboard with the players: audit finds it
	// agrees with them.
	for _, flags := range [][]string{{"-redis", url}, {"-data", dst}} {
		if out, _, err := runCLI(t, append([]string{"audit"}, flags...)...); err != nil || !strings.Contains(out, "2 guilds checked, 0 disagreements") {
			t.Fatalf("audit %v after the import: %q, %v", flags, out, err)
		}
	}
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + la[i] + "\n+ " + lb[i]
		}
	}
	return "lengths differ"
}

// TestImportRejectsBadCurrentDump: a dump of the current version is read
// strictly, and one before version 4 is refused, naming the release that
// converts it; the error names the record, and the store is not created.
func TestImportRejectsBadCurrentDump(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := game.NewPlayer(100, game.Seed{1}, "client", now)
	if err != nil {
		t.Fatal(err)
	}
	good := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: 2}, Player: p}
	edit := func(change func(d map[string]any)) []byte { return editDump(t, encodeDump(t, good), change) }
	unbalanced := good
	unbalanced.Player.Balance++
	cases := []struct {
		name  string
		input []byte
		want  string
	}{
		{"unknown field", edit(func(d map[string]any) {
			d["players"].([]any)[0].(map[string]any)["p"].(map[string]any)["cheat"] = 1
		}), "unknown field"},
		{"unknown version", edit(func(d map[string]any) { d["version"] = storage.DumpVersion + 1 }), "dump version"},
		{"version 1", []byte(`{"version":1,"players":[]}`), "dump version 1, which this release no longer reads: convert it with clefs 0.3.0 first"},
		{"version 3", edit(func(d map[string]any) { d["version"] = 3 }), "dump version 3, which this release no longer reads: convert it with clefs 0.3.0 first"},
		{"not JSON", []byte(`{"version":5,"players":[`), "read dump"},
		{"snowflake as number", edit(func(d map[string]any) { d["players"].([]any)[0].(map[string]any)["guild"] = 1 }), "read dump"},
		{"trailing data", append(encodeDump(t, good), "{}"...), "trailing data"},
		{"broken invariant", encodeDump(t, unbalanced), "players[0] (guild 1, user 2)"},
		{"duplicate", encodeDump(t, good, good), "players[1] (guild 1, user 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(dir, c.name+".db")
			_, _, err := runCLI(t, "import", "-data", db, writeTemp(t, string(c.input)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an error mentioning %q", err, c.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Fatal("a refused import created the store")
			}
		})
	}
	db := filepath.Join(dir, "ok.db")
	if _, _, err := runCLI(t, "import", "-data", db, writeDump(t, good)); err != nil {
		t.Fatalf("the good input: %v", err)
	}
	st := openStore(t, "", db)
	defer st.Close()
	if v, err := st.Load(context.Background(), good.ID); err != nil || v.Player.Balance != p.Balance || v.Player.Seed != p.Seed {
		t.Fatalf("the player imported: %+v, %v", v.Player, err)
	}
}

// TestImportRefusesWhatCouldNeverPlay: a dump whose player the rules could
// never have written, or whose due chest could never be opened, is refused
// whole, naming the player and the field, and the store it was imported
// into (with -force, beside other players) is unchanged; the same player
// untampered imports.
func TestImportRefusesWhatCouldNeverPlay(t *testing.T) {
	// The target: a player who has played until a chest, through the rules.
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := game.NewPlayer(2000, game.Seed{7}, "client", now)
	if err != nil {
		t.Fatal(err)
	}
	var hist []game.Entry
	for p.Stats.Chests == 0 || p.ChestDue || len(hist) == 0 || hist[len(hist)-1].Kind != game.KindPlay {
		steps := []game.Move{game.Buy{}, game.Reveal{Ticket: p.TicketSeq + 1, Rows: game.AllRows}}
		if p.ChestDue {
			steps = []game.Move{game.OpenChest{Seq: p.ChestSeq + 1}}
		}
		for _, m := range steps {
			s, err := game.Apply(p, m, now)
			if err != nil || p.Stats.Plays > 40 {
				t.Fatalf("no chest in 40 plays: %v", err)
			}
			p, hist = s.Player, append(hist, s.History...)
		}
		now = now.Add(time.Minute)
	}
	target := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: 2}, Player: p, History: hist}
	other, err := game.NewPlayer(500, game.Seed{8}, "other", now)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "dst.db")
	if _, _, err := runCLI(t, "import", "-data", db, writeDump(t, storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: 3}, Player: other})); err != nil {
		t.Fatal(err)
	}
	before := mustCLI(t, "export", "-data", db)
	type doc = map[string]any
	// edit changes the JSON form of the target's dump: its record, and its
	// last history line of kind k.
	edit := func(change func(p doc, line func(k string) doc)) []byte {
		return editDump(t, encodeDump(t, target), func(d doc) {
			dp := d["players"].([]any)[0].(doc)
			change(dp["p"].(doc), func(k string) doc {
				h := dp["h"].([]any)
				for j := len(h) - 1; j >= 0; j-- {
					if l := h[j].(doc); l["k"] == k {
						return l
					}
				}
				t.Fatalf("no %q line", k)
				return nil
			})
		})
	}
	const maxSeq = uint64(game.MaxSeq)
	for _, c := range []struct {
		name  string
		input []byte
		field string
	}{
		{"a grid that does not show its tier", edit(func(_ doc, line func(string) doc) {
			l, tier := line("play"), game.TierGem
			if l["tr"] == tier.String() {
				tier = game.TierPipe
			}
			l["tr"], l["a"], l["key"] = tier.String(), tier.Prize()-game.Stake, false
		}), "field g"},
		{"a ticket's amount of 10^13", edit(func(_ doc, line func(string) doc) { line("play")["a"] = 10_000_000_000_000 }), "field a"},
		{"a chest's amount not its lot's", edit(func(_ doc, line func(string) doc) { line("chest")["a"] = 1 }), "field a"},
		{"a balance after past the limit", edit(func(_ doc, line func(string) doc) { line("chest")["b"] = game.MaxBalance + 1 }), "field b"},
		{"a chest number on a ticket's line", edit(func(_ doc, line func(string) doc) { line("play")["c"] = 1 }), "field c"},
		{"a tier on a chest's line", edit(func(_ doc, line func(string) doc) { line("chest")["tr"] = "loss" }), "field tr"},
		{"a spend day that is not a UTC midnight", edit(func(p doc, _ func(string) doc) {
			sp := p["cr"].(doc)["sp"].(doc)
			day, _ := sp["d"].(json.Number).Int64()
			sp["d"] = day + 3_600_000
		}), "spend day"},
		{"a chest due at the chest-number limit", edit(func(p doc, _ func(string) doc) {
			delete(p, "k")
			p["cd"], p["tn"], p["cn"] = true, maxSeq, maxSeq
		}), "chests opened"},
		{"more chests than the tickets give", edit(func(p doc, _ func(string) doc) {
			n, _ := p["tn"].(json.Number).Int64()
			p["cn"] = n
		}), "chests opened"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runCLI(t, "import", "-data", db, "-force", writeTemp(t, string(c.input)))
			who := fmt.Sprintf("players[0] (guild %d, user %d)", target.ID.Guild, target.ID.User)
			if err == nil || !strings.Contains(err.Error(), who) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "nothing was imported") {
				t.Fatalf("import: %v; want a refusal naming %s and %q", err, who, c.field)
			}
			if after, _, err := runCLI(t, "export", "-data", db); err != nil || after != before {
				t.Fatalf("a refused import changed the store (%v)", err)
			}
		})
	}
	if _, _, err := runCLI(t, "import", "-data", db, "-force", writeDump(t, target)); err != nil {
		t.Fatalf("the player untampered: %v", err)
	}
}

// TestImportedPlayerPlaysItsLastTicket: ticket numbers end at game.MaxSeq.
// A player imported one below it plays that last ticket, and is exported
// and imported again with it; then the bot says no number is left
// (commands' TestTicketNumberLimitIsAnAnswer).
func TestImportedPlayerPlaysItsLastTicket(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := game.NewPlayer(1000, game.Seed{1}, "client", now)
	if err != nil {
		t.Fatal(err)
	}
	p.TicketSeq, p.SeedTicket = game.MaxSeq-1, game.MaxSeq-1
	id := storage.PlayerID{Guild: 1, User: 2}
	db := filepath.Join(t.TempDir(), "clefs.db")
	if _, _, err := runCLI(t, "import", "-data", db, writeDump(t, storage.DecodedPlayer{ID: id, Player: p})); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, "", db)
	for k, m := range []game.Move{game.Buy{}, game.Reveal{Ticket: game.MaxSeq, Rows: game.AllRows}} {
		if _, err := st.Run(ctx, storage.Step{ID: id, Op: fmt.Sprint("last-", k), Now: now, Move: m}); err != nil {
			t.Fatalf("step %d of the last ticket: %v", k, err)
		}
	}
	v, err := st.Load(ctx, id)
	st.Close()
	if err != nil || v.Player.TicketSeq != game.MaxSeq || v.Player.Ticket == nil || !v.Player.Ticket.Drawn {
		t.Fatalf("after the last ticket: %+v, %v", v.Player, err)
	}
	out := mustCLI(t, "export", "-data", db)
	if _, _, err := runCLI(t, "import", "-data", filepath.Join(t.TempDir(), "again.db"), writeTemp(t, out)); err != nil {
		t.Fatalf("the player at the last ticket, imported again: %v", err)
	}
}

// encodeDump is players as a dump of the current version.
func encodeDump(tb testing.TB, players ...storage.DecodedPlayer) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := storage.EncodeDump(&b, &storage.DecodedDump{Players: players}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// editDump is dump changed in its JSON form (numbers as json.Number).
func editDump(t *testing.T, dump []byte, change func(d map[string]any)) []byte {
	t.Helper()
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(dump))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	change(d)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.json")
	writeAt(t, p, []byte(s))
	return p
}

// writeAt writes data to the file at path, failing the test on an error.
func writeAt(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// editBolt runs edit in a transaction on the embedded store's file at path,
// which no store holds open.
func editBolt(t *testing.T, path string, edit func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(edit); err != nil {
		t.Fatal(err)
	}
}

// redisClient is a client of the Redis at url, closed when the test ends.
func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestAuditAfterARandomRun: on both stores, the books balance and the
// leaderboard agrees with the players after many random steps.
func TestAuditAfterARandomRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", path)
	randomRun(t, st, 2, 500)
	st.Close()
	url := redistest.URL(t)
	st = openStore(t, url, "")
	randomRun(t, st, 3, 500)
	st.Close()
	for _, flags := range [][]string{{"-data", path}, {"-redis", url}} {
		out, _, err := runCLI(t, append([]string{"audit"}, flags...)...)
		if err != nil || !strings.Contains(out, " 0 breaches") || !strings.Contains(out, " credits held in total") ||
			!strings.Contains(out, "leaderboards of 2 guilds checked, 0 disagreements") {
			t.Fatalf("audit %v after a random run: %q, %v", flags, out, err)
		}
	}
}

// TestExportOutput: export -o never replaces a file unless -force says
// so; a failed export -o names the path given, never the hidden temporary
// file beside it, and refuses a directory; so does writeFileAtomic.
func TestExportOutput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "clefs.db")
	st := openStore(t, "", src)
	randomRun(t, st, 6, 50)
	st.Close()
	out := filepath.Join(dir, "dump.json")
	writeAt(t, out, []byte("precious"))
	_, _, err := runCLI(t, "export", "-data", src, "-o", out)
	if err == nil || !strings.Contains(err.Error(), "exists") || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("export over an existing file: %v, want a refusal that names -force", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "precious" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	if _, _, err := runCLI(t, "export", "-data", src, "-o", out, "-force"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"version": 5`) {
		t.Fatalf("export -force did not replace the file: %.40q", b)
	}
	if _, _, err := runCLI(t, "export", "-data", src, "-force"); err == nil {
		t.Fatal("-force without -o was accepted")
	}
	// A file made between the check and the write is not overwritten either.
	if err := writeFileAtomic(out, false, func(w io.Writer) error { return nil }); !errors.Is(err, fs.ErrExist) && (err == nil || !strings.Contains(err.Error(), "exists")) {
		t.Fatalf("writeFileAtomic over an existing file without replace: %v", err)
	}

	odir := t.TempDir()
	for _, tt := range []struct {
		out  string
		want []string
	}{
		{odir, []string{odir + " is a directory", filepath.Join(odir, "players.json")}},
		{filepath.Join(odir, "missing", "x.json"), []string{filepath.Join(odir, "missing", "x.json") + ": no such file or directory"}},
	} {
		_, _, err := runCLI(t, "export", "-data", src, "-o", tt.out)
		if err == nil {
			t.Errorf("export -o %s succeeded", tt.out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("export -o %s: %q does not say %q", tt.out, err, w)
			}
		}
		if strings.Contains(err.Error(), "/.") {
			t.Errorf("export -o %s names a hidden file: %v", tt.out, err)
		}
	}
	path := filepath.Join(odir, "x.json")
	err = writeFileAtomic(path, true, func(io.Writer) error { return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "write "+path+": boom") {
		t.Errorf("a failed write: %v, want it to name %s", err, path)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a failed write left %s (%v)", path, serr)
	}
	if err := os.Mkdir(filepath.Join(odir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(filepath.Join(odir, "d"), true, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing over a directory: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(odir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestAuditListsEveryDamagedRecord: on either store, two player records
// overwritten by hand are both listed, by key and reason, the other
// players and the leaderboard still checked, and the exit status is 1.
func TestAuditListsEveryDamagedRecord(t *testing.T) {
	path, url := filepath.Join(t.TempDir(), "clefs.db"), redistest.URL(t)
	for _, flags := range [][]string{{"-data", path}, {"-redis", url}} {
		st := openStore(t, url, "")
		if flags[0] == "-data" {
			st = openStore(t, "", path)
		}
		for u := range uint64(4) {
			if _, err := st.Run(context.Background(), storage.Step{
				ID: storage.PlayerID{Guild: 1, User: u + 1}, Op: "grant", Create: true, Start: 1000, Seeds: storetest.Seeds(u), Now: time.Now(),
				Move: game.Grant{Amount: 100},
			}); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		if flags[0] == "-data" {
			editBolt(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("players"))
				return errors.Join(b.Put(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 2), []byte("garbage")),
					b.Put(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 4), []byte(`{"v":2,"p":{"f":1,"b":-5}}`)))
			})
		} else {
			c, ctx := redisClient(t, url), context.Background()
			if err := errors.Join(c.HSet(ctx, "p:{1}:2", "p", "garbage").Err(), c.HSet(ctx, "p:{1}:4", "s", `{"s":"00"}`).Err()); err != nil {
				t.Fatal(err)
			}
		}
		out, _, err := runCLI(t, append([]string{"audit"}, flags...)...)
		if ExitCode(err) != 1 || strings.Count(out, "DAMAGED ") != 2 || !strings.Contains(out, "DAMAGED player 1/2: ") ||
			!strings.Contains(out, "DAMAGED player 1/4: ") || !strings.Contains(out, "4 players checked, 2 damaged, 0 breaches") ||
			!strings.Contains(out, "leaderboards of 1 guild checked, 0 disagreements") {
			t.Fatalf("audit %v with two damaged records: %v\n%s", flags, err, out)
		}
	}
}

// TestAuditOfADamagedFile: garbage over a file's pages is listed by page
// and bucket, without bbolt's panics, and the audit's last words are the
// next step, restoring, not the audit just run.
func TestAuditOfADamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", path)
	randomRun(t, st, 3, 300)
	st.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{}).Read(garbage)
	if _, err := f.WriteAt(garbage, 4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, _, err := runCLI(t, "audit", "-data", path)
	if ExitCode(err) != 1 || !strings.Contains(out, "DAMAGED pages: ") || strings.Contains(out+err.Error(), "panic") ||
		strings.Contains(out, "key :") || strings.Contains(err.Error(), "clefs audit") || !strings.Contains(err.Error(), "restore the newest snapshot") {
		t.Errorf("audit of a damaged file: %v\n%s", err, out)
	}
}
