package cli

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestRestore puts a store back from a copy as docs/operating.md says (a
// snapshot with clefs restore -from; Redis emptied and the copy imported,
// as an RDB put back, then clefs restore), after plays and a rotation past
// the copy: the plays after the restore are dealt under none of the seeds
// that dealt a ticket the player saw, the bot refuses a snapshot not
// restored, a restore run again rotates nobody, and every player's public
// export verifies across the restore.
func TestRestore(t *testing.T) {
	for _, redis := range []bool{false, true} {
		t.Run(map[bool]string{false: "bolt", true: "redis"}[redis], func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			data, url, store := filepath.Join(dir, "clefs.db"), "", []string{"-data", filepath.Join(dir, "clefs.db")}
			if redis {
				url = redistest.URL(t)
				store = []string{"-redis", url}
			}
			st := openStore(t, url, data)
			randomRun(t, st, 7, 400)
			copyOf := filepath.Join(dir, "dump.json")
			if redis {
				mustCLI(t, append([]string{"export", "-o", copyOf}, store...)...)
			} else {
				var err error
				if copyOf, err = st.(snapshotter).Snapshot(ctx, filepath.Join(dir, "backups"), 0, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			copied := histories(t, st)
			// Past the copy: plays, every player's seed rotated, plays.
			randomRun(t, st, 8, 200)
			rotateAll(t, st, "past", rand.NewChaCha8([32]byte{8}))
			randomRun(t, st, 9, 200)
			dealers := map[game.Commitment]bool{} // the seeds that dealt a ticket seen
			seen := histories(t, st)
			for _, h := range seen {
				for _, e := range h {
					dealers[e.Commitment] = true
				}
			}

			// Put back the copy.
			if redis {
				if err := st.(*redisstore.Store).Client().FlushDB(ctx).Err(); err != nil {
					t.Fatal(err)
				}
				st.Close()
				mustCLI(t, "import", store[0], store[1], copyOf)
			} else {
				st.Close()
				if err := os.Rename(data, data+".damaged"); err != nil {
					t.Fatal(err)
				}
				if err := serveOn(t, copyOf); err == nil || !strings.Contains(err.Error(), "run clefs restore") {
					t.Fatalf("the bot on a snapshot: %v", err)
				}
				store = append(store, "-from", copyOf)
			}
			out := mustCLI(t, append([]string{"restore"}, store...)...)
			if !strings.Contains(out, "seeds revealed and replaced, 0 already before, 0 skipped") {
				t.Fatalf("restore: %s", out)
			}
			if _, _, err := runCLI(t, append([]string{"restore"}, store...)...); !redis && err == nil {
				t.Error("restore -from over the file it restored")
			}
			// A restore stopped before its end is taken up again under
			// its ID: nobody is rotated twice.
			op := strings.Fields(out)[1]
			st = openStore(t, url, data)
			if id, err := st.(storage.Restorer).Restoring(ctx); err != nil || id != "" {
				t.Fatalf("restore pending after the restore: %q, %v", id, err)
			}
			if err := st.(storage.Restorer).SetRestoring(ctx, strings.TrimSuffix(op, ":")); err != nil {
				t.Fatal(err)
			}
			st.Close()
			if out := mustCLI(t, "restore", store[0], store[1]); !strings.Contains(out, op+" 0 players' server seeds revealed and replaced") {
				t.Errorf("the restore taken up again rotated again: %s", out)
			}
			st = openStore(t, url, data)
			randomRun(t, st, 9, 400) // the same plays as past the copy
			dealt := 0
			for id, h := range histories(t, st) {
				for _, e := range h {
					if !slices.ContainsFunc(copied[id], func(c game.Entry) bool { return c.TicketID == e.TicketID }) {
						dealt++
						if dealers[e.Commitment] {
							t.Fatalf("player %v: ticket %d dealt under a seed that dealt a ticket seen", id, e.TicketID)
						}
					}
				}
			}
			if dealt < 20 {
				t.Fatalf("%d tickets dealt after the restore", dealt)
			}
			rotateAll(t, st, "after", rand.NewChaCha8([32]byte{10}))
			st.Close()
			for id := range seen {
				out := mustCLI(t, "export", store[0], store[1], "-public", "-guild", itoa(id.Guild), "-user", itoa(id.User))
				vout, _, err := runCLI(t, "verify", "-export", writeTemp(t, out))
				if err != nil || strings.Contains(vout, "BROKEN") || !strings.Contains(vout, "\nall match") {
					t.Fatalf("player %v after the restore: %v\n%s", id, err, vout)
				}
			}
		})
	}
}

// histories returns every player's ticket lines kept.
func histories(t *testing.T, st storage.Store) map[storage.PlayerID][]game.Entry {
	t.Helper()
	out := map[storage.PlayerID][]game.Entry{}
	for _, id := range playerIDs(t, st) {
		h, err := st.History(context.Background(), id, storage.HistoryLimit)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range h {
			if e.Kind == game.KindPlay {
				out[id] = append(out[id], e)
			}
		}
	}
	return out
}

// playerIDs lists the players of randomRun's guilds.
func playerIDs(t *testing.T, st storage.Store) []storage.PlayerID {
	t.Helper()
	var ids []storage.PlayerID
	for _, g := range []uint64{1, 2} {
		if err := st.Players(context.Background(), g, func(u uint64) error {
			ids = append(ids, storage.PlayerID{Guild: g, User: u})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// rotateAll rotates the server seed of every player whose ticket is closed.
func rotateAll(t *testing.T, st storage.Store, op string, seeds *rand.ChaCha8) {
	t.Helper()
	for _, id := range playerIDs(t, st) {
		fresh, err := game.NewSeed(seeds)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Run(context.Background(), storage.Step{ID: id, Op: op + strconv.FormatUint(id.User, 10), Seeds: seeds,
			Now: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), Move: game.Rotate{Fresh: fresh}})
		if err != nil && !errors.Is(err, game.ErrTicketOpen) {
			t.Fatal(err)
		}
	}
}

// serveOn runs the bot on the embedded file path, with a fake Discord,
// until it stops: it returns at once with its error on a store it refuses.
func serveOn(t *testing.T, path string) error {
	cleanEnv(t)
	srv := fakediscord.New(fakediscord.Options{Token: "restore-token"})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for k, v := range map[string]string{"DISCORD_TOKEN": "restore-token", "DISCORD_API_BASE": srv.URL(), "DATA_PATH": path} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr syncBuffer
	return Main(ctx, nil, &stderr, &stderr)
}
