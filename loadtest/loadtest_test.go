package loadtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// keyDrawer gives a key on every play, so that every third play makes a
// chest due and the runs reach the chest.
var keyDrawer = &storetest.Drawer{PlayFunc: func(int) game.Outcome { return storetest.Loss(true) }}

// testLogger logs to the test, at warning level and above.
func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(b []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// short is a small, fast configuration: a few players for a fraction of a
// second, without drawing the application's emojis at each start (the
// end-to-end tests cover them).
func short(tb testing.TB, transports ...string) Config {
	return Config{
		Transports: transports, Players: 2, Guilds: 2, Duration: 600 * time.Millisecond,
		SkipCeiling: true, Logger: testLogger(tb), Drawer: keyDrawer,
		BotEnv: map[string]string{"APP_EMOJIS": "false"},
	}
}

// asBot is the variable that makes this test binary run as the bot
// (cli.Main with no argument), so that TestBotProcessOnRedis runs the
// bot as a process of its own without building the module a second time.
const asBot = "CLEFS_LOADTEST_TEST_AS_BOT"

func TestMain(m *testing.M) {
	if os.Getenv(asBot) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := cli.Main(ctx, nil, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "clefs:", err)
			os.Exit(cli.ExitCode(err))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// checkPhases checks that every phase played cycles and chests, without
// errors nor refusals. Timings are never checked.
func checkPhases(t *testing.T, rep *Report, want int) {
	t.Helper()
	if len(rep.Phases) != want {
		t.Fatalf("%d phases, want %d", len(rep.Phases), want)
	}
	for _, ph := range rep.Phases {
		if ph.Cycles == 0 || ph.Chests == 0 {
			t.Errorf("%s: %d cycles, %d chests: want some of each", ph.Name, ph.Cycles, ph.Chests)
		}
		if ph.Errors != 0 || len(ph.Refused) != 0 {
			t.Errorf("%s: %d errors, refused %q; first errors %q", ph.Name, ph.Errors, ph.Refused, rep.FirstErrors)
		}
		for _, k := range []string{KindPlay, KindAuto, KindChest, KindAll} {
			if ph.Latency[k].N == 0 {
				t.Errorf("%s: no latency recorded for %s", ph.Name, k)
			}
		}
	}
	if a := rep.Audit; a.Plays < a.Cycles || a.Cycles == 0 || len(a.Unbalanced) != 0 {
		t.Errorf("audit: %+v", a)
	}
}

func TestRunOnBolt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		transports []string
		rate       float64
	}{
		{"gateway", []string{Gateway}, 0},
		{"http", []string{HTTP}, 0},
		{"http open loop", []string{HTTP}, 300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := short(t, tt.transports...)
			cfg.Rate = tt.rate
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkPhases(t, rep, 1)
			if open := rep.Phases[0].SendDelay != nil; open != (tt.rate > 0) {
				t.Errorf("send delay reported: %v, for rate %v", open, tt.rate)
			}
			if rep.Path == "" {
				t.Fatal("the report names no bolt file")
			}
			if _, err := os.Stat(filepath.Dir(rep.Path)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the temporary store %s is still there: %v", rep.Path, err)
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + text.String())
		})
	}
}

func TestCeilingPhase(t *testing.T) {
	cfg := short(t, HTTP)
	cfg.SkipCeiling = false
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkPhases(t, rep, 1)
	if c := rep.Ceiling; c == nil || c.Cycles == 0 || c.Errors != 0 || rep.Phases[0].OfCeiling == 0 {
		t.Fatalf("ceiling %+v, handlers at %v of it", c, rep.Phases[0].OfCeiling)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"of_ceiling"`) {
		t.Fatalf("JSON report: %v\n%s", err, js.String())
	}
}

// storeWithPlayer creates a bolt file holding one player.
func storeWithPlayer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prod.db")
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	createPlayer(t, st, storage.PlayerID{Guild: 1, User: 2})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// createPlayer writes a new player, as a first /daily would.
func createPlayer(t *testing.T, st storage.Store, id storage.PlayerID) {
	t.Helper()
	now := storage.Timestamp(time.Now())
	_, err := storage.Apply(context.Background(), st, storage.Step{
		ID: id, Op: "test-create", Create: true, Start: 2000, Seeds: rand.Reader, Now: now,
		Move: game.ClaimDaily{Amount: 500, Cooldown: time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// contents counts the players and guilds of a bolt file.
func contents(t *testing.T, path string) (players, guilds int) {
	t.Helper()
	st, err := boltstore.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	err = st.ExportPlayers(ctx, func(storage.DecodedPlayer) error { players++; return nil })
	if err == nil {
		err = st.ExportGuilds(ctx, func(storage.DecodedGuild) error { guilds++; return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	return players, guilds
}

func TestRefusesNonEmptyBolt(t *testing.T) {
	path := storeWithPlayer(t)
	cfg := short(t, HTTP)
	cfg.DataPath = path
	if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Run on a store with a player: %v, want ErrNotEmpty", err)
	}
	if players, guilds := contents(t, path); players != 1 || guilds != 0 {
		t.Fatalf("the refused store now has %d players and %d guilds, want 1 and 0", players, guilds)
	}

	cfg.Force = true
	cfg.Duration = 200 * time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run with Force: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the existing store was removed: %v", err)
	}
	if !strings.Contains(rep.Cleanup, "kept") {
		t.Errorf("cleanup %q does not say the file was kept", rep.Cleanup)
	}
}

func TestCreatedBoltFileRemoved(t *testing.T) {
	cfg := short(t, HTTP)
	cfg.DataPath = filepath.Join(t.TempDir(), "new.db")
	cfg.Duration = 200 * time.Millisecond
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(cfg.DataPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the file the run created is still there: %v", err)
	}
}

func TestRedisRefusedThenCleaned(t *testing.T) {
	url := redistest.URL(t)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Set(ctx, "someone-else", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}

	cfg := short(t, HTTP)
	cfg.Store, cfg.RedisURL = StoreRedis, url
	if _, err := Run(ctx, cfg); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Run on a database with a key: %v, want ErrNotEmpty", err)
	}

	cfg.Force = true
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run with Force: %v", err)
	}
	checkPhases(t, rep, 1)
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "someone-else" {
		t.Fatalf("keys left after the run: %q (cleanup: %s)", keys, rep.Cleanup)
	}
}

func TestParseStatCPU(t *testing.T) {
	// A /proc/PID/stat line whose command name holds a space and a
	// parenthesis; utime 250 and stime 50 ticks.
	line := "4242 (clefs (x) y) S 1 4242 4242 0 -1 4194560 1200 0 0 0 250 50 0 0 20 0 9 0 12345 1000000 500 18446744073709551615\n"
	got, err := parseStatCPU([]byte(line))
	if err != nil || got != 3*time.Second {
		t.Fatalf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	if _, err := parseStatCPU([]byte("4242 (clefs) S 1")); err == nil {
		t.Fatal("a short line parsed")
	}
}

// TestBotProcessOnRedis runs both transports with the bot as its own
// process (cmd/loadtest runs `go build` of the main package; here the
// test binary plays main), then the ceiling and the floor, and checks that the report
// has every figure of the cost: the bot's CPU per interaction, Redis's
// CPU beside the floor, the bytes per cycle. Their values are not
// checked.
func TestBotProcessOnRedis(t *testing.T) {
	cfg := short(t, Gateway, HTTP)
	cfg.Store, cfg.RedisURL = StoreRedis, redistest.URL(t)
	// This test binary, as the bot (TestMain): cli.Main, as main.go runs it.
	cfg.BotBinary, cfg.BotEnv[asBot] = os.Args[0], "1"
	cfg.BotOutput = tbWriter{t}
	cfg.SkipCeiling = false
	cfg.Duration = time.Second
	cfg.Drawer = nil // the bot process draws its own, verifiable, tickets
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Phases) != 2 || rep.Ceiling == nil || rep.Floor == nil || rep.Floor.Calls == 0 || rep.Floor.PerCycle == 0 {
		t.Fatalf("phases %d, ceiling %+v, floor %+v", len(rep.Phases), rep.Ceiling, rep.Floor)
	}
	for _, ph := range append(rep.phases(), rep.Ceiling) {
		if ph.Cycles == 0 || ph.Errors != 0 || ph.ServerCPUPerCycle == 0 || ph.FloorRatio == 0 ||
			ph.ToServerPerCycle == 0 || ph.FromServerPerCycle == 0 {
			t.Errorf("%s: %+v; first errors %q", ph.Name, ph, rep.FirstErrors)
		}
	}
	for _, ph := range rep.Phases {
		if ph.BotCPUPerInteraction == 0 || len(ph.Refused) != 0 {
			t.Errorf("%s: bot CPU %v per interaction, refused %q", ph.Name, ph.BotCPUPerInteraction, ph.Refused)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bot's own CPU", "the floor", "bytes to Redis", "Redis floor (EVAL"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, text.String())
		}
	}
	t.Log("\n" + text.String())
}

func TestBotProcessNeedsRedis(t *testing.T) {
	cfg := short(t, HTTP)
	cfg.BotBinary = "/nonexistent/clefs"
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "Redis") {
		t.Fatalf("Run with a bot process on bolt: %v, want a refusal naming Redis", err)
	}
}

func TestRedisLoopbackOnly(t *testing.T) {
	for u, ok := range map[string]bool{
		"redis://127.0.0.1:6379/0":                                 true,
		"redis://localhost:6379":                                   true,
		"redis://[::1]:6379":                                       true,
		"redis+cluster://127.0.0.1:1,127.0.0.2:2":                  true,
		"redis://10.0.0.5:6379/0":                                  false,
		"redis://prod.example.com:6379":                            false,
		"redis+sentinel://127.0.0.1:1,203.0.113.9:2?master_name=m": false,
	} {
		if err := loopbackOnly(u); (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v, want ok %v", u, err, ok)
		}
	}
}
