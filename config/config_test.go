package config_test

import (
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/game"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func mustLoad(tb testing.TB, getenv func(string) string) config.Config {
	tb.Helper()
	c, err := config.Load(getenv)
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return c
}

func TestLoadDefaults(t *testing.T) {
	c := mustLoad(t, env("DISCORD_TOKEN", "abc.def.ghi"))
	want := config.Config{
		Token:               "abc.def.ghi",
		APIBase:             "https://discord.com",
		DataPath:            "./data/clefs.db",
		StartingBalance:     2000,
		DailyAmount:         500,
		DailyCooldown:       20 * time.Hour,
		PublicPlays:         true,
		LogLevel:            slog.LevelInfo,
		LogFormat:           "text",
		DiscordgoLogLevel:   "error",
		ShardCount:          1,
		ShutdownTimeout:     10 * time.Second,
		AppEmojis:           true,
		BackupInterval:      time.Hour,
		BackupKeep:          48,
		RedisMinReplicas:    -1,
		RedisReplicaTimeout: time.Second,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestLoadAll(t *testing.T) {
	c := mustLoad(t, env(
		"DISCORD_TOKEN", "Bot tok",
		"DISCORD_GUILD_ID", "123456789012345678",
		"DISCORD_API_BASE", "http://127.0.0.1:8080/",
		"REDIS_URL", "redis://:pw@localhost:6379/0",
		"REDIS_MIN_REPLICAS", "2",
		"REDIS_REPLICA_TIMEOUT", "250ms",
		"DATA_PATH", "/tmp/x.db",
		"STARTING_BALANCE", "100.5",
		"DAILY_AMOUNT", "0",
		"DAILY_COOLDOWN", "90m",
		"PUBLIC_PLAYS", "false",
		"LOG_LEVEL", "DEBUG",
		"LOG_FORMAT", "json",
		"METRICS_ADDR", "127.0.0.1:9090",
		"SHARD_ID", "2",
		"SHARD_COUNT", "4",
		"SHUTDOWN_TIMEOUT", "3s",
		"EMOJI_GEM", "💎",
		"EMOJI_KEY", "<:clef:112233445566778899>",
		"EMOJI_HIDDEN", "#️⃣",
		"APP_EMOJIS", "false",
	))
	var emoji [game.NumSymbols]string
	emoji[game.Gem] = "💎"
	emoji[game.Key] = "<:clef:112233445566778899>"
	want := config.Config{
		Token: "tok", GuildID: "123456789012345678", APIBase: "http://127.0.0.1:8080",
		RedisURL: "redis://:pw@localhost:6379/0", RedisMinReplicas: 2, RedisReplicaTimeout: 250 * time.Millisecond, DataPath: "/tmp/x.db",
		StartingBalance: 10050, DailyAmount: 0, DailyCooldown: 90 * time.Minute, PublicPlays: false,
		LogLevel: slog.LevelDebug, LogFormat: "json", DiscordgoLogLevel: "error", MetricsAddr: "127.0.0.1:9090",
		ShardIDs: []int{2}, ShardCount: 4, ShutdownTimeout: 3 * time.Second,
		Emoji: emoji, Hidden: "#️⃣", BackupInterval: time.Hour, BackupKeep: 48,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("\n got %+v\nwant %+v", c, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string // substrings, each must appear
	}{
		{"missing token", nil, []string{"DISCORD_TOKEN: required"}},
		{"bad guild", []string{"DISCORD_GUILD_ID", "abc"}, []string{"DISCORD_GUILD_ID"}},
		{"zero guild", []string{"DISCORD_GUILD_ID", "0"}, []string{"DISCORD_GUILD_ID"}},
		{"ftp base", []string{"DISCORD_API_BASE", "ftp://x"}, []string{"DISCORD_API_BASE", "http or https"}},
		{"hostless base", []string{"DISCORD_API_BASE", "http://"}, []string{"DISCORD_API_BASE", "missing host"}},
		{"bad redis", []string{"REDIS_URL", "http://x"}, []string{"REDIS_URL"}},
		{"negative replicas", []string{"REDIS_MIN_REPLICAS", "-1"}, []string{"REDIS_MIN_REPLICAS", "from 0 to 100"}},
		{"replica timeout zero", []string{"REDIS_REPLICA_TIMEOUT", "0s"}, []string{"REDIS_REPLICA_TIMEOUT", "at least 1ms"}},
		{"float balance", []string{"STARTING_BALANCE", "1e3"}, []string{"STARTING_BALANCE"}},
		{"three decimals", []string{"STARTING_BALANCE", "1.005"}, []string{"STARTING_BALANCE", "two decimals"}},
		{"negative daily", []string{"DAILY_AMOUNT", "-5"}, []string{"DAILY_AMOUNT"}},
		{"bad cooldown", []string{"DAILY_COOLDOWN", "20"}, []string{"DAILY_COOLDOWN"}},
		{"bad bool", []string{"PUBLIC_PLAYS", "yes"}, []string{"PUBLIC_PLAYS"}},
		{"bad app emojis", []string{"APP_EMOJIS", "off"}, []string{"APP_EMOJIS", "not a boolean"}},
		{"bad level", []string{"LOG_LEVEL", "verbose"}, []string{"LOG_LEVEL"}},
		{"bad format", []string{"LOG_FORMAT", "xml"}, []string{"LOG_FORMAT"}},
		{"bad discordgo level", []string{"DISCORDGO_LOG_LEVEL", "all"}, []string{"DISCORDGO_LOG_LEVEL", "off, error"}},
		{"discordgo debug dropped", []string{"DISCORDGO_LOG_LEVEL", "debug"}, []string{"DISCORDGO_LOG_LEVEL", "LOG_LEVEL=info drops", "set LOG_LEVEL=debug"}},
		{"discordgo warn dropped", []string{"DISCORDGO_LOG_LEVEL", "warn", "LOG_LEVEL", "error"}, []string{"DISCORDGO_LOG_LEVEL", "LOG_LEVEL=error"}},
		{"bad metrics", []string{"METRICS_ADDR", "9090"}, []string{"METRICS_ADDR"}},
		{"backup on redis", []string{"REDIS_URL", "redis://localhost:6379/0", "BACKUP_DIR", "/b"}, []string{"BACKUP_DIR", "embedded store", "RDB or AOF"}},
		{"backup too often", []string{"BACKUP_INTERVAL", "10s"}, []string{"BACKUP_INTERVAL", "at least 1m"}},
		{"backup keep zero", []string{"BACKUP_KEEP", "0"}, []string{"BACKUP_KEEP", "from 1 to 10000"}},
		{"backup keep word", []string{"BACKUP_KEEP", "all"}, []string{"BACKUP_KEEP", "whole number"}},
		{"shard out of range", []string{"SHARD_ID", "4", "SHARD_COUNT", "4"}, []string{"SHARD_ID"}},
		{"shard count zero", []string{"SHARD_COUNT", "0"}, []string{"SHARD_COUNT"}},
		{"shard count word", []string{"SHARD_COUNT", "many"}, []string{"SHARD_COUNT", "auto"}},
		{"shard ids out of range", []string{"SHARD_IDS", "0-4", "SHARD_COUNT", "4"}, []string{"SHARD_IDS", "below SHARD_COUNT"}},
		{"shard ids reversed", []string{"SHARD_IDS", "3-1"}, []string{"SHARD_IDS"}},
		{"shard ids junk", []string{"SHARD_IDS", "0,,1"}, []string{"SHARD_IDS"}},
		{"shard ids negative", []string{"SHARD_IDS", "-1"}, []string{"SHARD_IDS"}},
		{"shard id and ids", []string{"SHARD_IDS", "0", "SHARD_ID", "0"}, []string{"SHARD_ID", "not both"}},
		{"http without key", []string{"INTERACTIONS_ADDR", "127.0.0.1:8080"}, []string{"DISCORD_PUBLIC_KEY", "required"}},
		{"http bad key", []string{"INTERACTIONS_ADDR", "127.0.0.1:8080", "DISCORD_PUBLIC_KEY", "abcd"}, []string{"DISCORD_PUBLIC_KEY", "hex"}},
		{"http bad addr", []string{"INTERACTIONS_ADDR", "8080", "DISCORD_PUBLIC_KEY", testKeyHex}, []string{"INTERACTIONS_ADDR"}},
		{"http with shards", []string{"INTERACTIONS_ADDR", "127.0.0.1:8080", "DISCORD_PUBLIC_KEY", testKeyHex, "SHARD_COUNT", "2"}, []string{"INTERACTIONS_ADDR", "without a gateway"}},
		{"zero shutdown", []string{"SHUTDOWN_TIMEOUT", "0s"}, []string{"SHUTDOWN_TIMEOUT"}},
		{"word emoji", []string{"EMOJI_GEM", "gem"}, []string{"EMOJI_GEM"}},
		{"bad custom emoji", []string{"EMOJI_BOMB", "<:x:12>"}, []string{"EMOJI_BOMB"}},
		{"spaced token", []string{"DISCORD_TOKEN", "a b"}, []string{"DISCORD_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kv := tt.env
			if tt.name != "missing token" && tt.name != "spaced token" {
				kv = append([]string{"DISCORD_TOKEN", "t"}, kv...)
			}
			c, err := config.Load(env(kv...))
			if err == nil {
				t.Fatalf("Load succeeded with %v: %+v", tt.env, c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !reflect.DeepEqual(c, config.Config{}) {
				t.Errorf("Load returned a config with an error: %+v", c)
			}
		})
	}
}

func TestDiscordgoLogLevel(t *testing.T) {
	for _, tt := range []struct{ discordgo, level, want string }{
		{"", "debug", "error"}, // the default, even at LOG_LEVEL=debug
		{"off", "error", "off"},
		{"DEBUG", "debug", "debug"},
		{"info", "info", "info"},
		{"error", "error", "error"},
	} {
		c := mustLoad(t, env("DISCORD_TOKEN", "t", "DISCORDGO_LOG_LEVEL", tt.discordgo, "LOG_LEVEL", tt.level))
		if c.DiscordgoLogLevel != tt.want {
			t.Errorf("DISCORDGO_LOG_LEVEL=%q LOG_LEVEL=%s: %q, want %q", tt.discordgo, tt.level, c.DiscordgoLogLevel, tt.want)
		}
	}
}

func TestLoadReportsEveryError(t *testing.T) {
	_, err := config.Load(env("STARTING_BALANCE", "x", "LOG_LEVEL", "loud", "SHARD_COUNT", "-1"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, v := range []string{"DISCORD_TOKEN", "STARTING_BALANCE", "LOG_LEVEL", "SHARD_COUNT"} {
		if !strings.Contains(err.Error(), v+":") {
			t.Errorf("error does not mention %s:\n%v", v, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 {
		t.Errorf("got %d lines of errors, want 4:\n%v", n, err)
	}
}

func TestSecretsNeverShown(t *testing.T) {
	const secret = "sekrit.token.value"
	c := mustLoad(t, env("DISCORD_TOKEN", secret, "REDIS_URL", "redis://u:hunter2@h:6379",
		"PUBLIC_ADDR", "127.0.0.1:8081", "DISCORD_CLIENT_SECRET", "clientsecret42"))
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("cfg", "config", c)
	out := b.String() + c.String() + fmt.Sprint(c.LogValue())
	for _, s := range []string{secret, "hunter2", "clientsecret42"} {
		if strings.Contains(out, s) {
			t.Errorf("secret %q shown: %s", s, out)
		}
	}
	if !strings.Contains(out, "redis://u:xxxxx@h:6379") {
		t.Errorf("redis URL not shown redacted: %s", out)
	}
	_, err := config.Load(env("DISCORD_TOKEN", "with space"+secret))
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("bad token error shows the token or is missing: %v", err)
	}
	_, err = config.Load(env("DISCORD_TOKEN", "t", "PUBLIC_ADDR", ":8081", "DISCORD_CLIENT_SECRET", "with space"+secret))
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "DISCORD_CLIENT_SECRET:") {
		t.Errorf("bad client secret error shows the secret or is missing: %v", err)
	}
}

// TestActivityConfig: the Activity needs both PUBLIC_ADDR and
// DISCORD_CLIENT_SECRET; PUBLIC_ADDR alone serves /fair, the secret alone
// is an error naming both, and the public listener shares no port with the
// others.
func TestActivityConfig(t *testing.T) {
	if c := mustLoad(t, env("DISCORD_TOKEN", "t")); c.ActivityEnabled() {
		t.Error("Activity on by default")
	}
	c := mustLoad(t, env("DISCORD_TOKEN", "t", "PUBLIC_ADDR", "0.0.0.0:8081", "DISCORD_CLIENT_SECRET", "s3cret"))
	if !c.ActivityEnabled() || c.PublicAddr != "0.0.0.0:8081" || c.ClientSecret != "s3cret" {
		t.Errorf("got %q %q enabled=%v", c.PublicAddr, c.ClientSecret, c.ActivityEnabled())
	}
	if c := mustLoad(t, env("DISCORD_TOKEN", "t", "PUBLIC_ADDR", "0.0.0.0:8081")); c.ActivityEnabled() || c.PublicAddr != "0.0.0.0:8081" {
		t.Errorf("PUBLIC_ADDR alone: %q enabled=%v, want /fair only", c.PublicAddr, c.ActivityEnabled())
	}
	_, err := config.Load(env("DISCORD_TOKEN", "t", "DISCORD_CLIENT_SECRET", "s3cret"))
	if err == nil || !strings.Contains(err.Error(), "PUBLIC_ADDR") || !strings.Contains(err.Error(), "DISCORD_CLIENT_SECRET") {
		t.Errorf("DISCORD_CLIENT_SECRET alone: %v, want an error naming both", err)
	}
	_, err = config.Load(env("DISCORD_TOKEN", "t", "PUBLIC_ADDR", ":9090", "METRICS_ADDR", ":9090", "DISCORD_CLIENT_SECRET", "s"))
	if err == nil || !strings.Contains(err.Error(), "PUBLIC_ADDR:") {
		t.Errorf("same port as METRICS_ADDR: %v", err)
	}
	mustLoad(t, env("DISCORD_TOKEN", "t", "PUBLIC_ADDR", "127.0.0.1:0", "METRICS_ADDR", "127.0.0.1:0", "DISCORD_CLIENT_SECRET", "s")) // two ports the system picks
}

func TestLoadEmoji(t *testing.T) {
	good := []string{"💎", "🗝️", "❤️", "👍🏽", "1️⃣", "#️⃣", "🏴‍☠️", "<:gem:123456789012345678>", "<a:spin:1>", "©️"}
	bad := []string{"a", "gem", "💎 💎", "<:g:1>", "<gem:1>", "<:gem:abc>", "<:gem:0>", "1", "🙂🙂🙂🙂🙂🙂🙂🙂🙂", "\x00"}
	for _, s := range good {
		if c := mustLoad(t, env("DISCORD_TOKEN", "t", "EMOJI_GEM", s)); c.Emoji[0] != s {
			t.Errorf("EMOJI_GEM=%q: Emoji[0] = %q", s, c.Emoji[0])
		}
	}
	for _, s := range bad {
		if _, err := config.Load(env("DISCORD_TOKEN", "t", "EMOJI_GEM", s)); err == nil {
			t.Errorf("EMOJI_GEM=%q accepted", s)
		}
	}
}

func ExampleLoad() {
	getenv := func(name string) string {
		return map[string]string{
			"DISCORD_TOKEN":    "example-token",
			"STARTING_BALANCE": "12.50",
		}[name]
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.StartingBalance, cfg.DailyAmount, cfg.DataPath, cfg.APIBase)
	_, err = config.Load(func(string) string { return "" })
	fmt.Println(err)
	// Output:
	// 1250 500 ./data/clefs.db https://discord.com
	// DISCORD_TOKEN: required (the bot token from the Discord developer portal; to try the game without Discord, run: go run . try)
}

// testKeyHex is a valid Ed25519 public key (of the all-zero seed).
var testKeyHex = func() string {
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	return fmt.Sprintf("%x", []byte(pub))
}()

func TestLoadShards(t *testing.T) {
	tests := []struct {
		env   []string
		count int
		ids   []int
		text  string
	}{
		{nil, 1, nil, "all"},
		{[]string{"SHARD_COUNT", "auto"}, 0, nil, "all"},
		{[]string{"SHARD_COUNT", "AUTO", "SHARD_IDS", "4-7"}, 0, []int{4, 5, 6, 7}, "4-7"},
		{[]string{"SHARD_COUNT", "8", "SHARD_IDS", "0-3"}, 8, []int{0, 1, 2, 3}, "0-3"},
		{[]string{"SHARD_COUNT", "8", "SHARD_IDS", "5, 0,2-3,2"}, 8, []int{0, 2, 3, 5}, "0,2-3,5"},
		{[]string{"SHARD_COUNT", "2", "SHARD_ID", "1"}, 2, []int{1}, "1"},
	}
	for _, tt := range tests {
		c := mustLoad(t, env(append([]string{"DISCORD_TOKEN", "t"}, tt.env...)...))
		if c.ShardCount != tt.count || !reflect.DeepEqual(c.ShardIDs, tt.ids) {
			t.Errorf("%v: count %d ids %v, want %d %v", tt.env, c.ShardCount, c.ShardIDs, tt.count, tt.ids)
		}
		if got := c.String(); !strings.Contains(got, " shard_ids="+tt.text+" ") {
			t.Errorf("%v: %s, want shard_ids=%s", tt.env, got, tt.text)
		}
	}
}

func TestLoadInteractionsEndpoint(t *testing.T) {
	c := mustLoad(t, env("DISCORD_TOKEN", "t", "INTERACTIONS_ADDR", "127.0.0.1:8080", "DISCORD_PUBLIC_KEY", testKeyHex))
	if c.InteractionsAddr != "127.0.0.1:8080" || fmt.Sprintf("%x", []byte(c.PublicKey)) != testKeyHex {
		t.Errorf("got addr %q key %x", c.InteractionsAddr, []byte(c.PublicKey))
	}
}

// REDIS_URL takes exactly the forms redisstore opens: config checks it with
// redisstore.ParseURL, so the two cannot disagree again.
func TestRedisURL(t *testing.T) {
	accepted := []string{
		"redis://localhost:6379/0",
		"rediss://:hunter2@redis.example.com:6380/1",
		"unix:///run/redis/redis.sock?db=2",
		"redis+cluster://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000",
		"rediss+cluster://:hunter2@10.0.0.1:7000",
		"redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/0?master_name=mymaster&password=hunter2",
		"rediss+sentinel://10.0.0.1:26379?master_name=mymaster",
	}
	for _, u := range accepted {
		c, err := config.Load(env("DISCORD_TOKEN", "t", "REDIS_URL", u))
		if err != nil {
			t.Errorf("REDIS_URL=%s: %v", u, err)
		} else if c.RedisURL != u {
			t.Errorf("REDIS_URL=%s: RedisURL %q", u, c.RedisURL)
		}
	}
	refused := []struct{ url, why string }{
		{"http://x", `scheme "http"`},
		{"redis-cluster://:hunter2@10.0.0.1:7000", `scheme "redis-cluster"`},
		{"redis-sentinel://10.0.0.1:26379?master_name=m", `scheme "redis-sentinel"`},
		{"localhost:6379", "no scheme"},
		{"redis://:hunter2@a:1,b:2", "several hosts"},
		{"redis+cluster://:hunter2@10.0.0.1:7000/3", "only database 0"},
		{"redis+sentinel://u:hunter2@10.0.0.1:26379", "master_name"},
		{"redis://:hunter2@h:bad", "invalid port"},
	}
	for _, tt := range refused {
		_, err := config.Load(env("DISCORD_TOKEN", "t", "REDIS_URL", tt.url))
		if err == nil {
			t.Errorf("REDIS_URL=%s accepted", tt.url)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "REDIS_URL: ") || !strings.Contains(msg, tt.why) {
			t.Errorf("REDIS_URL=%s: error %q, want REDIS_URL: …%s…", tt.url, msg, tt.why)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("REDIS_URL=%s: error shows the password: %s", tt.url, msg)
		}
	}
}

func TestPublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "",
		"https://clefs.example.org":   "https://clefs.example.org",
		"https://clefs.example.org/":  "https://clefs.example.org",
		"https://example.org/clefs/":  "https://example.org/clefs",
		"http://localhost:9090":       "http://localhost:9090",
		"http://127.0.0.1:9090/":      "http://127.0.0.1:9090",
		" https://clefs.example.org ": "https://clefs.example.org",
	} {
		if got := mustLoad(t, env("DISCORD_TOKEN", "t", "PUBLIC_URL", in)).PublicURL; got != want {
			t.Errorf("PUBLIC_URL=%q: %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"http://clefs.example.org":     "secure context",
		"clefs.example.org":            "https://",
		"ftp://clefs.example.org":      "https://",
		"https://":                     "missing host",
		"https://x.org/fair?x=1":       "query",
		"https://x.org/#top":           "fragment",
		"https://u:p@x.org":            "user info",
		"http://localhost.example.org": "https://",
		"https://x.org/%zz":            "not a URL",
	} {
		_, err := config.Load(env("DISCORD_TOKEN", "t", "PUBLIC_URL", in))
		if err == nil || !strings.Contains(err.Error(), "PUBLIC_URL") || !strings.Contains(err.Error(), want) {
			t.Errorf("PUBLIC_URL=%q: %v, want an error naming PUBLIC_URL and %q", in, err, want)
		}
	}
}
