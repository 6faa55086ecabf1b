package e2e_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/config"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

const (
	token = "e2e-token.abc.def"
	guild = "900000000000000001"
	chan1 = "900000000000000002"
	alice = "100000000000000001"
	bob   = "100000000000000002"
	carol = "100000000000000003"
	mod   = "100000000000000009"
)

// harness runs the bot process (cli.Serve) against a fake Discord.
type harness struct {
	t    *testing.T
	srv  *fakediscord.Server
	cfg  config.Config
	draw *script
	fair bool // draw with the production, verifiable draws instead of draw
	now  func() time.Time
	// relay, if set, is where the fake posts interactions when the bot
	// serves its HTTP endpoint at addr (the default: addr itself).
	relay  func(addr string) string
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
	public chan string // the public listener's address, when PUBLIC_ADDR is set
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, env map[string]string) *harness {
	t.Helper()
	// An operator who configures the Activity has enabled the application's
	// Activities in the Developer Portal, unless env sets noActivities.
	return newHarnessOn(t, env, fakediscord.Options{Activities: env["DISCORD_CLIENT_SECRET"] != "" && env[noActivities] == ""})
}

// newHarnessOn is newHarness against a fake Discord made with opts (its
// token and guild filled in).
func newHarnessOn(t *testing.T, env map[string]string, opts fakediscord.Options) *harness {
	t.Helper()
	opts.Token, opts.Guilds = token, []string{guild}
	srv := fakediscord.New(opts)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	base := map[string]string{
		"DISCORD_TOKEN":    token,
		"DISCORD_API_BASE": srv.URL(),
		"DISCORD_GUILD_ID": guild,
		"LOG_LEVEL":        "warn",
		"SHUTDOWN_TIMEOUT": "5s",
		"DATA_PATH":        filepath.Join(t.TempDir(), "clefs.db"), // never the working directory's ./data
	}
	for k, v := range env {
		base[k] = v // "" unsets
	}
	cfg, err := config.Load(func(k string) string { return base[k] })
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, cfg: cfg, draw: newScript(), logs: &syncBuffer{}}
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("bot logs:\n%s", h.logs.String())
		}
	})
	return h
}

// start runs cli.Serve and waits until the bot is connected and registered.
func (h *harness) start() {
	h.t.Helper()
	var d game.Drawer = h.draw
	if h.fair {
		d = nil // game.SeededDrawer
	}
	h.serve(d)
}

// serve runs cli.Serve drawing with d and waits until it serves.
func (h *harness) serve(d game.Drawer) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	log := slog.New(slog.NewTextHandler(io.MultiWriter(h.logs), &slog.HandlerOptions{Level: h.cfg.LogLevel}))
	h.cancel, h.done, h.public = cancel, make(chan error, 1), make(chan string, 1)
	go func() {
		h.done <- cli.Serve(ctx, h.cfg, log, cli.Hooks{
			Drawer: d, Now: h.now,
			Started: func(addr string) {
				if addr != "" { // the HTTP endpoint: Discord (the fake) posts there
					url := "http://" + addr + "/interactions"
					if h.relay != nil {
						url = h.relay(addr)
					}
					h.srv.SetInteractionsURL(url)
				}
				close(started)
			},
			IdentifyInterval: 10 * time.Millisecond,
			Public:           func(addr string) { h.public <- addr },
		})
	}()
	select {
	case <-started:
	case err := <-h.done:
		h.done <- err
		h.t.Fatalf("cli.Serve: %v", err)
	case <-time.After(time.Minute): // the Activity's pictures take seconds to compress under the race detector
		h.t.Fatal("bot not started after a minute")
	}
}

// spawn runs another bot process (cli.Serve) on cfg, drawing with h's
// script, and waits until it serves. It returns the address of its HTTP
// endpoint ("" on the gateway) and of its public listener (when
// cfg.PublicAddr is set), and a function that stops it (at the test's end
// if not before) and checks that it ended cleanly.
func (h *harness) spawn(cfg config.Config) (addr, public string, stop func()) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started, pub, done := make(chan string, 1), make(chan string, 1), make(chan error, 1)
	go func() {
		done <- cli.Serve(ctx, cfg, slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelWarn})), cli.Hooks{
			Drawer: h.draw, Started: func(a string) { started <- a }, Public: func(a string) { pub <- a },
			IdentifyInterval: 10 * time.Millisecond,
		})
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("another bot process: %v", err)
		}
	})
	h.t.Cleanup(stop)
	wait := func(c chan string, what string) string {
		h.t.Helper()
		select {
		case a := <-c:
			return a
		case err := <-done:
			done <- err
			h.t.Fatalf("another bot process: %v", err)
		case <-time.After(time.Minute):
			h.t.Fatalf("another bot process: no %s after a minute", what)
		}
		return ""
	}
	addr = wait(started, "start")
	if cfg.PublicAddr != "" {
		public = wait(pub, "public listener")
	}
	return addr, public, stop
}

// stop cancels cli.Serve and checks it ended cleanly.
func (h *harness) stop() {
	h.t.Helper()
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	if err := <-h.done; err != nil {
		h.t.Errorf("cli.Serve returned %v", err)
	}
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	h.t.Cleanup(cancel)
	return ctx
}

// answered waits for the response and checks the deadline.
func (h *harness) answered(p *fakediscord.Pending, err error, what string) fakediscord.Response {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
	r, err := p.Wait(h.ctx())
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
	if r.Latency <= 0 || r.Latency >= 3*time.Second {
		h.t.Errorf("%s: callback after %v", what, r.Latency)
	}
	if r.Message == nil {
		h.t.Fatalf("%s: no message", what)
	}
	return r
}

// send sends a slash command, in chan1 of the guild unless sl says
// otherwise (Guild "-": a DM), and does not wait for its answer.
func (h *harness) send(sl fakediscord.Slash) *fakediscord.Pending {
	h.t.Helper()
	if sl.Channel == "" {
		sl.Channel = chan1
	}
	if sl.Guild == "-" {
		sl.Guild = ""
	} else if sl.Guild == "" {
		sl.Guild = guild
	}
	p, err := h.srv.Slash(h.ctx(), sl)
	if err != nil {
		h.t.Fatalf("/%s %s by %s: %v", sl.Name, sl.Sub, sl.User, err)
	}
	return p
}

// slash sends a slash command (send) and waits for its answer.
func (h *harness) slash(sl fakediscord.Slash) fakediscord.Response {
	h.t.Helper()
	return h.answered(h.send(sl), nil, "/"+sl.Name+" "+sl.Sub+" by "+sl.User)
}

func (h *harness) click(msg *discordgo.Message, prefix, user string) fakediscord.Response {
	h.t.Helper()
	id := button(h.t, msg, prefix)
	p, err := h.srv.Click(h.ctx(), fakediscord.Click{Message: msg.ID, CustomID: id, User: user})
	return h.answered(p, err, "click "+id+" by "+user)
}

// modSlash is a moderator's /admin subcommand.
func modSlash(sub string, locale discordgo.Locale, opts ...fakediscord.Opt) fakediscord.Slash {
	return fakediscord.Slash{User: mod, Name: "admin", Sub: sub, Perms: fakediscord.PermsModerator, Locale: locale, Options: opts}
}

func opt(name string, v any) fakediscord.Opt { return fakediscord.Opt{Name: name, Value: v} }

// refused checks an ephemeral refusal.
func (h *harness) refused(r fakediscord.Response, what string) {
	h.t.Helper()
	if !r.Ephemeral {
		h.t.Errorf("%s: refusal not ephemeral: %q", what, text(r.Message))
	}
	if strings.TrimSpace(text(r.Message)) == "" {
		h.t.Errorf("%s: empty refusal", what)
	}
}

// button returns the custom ID of the enabled button starting with prefix.
func button(tb testing.TB, m *discordgo.Message, prefix string) string {
	tb.Helper()
	if id := enabled(m, prefix); id != "" {
		return id
	}
	tb.Fatalf("no enabled button %q on message %s: %+v", prefix, m.ID, fakediscord.Buttons(m))
	return ""
}

func hasButton(m *discordgo.Message, prefix string) bool { return enabled(m, prefix) != "" }

// text is everything a message shows as text.
func text(m *discordgo.Message) string {
	var b strings.Builder
	b.WriteString(m.Content)
	for _, e := range m.Embeds {
		b.WriteString("\n" + e.Title + "\n" + e.Description)
		for _, f := range e.Fields {
			b.WriteString("\n" + f.Name + ": " + f.Value)
		}
		if e.Footer != nil {
			b.WriteString("\n" + e.Footer.Text)
		}
	}
	return b.String()
}

var amountRE = regexp.MustCompile(`(\d{1,3}(?:[,\s\x{202F}\x{00A0}]\d{3})*)[.,](\d{2})`)

// shownBalance reads the balance field of a card or /balance (English).
func shownBalance(tb testing.TB, m *discordgo.Message) int64 {
	tb.Helper()
	b := balanceOf(m)
	if b < 0 {
		tb.Fatalf("no Balance field with an amount in %q", textOf(m))
	}
	return b
}

// balanceOf reads the Balance field of a card, or -1 when the message
// shows none (a "thinking…" deferral, an apology).
func balanceOf(m *discordgo.Message) int64 {
	if m == nil {
		return -1
	}
	for _, e := range m.Embeds {
		for _, fd := range e.Fields {
			if fd.Name != "Balance" {
				continue
			}
			sm := amountRE.FindStringSubmatch(fd.Value)
			if sm == nil {
				return -1
			}
			var cents int64
			for _, r := range sm[1] + sm[2] {
				if r >= '0' && r <= '9' {
					cents = cents*10 + int64(r-'0')
				}
			}
			return cents
		}
	}
	return -1
}

func textOf(m *discordgo.Message) string {
	if m == nil {
		return "<none>"
	}
	return text(m)
}

// gridRows returns the three rows of the card's grid as shown (emoji text).
func gridRows(m *discordgo.Message) []string {
	if len(m.Embeds) == 0 {
		return nil
	}
	var rows []string
	for _, line := range strings.Split(m.Embeds[0].Description, "\n") {
		if strings.Count(line, " ") == 3 && len(rows) < 3 {
			rows = append(rows, line)
		}
	}
	return rows
}

func id(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// player reads a player from the store the bot used (stopped, for the file
// store). A player never written reads as a new one would start: the
// configured starting balance, nothing played.
func (h *harness) player(user string) game.Player {
	h.t.Helper()
	st := h.store()
	defer st.Close()
	v, err := st.Load(context.Background(), storage.PlayerID{Guild: id(guild), User: id(user)})
	if err != nil {
		h.t.Fatalf("player %s: %v", user, err)
	}
	if !v.Exists() {
		return game.Player{StartingBalance: h.cfg.StartingBalance, Balance: h.cfg.StartingBalance}
	}
	return v.Player
}

// reveals returns the seeds the store keeps as revealed by user, oldest
// first.
func (h *harness) reveals(user string) game.Reveals {
	h.t.Helper()
	st := h.store()
	defer st.Close()
	rs, err := st.Reveals(context.Background(), storage.PlayerID{Guild: id(guild), User: id(user)})
	if err != nil {
		h.t.Fatalf("reveals of %s: %v", user, err)
	}
	return rs
}

// store opens the bot's store, as the operator's tools do; the caller
// closes it.
func (h *harness) store() storage.Store {
	h.t.Helper()
	st, err := backend.Open(context.Background(), h.cfg.RedisURL, h.cfg.DataPath, storage.Options{
		Defaults: game.Settings{StartingBalance: h.cfg.StartingBalance, DailyAmount: h.cfg.DailyAmount,
			DailyCooldown: h.cfg.DailyCooldown, PublicPlays: h.cfg.PublicPlays},
	})
	if err != nil {
		h.t.Fatalf("open store: %v", err)
	}
	return st
}

func (h *harness) noFailures() {
	h.t.Helper()
	for _, f := range h.srv.Failures() {
		h.t.Errorf("fake Discord refused or timed out: %s", f)
	}
}

func TestBolt(t *testing.T) {
	t.Parallel()
	// Commands registered globally (no DISCORD_GUILD_ID).
	play(t, map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "data", "clefs.db"), "DISCORD_GUILD_ID": ""})
}

// httpEnv serves interactions over the HTTP endpoint instead of the gateway.
func httpEnv(env map[string]string) map[string]string {
	env["INTERACTIONS_ADDR"] = "127.0.0.1:0"
	env["DISCORD_PUBLIC_KEY"] = fakediscord.TestPublicKeyHex
	return env
}

// TestHTTP plays the whole scenario of TestBolt through the HTTP
// interactions endpoint: the same answers, on the other transport.
func TestHTTP(t *testing.T) {
	t.Parallel()
	play(t, httpEnv(map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db")}))
}

func TestRedis(t *testing.T) {
	t.Parallel()
	// Commands registered on the guild.
	play(t, map[string]string{"REDIS_URL": redistest.URL(t)})
}

// play is the scenario both stores run.
func play(t *testing.T, env map[string]string) {
	h := newHarness(t, env)
	h.start()
	cmds := h.srv.Commands(h.cfg.GuildID) // "" = global
	if len(cmds) == 0 {
		t.Fatalf("no commands registered (guild %q)", h.cfg.GuildID)
	}
	bal := int64(2000) // STARTING_BALANCE default, 20.00

	// /play, row by row: the draw is a win of 1.00 on row 0.
	h.draw.set(win(game.TierCandle))
	r := h.slash(fakediscord.Slash{User: alice, Name: "play"})
	if r.Ephemeral {
		t.Error("/play is ephemeral although PUBLIC_PLAYS=true")
	}
	bal -= game.Stake
	card := r.Message
	if got := shownBalance(t, card); got != bal {
		t.Errorf("card before the draw shows %d, want %d (stake paid)", got, bal)
	}
	for _, row := range []string{"1", "0", "2"} {
		r = h.click(card, "v1:row:"+alice+":1:"+row, alice)
		card = r.Message
	}
	bal += 100
	if got := shownBalance(t, card); got != bal {
		t.Errorf("card after a 1.00 win shows %d, want %d", got, bal)
	}
	if rows := gridRows(card); len(rows) != 3 || !strings.HasPrefix(rows[0], "⭐") {
		t.Errorf("winning row not marked on row 1: %q", rows)
	}
	if hasButton(card, "v1:row:") || hasButton(card, "v1:auto:") {
		t.Error("arrows still enabled after every row is shown")
	}

	// Play again three times with Auto; each loss gives a key; the third opens the chest.
	h.draw.set(loss(true))
	for i := 2; i <= 4; i++ {
		r = h.click(card, "v1:again:"+alice, alice)
		bal -= game.Stake
		card = r.Message
		r = h.click(card, "v1:auto:"+alice, alice)
		card = r.Message
		if got := shownBalance(t, card); got != bal {
			t.Errorf("ticket %d: card shows %d, want %d", i, got, bal)
		}
		if !strings.Contains(text(card), "key") {
			t.Errorf("ticket %d: no key shown: %q", i, text(card))
		}
	}
	if !hasButton(card, "v1:chest:") || hasButton(card, "v1:again:") {
		t.Fatalf("after the third key: want the chest button and no play-again: %+v\n%s", fakediscord.Buttons(card), text(card))
	}
	// A due chest comes before any new ticket.
	r = h.slash(fakediscord.Slash{User: alice, Name: "play"})
	if hasButton(r.Message, "v1:row:") {
		t.Error("/play sold a ticket while the chest is due")
	}
	h.draw.setChest(chestOf(game.LotSilver))
	r = h.click(card, "v1:chest:"+alice, alice)
	bal += 100
	if got := shownBalance(t, r.Message); got != bal {
		t.Errorf("after the chest: shows %d, want %d", got, bal)
	}
	if !strings.Contains(text(r.Message), "1.00") {
		t.Errorf("chest prize not shown: %q", text(r.Message))
	}

	// Someone else's click is refused, ephemerally, and changes nothing.
	h.draw.set(win(game.TierBarrel))
	r = h.slash(fakediscord.Slash{User: alice, Name: "play"})
	bal -= game.Stake
	card = r.Message
	h.refused(h.click(card, "v1:auto:"+alice, bob), "bob clicks alice's Auto")
	if m, _ := h.srv.Message(card.ID); text(m) != text(card) {
		t.Errorf("someone else's click changed the card:\n%s\n→\n%s", text(card), text(m))
	}

	// A double click: two Auto clicks at once are both answered and pay once
	// (a second draw would pay the 0.50 prize twice).
	auto := button(t, card, "v1:auto:"+alice)
	ps, err := h.srv.ClickBurst(h.ctx(), fakediscord.Click{Message: card.ID, CustomID: auto, User: alice}, 2)
	if err != nil {
		t.Fatalf("double click: %v", err)
	}
	for i, p := range ps {
		if r, err := p.Wait(h.ctx()); err != nil {
			t.Errorf("double click %d: %v", i, err)
		} else if r.Latency >= 3*time.Second {
			t.Errorf("double click %d answered after %v", i, r.Latency)
		}
	}
	h.draw.set(loss(false))
	bal += 50
	if m, ok := h.srv.Message(card.ID); !ok || shownBalance(t, m) != bal {
		t.Errorf("card after the double click: %q, want balance %d", text(m), bal)
	} else {
		card = m
	}

	// A member (no Manage Server) reaching /admin is refused by the bot itself.
	r = h.slash(fakediscord.Slash{User: bob, Name: "admin", Sub: "grant", Bypass: true,
		Options: []fakediscord.Opt{{Name: "user", Value: bob}, {Name: "amount", Value: "1000"}}})
	h.refused(r, "member's /admin grant")

	// Not enough credits: a moderator sets carol's balance to 0.30; her /play is refused.
	r = h.slash(modSlash("set-balance", "", opt("user", carol), opt("amount", "0.30")))
	if strings.Contains(text(r.Message), "Only moderators") {
		t.Fatalf("moderator refused: %q", text(r.Message))
	}
	h.refused(h.slash(fakediscord.Slash{User: carol, Name: "play"}), "carol's /play with 0.30")

	// A DM (a client that still shows the command there) is refused. Guild
	// commands do not exist in DMs at all.
	if h.cfg.GuildID == "" {
		h.refused(h.slash(fakediscord.Slash{Guild: "-", User: alice, Name: "play", Bypass: true}), "/play in a DM")
	} else if _, err := h.srv.Slash(h.ctx(), fakediscord.Slash{User: alice, Name: "play", Bypass: true}); !errors.Is(err, fakediscord.ErrUnknownCommand) {
		t.Errorf("guild command in a DM: %v", err)
	}

	// A French user gets French.
	r = h.slash(fakediscord.Slash{User: alice, Name: "balance", Locale: discordgo.French})
	if !strings.Contains(text(r.Message), "Solde") && !strings.Contains(text(r.Message), "solde") {
		t.Errorf("French /balance not in French: %q", text(r.Message))
	}

	// A new ticket left hidden, then the bot restarts: the old message's buttons still work.
	h.draw.set(win(game.TierSabre))
	r = h.click(card, "v1:again:"+alice, alice)
	bal -= game.Stake
	card = r.Message
	identifies := len(h.srv.Identifies())
	h.stop()
	h.start()
	if want := identifies + 1; h.cfg.InteractionsAddr != "" && len(h.srv.Identifies()) != 0 {
		t.Errorf("the HTTP endpoint opened a gateway: %d IDENTIFYs", len(h.srv.Identifies()))
	} else if h.cfg.InteractionsAddr == "" && len(h.srv.Identifies()) != want {
		t.Errorf("restart made %d IDENTIFYs, want 1", len(h.srv.Identifies())-identifies)
	}
	r = h.click(card, "v1:row:", alice)
	card = r.Message
	r = h.click(card, "v1:auto:", alice)
	bal += 500
	if got := shownBalance(t, r.Message); got != bal {
		t.Errorf("after the restart: card shows %d, want %d", got, bal)
	}
	r = h.slash(fakediscord.Slash{User: alice, Name: "balance"})
	if got := shownBalance(t, r.Message); got != bal {
		t.Errorf("/balance shows %d, want %d", got, bal)
	}

	h.stop()
	h.noFailures()

	// The store agrees with what was shown, and with its own invariant.
	p := h.player(alice)
	if p.Balance != bal {
		t.Errorf("stored balance %d, shown %d", p.Balance, bal)
	}
	s := p.Stats
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	if s.Plays != 6 || s.StakedCents != 6*game.Stake || s.Chests != 1 {
		t.Errorf("stats = %+v, want 6 plays, 1 chest", s)
	}
	if c := h.player(carol); c.Balance != 30 || c.Stats.Plays != 0 {
		t.Errorf("carol = balance %d, %d plays; want 30 and 0", c.Balance, c.Stats.Plays)
	}
	if b := h.player(bob); b.Balance != 2000 {
		t.Errorf("bob's balance %d after a refused grant, want 2000", b.Balance)
	}
}

// TestStopsEarly: the bot stops at once, with an error naming the cause,
// and connects to no gateway, when
//   - the store cannot be opened;
//   - Discord refuses the token: the error names DISCORD_TOKEN, and the
//     store is not opened (no store file created);
//   - DISCORD_API_BASE cannot be reached: the error names that base, not
//     https://discord.com, and the store is not opened.
func TestStopsEarly(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := "http://" + freeAddr(t) + "/proxy" // nothing listens there
	for _, tc := range []struct {
		name      string
		env       map[string]string
		want      []string
		noStore   bool // no store file created
		notWanted string
	}{
		{"bad store", map[string]string{"DATA_PATH": filepath.Join(blocker, "sub", "clefs.db")}, []string{"store"}, false, ""},
		{"wrong token", map[string]string{"DISCORD_TOKEN": "not-the-token"}, []string{"DISCORD_TOKEN", "401"}, true, ""},
		{"unreachable API", map[string]string{"DISCORD_API_BASE": base}, []string{base + "/api/"}, true, "discord.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.env)
			err := cli.Serve(context.Background(), h.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), cli.Hooks{})
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) || tc.notWanted != "" && strings.Contains(err.Error(), tc.notWanted) {
					t.Errorf("Serve = %v, want an error naming %q (and not %q)", err, w, tc.notWanted)
				}
			}
			if _, serr := os.Stat(h.cfg.DataPath); tc.noStore && !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("the store file exists although Serve stopped first (stat: %v)", serr)
			}
			if ids := h.srv.Identifies(); len(ids) != 0 {
				t.Errorf("opened the gateway: %v", ids)
			}
		})
	}
}

// TestOperationLogs: at LOG_LEVEL=debug every interaction is one line naming
// its transport (and shard), kind, guild, user, outcome and duration; a
// moderator action is one info line with its actor, target, amount and
// reason — on either transport.
func TestOperationLogs(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]map[string]string{
		"gateway": {"LOG_LEVEL": "debug"},
		"http":    httpEnv(map[string]string{"LOG_LEVEL": "debug"}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, env)
			h.start()
			h.slash(fakediscord.Slash{User: alice, Name: "play"})
			h.slash(modSlash("grant", "", opt("user", bob), opt("amount", "12.50"), opt("reason", "quiz winner")))
			h.stop()
			logs := h.logs.String()
			where := "transport=gateway shard=0"
			if name == "http" {
				where = "transport=http"
			}
			for _, re := range []string{
				`level=DEBUG msg=interaction ` + where + ` kind=play interaction=\d+ guild=` + guild + ` user=` + alice + ` outcome=ok duration=\S+`,
				`level=DEBUG msg=interaction ` + where + ` kind="admin grant" .* user=` + mod + ` outcome=ok`,
				`level=INFO msg="moderator action" ` + where + ` action=grant guild=` + guild + ` actor=` + mod + ` target=` + bob + ` amount_cents=1250 reason="quiz winner"`,
			} {
				if !regexp.MustCompile(re).MatchString(logs) {
					t.Errorf("no line matches %s in:\n%s", re, logs)
				}
			}
			if strings.Contains(logs, "source=discordgo") {
				t.Errorf("discordgo's own lines at LOG_LEVEL=debug without DISCORDGO_LOG_LEVEL:\n%s", logs)
			}
		})
	}
}
