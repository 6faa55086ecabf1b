package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// botVars are every variable config.Load reads.
var botVars = []string{
	"DISCORD_TOKEN", "DISCORD_GUILD_ID", "DISCORD_API_BASE", "REDIS_URL", "DATA_PATH",
	"STARTING_BALANCE", "DAILY_AMOUNT", "DAILY_COOLDOWN", "PUBLIC_PLAYS", "LOG_LEVEL", "LOG_FORMAT",
	"METRICS_ADDR", "SHARD_ID", "SHARD_COUNT", "SHUTDOWN_TIMEOUT", "EMOJI_GEM", "EMOJI_PIPE",
	"EMOJI_BOMB", "EMOJI_SABRE", "EMOJI_CANDLE", "EMOJI_BARREL", "EMOJI_KEY", "EMOJI_HIDDEN",
}

// cleanEnv unsets every bot variable for the test (restored after it) and
// moves to an empty directory (no stray .env); it also restores the
// process-wide loggers runBot sets.
func cleanEnv(t *testing.T) string {
	t.Helper()
	for _, k := range botVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	// discordgo's route: runBot's replaces this one, and the cleanup puts
	// back the one before (discordgo's goroutines may outlive the test).
	def := slog.Default()
	restore := bot.RouteDiscordgoLogs(def, bot.DiscordgoLogLevel("error"))
	t.Cleanup(func() { slog.SetDefault(def); restore() })
	return dir
}

func TestRunBotBadConfig(t *testing.T) {
	cleanEnv(t)
	t.Setenv("STARTING_BALANCE", "12.345")
	t.Setenv("SHARD_ID", "3")
	var stderr bytes.Buffer
	err := Main(context.Background(), nil, &stderr, &stderr)
	if err == nil {
		t.Fatal("runBot with no token succeeded")
	}
	for _, want := range []string{"DISCORD_TOKEN", "STARTING_BALANCE", "SHARD_ID", ".env.example"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
	if code := ExitCode(err); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

// TestRunBotDotEnv runs the bot as `go run .` does, configured by a .env
// file that the real environment overrides, and stops it with the context.
func TestRunBotDotEnv(t *testing.T) {
	dir := cleanEnv(t)
	srv := fakediscord.New(fakediscord.Options{Token: "dotenv-token"})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dotenv := strings.Join([]string{
		"DISCORD_TOKEN=dotenv-token",
		"DISCORD_API_BASE=" + srv.URL(),
		"DISCORD_GUILD_ID=111111111111111111",
		"DATA_PATH=" + filepath.Join(dir, "data", "clefs.db"),
		"LOG_FORMAT=json",
		"APP_EMOJIS=false", // drawing them under -race on a busy machine took most of the wait below
	}, "\n")
	writeAt(t, filepath.Join(dir, ".env"), []byte(dotenv))
	t.Setenv("DISCORD_GUILD_ID", "222222222222222222") // the environment wins over .env
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- Main(ctx, nil, &stderr, &stderr) }()
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second) // a bound on a hang, not a timing
	defer wcancel()
	if _, err := srv.WaitCommands(wctx, "222222222222222222"); err != nil {
		t.Fatalf("commands on the environment's guild: %v\n%s", err, stderr.String())
	}
	if cmds := srv.Commands("111111111111111111"); cmds != nil {
		t.Errorf(".env's guild won over the environment: %v", cmds)
	}
	for !strings.Contains(stderr.String(), `"msg":"gateway running"`) {
		if wctx.Err() != nil {
			t.Fatalf("no JSON log line \"bot running\":\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runBot: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("runBot did not stop")
	}
	if strings.Contains(stderr.String(), "dotenv-token") {
		t.Error("the token appears in the logs")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "clefs.db")); err != nil {
		t.Errorf("store file: %v", err)
	}
}
