package cli

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// writePublic writes p's public export to a file of its own, as clefs
// export -public writes it, and returns its path.
func writePublic(tb testing.TB, p storage.DecodedPlayer) string {
	tb.Helper()
	return writeFile(tb, func(f *os.File) error {
		return json.NewEncoder(f).Encode(schema.NewPublicExport(p.ID.Guild, p.ID.User, p.History, p.Reveals))
	})
}

// TestExportPublic imports a dump into an embedded store, exports one
// player's public data, and checks it holds that player's lines and
// reveals, no secret seed, and that verify -export passes it.
func TestExportPublic(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{41})
	id := storage.PlayerID{Guild: 1, User: 7}
	p := storetest.PlayedPlayer(t, id, rng, 40, 8)
	other := storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: 8}, rng, 5, 2)
	data := filepath.Join(t.TempDir(), "clefs.db")
	if _, _, err := runCLI(t, "import", "-data", data, writeDump(t, p, other)); err != nil {
		t.Fatal(err)
	}

	out := mustCLI(t, "export", "-data", data, "-public", "-guild", "1", "-user", "7")
	got, err := schema.DecodePublicExport("stdout", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got.Guild != 1 || got.User != 7 || len(got.History) != len(p.History) || len(got.Reveals) != len(p.Reveals) {
		t.Fatalf("exported %d/%d with %d lines and %d reveals, want 1/7 with %d and %d",
			got.Guild, got.User, len(got.History), len(got.Reveals), len(p.History), len(p.Reveals))
	}
	for i, e := range got.History {
		if w := p.History[i]; e.Kind != w.Kind || e.TicketID != w.TicketID || e.Chest != w.Chest || e.Grid != w.Grid {
			t.Fatalf("line %d: %s %d/%d, want %s %d/%d (oldest first)", i, e.Kind, e.TicketID, e.Chest, w.Kind, w.TicketID, w.Chest)
		}
	}
	for _, s := range []game.Seed{p.Player.Seed, p.Player.NextSeed} {
		if strings.Contains(out, s.Hex()) {
			t.Errorf("the public export holds a secret seed")
		}
	}

	file := filepath.Join(t.TempDir(), "me.json")
	if _, stderr, err := runCLI(t, "export", "-data", data, "-public", "-guild", "1", "-user", "7", "-o", file); err != nil || !strings.Contains(stderr, file) {
		t.Fatalf("-o: %v, %q", err, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != out {
		t.Errorf("-o wrote %q (%v), not what stdout has", b, err)
	}
	vout, _, err := runCLI(t, "verify", "-export", file)
	if err != nil || !strings.Contains(vout, "all match (a public export holds no player state") {
		t.Errorf("verify -export of the public export: %v\n%s", err, vout)
	}

	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-public", "-guild", "1", "-user", "9"}, "-guild 1 -user 9: no such player", 1},
		{[]string{"-public", "-guild", "2", "-user", "7"}, "-guild 2 -user 7: no such player", 1},
		{[]string{"-public", "-user", "7"}, "-public needs -guild", 2},
		{[]string{"-public", "-guild", "1"}, "-public needs -user", 2},
		{[]string{"-guild", "1", "-user", "7"}, "-guild and -user go with -public", 2},
		{[]string{"-public", "-guild", "x", "-user", "7"}, "-guild", 2},
	} {
		_, _, err := runCLI(t, append([]string{"export", "-data", data}, tc.args...)...)
		if ExitCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("export %v: %v (exit %d), want exit %d naming %q", tc.args, err, ExitCode(err), tc.code, tc.want)
		}
	}
}

// TestVerifyPublicAfterARandomRun exports every player of a random run
// (resets, grants, trimmed histories), rotated halfway, and checks that
// verify passes each public export: no link to the player's state, which
// the export lacks, is reported broken.
func TestVerifyPublicAfterARandomRun(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", data)
	randomRun(t, st, 5, 600)
	rotateAll(t, st, "rotate", rand.NewChaCha8([32]byte{5}))
	randomRun(t, st, 6, 300)
	ids := playerIDs(t, st)
	st.Close()
	if len(ids) < 10 {
		t.Fatalf("%d players", len(ids))
	}
	checked := 0
	for _, id := range ids {
		out := mustCLI(t, "export", "-data", data, "-public", "-guild", itoa(id.Guild), "-user", itoa(id.User))
		vout, _, err := runCLI(t, "verify", "-export", writeTemp(t, out))
		if err != nil || strings.Contains(vout, "BROKEN") {
			t.Errorf("player %v: %v\n%s", id, err, vout)
		}
		if !strings.Contains(vout, "draws:       0 checked") {
			checked++
		}
	}
	if checked == 0 {
		t.Error("no player had a draw checked")
	}
}
