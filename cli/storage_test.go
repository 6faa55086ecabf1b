package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// randomRun plays n random steps over a few players of two guilds.
func randomRun(t *testing.T, st storage.Store, seed uint64, n int) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 1))
	if err := st.SetSettings(ctx, 9, 2, storage.Settings{StartingBalance: 300, DailyAmount: 40}, "setup"); err != nil {
		t.Fatal(err)
	}
	for range n {
		id := storage.PlayerID{Guild: uint64(1 + r.IntN(2)), User: uint64(1 + r.IntN(12))}
		var err error
		switch k := r.IntN(100); {
		case k < 50:
			var p storage.Player
			p, _, _, err = st.Buy(ctx, id)
			if errors.Is(err, storage.ErrChestDue) {
				_, _, _, err = st.OpenChest(ctx, id, p.ChestSeq+1)
			}
		case k < 85:
			var p storage.Player
			if p, err = st.Player(ctx, id); err == nil && p.Ticket != nil {
				_, _, err = st.Reveal(ctx, id, p.Ticket.ID, storage.RowMask(r.IntN(8)))
			}
		case k < 90:
			_, err = st.ClaimDaily(ctx, id)
		case k < 95:
			_, err = st.Grant(ctx, 9, id, int64(r.IntN(2000)-500), "random")
		case k < 98:
			_, err = st.SetBalance(ctx, 9, id, int64(r.IntN(5000)), "")
		default:
			_, err = st.ResetPlayer(ctx, 9, id, "oops")
		}
		switch {
		case err == nil, errors.Is(err, storage.ErrInsufficientFunds), errors.Is(err, storage.ErrInvalid),
			errors.Is(err, storage.ErrNoChest), errors.Is(err, storage.ErrDailyCooldown):
		default:
			t.Fatalf("random step on %v: %v", id, err)
		}
	}
}

func openStore(t *testing.T, url, path string) storage.Store {
	t.Helper()
	opts := storage.Options{Drawer: storetest.RandomDrawer(77), Defaults: storage.Settings{StartingBalance: 1000, DailyAmount: 25}}
	st, err := backend.Open(context.Background(), url, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = Main(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

func TestExportImportRoundTrip(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.db")
	st := openStore(t, "", src)
	randomRun(t, st, 1, 1500)
	st.Close()

	out1, _, err := runCmd(t, "export", "-redis", "", "-data", src)
	if err != nil {
		t.Fatal(err)
	}
	dumpFile := filepath.Join(t.TempDir(), "dump.json")
	if _, _, err := runCmd(t, "export", "-redis", "", "-data", src, "-o", dumpFile); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dumpFile); string(b) != out1 {
		t.Fatal("export -o differs from export to stdout")
	}
	var d storage.Dump
	if err := json.Unmarshal([]byte(out1), &d); err != nil || len(d.Players) < 20 || len(d.Guilds) != 2 {
		t.Fatalf("dump: %d players, %d guilds, %v", len(d.Players), len(d.Guilds), err)
	}
	for _, key := range []string{`"guild_id"`, `"user_id"`, `"balance_cents"`, `"keys"`, `"chest_pending"`, `"open_ticket"`, `"stats"`, `"plays"`, `"staked_cents"`, `"won_cents"`, `"granted_cents"`, `"chests"`} {
		if !strings.Contains(out1, key) {
			t.Errorf("the dump has no %s field", key)
		}
	}

	// The documented way up: embedded store → Redis, then back to a file.
	url := redistest.URL(t)
	if out, _, err := runCmd(t, "import", "-redis", url, dumpFile); err != nil || !strings.Contains(out, "imported") {
		t.Fatalf("import into Redis: %q, %v", out, err)
	}
	out2, _, err := runCmd(t, "export", "-redis", url)
	if err != nil {
		t.Fatal(err)
	}
	if out2 != out1 {
		t.Fatalf("export → import into Redis → export differs:\n%s", firstDiff(out1, out2))
	}
	dst := filepath.Join(t.TempDir(), "sub", "dst.db")
	if _, _, err := runCmd(t, "import", "-redis", "", "-data", dst, "-i", dumpFile); err != nil {
		t.Fatal(err)
	}
	out3, _, err := runCmd(t, "export", "-redis", "", "-data", dst)
	if err != nil {
		t.Fatal(err)
	}
	if out3 != out1 {
		t.Fatalf("export → import into a file → export differs:\n%s", firstDiff(out1, out3))
	}
	// A second import is all duplicates and changes nothing.
	_, _, err = runCmd(t, "import", "-redis", url, dumpFile)
	if !errors.Is(err, storage.ErrDuplicate) || !strings.Contains(err.Error(), "players[0]") {
		t.Fatalf("second import: %v, want a duplicate naming players[0]", err)
	}
	if out4, _, _ := runCmd(t, "export", "-redis", url); out4 != out1 {
		t.Fatal("a refused import changed the store")
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

func TestImportRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	good := `{"version":1,"players":[{"guild_id":"1","user_id":"2","balance_cents":100,"starting_balance_cents":100,"keys":0,"chest_pending":false,"chest_seq":0,"ticket_seq":0,"open_ticket":null,"stats":{"plays":0,"staked_cents":0,"won_cents":0,"granted_cents":0,"daily_cents":0,"chests":0,"best_win_cents":0,"wins":0,"keys":0},"created_at":"2026-01-02T03:04:05.006Z"}],"guilds":[]}`
	cases := []struct {
		name, input, want string
	}{
		{"not JSON", `{"version":1,"players":[`, "read dump"},
		{"unknown field", strings.Replace(good, `"keys":0,"chest`, `"keys":0,"cheat":1,"chest`, 1), "unknown field"},
		{"trailing data", good + "{}", "trailing data"},
		{"broken invariant", strings.Replace(good, `"balance_cents":100`, `"balance_cents":101`, 1), "players[0] (guild 1, user 2)"},
		{"duplicate", strings.Replace(good, `}],"guilds"`, `},`+good[strings.Index(good, `{"guild_id"`):strings.Index(good, `],"guilds"`)]+`],"guilds"`, 1), "players[1] (guild 1, user 2)"},
		{"snowflake as number", strings.Replace(good, `"guild_id":"1"`, `"guild_id":1`, 1), "read dump"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, "in.json")
			if err := os.WriteFile(in, []byte(c.input), 0o600); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, c.name+".db")
			_, _, err := runCmd(t, "import", "-redis", "", "-data", db, in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an error mentioning %q", err, c.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Fatal("a refused import created the store")
			}
		})
	}
	if _, _, err := runCmd(t, "import", "-redis", "", "-data", filepath.Join(dir, "ok.db"), writeTemp(t, good)); err != nil {
		t.Fatalf("the good input: %v", err)
	}
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAuditBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", path)
	randomRun(t, st, 2, 2000)
	st.Close()
	out, _, err := runCmd(t, "audit", "-redis", "", "-data", path)
	if err != nil || !strings.Contains(out, " 0 breaches") {
		t.Fatalf("audit after a random run: %q, %v", out, err)
	}
	// Alter one balance by hand, behind the store's back.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("players"))
		k, v := b.Cursor().First()
		var rec map[string]any
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		p := rec["p"].(map[string]any)
		p["Balance"] = p["Balance"].(float64) + 1
		nv, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return b.Put(k, nv)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, "audit", "-redis", "", "-data", path)
	if !errors.Is(err, errAudit) || ExitCode(err) != 1 || !strings.Contains(out, "BREACH") || !strings.Contains(out, " 1 breaches") {
		t.Fatalf("audit after tampering: %q, %v (exit %d)", out, err, ExitCode(err))
	}
}

func TestAuditRedis(t *testing.T) {
	url := redistest.URL(t)
	st := openStore(t, url, "")
	randomRun(t, st, 3, 3000)
	st.Close()
	out, _, err := runCmd(t, "audit", "-redis", url)
	if err != nil || !strings.Contains(out, " 0 breaches") {
		t.Fatalf("audit after a random run: %q, %v", out, err)
	}
	o, _ := redis.ParseURL(url)
	c := redis.NewClient(o)
	defer c.Close()
	if err := c.HIncrBy(context.Background(), "p:{1:1}", "bal", 50).Err(); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, "audit", "-redis", url)
	if !errors.Is(err, errAudit) || !strings.Contains(out, "BREACH guild 1 user 1") {
		t.Fatalf("audit after tampering: %q, %v", out, err)
	}
}

func TestStoreCommandsUsage(t *testing.T) {
	cases := [][]string{
		{"export", "-nope"},
		{"export", "extra"},
		{"import", "a", "b"},
		{"import", "-i", "a", "b"},
		{"audit", "x"},
	}
	for _, args := range cases {
		_, _, err := runCmd(t, args...)
		if ExitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error", args, err, ExitCode(err))
		}
	}
	_, _, err := runCmd(t, "audit", "-redis", "", "-data", filepath.Join(t.TempDir(), "missing.db"))
	if err == nil || ExitCode(err) != 1 || !strings.Contains(err.Error(), "missing.db") {
		t.Fatalf("audit of a missing file: %v", err)
	}
}
