package cli

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// tryConnectWait bounds the wait for the bot to connect to the fake
// Discord: a second or two on a laptop; with -race on a busy machine (CI)
// it once took over 30 s.
const tryConnectWait = 90 * time.Second

// tryStdin is what `clefs try` reads its commands from: os.Stdin, or a
// script in the tests.
var tryStdin io.Reader = os.Stdin

// The fake server of a try session: its IDs, and the two kinds of users.
const (
	tryToken   = "try-token.local.fake"
	tryGuild   = "1000"
	tryChannel = "2000"
	tryPlayer  = "42" // the player at the start
	trySecond  = "43" // the second player at the Activity's table
	tryMod     = "7"  // "as mod": a member with Manage Server
)

const tryUsage = `Usage: clefs try [-seed N] [-lang en|fr] [-files DIR] [-v]

Plays the bot locally, without a Discord account: the in-repo fake Discord
and the bot (the real handlers, the real discordgo client) run in this
process on loopback, on a temporary store removed at exit. Type commands
at the prompt ("help" lists them); "quit" or end of input stops. A file
the bot sends (/fairness export) is saved in the current directory, or
in -files DIR, as a browser downloads it, and kept after the session. The
banner gives the Activity's address (the card scratched by hand, in a
browser), and a second player's at the same table.

Flags:
`

// tryClock is the clock of a try session: it gives the bot its time
// (Hooks.Now), places the relative timestamps, and its time's zone is the
// one timestamps show in. The tests fix it, so that a session prints the
// same times.
var tryClock = time.Now

// lockedReader makes a reader safe for concurrent use: the handlers may
// read new players' seeds at the same time.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// seededReader is a reproducible source of seeds: ChaCha8 keyed by seed.
func seededReader(seed uint64) io.Reader {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	copy(key[8:], "clefs try seeds")
	return &lockedReader{r: rand.NewChaCha8(key)}
}

// runTry runs `clefs try`: the fake Discord and the bot in one process, and
// a prompt on tryStdin and stdout. It returns when the input ends, "quit"
// is typed or ctx ends, after stopping the bot and removing the temporary
// store.
func runTry(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	in := tryStdin
	fs := newFlags("try", stderr, tryUsage)
	seed := fs.Uint64("seed", 0, "draw the seeds from this number, so that a session replays the same draws (0: random)")
	lang := fs.String("lang", "en", "the language of the interactions at the start: en or fr")
	files := fs.String("files", ".", "the directory where the files the bot sends (a /fairness export) are saved; it must exist")
	verbose := fs.Bool("v", false, "show the bot's and the fake Discord's logs on stderr (else they go to a file in the temporary directory)")
	if err := parseFlags(fs, "try", args, 0); err != nil {
		return err
	}
	locale, ok := tryLocale(*lang)
	if !ok {
		fs.Usage()
		return usageError{fmt.Sprintf("-lang: want en or fr, got %q", *lang)}
	}
	if _, err := tryLocalizers(); err != nil {
		return err
	}
	if st, err := os.Stat(*files); err != nil || !st.IsDir() {
		fs.Usage()
		return usageError{fmt.Sprintf("-files: %q is not a directory", *files)}
	}

	dir, err := os.MkdirTemp("", "clefs-try-")
	if err != nil {
		return fmt.Errorf("try: temporary directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("try: remove %s: %w", dir, rerr))
		}
	}()
	logPath := filepath.Join(dir, "clefs.log")
	var logw io.Writer = stderr
	if !*verbose {
		f, err := os.Create(logPath)
		if err != nil {
			return fmt.Errorf("try: log file: %w", err)
		}
		defer f.Close()
		logw = f
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// discordgo logs process-wide: route it here for the session, and
	// give it back after.
	defer bot.RouteDiscordgoLogs(log, bot.DiscordgoLogLevel("error"))()

	srv := fakediscord.New(fakediscord.Options{
		Token: tryToken, Guilds: []string{tryGuild}, Logger: log.With("source", "fakediscord"), Activities: true,
	})
	if err := srv.Start(); err != nil {
		return fmt.Errorf("try: %w", err)
	}
	defer srv.Close()

	env := map[string]string{
		"DISCORD_TOKEN":    tryToken,
		"DISCORD_API_BASE": srv.URL(),
		"DISCORD_GUILD_ID": tryGuild,
		"DATA_PATH":        filepath.Join(dir, "clefs.db"),
		"LOG_LEVEL":        "info",
		"SHUTDOWN_TIMEOUT": "5s",
		// The Activity, on a port of its own, with the fake's client secret.
		"PUBLIC_ADDR":           "127.0.0.1:0",
		"DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret,
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		return fmt.Errorf("try: configuration: %w", err)
	}
	hooks := Hooks{IdentifyInterval: time.Millisecond, Now: tryClock}
	if *seed != 0 {
		hooks.Seeds = seededReader(*seed)
	}
	started, public := make(chan struct{}), make(chan string, 1)
	hooks.Started, hooks.Public = func(string) { close(started) }, func(a string) { public <- a }
	botCtx, stopBot := context.WithCancel(ctx)
	defer stopBot()
	served := make(chan error, 1)
	go func() { served <- Serve(botCtx, cfg, log, hooks) }()
	defer func() {
		stopBot()
		if serr := <-served; serr != nil {
			err = errors.Join(err, fmt.Errorf("try: the bot: %w", serr))
		}
	}()
	select {
	case <-started:
	case serr := <-served:
		served <- serr // for the deferred wait
		return fmt.Errorf("try: the bot did not start (logs: %s)", logPath)
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(tryConnectWait):
		return fmt.Errorf("try: the bot did not connect within %v (logs: %s)", tryConnectWait, logPath)
	}

	// The Activity as Discord shows it, for the player and a second one at
	// the same table (one instance), in a fake client page on a port of its own.
	var botAddr string
	select {
	case botAddr = <-public:
	case serr := <-served:
		served <- serr
		return fmt.Errorf("try: the bot's Activity did not start (logs: %s)", logPath)
	}
	users := []fakediscord.OAuthUser{{ID: tryPlayer, Locale: string(locale)}, {ID: trySecond, Locale: string(locale)}}
	web := &http.Server{Handler: srv.ActivityClient(botAddr, users...), ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("try: the Activity's listener: %w", err)
	}
	go web.Serve(ln)
	defer web.Close()
	inst := srv.StartActivity(fakediscord.Activity{Guild: tryGuild, Channel: tryChannel, Users: []string{tryPlayer, trySecond}})
	page := "http://" + ln.Addr().String() + "/client/client.html?people=" + tryPlayer + "," + trySecond + "&instance=" + inst + "&user=" // both at the table

	s := &trySession{srv: srv, out: stdout, user: tryPlayer, locale: locale, echo: !isTerminal(in), files: *files}
	l := langOf(locale)
	where := l.t("logs_file", map[string]any{"Path": logPath})
	if *verbose {
		where = l.t("logs_stderr", nil)
	}
	fmt.Fprint(stdout, l.t("banner", map[string]any{"Addr": srv.URL(), "Dir": dir, "Logs": where, "Page": page, "Second": trySecond}))
	s.loop(ctx, in)
	fmt.Fprint(stdout, langOf(s.locale).t("bye", nil))
	return nil
}

// tryLocale maps -lang and "lang" to the interaction's locale.
func tryLocale(s string) (discordgo.Locale, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "en", "en-us":
		return discordgo.EnglishUS, true
	case "fr":
		return discordgo.French, true
	}
	return "", false
}

// trySession is the state of the prompt: who acts, in which language.
type trySession struct {
	srv    *fakediscord.Server
	out    io.Writer
	user   string
	locale discordgo.Locale
	echo   bool   // in is no terminal (a pipe, a script): echo each command, so the transcript reads as typed
	files  string // where the bot's files are saved
}

// view is how messages render now: in the session's language, at
// tryClock's time.
func (s *trySession) view() view {
	return view{lang: langOf(s.locale), now: tryClock()}
}

// loop reads lines from in until its end, "quit" or ctx's end. The reading
// runs in its own goroutine so that ctx (Ctrl-C) ends the session even
// while waiting for a line; it stops at the end of in or when loop returns.
func (s *trySession) loop(ctx context.Context, in io.Reader) {
	lines := make(chan string)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-stop:
				return
			}
		}
	}()
	for {
		who := "user" + s.user // the prompt: the acting user and the language
		if s.user == tryMod {
			who = "mod"
		}
		fmt.Fprint(s.out, who+" ["+string(langOf(s.locale))+"]> ")
		line, ok := "", false
		select {
		case line, ok = <-lines:
		case <-ctx.Done(): // as at the end of the input
		}
		if !ok {
			fmt.Fprintln(s.out)
			return
		}
		if s.echo {
			fmt.Fprintln(s.out, line)
		}
		if !s.do(ctx, strings.TrimSpace(line)) {
			return
		}
	}
}

// do runs one line; it returns false to end the session.
func (s *trySession) do(ctx context.Context, line string) bool {
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	l := langOf(s.locale)
	switch strings.ToLower(word) {
	case "":
	case "quit", "exit", "q":
		return false
	case "help", "?", "h", "aide":
		fmt.Fprint(s.out, helpText(s.srv.Commands(tryGuild), rest, l))
	case "as":
		if id, ok := tryUser(rest); ok {
			s.user = id
		} else {
			fmt.Fprintln(s.out, l.t("as_usage", nil))
		}
	case "lang":
		if loc, ok := tryLocale(rest); ok {
			s.locale = loc
		} else {
			fmt.Fprintln(s.out, l.t("lang_usage", nil))
		}
	default:
		if strings.HasPrefix(line, "/") {
			s.slash(ctx, line[1:])
			return true
		}
		if !s.press(ctx, line) {
			buttons := l.t("no_buttons_word", nil) // those of the user's newest card that has some
			if cards := s.cards(); len(cards) > 0 {
				buttons = buttonsText(messageButtons(cards[0]), s.view())
			}
			fmt.Fprintln(s.out, l.t("unknown", map[string]any{"Word": word, "Commands": commandList(s.srv.Commands(tryGuild), l), "Buttons": buttons}))
		}
	}
	return true
}

// tryUser reads a user as typed: mod, 42, @42, <@42>, user42.
func tryUser(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(s, "<"), ">"), "@")
	s = strings.TrimPrefix(strings.ToLower(s), "user")
	if s == "mod" || s == "moderator" {
		return tryMod, true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return "", false
	}
	return strconv.FormatUint(n, 10), true
}

// perms are the acting user's permissions: a moderator's for mod.
func (s *trySession) perms() int64 {
	if s.user == tryMod {
		return fakediscord.PermsModerator
	}
	return fakediscord.PermsMember
}

// show waits for the answer of an interaction and prints it.
func (s *trySession) show(ctx context.Context, p *fakediscord.Pending, err error) {
	l := langOf(s.locale)
	if err != nil {
		fmt.Fprintln(s.out, discordRefusal(err, l))
		return
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	r, err := p.Wait(wctx)
	if err != nil {
		fmt.Fprintln(s.out, l.t("no_answer", map[string]any{"Err": strings.TrimPrefix(err.Error(), "fakediscord: ")}))
		return
	}
	v := s.view()
	if r.Message != nil {
		fmt.Fprint(s.out, renderMessage(r.Message, r.Ephemeral, v))
		s.save(r.Message)
	}
	for _, m := range r.FollowUps {
		fmt.Fprint(s.out, renderMessage(m, m.Flags&discordgo.MessageFlagsEphemeral != 0, v))
		s.save(m)
	}
}

// save writes the attachments of m into s.files, as a browser downloads
// them (a file of the same name is replaced: the newer export), and prints
// each one's path under its 📎 line. A failure is printed, not returned:
// the session goes on.
func (s *trySession) save(m *discordgo.Message) {
	l := langOf(s.locale)
	for _, a := range m.Attachments {
		data, ok := s.srv.Attachment(a.ID)
		name := filepath.Base(a.Filename)
		switch {
		case !ok:
			fmt.Fprint(s.out, l.t("not_held", map[string]any{"File": a.Filename}))
			continue
		case !filepath.IsLocal(name):
			fmt.Fprint(s.out, l.t("not_name", map[string]any{"File": a.Filename}))
			continue
		}
		path := filepath.Join(s.files, name)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprint(s.out, l.t("not_saved", map[string]any{"Err": err}))
			continue
		}
		fmt.Fprint(s.out, l.t("saved_as", map[string]any{"Path": path}))
	}
}

// discordRefusal says what Discord's client would have refused, in a
// line in l. The fake's refusals carry the command after a colon.
func discordRefusal(err error, l tryLang) string {
	msg := strings.ReplaceAll(err.Error(), "fakediscord: ", "")
	cmd := msg[strings.LastIndex(msg, "/")+1:]
	cmd, _, _ = strings.Cut(cmd, " ")
	switch {
	case errors.Is(err, fakediscord.ErrForbidden):
		return l.t("refused_forbidden", map[string]any{"Command": cmd})
	case errors.Is(err, fakediscord.ErrUnknownCommand):
		return l.t("refused_unknown", map[string]any{"Command": cmd})
	}
	return l.t("refused", map[string]any{"Reason": msg})
}

// slash runs a slash command typed as text after the "/": its name (or
// its French name), subcommands, then options (see helpText).
func (s *trySession) slash(ctx context.Context, text string) {
	sl, err := parseSlash(text, s.srv.Commands(tryGuild), langOf(s.locale))
	if err != nil {
		fmt.Fprintln(s.out, err.Error())
		return
	}
	sl.Guild, sl.Channel, sl.User, sl.Locale, sl.Perms = tryGuild, tryChannel, s.user, s.locale, s.perms()
	p, err := s.srv.Slash(ctx, sl)
	s.show(ctx, p, err)
}
