package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestChooseStore: -redis > -data > REDIS_URL (environment, then .env) >
// DATA_PATH (environment, then .env) > the default; both flags, or one
// given empty, is a usage error.
func TestChooseStore(t *testing.T) {
	const envURL, fileURL, flagURL = "redis://env:6379", "redis://dotenv:6379", "redis://flag:6379"
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		dotenv  map[string]string
		wantURL string
		want    string // the data path
		from    string
		usage   bool
	}{
		{"nothing", nil, nil, nil, "", backend.DefaultDataPath, "the default", false},
		{"DATA_PATH", nil, map[string]string{"DATA_PATH": "e.db"}, map[string]string{"DATA_PATH": "f.db"}, "", "e.db", "DATA_PATH", false},
		{"DATA_PATH in .env", nil, nil, map[string]string{"DATA_PATH": "f.db"}, "", "f.db", "DATA_PATH in .env", false},
		{"REDIS_URL over DATA_PATH", nil, map[string]string{"DATA_PATH": "e.db"}, map[string]string{"REDIS_URL": fileURL}, fileURL, "", "REDIS_URL in .env", false},
		{"REDIS_URL of the environment over .env", nil, map[string]string{"REDIS_URL": envURL}, map[string]string{"REDIS_URL": fileURL}, envURL, "", "REDIS_URL", false},
		{"an empty REDIS_URL in the environment hides .env's", nil, map[string]string{"REDIS_URL": ""}, map[string]string{"REDIS_URL": fileURL}, "", backend.DefaultDataPath, "the default", false},
		{"-data over REDIS_URL", []string{"-data", "x.db"}, map[string]string{"REDIS_URL": envURL}, map[string]string{"REDIS_URL": fileURL}, "", "x.db", "-data", false},
		{"-redis over DATA_PATH", []string{"-redis", flagURL}, map[string]string{"DATA_PATH": "e.db"}, nil, flagURL, "", "-redis", false},
		{"-redis over REDIS_URL", []string{"-redis", flagURL}, map[string]string{"REDIS_URL": envURL}, nil, flagURL, "", "-redis", false},
		{"both flags", []string{"-redis", flagURL, "-data", "x.db"}, nil, nil, "", "", "", true},
		{"-redis empty", []string{"-redis", ""}, map[string]string{"REDIS_URL": envURL}, nil, "", "", "", true},
		{"-data empty", []string{"-data", ""}, nil, nil, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("audit", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var sf storeFlags
			sf.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			dotenv := func() (map[string]string, error) {
				if tt.dotenv == nil {
					return nil, os.ErrNotExist
				}
				return tt.dotenv, nil
			}
			c, err := sf.choose(lookup, dotenv)
			if tt.usage {
				if ExitCode(err) != 2 {
					t.Fatalf("choose: %+v, %v; want a usage error", c, err)
				}
				return
			}
			if err != nil || c.redisURL != tt.wantURL || c.dataPath != tt.want || c.from != tt.from {
				t.Fatalf("choose: %+v, %v; want URL %q, path %q, from %q", c, err, tt.wantURL, tt.want, tt.from)
			}
		})
	}
	t.Run("a .env that does not parse", func(t *testing.T) {
		fs := flag.NewFlagSet("audit", flag.ContinueOnError)
		var sf storeFlags
		sf.register(fs)
		_, err := sf.choose(func(string) (string, bool) { return "", false }, func() (map[string]string, error) { return nil, errors.New("line 3: bad") })
		if err == nil || !strings.Contains(err.Error(), ".env") {
			t.Fatalf("choose: %v, want an error naming .env", err)
		}
	})
}

// TestDataFlagWinsOverRedisURL is the case: with REDIS_URL in .env
// (and in the environment), audit and export -data act on the file, and
// say so, without dialling Redis; a key of .env the bot does not read
// (REDIS_ULR) is a warning, as in the bot.
func TestDataFlagWinsOverRedisURL(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	st := openStore(t, "", db)
	randomRun(t, st, 4, 50)
	st.Close()
	t.Chdir(dir)
	dead := "redis://:s3cret@127.0.0.1:1/0" // nothing listens there
	writeAt(t, ".env", []byte("REDIS_URL="+dead+"\nREDIS_ULR=typo\n"))
	for _, env := range []bool{false, true} {
		if env {
			t.Setenv("REDIS_URL", dead)
		}
		for _, args := range [][]string{{"audit", "-data", "x.db"}, {"export", "-data", "x.db", "-o", "dump.json", "-force"}} {
			_, stderr, err := runCLI(t, args...)
			if err != nil || !strings.Contains(stderr, "store: embedded file "+db+" (from -data)\n") ||
				!strings.Contains(stderr, "level=WARN msg=\"config: .env key not read by the bot, ignored\" key=REDIS_ULR did_you_mean=REDIS_URL") {
				t.Fatalf("%v (REDIS_URL in the environment: %v): %v\n%s", args, env, err, stderr)
			}
		}
	}
	// Without a flag, REDIS_URL is the store: named, its password hidden.
	_, stderr, err := runCLI(t, "audit")
	if err == nil || !strings.Contains(stderr, "store: redis://:xxxxx@127.0.0.1:1/0 (from REDIS_URL)") ||
		!strings.Contains(err.Error(), "redis://:xxxxx@127.0.0.1:1/0") || strings.Contains(stderr+err.Error(), "s3cret") {
		t.Fatalf("audit with REDIS_URL: %v\n%s", err, stderr)
	}
}

// TestStoreCommandsRefuseBadPaths: a store path that is missing, a
// directory, empty or not a store is named in the error, and nothing is
// created or changed.
func TestStoreCommandsRefuseBadPaths(t *testing.T) {
	dir := t.TempDir()
	notStore := filepath.Join(dir, "notes.txt")
	writeAt(t, notStore, bytes.Repeat([]byte("not a database\n"), 1000))
	empty := filepath.Join(dir, "empty.db")
	writeAt(t, empty, nil)
	dump := writeDump(t, soundPlayer(t, 1, 100, 100))
	missing := filepath.Join(dir, "missing.db")
	missingDir := filepath.Join(dir, "typo", "clefs.db")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"export", "-data", missing}, missing + ": no such file"},
		{[]string{"audit", "-data", missing}, missing + ": no such file"},
		{[]string{"export", "-public", "-guild", "1", "-user", "1", "-data", missing}, missing + ": no such file"},
		{[]string{"audit", "-data", missingDir}, missingDir + ": no such file"},
		{[]string{"import", "-data", missingDir, dump}, "directory " + filepath.Dir(missingDir) + " does not exist"},
		{[]string{"audit", "-data", dir}, dir + ": is a directory"},
		{[]string{"import", "-data", dir, dump}, dir + ": is a directory"},
		{[]string{"audit", "-data", empty}, empty + ": is an empty file"},
		{[]string{"export", "-data", notStore}, notStore},
		{[]string{"import", "-data", notStore, dump}, notStore},
		{[]string{"audit", "-redis", "http://host:6379"}, `invalid Redis URL "http://host:6379"`},
	}
	for _, tt := range tests {
		_, stderr, err := runCLI(t, tt.args...)
		if err == nil || ExitCode(err) != 1 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error naming %q", tt.args, err, tt.want)
		}
		if !strings.Contains(stderr, "store: ") {
			t.Errorf("%v: stderr %q does not say which store", tt.args, stderr)
		}
	}
	for _, p := range []string{missing, filepath.Dir(missingDir)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created (%v)", p, err)
		}
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was changed: %v, %v", fi, err)
	}
	if b, err := os.ReadFile(notStore); err != nil || !bytes.Equal(b, bytes.Repeat([]byte("not a database\n"), 1000)) {
		t.Errorf("the file that is not a store was changed (%v)", err)
	}
	for _, args := range [][]string{{"audit", "-redis", "redis://x", "-data", "x.db"}, {"audit", "-dta", "x.db"}, {"import", "-frce", dump}} {
		if _, _, err := runCLI(t, args...); ExitCode(err) != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestImportForce: a store that holds players takes a dump only with
// -force, and then refuses, naming it by its place in the dump, a player
// it already has, without changing anything; on both stores.
func TestImportForce(t *testing.T) {
	dir := t.TempDir()
	dump := func(users ...uint64) string {
		var ps []storage.DecodedPlayer
		for _, u := range users {
			ps = append(ps, soundPlayer(t, u, 1000, 1000+int64(u)))
		}
		return writeDump(t, ps...)
	}
	a, b, c := dump(1, 2), dump(3), dump(4, 2)
	for _, url := range []string{"", redistest.URL(t)} {
		flags := []string{"-data", filepath.Join(dir, "store.db")}
		if url != "" {
			flags = []string{"-redis", url}
		}
		run := func(args ...string) (string, error) {
			out, _, err := runCLI(t, append(append([]string{"import"}, flags...), args...)...)
			return out, err
		}
		if out, err := run(a); err != nil || !strings.Contains(out, "imported 2 players") {
			t.Fatalf("import into an empty store (%v): %q, %v", flags, out, err)
		}
		if _, err := run(b); err == nil || !strings.Contains(err.Error(), "the store already holds 2 players") || !strings.Contains(err.Error(), "-force") {
			t.Fatalf("import into a store with players, without -force: %v", err)
		}
		if out, err := run("-force", b); err != nil || !strings.Contains(out, "imported 1 player ") {
			t.Fatalf("import -force: %q, %v", out, err)
		}
		before, _, _ := runCLI(t, append([]string{"export"}, flags...)...)
		_, err := run("-force", c)
		if !errors.Is(err, storage.ErrDuplicate) || !strings.Contains(err.Error(), "players[1] (guild 1, user 2)") || !strings.Contains(err.Error(), "nothing was imported") {
			t.Fatalf("import -force of a player the store has: %v, want it named", err)
		}
		after, _, _ := runCLI(t, append([]string{"export"}, flags...)...)
		if after != before || !strings.Contains(after, `"user": "3"`) || strings.Contains(after, `"user": "4"`) {
			t.Fatalf("a refused import changed the store (%v)", flags)
		}
	}
}

// TestAuditReportsADisagreeingLeaderboard: a leaderboard that disagrees
// with the players' records (a wrong balance, a player missing, an entry
// for no player: a store never writes one, so the test edits it by hand, as
// docs/STORAGE.md lays it out) fails the audit, which names each one and
// calls it a bug; nothing is repaired, so a second audit says the same.
func TestAuditReportsADisagreeingLeaderboard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", path)
	randomRun(t, st, 5, 200)
	moved, err := st.Load(context.Background(), storage.PlayerID{Guild: 1, User: 1})
	if err != nil || !moved.Exists() {
		t.Fatalf("player 1/1 after the random run: %+v, %v", moved, err)
	}
	st.Close()
	// board: guild | ^balance | user, each 8 bytes big-endian.
	key := func(guild, user uint64, balance int64) []byte {
		k := binary.BigEndian.AppendUint64(nil, guild)
		k = binary.BigEndian.AppendUint64(k, ^uint64(balance))
		return binary.BigEndian.AppendUint64(k, user)
	}
	editBolt(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("board"))
		return errors.Join(b.Delete(key(1, 1, moved.Player.Balance)), b.Put(key(1, 1, 123456), nil), b.Put(key(1, 99, 500), nil))
	})

	url := redistest.URL(t)
	st = openStore(t, url, "")
	randomRun(t, st, 5, 200)
	st.Close()
	// lb:{guild}: members are 20-digit user IDs, scores −balance.
	if err := redisClient(t, url).ZAdd(context.Background(), "lb:{1}", redis.Z{Score: -123456, Member: "00000000000000000001"}, redis.Z{Score: -500, Member: "00000000000000000099"}).Err(); err != nil {
		t.Fatal(err)
	}

	for _, flags := range [][]string{{"-data", path}, {"-redis", url}} {
		for range 2 {
			out, _, err := runCLI(t, append([]string{"audit"}, flags...)...)
			if !errors.Is(err, errAudit) || !strings.Contains(err.Error(), "a bug") {
				t.Fatalf("audit %v of a leaderboard that disagrees: %v\n%s", flags, err, out)
			}
			for _, want := range []string{
				"DISAGREE guild 1 user 1: holds " + credits(moved.Player.Balance) + ", the leaderboard says 1,234.56 credits",
				"DISAGREE guild 1 user 99: on the leaderboard with 5.00 credits but no such player",
				"2 disagreements",
				"the leaderboard disagrees with the records: this is a bug, please report it",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("audit %v: the report lacks %q:\n%s", flags, want, out)
				}
			}
		}
	}
}

// TestStoreCommandsRefuseAnOlderLayout: export, import and audit refuse a
// file written by 0.3.0 (no layout marker), naming it, who wrote it and
// the way out, and change nothing in it; audit lists nothing as damaged.
func TestStoreCommandsRefuseAnOlderLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clefs.db")
	st := openStore(t, "", path)
	randomRun(t, st, 7, 50)
	st.Close()
	editBolt(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("meta")) })
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "dump.json")
	writeAt(t, dump, []byte(`{"version": 4, "players": [], "guilds": []}`))
	for _, args := range [][]string{{"export"}, {"audit"}, {"import", dump}} {
		out, _, err := runCLI(t, append([]string{args[0], "-data", path}, args[1:]...)...)
		if !errors.Is(err, storage.ErrLayout) || ExitCode(err) != 1 || strings.Contains(out, "DAMAGED") || !strings.Contains(err.Error(), "written by an older release") ||
			!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "clefs export -data "+path) {
			t.Errorf("%s of a 0.3.0 file: %v, output %q; want storage.ErrLayout naming the file, an older release and the export", args[0], err, out)
		}
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
		t.Fatalf("a refused file was changed (%v)", err)
	}
}

// TestStoreFlagsHelp: the -redis help lists every scheme the store takes,
// -data's default is said once, and export's says what -force does.
func TestStoreFlagsHelp(t *testing.T) {
	for _, cmd := range []string{"export", "import", "audit"} {
		_, stderr, err := runCLI(t, cmd, "-h")
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		for _, scheme := range []string{"redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://", "redis+sentinel://", "rediss+sentinel://"} {
			if !strings.Contains(stderr, scheme) {
				t.Errorf("%s -h does not list %s:\n%s", cmd, scheme, stderr)
			}
		}
		if n := strings.Count(stderr, "(default $DATA_PATH"); n != 1 || strings.Contains(stderr, "(default \"") {
			t.Errorf("%s -h says -data's default %d times, or prints a flag's default value:\n%s", cmd, n, stderr)
		}
		if cmd == "export" && (!strings.Contains(stderr, "[-o FILE [-force]]") || !strings.Contains(stderr, "-force replaces it")) {
			t.Errorf("export -h does not say what -force does:\n%s", stderr)
		}
	}
}

// TestUsageListsEveryCommand: clefs help names every subcommand Main runs.
func TestUsageListsEveryCommand(t *testing.T) {
	out := mustCLI(t, "help")
	for _, cmd := range []string{"odds", "simulate", "verify", "export", "export -public", "import", "audit", "healthcheck", "register", "version", "try", "help"} {
		if !strings.Contains(out, "\n  "+cmd+" ") {
			t.Errorf("the usage does not list %q:\n%s", cmd, out)
		}
		if cmd == "export -public" || cmd == "help" {
			continue
		}
		// Each listed command is one Main runs: -h is help, not "unknown command".
		if _, _, err := runCLI(t, cmd, "-h"); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h: %v", cmd, err)
		}
	}
}
