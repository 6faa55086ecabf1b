package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
		Transports: transports, Players: 2, Duration: 600 * time.Millisecond,
		SkipPlays: true, SkipCeiling: true, Logger: testLogger(tb), Drawer: keyDrawer,
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

// reportSays writes rep's text report and checks that it says each of
// wants; it returns the text.
func reportSays(t *testing.T, rep interface{ WriteText(io.Writer) error }, wants ...string) string {
	t.Helper()
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, text.String())
		}
	}
	return text.String()
}

// checkPhases checks that every phase finished tickets, without errors
// nor refusals, and that each answered every kind of interaction of its
// Mix, or every Activity request; a chest comes every third ticket of a
// player (keyDrawer), so the chests are counted over the run, not per
// phase, whose length is a time: timings are never checked.
func checkPhases(t *testing.T, rep *Report, want int) {
	t.Helper()
	if len(rep.Phases) != want {
		t.Fatalf("%d phases, want %d", len(rep.Phases), want)
	}
	var chests int64
	for _, ph := range rep.Phases {
		chests += ph.Chests
		if ph.Cycles == 0 || ph.Errors != 0 || len(ph.Refused) != 0 {
			t.Errorf("%s: %d cycles, %d errors, refused %q; first errors %q", ph.Name, ph.Cycles, ph.Errors, ph.Refused, rep.FirstErrors)
		}
		kinds := []string{"activity session", "activity buy", KindActivityReveal, "activity daily", "activity state"}
		if strings.HasSuffix(ph.Name, "-plays") {
			kinds = []string{KindPlay, KindAuto}
		} else if !strings.HasSuffix(ph.Name, "-activity") {
			kinds = nil
			for _, mv := range Mix {
				kinds = append(kinds, mv.kind)
			}
		}
		for _, k := range append(kinds, KindAll) {
			if ph.Latency[k].N == 0 {
				t.Errorf("%s: no %q answered", ph.Name, k)
			}
		}
	}
	if chests == 0 {
		t.Error("no chest opened in the whole run")
	}
	if a := rep.Audit; a.Plays < a.Cycles || a.Cycles == 0 || len(a.Unbalanced) != 0 {
		t.Errorf("audit: %+v", a)
	}
}

// TestMixSendsEveryKind runs the mix and the Activity through both
// transports and counts, from the report, each kind of interaction
// answered: every command, subcommand and button of Mix, the chest, and
// every Activity request (checkPhases).
func TestMixSendsEveryKind(t *testing.T) {
	cfg := short(t, Gateway, HTTP)
	cfg.Players = 5 // a guild of two: its moderator, and one more player
	cfg.SkipPlays = false
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkPhases(t, rep, 6)
	t.Log("\n" + reportSays(t, rep))
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
			cfg.Rate, cfg.SkipActivity = tt.rate, true
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tt.rate == 0 {
				checkPhases(t, rep, 1) // an open loop need not play a whole round
			}
			if open := rep.Phases[0].SendDelay != nil; open != (tt.rate > 0) {
				t.Errorf("send delay reported: %v, for rate %v", open, tt.rate)
			}
			path := strings.TrimPrefix(rep.Store, "bolt, temporary file ")
			if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the temporary store %s is still there: %v", path, err)
			}
			t.Log("\n" + reportSays(t, rep))
		})
	}
}

func TestCeilingPhase(t *testing.T) {
	cfg := short(t, HTTP)
	cfg.SkipCeiling, cfg.SkipActivity = false, true
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkPhases(t, rep, 1)
	if c := rep.Ceiling; c == nil || c.Cycles == 0 || c.StoreCalls == 0 || c.Errors != 0 {
		t.Fatalf("ceiling %+v", c)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"store_calls"`) {
		t.Fatalf("JSON report: %v\n%s", err, js.String())
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
	cfg.RedisURL, cfg.SkipActivity = url, true
	if _, err := Run(ctx, cfg); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Run on a database with a key: %v, want ErrNotEmpty", err)
	}
	if keys, err := rdb.Keys(ctx, "*").Result(); err != nil || len(keys) != 1 {
		t.Fatalf("keys after the refusal: %q, %v", keys, err)
	}

	rdb.Del(ctx, "someone-else")
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkPhases(t, rep, 1)
	if keys, err := rdb.Keys(ctx, "*").Result(); err != nil || len(keys) != 0 {
		t.Fatalf("keys left after the run: %q, %v (cleanup: %s)", keys, err, rep.Cleanup)
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

// TestBotProcessOnRedis runs the gateway with the bot as its own process
// (cmd/loadtest runs `go build` of the main package; here the test binary
// plays main), then the ceiling and the floor, and checks that the report
// has every figure of the cost: the bot's CPU per interaction, Redis's
// CPU beside the floor, the bytes per cycle. Their values are not
// checked.
func TestBotProcessOnRedis(t *testing.T) {
	// One transport: how the bot's CPU is read does not depend on it, and
	// TestMixSendsEveryKind runs both.
	cfg := short(t, Gateway)
	cfg.RedisURL = redistest.URL(t)
	// This test binary, as the bot (TestMain): cli.Main, as main.go runs it.
	cfg.BotBinary, cfg.BotEnv[asBot] = os.Args[0], "1"
	cfg.BotOutput = tbWriter{t}
	cfg.SkipCeiling, cfg.SkipPlays = false, false
	cfg.Drawer = nil // the bot process draws its own, verifiable, tickets
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Phases) != 3 || rep.Ceiling == nil || rep.Floor == nil || rep.Floor.Calls == 0 || rep.Floor.PerCycle == 0 {
		t.Fatalf("phases %d, ceiling %+v, floor %+v", len(rep.Phases), rep.Ceiling, rep.Floor)
	}
	for _, ph := range append(rep.Phases, *rep.Ceiling) {
		if ph.Cycles == 0 || ph.Errors != 0 || ph.ServerCPUPerCycle == 0 || ph.FloorRatio == 0 ||
			ph.ToServerPerCycle == 0 || ph.FromServerPerCycle == 0 {
			t.Errorf("%s: %+v; first errors %q", ph.Name, ph, rep.FirstErrors)
		}
	}
	for _, ph := range rep.Phases {
		if ph.BotCPUPerInteraction == 0 || len(ph.Refused) != 0 || strings.HasSuffix(ph.Name, "-activity") && ph.BotCPUPerReveal == 0 {
			t.Errorf("%s: bot CPU %v per interaction, %v per reveal, refused %q", ph.Name, ph.BotCPUPerInteraction, ph.BotCPUPerReveal, ph.Refused)
		}
	}
	t.Log("\n" + reportSays(t, rep, "bot's own CPU", "per Activity reveal", "the floor", "bytes to Redis", "Redis floor (EVAL"))
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
