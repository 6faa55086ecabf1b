package cli

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
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

// tryStdin is what `clefs try` reads its commands from: os.Stdin, or a
// script in the tests.
var tryStdin io.Reader = os.Stdin

// The fake server of a try session: its IDs, and the two kinds of users.
const (
	tryToken   = "try-token.local.fake"
	tryGuild   = "1000"
	tryChannel = "2000"
	tryPlayer  = "42" // the player at the start
	tryMod     = "7"  // "as mod": a member with Manage Server
)

const tryUsage = `Usage: clefs try [-seed N] [-lang en|fr] [-files DIR] [-v]

Plays the bot locally, without a Discord account: the in-repo fake Discord
and the bot (the real handlers, the real discordgo client) run in this
process on loopback, on a temporary store removed at exit. Type commands
at the prompt ("help" lists them); "quit" or end of input stops. A file
the bot sends (/fairness export) is saved in the current directory, or
in -files DIR, as a browser downloads it, and kept after the session.

Flags:
`

// tryHelp is what "help" prints at the prompt.
const tryHelp = `Commands (Discord's slash commands, in English or French: /play or /jouer):
  /play  /balance  /daily  /leaderboard  /history  /rules
  /fairness show | rotate | seed <text> | verify <n> | export
    (export's file is saved in the current directory or -files DIR)
  /admin grant <user> <amount> [reason…]   e.g. /admin grant @42 5 welcome gift
  /admin set-balance, reset, audit, settings… (as mod; one missing an option shows its usage)
    Options go in order (the last one takes the rest of the line), or by
    name as Discord writes them: /admin grant user:@42 amount:5 reason:gift
    A user is @42, 42 or @mod.
Buttons (of the last card that has them):
  auto         reveal every row          row N   reveal row N (1-3)
  chest        open the chest             again   play again
Session:
  as <user>    act as another user: a number (42, 43…) or mod (a moderator)
  lang fr|en   the language of your Discord client (the interaction's locale)
  help         this list                  quit    leave (end of input too)
Cards: ┃ frames an embed; [buttons] follow, a disabled one marked ·greyed;
"(only you)" is an ephemeral reply only the acting user sees.
`

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
// a prompt on in and stdout. It returns when in ends, "quit" is typed or
// ctx ends, after stopping the bot and removing the temporary store.
func runTry(ctx context.Context, args []string, in io.Reader, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("try", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), tryUsage)
		fs.PrintDefaults()
	}
	seed := fs.Uint64("seed", 0, "draw the seeds from this number, so that a session replays the same draws (0: random)")
	lang := fs.String("lang", "en", "the language of the interactions at the start: en or fr")
	files := fs.String("files", ".", "the directory where the files the bot sends (a /fairness export) are saved; it must exist")
	verbose := fs.Bool("v", false, "show the bot's and the fake Discord's logs on stderr (else they go to a file in the temporary directory)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return usageError{fmt.Sprintf("try takes no arguments, got %q", fs.Args())}
	}
	locale, ok := tryLocale(*lang)
	if !ok {
		fs.Usage()
		return usageError{fmt.Sprintf("-lang: want en or fr, got %q", *lang)}
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
	// discordgo logs through a package variable: route it here for the
	// session, and give it back after.
	prevLogger := discordgo.Logger
	bot.RouteDiscordgoLogs(log, bot.DiscordgoLogLevel("error"))
	defer func() { discordgo.Logger = prevLogger }()

	srv := fakediscord.New(fakediscord.Options{
		Token: tryToken, Guilds: []string{tryGuild}, Logger: log.With("source", "fakediscord"),
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
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		return fmt.Errorf("try: configuration: %w", err)
	}
	hooks := Hooks{IdentifyInterval: time.Millisecond}
	if *seed != 0 {
		hooks.Seeds = seededReader(*seed)
	}
	started := make(chan struct{})
	hooks.Started = func(string) { close(started) }
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
	case <-time.After(30 * time.Second):
		return fmt.Errorf("try: the bot did not connect within 30 s (logs: %s)", logPath)
	}

	s := &trySession{srv: srv, out: stdout, user: tryPlayer, locale: locale, echo: !inTerminal(in), files: *files}
	where := "logs in " + logPath
	if *verbose {
		where = "logs on stderr"
	}
	fmt.Fprintf(stdout, "Les Clefs du Trésor, locally: a fake Discord on %s, the bot connected, a temporary store in %s (%s).\n", srv.URL(), dir, where)
	fmt.Fprintln(stdout, `You are user 42 in a test server. Type /play to start, help for the commands, quit to leave.`)
	s.loop(ctx, in)
	fmt.Fprintln(stdout, "Bye: the bot stops and the temporary store is removed.")
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

// inTerminal reports whether in is a terminal, where the person's typing
// echoes; elsewhere (a pipe, a script) the session echoes each command
// after the prompt so that the transcript reads as typed.
func inTerminal(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// trySession is the state of the prompt: who acts, in which language.
type trySession struct {
	srv    *fakediscord.Server
	out    io.Writer
	user   string
	locale discordgo.Locale
	echo   bool
	files  string // where the bot's files are saved
}

// prompt is the prompt's text: the acting user and the language.
func (s *trySession) prompt() string {
	who := "user" + s.user
	if s.user == tryMod {
		who = "mod"
	}
	lang := "en"
	if s.locale == discordgo.French {
		lang = "fr"
	}
	return who + " [" + lang + "]> "
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
		fmt.Fprint(s.out, s.prompt())
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			fmt.Fprintln(s.out)
			return
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
	switch strings.ToLower(word) {
	case "":
	case "quit", "exit", "q":
		return false
	case "help", "?", "h":
		fmt.Fprint(s.out, tryHelp)
	case "as":
		s.as(rest)
	case "lang":
		if l, ok := tryLocale(rest); ok {
			s.locale = l
		} else {
			fmt.Fprintln(s.out, "lang: want en or fr, e.g. lang fr")
		}
	case "auto":
		s.click(ctx, "auto", -1, rest)
	case "row":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > 3 {
			fmt.Fprintln(s.out, "row: want a row from 1 to 3, e.g. row 2")
			return true
		}
		s.click(ctx, "row", n-1, "")
	case "chest":
		s.click(ctx, "chest", -1, rest)
	case "again":
		s.click(ctx, "again", -1, rest)
	default:
		if strings.HasPrefix(line, "/") {
			s.slash(ctx, line[1:])
			return true
		}
		fmt.Fprintf(s.out, "unknown command %q: try /play, auto, row 2, /balance… or help for the list\n", word)
	}
	return true
}

// as switches the acting user.
func (s *trySession) as(who string) {
	switch id, ok := tryUser(who); {
	case !ok:
		fmt.Fprintln(s.out, "as: want a user, a number (as 43) or mod (a moderator)")
	default:
		s.user = id
	}
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
	if err != nil {
		fmt.Fprintln(s.out, discordRefusal(err))
		return
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	r, err := p.Wait(wctx)
	if err != nil {
		fmt.Fprintln(s.out, "the bot did not answer:", strings.TrimPrefix(err.Error(), "fakediscord: "))
		return
	}
	now := time.Now()
	if r.Message != nil {
		fmt.Fprint(s.out, renderMessage(r.Message, r.Ephemeral, now))
		s.save(r.Message)
	}
	for _, m := range r.FollowUps {
		fmt.Fprint(s.out, renderMessage(m, m.Flags&discordgo.MessageFlagsEphemeral != 0, now))
		s.save(m)
	}
}

// save writes the attachments of m into s.files, as a browser downloads
// them (a file of the same name is replaced: the newer export), and prints
// each one's path under its 📎 line. A failure is printed, not returned:
// the session goes on.
func (s *trySession) save(m *discordgo.Message) {
	for _, a := range m.Attachments {
		data, ok := s.srv.Attachment(a.ID)
		name := filepath.Base(a.Filename)
		switch {
		case !ok:
			fmt.Fprintf(s.out, "   (%s not saved: the fake Discord does not hold it)\n", a.Filename)
			continue
		case !filepath.IsLocal(name):
			fmt.Fprintf(s.out, "   (%q not saved: not a file name)\n", a.Filename)
			continue
		}
		path := filepath.Join(s.files, name)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintf(s.out, "   (not saved: %v)\n", err)
			continue
		}
		fmt.Fprintf(s.out, "   saved as %s\n", path)
	}
}

// discordRefusal says what Discord's client would have refused, in a line.
func discordRefusal(err error) string {
	msg := strings.ReplaceAll(err.Error(), "fakediscord: ", "")
	switch {
	case errors.Is(err, fakediscord.ErrForbidden):
		return "Discord refuses: " + msg + " (moderators only? try: as mod)"
	case errors.Is(err, fakediscord.ErrUnknownCommand):
		return "Discord refuses: " + msg + " (help lists the commands)"
	}
	return "Discord refuses: " + msg
}

// click presses the button of the given kind ("auto", "row", "chest",
// "again"; row for "row") on the newest message that has it enabled and
// that the acting user sees.
func (s *trySession) click(ctx context.Context, kind string, row int, extra string) {
	if extra != "" {
		fmt.Fprintf(s.out, "%s takes no argument (row takes one: row 2)\n", kind)
		return
	}
	msgs := s.srv.Messages(tryChannel)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Flags&discordgo.MessageFlagsEphemeral != 0 && (m.Interaction == nil || m.Interaction.User == nil || m.Interaction.User.ID != s.user) {
			continue // someone else's ephemeral message: not on this user's screen
		}
		for _, b := range fakediscord.Buttons(m) {
			if b.Disabled || !buttonIs(b.CustomID, kind, row) {
				continue
			}
			p, err := s.srv.Click(ctx, fakediscord.Click{
				Message: m.ID, CustomID: b.CustomID, User: s.user, Locale: s.locale, Perms: s.perms(),
			})
			s.show(ctx, p, err)
			return
		}
	}
	what := map[string]string{"auto": "an Auto button", "row": fmt.Sprintf("a Row %d button", row+1),
		"chest": `an "Open the chest" button`, "again": `a "Play again" button`}[kind]
	fmt.Fprintf(s.out, "no card with %s left to press: /play first\n", what)
}

// buttonIs reports whether a custom ID is a button of kind (and of row,
// for "row"). Custom IDs are "v1:<kind>:<owner>:…" (commands/customid.go;
// their wire format never changes, since buttons already posted carry it):
// a row button ends with its row, 0 to 2.
func buttonIs(customID, kind string, row int) bool {
	parts := strings.Split(customID, ":")
	if len(parts) < 2 || parts[1] != kind {
		return false
	}
	return kind != "row" || parts[len(parts)-1] == strconv.Itoa(row)
}

// slash runs a slash command typed as text after the "/": its name (or
// its French name), subcommands, then options (see tryHelp).
func (s *trySession) slash(ctx context.Context, text string) {
	sl, err := parseSlash(text, s.srv.Commands(tryGuild))
	if err != nil {
		fmt.Fprintln(s.out, err)
		return
	}
	sl.Guild, sl.Channel, sl.User, sl.Locale, sl.Perms = tryGuild, tryChannel, s.user, s.locale, s.perms()
	p, err := s.srv.Slash(ctx, sl)
	s.show(ctx, p, err)
}
