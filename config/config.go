package config

import (
	"cmp"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// Config is the validated configuration of the bot. Amounts are cents. Each
// field names its variable; docs/configuration.md says what each means.
type Config struct {
	Token   string // DISCORD_TOKEN, without the "Bot " prefix
	GuildID string // DISCORD_GUILD_ID: register commands on this guild only; "" = globally
	APIBase string // DISCORD_API_BASE: scheme://host[/path] replacing https://discord.com, no trailing slash

	RedisURL            string        // REDIS_URL: use Redis when set
	RedisMinReplicas    int           // REDIS_MIN_REPLICAS: replicas holding a write before its ack; -1 (unset): decided at start
	RedisReplicaTimeout time.Duration // REDIS_REPLICA_TIMEOUT: the bound of the wait for them
	DataPath            string        // DATA_PATH: the embedded store's file when RedisURL is empty

	BackupDir      string        // BACKUP_DIR: "" = no snapshots; the embedded store only
	BackupInterval time.Duration // BACKUP_INTERVAL
	BackupKeep     int           // BACKUP_KEEP

	StartingBalance int64         // STARTING_BALANCE, cents
	DailyAmount     int64         // DAILY_AMOUNT, cents; 0 disables /daily
	DailyCooldown   time.Duration // DAILY_COOLDOWN
	PublicPlays     bool          // PUBLIC_PLAYS

	LogLevel          slog.Level // LOG_LEVEL
	LogFormat         string     // LOG_FORMAT: "text" or "json"
	DiscordgoLogLevel string     // DISCORDGO_LOG_LEVEL: "off", "error", "warn", "info" or "debug"

	MetricsAddr string // METRICS_ADDR: host:port of /metrics, /healthz and /version (private); "" = off

	PublicAddr   string // PUBLIC_ADDR: host:port of /fair and the Activity (ActivityEnabled); "" = none
	ClientSecret string // DISCORD_CLIENT_SECRET: never logged (LogValue), never in an error
	PublicURL    string // PUBLIC_URL: https:// (or http:// on localhost), no trailing slash; "" = none

	ShardCount      int           // SHARD_COUNT; 0 for "auto"
	ShardIDs        []int         // SHARD_IDS (or SHARD_ID), increasing; nil = every shard
	ShutdownTimeout time.Duration // SHUTDOWN_TIMEOUT

	InteractionsAddr string            // INTERACTIONS_ADDR: "" = gateway
	PublicKey        ed25519.PublicKey // DISCORD_PUBLIC_KEY: required with InteractionsAddr

	Emoji     [game.NumSymbols]string // EMOJI_GEM…EMOJI_KEY (emojiVars), by game.Symbol; "" keeps the default
	Hidden    string                  // EMOJI_HIDDEN: the hidden cell's; "" keeps the default
	AppEmojis bool                    // APP_EMOJIS
}

// LogValue implements slog.LogValuer so that logging a Config never shows the
// token or the Redis password.
func (c Config) LogValue() slog.Value {
	shardCount := "auto" // as SHARD_COUNT is written
	if c.ShardCount != 0 {
		shardCount = strconv.Itoa(c.ShardCount)
	}
	return slog.GroupValue(
		slog.String("token", redact(c.Token)),
		slog.String("guild_id", c.GuildID),
		slog.String("api_base", c.APIBase),
		slog.String("redis_url", redisstore.RedactURL(c.RedisURL)),
		slog.Int("redis_min_replicas", c.RedisMinReplicas),
		slog.Duration("redis_replica_timeout", c.RedisReplicaTimeout),
		slog.String("data_path", c.DataPath),
		slog.String("backup_dir", c.BackupDir),
		slog.Duration("backup_interval", c.BackupInterval),
		slog.Int("backup_keep", c.BackupKeep),
		slog.Int64("starting_balance_cents", c.StartingBalance),
		slog.Int64("daily_amount_cents", c.DailyAmount),
		slog.Duration("daily_cooldown", c.DailyCooldown),
		slog.Bool("public_plays", c.PublicPlays),
		slog.String("log_level", c.LogLevel.String()),
		slog.String("log_format", c.LogFormat),
		slog.String("discordgo_log_level", c.DiscordgoLogLevel),
		slog.String("metrics_addr", c.MetricsAddr),
		slog.String("public_addr", c.PublicAddr),
		slog.String("client_secret", redact(c.ClientSecret)),
		slog.String("public_url", c.PublicURL),
		slog.String("shard_count", shardCount),
		slog.String("shard_ids", shardIDsString(c.ShardIDs)),
		slog.Duration("shutdown_timeout", c.ShutdownTimeout),
		slog.String("interactions_addr", c.InteractionsAddr),
	)
}

// ActivityEnabled reports whether the Activity is configured: PUBLIC_ADDR
// and DISCORD_CLIENT_SECRET are both set (Load refuses the secret alone).
func (c Config) ActivityEnabled() bool { return c.PublicAddr != "" && c.ClientSecret != "" }

// String describes the configuration without secrets.
func (c Config) String() string { return c.LogValue().String() }

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// emojiVars are the variables overriding the symbols' emoji, in game.Symbol order.
var emojiVars = [game.NumSymbols]string{
	"EMOJI_GEM", "EMOJI_PIPE", "EMOJI_BOMB", "EMOJI_SABRE", "EMOJI_CANDLE", "EMOJI_BARREL", "EMOJI_KEY",
}

// Load reads the configuration through getenv (os.Getenv in main; a map in
// tests). An unset and an empty variable are the same. It returns every
// problem at once, joined with errors.Join, each message naming its variable.
func Load(getenv func(string) string) (Config, error) {
	l := loader{getenv: getenv}
	c := Config{
		Token:               l.token("DISCORD_TOKEN"),
		GuildID:             l.snowflake("DISCORD_GUILD_ID"),
		APIBase:             l.absURL("DISCORD_API_BASE", "https://discord.com", httpURL, "scheme must be http or https"),
		RedisURL:            l.redisURL("REDIS_URL"),
		RedisMinReplicas:    l.count("REDIS_MIN_REPLICAS", -1, 0, 100),
		RedisReplicaTimeout: l.duration("REDIS_REPLICA_TIMEOUT", redisstore.DefaultReplicaWait, time.Millisecond),
		DataPath:            cmp.Or(l.get("DATA_PATH"), backend.DefaultDataPath),
		BackupDir:           l.get("BACKUP_DIR"),
		BackupInterval:      l.duration("BACKUP_INTERVAL", time.Hour, time.Minute),
		BackupKeep:          l.count("BACKUP_KEEP", 48, 1, 10000),
		StartingBalance:     l.credits("STARTING_BALANCE", 2000),
		DailyAmount:         l.credits("DAILY_AMOUNT", 500),
		DailyCooldown:       l.duration("DAILY_COOLDOWN", 20*time.Hour, 0),
		PublicPlays:         l.boolean("PUBLIC_PLAYS", true),
		LogLevel:            l.level("LOG_LEVEL"),
		LogFormat:           l.oneOf("LOG_FORMAT", "text", "text", "json"),
		DiscordgoLogLevel:   l.oneOf("DISCORDGO_LOG_LEVEL", "error", "off", "error", "warn", "info", "debug"),
		MetricsAddr:         l.hostPort("METRICS_ADDR"),
		PublicAddr:          l.hostPort("PUBLIC_ADDR"),
		ClientSecret:        l.secret("DISCORD_CLIENT_SECRET"),
		PublicURL:           l.absURL("PUBLIC_URL", "", secureURL, secureURLWant),
		ShardCount:          l.shardCount("SHARD_COUNT"),
		ShutdownTimeout:     l.duration("SHUTDOWN_TIMEOUT", 10*time.Second, time.Millisecond),
		Hidden:              l.emoji("EMOJI_HIDDEN"),
		AppEmojis:           l.boolean("APP_EMOJIS", true),
		InteractionsAddr:    l.hostPort("INTERACTIONS_ADDR"),
		PublicKey:           l.publicKey("DISCORD_PUBLIC_KEY"),
	}
	for i, name := range emojiVars {
		c.Emoji[i] = l.emoji(name)
	}
	c.ShardIDs = l.shardIDs(c.ShardCount)
	if c.InteractionsAddr != "" {
		if c.PublicKey == nil && l.get("DISCORD_PUBLIC_KEY") == "" {
			l.fail("DISCORD_PUBLIC_KEY", "required with INTERACTIONS_ADDR (Developer Portal → General Information → Public Key)")
		}
		if c.ShardIDs != nil || (c.ShardCount != 1) {
			l.fail("INTERACTIONS_ADDR", "serves interactions over HTTP, without a gateway: leave SHARD_IDS and SHARD_ID empty, and SHARD_COUNT empty or 1")
		}
	}
	if l.get("PUBLIC_ADDR") == "" && l.get("DISCORD_CLIENT_SECRET") != "" {
		l.fail("PUBLIC_ADDR", "required with DISCORD_CLIENT_SECRET: the Activity is served on the public listener (docs/activity.md)")
	}
	if a := c.PublicAddr; a != "" && !strings.HasSuffix(a, ":0") && (a == c.MetricsAddr || a == c.InteractionsAddr) {
		l.fail("PUBLIC_ADDR", "%q is also METRICS_ADDR or INTERACTIONS_ADDR: give each listener its own port", a)
	}
	if lv, ok := slogLevels[c.DiscordgoLogLevel]; ok && lv < c.LogLevel {
		l.fail("DISCORDGO_LOG_LEVEL", "%s: discordgo's lines at this level are logged at level %s, which LOG_LEVEL=%s drops: set LOG_LEVEL=%s too, or a quieter DISCORDGO_LOG_LEVEL",
			c.DiscordgoLogLevel, lv, strings.ToLower(c.LogLevel.String()), c.DiscordgoLogLevel)
	}
	if c.RedisURL != "" && c.BackupDir != "" {
		l.fail("BACKUP_DIR", "snapshots are for the embedded store; with REDIS_URL, use Redis's own persistence (RDB or AOF) and clefs export (docs/operating.md, \"Backups and recovery\")")
	}
	if err := errors.Join(l.errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// loader reads variables and collects every problem.
type loader struct {
	getenv func(string) string
	errs   []error
}

func (l *loader) fail(name, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
}

func (l *loader) get(name string) string { return strings.TrimSpace(l.getenv(name)) }

// parse reads variable name with parse: def when it is unset, or when
// parse fails, whose error (without the variable's name) is reported.
func parse[T any](l *loader, name string, def T, parse func(v string) (T, error)) T {
	v := l.get(name)
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s: %w", name, err))
		return def
	}
	return x
}

// token reads the bot token (a "Bot " prefix is removed), never shown in an error.
func (l *loader) token(name string) string {
	v := strings.TrimPrefix(l.get(name), "Bot ")
	switch {
	case v == "":
		l.fail(name, "required (the bot token from the Discord developer portal; to try the game without Discord, run: go run . try)")
	case notPlain(v):
		l.fail(name, "contains spaces or non-ASCII characters (token not shown)")
	}
	return v
}

// secret reads a secret, printable ASCII without spaces, never shown in an error.
func (l *loader) secret(name string) string {
	v := l.get(name)
	if notPlain(v) {
		l.fail(name, "contains spaces or non-ASCII characters (value not shown)")
		return ""
	}
	return v
}

// notPlain reports whether a secret holds spaces, controls or non-ASCII.
func notPlain(v string) bool {
	return strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r > unicode.MaxASCII || unicode.IsControl(r) })
}

func (l *loader) snowflake(name string) string {
	return parse(l, name, "", func(v string) (string, error) {
		if n, err := strconv.ParseUint(v, 10, 64); err != nil || n == 0 || v[0] == '+' {
			return "", fmt.Errorf("%q is not a snowflake (a positive integer ID)", v)
		}
		return v, nil
	})
}

// absURL reads an absolute URL whose scheme ok accepts (else the error
// says want), with a host and without user info, query or fragment. The
// trailing slash is dropped.
func (l *loader) absURL(name, def string, ok func(*url.URL) bool, want string) string {
	return parse(l, name, def, func(v string) (string, error) {
		u, err := url.Parse(v)
		switch {
		case err != nil:
			return "", fmt.Errorf("%q is not a URL: %v", v, err)
		case !ok(u):
			return "", fmt.Errorf("%q: %s", v, want)
		case u.Host == "":
			return "", fmt.Errorf("%q: missing host", v)
		case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil:
			return "", fmt.Errorf("%q: must not have a query, fragment or user info", v)
		}
		return strings.TrimRight(v, "/"), nil
	})
}

// httpURL accepts DISCORD_API_BASE's schemes.
func httpURL(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

const secureURLWant = "must be an https:// URL: the verification page uses WebCrypto, which browsers allow only in a secure context (http:// only on localhost or 127.0.0.1)"

// secureURL accepts PUBLIC_URL's schemes, the secure contexts of secureURLWant.
func secureURL(u *url.URL) bool {
	return u.Scheme == "https" || (u.Scheme == "http" && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1"))
}

// redisURL reads REDIS_URL with the store's own parser, so that what config
// accepts the store opens; its error hides the passwords.
func (l *loader) redisURL(name string) string {
	return parse(l, name, "", func(v string) (string, error) {
		_, err := redisstore.ParseURL(v)
		var ue *redisstore.URLError
		if errors.As(err, &ue) {
			return "", fmt.Errorf("%q: %s", ue.URL, ue.Reason)
		}
		return v, err
	})
}

// creditSyntax is how an amount of credits is written in the environment:
// digits, optionally a '.' and one or two decimals, up to 10^13 credits.
var creditSyntax = game.CreditSyntax{Max: 1_000_000_000_000_000}

func (l *loader) credits(name string, def int64) int64 {
	return parse(l, name, def, func(v string) (int64, error) { return game.ParseCredits(v, creditSyntax) })
}

func (l *loader) duration(name string, def, min time.Duration) time.Duration {
	return parse(l, name, def, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return 0, fmt.Errorf("%q is not a duration (e.g. 20h, 90m, 10s)", v)
		case d < min || d < 0:
			return 0, fmt.Errorf("%s: must be at least %s", d, min)
		}
		return d, nil
	})
}

// count reads a whole number from lo to hi.
func (l *loader) count(name string, def, lo, hi int) int {
	return parse(l, name, def, func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%q: want a whole number from %d to %d", v, lo, hi)
		}
		return n, nil
	})
}

func (l *loader) boolean(name string, def bool) bool {
	return parse(l, name, def, func(v string) (bool, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("%q is not a boolean (true or false)", v)
		}
		return b, nil
	})
}

// shardCount reads SHARD_COUNT: a positive integer, or "auto" (0); unset, 1.
func (l *loader) shardCount(name string) int {
	return parse(l, name, 1, func(v string) (int, error) {
		v = strings.ToLower(v)
		if v == "auto" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxShards {
			return 0, fmt.Errorf("%q: want auto or a whole number from 1 to %d", v, maxShards)
		}
		return n, nil
	})
}

// maxShards bounds SHARD_COUNT and SHARD_IDS (the largest bots run a few thousand).
const maxShards = 1 << 16

// shardIDs reads SHARD_IDS, a list of shards and ranges ("0-3", "0,2,5-7"),
// or the older SHARD_ID, a single shard, into sorted, distinct numbers below
// count, SHARD_COUNT (0, auto: checked at start-up, once Discord has said).
func (l *loader) shardIDs(count int) []int {
	list, single := l.get("SHARD_IDS"), l.get("SHARD_ID")
	name := "SHARD_IDS"
	switch {
	case list != "" && single != "":
		l.fail("SHARD_ID", "set SHARD_IDS or SHARD_ID, not both")
		return nil
	case list == "" && single == "":
		return nil
	case list == "":
		list, name = single, "SHARD_ID"
	}
	var ids []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= maxShards {
			l.fail(name, "%q: want shard numbers and ranges such as 0-3 or 0,2,5-7", list)
			return nil
		}
		for n := a; n <= b; n++ {
			ids = append(ids, n)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if last := ids[len(ids)-1]; count > 0 && last >= count {
		l.fail(name, "shard %d: must be below SHARD_COUNT (%d)", last, count)
		return nil
	}
	return ids
}

// shardIDsString writes ids as SHARD_IDS does, with ranges; nil is "all".
func shardIDsString(ids []int) string {
	if ids == nil {
		return "all"
	}
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// publicKey reads the application's Ed25519 public key, 64 hex digits.
func (l *loader) publicKey(name string) ed25519.PublicKey {
	return parse(l, name, nil, func(v string) (ed25519.PublicKey, error) {
		k, err := hex.DecodeString(v)
		if err != nil || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("want the application's public key: %d hex digits (Developer Portal → General Information)", 2*ed25519.PublicKeySize)
		}
		return k, nil
	})
}

func (l *loader) oneOf(name, def string, allowed ...string) string {
	return parse(l, name, def, func(v string) (string, error) {
		if v = strings.ToLower(v); !slices.Contains(allowed, v) {
			return "", fmt.Errorf("%q: want one of %s", v, strings.Join(allowed, ", "))
		}
		return v, nil
	})
}

// slogLevels are the levels of LOG_LEVEL's and DISCORDGO_LOG_LEVEL's names.
var slogLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}

func (l *loader) level(name string) slog.Level {
	return slogLevels[l.oneOf(name, "info", "debug", "info", "warn", "error")]
}

func (l *loader) hostPort(name string) string {
	return parse(l, name, "", func(v string) (string, error) {
		_, port, err := net.SplitHostPort(v)
		if err != nil {
			return "", fmt.Errorf("%q is not host:port (e.g. 127.0.0.1:9090): %v", v, err)
		}
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || (p == 0 && port != "0") {
			return "", fmt.Errorf("%q: bad port %q", v, port)
		}
		return v, nil
	})
}

var customEmoji = regexp.MustCompile(`^<a?:[A-Za-z0-9_]{2,32}:[1-9][0-9]{0,19}>$`)

// emoji reads an emoji usable in a message: a custom emoji "<:name:id>" (or
// "<a:name:id>" when animated), or a short Unicode emoji sequence (no
// spaces, no letters, at most 8 code points).
func (l *loader) emoji(name string) string {
	return parse(l, name, "", func(s string) (string, error) {
		if strings.HasPrefix(s, "<") {
			if !customEmoji.MatchString(s) {
				return "", fmt.Errorf("%q is not a custom emoji of the form <:name:id>", s)
			}
			if _, err := strconv.ParseUint(s[strings.LastIndexByte(s, ':')+1:len(s)-1], 10, 64); err != nil {
				return "", fmt.Errorf("%q: the emoji id is not a snowflake", s)
			}
			return s, nil
		}
		notEmoji := fmt.Errorf("%q is not a single emoji (Unicode emoji or <:name:id>)", s)
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 8 {
			return "", notEmoji
		}
		pictographic := false
		for _, r := range s {
			switch {
			case r == '#' || r == '*' || (r >= '0' && r <= '9'): // keycap bases
			case r < 0xA9 || unicode.IsSpace(r) || unicode.IsLetter(r) || unicode.IsControl(r):
				return "", notEmoji
			case r != 0x200D && r != 0xFE0F && !(r >= 0x1F3FB && r <= 0x1F3FF): // not a joiner, variation selector or skin tone
				pictographic = true
			}
		}
		if !pictographic {
			return "", notEmoji
		}
		return s, nil
	})
}
