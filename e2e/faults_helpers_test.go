package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// The routes the fault tests aim at.
const (
	routeCallback = "POST /interactions/{id}/{token}/callback"
	routeEdit     = "PATCH /webhooks/{app}/{token}/messages/@original"
)

// transportEnvs are the two transports a fault test runs on, each with a
// store of its own (the embedded one).
func transportEnvs(t *testing.T) map[string]map[string]string {
	return map[string]map[string]string{
		"gateway": {"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db")},
		"http":    httpEnv(map[string]string{"DATA_PATH": filepath.Join(t.TempDir(), "clefs.db")}),
	}
}

// withRedis adds the gateway with a Redis store to envs.
func withRedis(t *testing.T, envs map[string]map[string]string) map[string]map[string]string {
	envs["gateway-redis"] = map[string]string{"REDIS_URL": redistest.URL(t)}
	return envs
}

// slowDrawer is the test's script, drawing after a delay the test sets:
// a draw slower than the handlers' DeferAfter (2 s) makes the bot defer
// its answer and then edit it, which is how the fault tests reach the
// edit route on both transports.
type slowDrawer struct {
	*script
	delay atomic.Int64 // nanoseconds
}

func (d *slowDrawer) Ticket(s game.Seed, c string, n uint64, k int) (game.Outcome, error) {
	time.Sleep(time.Duration(d.delay.Load()))
	return d.script.Ticket(s, c, n, k)
}

func (d *slowDrawer) Chest(s game.Seed, c string, n int64) (game.Chest, error) {
	time.Sleep(time.Duration(d.delay.Load()))
	return d.script.Chest(s, c, n)
}

// slowDraw is longer than commands.DefaultDeferAfter (2 s), with a
// margin for a loaded machine: the answer is deferred, then edited.
const slowDraw = 2400 * time.Millisecond

// fx is a bot under faults and the books the test keeps of what each
// player should hold.
type fx struct {
	*harness
	slow   *slowDrawer
	mu     sync.Mutex
	want   map[string]int64 // the balance each player should hold
	plays  map[string]int64 // tickets bought
	chests map[string]int64
	keys   map[string]int // keys held
	daily  map[string]bool
	// fallbacks counts the results reached by /play or a click on the old
	// card rather than by the answer itself.
	fallbacks atomic.Int64
	// deferred, if set, is called once, when an answer is first seen
	// deferred (its edit not yet made): a fault set then hits the edit.
	deferred func()
}

// newFx starts the bot (cli.Serve) on env against a fake Discord made
// with opts (its token and guild filled in).
func newFx(t *testing.T, env map[string]string, opts fakediscord.Options) *fx {
	t.Helper()
	// No application emojis: their upload is CPU-heavy under -race with
	// several bots starting at once, and none of the faults concerns them.
	env["APP_EMOJIS"] = "false"
	h := newHarnessOn(t, env, opts)
	f := &fx{harness: h, slow: &slowDrawer{script: h.draw},
		want: map[string]int64{}, plays: map[string]int64{}, chests: map[string]int64{}, keys: map[string]int{}, daily: map[string]bool{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("faults injected: %v", h.srv.Faults())
		}
	})
	f.start()
	return f
}

// start runs cli.Serve with the slow drawer and waits until it serves.
func (f *fx) start() {
	f.t.Helper()
	f.harness.serve(f.slow)
}

func (f *fx) balance(user string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.want[user]; !ok {
		f.want[user] = f.cfg.StartingBalance
	}
	return f.want[user]
}

func (f *fx) add(user string, cents int64) {
	f.balance(user)
	f.mu.Lock()
	f.want[user] += cents
	f.mu.Unlock()
}

// inject adds fault rules, failing the test on a rule the fake refuses.
func (f *fx) inject(faults ...fakediscord.Fault) {
	f.t.Helper()
	for _, ft := range faults {
		if _, err := f.srv.InjectFault(ft); err != nil {
			f.t.Fatalf("inject %+v: %v", ft, err)
		}
	}
}

// settle waits until the interaction's message satisfies ok (the answer,
// possibly deferred then edited, possibly late) or until the bot is done
// trying (the callback refused or the deadline missed, the edit given
// up): it returns the last message seen and whether it satisfied ok.
func (f *fx) settle(p *fakediscord.Pending, ok func(*discordgo.Message) bool) (*discordgo.Message, bool) {
	deadline := time.Now().Add(25 * time.Second) // past the transport's bounded retries
	var last *discordgo.Message
	for time.Now().Before(deadline) {
		r, called := p.Snapshot()
		if called && (r.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource ||
			r.Type == discordgo.InteractionResponseDeferredMessageUpdate) && r.Edits == 0 && f.deferred != nil {
			f.deferred()
			f.deferred = nil
		}
		if called && r.Message != nil {
			last = r.Message
			if ok(r.Message) {
				return last, true
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := p.Wait(ctx)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return last, false // no callback: the interaction failed for its user
		}
		if f.answerGivenUp(p.ID()) {
			if r, called := p.Snapshot(); called && r.Message != nil && ok(r.Message) {
				return r.Message, true
			}
			return last, false
		}
	}
	return last, false
}

// answerGivenUp reports whether the bot has logged that it gave up
// answering interaction id (a callback, an edit or a follow-up failed
// for good).
func (f *fx) answerGivenUp(id string) bool {
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, "interaction="+id) &&
			(strings.Contains(line, "respond failed") || strings.Contains(line, "edit after deferral failed") ||
				strings.Contains(line, "follow-up failed") || strings.Contains(line, "late result")) {
			return true
		}
	}
	return false
}

// undelivered sends again, as a player would, an interaction the fake
// Discord could not deliver because the bot's gateway connection was down
// for a moment (a reconnection that discordgo runs twice closes the
// resumed connection again): the fake drops it, so nothing was created.
func undelivered(ctx context.Context, send func() (*fakediscord.Pending, error)) (*fakediscord.Pending, error) {
	for {
		p, err := send()
		if !errors.Is(err, fakediscord.ErrNoGateway) {
			return p, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (f *fx) send(sl fakediscord.Slash) *fakediscord.Pending {
	f.t.Helper()
	sl.Channel, sl.Guild = chan1, guild
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := undelivered(ctx, func() (*fakediscord.Pending, error) { return f.srv.Slash(ctx, sl) })
	if err != nil {
		f.t.Fatalf("/%s %s by %s: %v", sl.Name, sl.Sub, sl.User, err)
	}
	return p
}

func (f *fx) press(msg *discordgo.Message, prefix, user string) *fakediscord.Pending {
	f.t.Helper()
	cid := button(f.t, msg, prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := undelivered(ctx, func() (*fakediscord.Pending, error) {
		return f.srv.Click(ctx, fakediscord.Click{Message: msg.ID, CustomID: cid, User: user})
	})
	if err != nil {
		f.t.Fatalf("click %s by %s: %v", cid, user, err)
	}
	return p
}

func showsBalance(want int64) func(*discordgo.Message) bool {
	return func(m *discordgo.Message) bool { return balanceOf(m) == want }
}

// playCard runs /play for user and returns the card of a ticket: the
// answer, or, if it never came, the card a second /play hands back (the
// open ticket, not sold twice).
func (f *fx) playCard(user string) *discordgo.Message {
	f.t.Helper()
	f.mu.Lock()
	due := f.keys[user] >= game.MaxKeys
	f.mu.Unlock()
	if due {
		f.t.Fatalf("playCard with the chest due")
	}
	want := f.balance(user) - game.Stake
	f.add(user, -game.Stake)
	f.mu.Lock()
	f.plays[user]++
	f.mu.Unlock()
	ok := func(m *discordgo.Message) bool { return balanceOf(m) == want && hasButton(m, "v1:auto:") }
	m, reached := f.settle(f.send(fakediscord.Slash{User: user, Name: "play"}), ok)
	if reached {
		return m
	}
	f.fallbacks.Add(1)
	f.t.Logf("/play by %s not answered with the card (last %q): /play again", user, textOf(m))
	m, reached = f.settle(f.send(fakediscord.Slash{User: user, Name: "play"}), ok)
	if !reached {
		f.t.Fatalf("/play by %s: the open ticket's card (balance %d) never shown; last: %q", user, want, textOf(m))
	}
	return m
}

// reveal draws the ticket on card with o, by Auto or row by row, and
// returns the card showing the result: the answer, or, if it never came,
// the old card clicked again once the fault is over.
func (f *fx) reveal(card *discordgo.Message, user string, o game.Outcome, rows bool) *discordgo.Message {
	f.t.Helper()
	f.draw.set(o)
	want := f.balance(user) + o.Prize
	f.add(user, o.Prize)
	f.mu.Lock()
	if o.Key {
		f.keys[user]++
	}
	due := f.keys[user] >= game.MaxKeys
	f.mu.Unlock()
	done := func(m *discordgo.Message) bool {
		return balanceOf(m) == want && !hasButton(m, "v1:auto:") && !hasButton(m, "v1:row:") &&
			(hasButton(m, "v1:chest:") == due)
	}
	if m := f.current(card); done(m) {
		f.t.Logf("the result of %s's ticket is on the card already", user)
		return m // shown already (an edit that came through after all)
	}
	prefixes := []string{"v1:auto:" + user}
	if rows {
		prefixes = []string{"v1:row:" + user + ":", "v1:row:" + user + ":", "v1:row:" + user + ":"}
	}
	for i, prefix := range prefixes {
		ok := done
		if i < len(prefixes)-1 { // a row shown: the result is drawn at the first click
			hidden := rowsLeft(card)
			ok = func(m *discordgo.Message) bool { return done(m) || (balanceOf(m) == want && rowsLeft(m) < hidden) }
		}
		m, reached := f.settle(f.press(card, prefix, user), ok)
		if !reached {
			f.fallbacks.Add(1)
			f.t.Logf("click %s by %s not answered with the result (last %q): click the old card again", prefix, user, textOf(m))
			m, reached = f.settle(f.press(f.current(card), prefix, user), ok)
			if !reached {
				f.t.Fatalf("click %s by %s on the old card: result (balance %d) never shown; last %q", prefix, user, want, textOf(m))
			}
		}
		card = m
		if done(card) {
			break
		}
	}
	return card
}

// rowsLeft counts the enabled row buttons of a card.
func rowsLeft(m *discordgo.Message) int {
	n := 0
	for _, b := range fakediscord.Buttons(m) {
		if strings.HasPrefix(b.CustomID, "v1:row:") && !b.Disabled {
			n++
		}
	}
	return n
}

// current returns msg as the user sees it now.
func (f *fx) current(msg *discordgo.Message) *discordgo.Message {
	if m, ok := f.srv.Message(msg.ID); ok {
		return m
	}
	return msg
}

// openChest opens the due chest from card, with c.
func (f *fx) openChest(card *discordgo.Message, user string, c game.Chest) *discordgo.Message {
	f.t.Helper()
	f.draw.setChest(c)
	want := f.balance(user) + c.Prize
	f.add(user, c.Prize)
	f.mu.Lock()
	f.keys[user] = 0
	f.chests[user]++
	f.mu.Unlock()
	ok := func(m *discordgo.Message) bool { return balanceOf(m) == want && !hasButton(m, "v1:chest:") }
	m, reached := f.settle(f.press(card, "v1:chest:"+user, user), ok)
	if !reached {
		f.fallbacks.Add(1)
		f.t.Logf("chest of %s not answered (last %q): click the old card again", user, textOf(m))
		m, reached = f.settle(f.press(f.current(card), "v1:chest:"+user, user), ok)
		if !reached {
			f.t.Fatalf("chest of %s: result (balance %d) never shown; last %q", user, want, textOf(m))
		}
	}
	return m
}

// cycle plays one ticket for user with outcome o (Auto, or rows), then
// opens the chest if it became due.
func (f *fx) cycle(user string, o game.Outcome, rows bool) {
	f.t.Helper()
	card := f.playCard(user)
	card = f.reveal(card, user, o, rows)
	if hasButton(card, "v1:chest:") {
		f.openChest(card, user, chestOf(game.LotSilver))
	}
}

// dailyAndGrant claims user's /daily and has the moderator grant them
// 1.00; each answer must show the new balance, or /balance must, after.
func (f *fx) dailyAndGrant(user string) {
	f.t.Helper()
	f.mu.Lock()
	claimed := f.daily[user]
	f.daily[user] = true
	f.mu.Unlock()
	if !claimed {
		f.add(user, f.cfg.DailyAmount)
		f.settle(f.send(fakediscord.Slash{User: user, Name: "daily"}), func(m *discordgo.Message) bool {
			return strings.Contains(text(m), game.FormatCents(f.cfg.DailyAmount, game.English))
		})
	}
	f.add(user, 100)
	want := game.FormatCents(f.balance(user), game.English)
	m, reached := f.settle(f.send(modSlash("grant", "", opt("user", user), opt("amount", "1"))),
		func(m *discordgo.Message) bool { return strings.Contains(text(m), want) })
	if !reached {
		f.fallbacks.Add(1)
		f.t.Logf("grant to %s not answered with %s (last %q): /admin player", user, want, textOf(m))
	}
	f.expectBalance(user)
}

// expectBalance checks with /balance (no fault expected on it) that user
// holds what the books say.
func (f *fx) expectBalance(user string) {
	f.t.Helper()
	want := f.balance(user)
	m, reached := f.settle(f.send(fakediscord.Slash{User: user, Name: "balance"}), showsBalance(want))
	if !reached {
		f.t.Errorf("/balance of %s: want %d, shows %q", user, want, textOf(m))
	}
}

// slowCycle is cycle with a draw slower than the deferral: the answer is
// deferred, then edited.
func (f *fx) slowCycle(user string, o game.Outcome, rows bool) {
	f.t.Helper()
	f.slow.delay.Store(int64(slowDraw))
	defer f.slow.delay.Store(0)
	f.cycle(user, o, rows)
}

// sound ends a fault test: the books balance (books), the fake saw no
// mistake of the bot (noFailures), every rule injected hit (allHit), a
// fault of each of kinds happened (faulted), and fallbacks results were
// reached by a second try (on the old card or by /play).
func (f *fx) sound(fallbacks int64, kinds ...fakediscord.FaultKind) {
	f.t.Helper()
	f.books()
	f.noFailures(nil)
	f.allHit()
	f.faulted(kinds...)
	if n := f.fallbacks.Load(); n != fallbacks {
		f.t.Errorf("%d results reached by a second try, want %d", n, fallbacks)
	}
}

// soundBut ends a fault test whose deadline was too short for the bot
// (what) on one interaction: the books balance, the fake refused that
// interaction's calls with code and made no other refusal, and its result
// was reached by a second try.
func (f *fx) soundBut(code int, what string) {
	f.t.Helper()
	f.books()
	refused := map[string]bool{}
	for _, x := range f.srv.Failures() {
		if x.Code == code {
			refused[x.Interaction] = true
		}
	}
	if len(refused) != 1 {
		f.t.Errorf("%d interactions refused with %d, want %s only", len(refused), code, what)
	}
	f.noFailures(func(x fakediscord.Failure) bool { return refused[x.Interaction] })
	if n := f.fallbacks.Load(); n != 1 {
		f.t.Errorf("%d results reached by a second try, want 1 (%s)", n, what)
	}
}

// noFailures checks the fake saw no mistake of the bot, except those of
// the interactions in allowed (the test's own doing: a deadline it made
// too short for the bot).
func (f *fx) noFailures(allowed func(fakediscord.Failure) bool) {
	f.t.Helper()
	for _, x := range f.srv.Failures() {
		if allowed != nil && allowed(x) {
			continue
		}
		f.t.Errorf("fake Discord refused or timed out: %s", x)
	}
}

// faulted checks that the fake injected at least one fault of each kind.
func (f *fx) faulted(kinds ...fakediscord.FaultKind) {
	f.t.Helper()
	seen := map[fakediscord.FaultKind]int{}
	for _, x := range f.srv.Faults() {
		seen[x.Kind]++
	}
	for _, k := range kinds {
		if seen[k] == 0 {
			f.t.Errorf("no fault %q happened (faults: %v): the test proves nothing", k, f.srv.Faults())
		}
	}
}

// allHit checks that every fault rule injected has hit all its calls
// (none is left waiting), so that each fault the test meant did happen.
func (f *fx) allHit() {
	f.t.Helper()
	for _, r := range f.srv.FaultRules() {
		f.t.Errorf("fault rule %d never hit (%d left): %+v", r.ID, r.Left, r.Fault)
	}
}

// hit reports whether a fault of kind hit a call of method.
func (f *fx) hit(kind fakediscord.FaultKind, method string) bool {
	for _, x := range f.srv.Faults() {
		if x.Kind == kind && x.Method == method {
			return true
		}
	}
	return false
}

// noConsequence checks that no refusal followed the faults: the bot
// neither answered an interaction twice nor too late because of them.
func (f *fx) noConsequence() {
	f.t.Helper()
	for _, x := range f.srv.Faults() {
		if x.Kind == fakediscord.FaultConsequence {
			f.t.Errorf("refused after a fault: %s %s code %d: %s", x.Method, x.Path, x.Code, x.Detail)
		}
	}
}

// consequence reports whether the fake recorded a consequence with code.
func (f *fx) consequence(code int) bool {
	for _, x := range f.srv.Faults() {
		if x.Kind == fakediscord.FaultConsequence && x.Code == code {
			return true
		}
	}
	return false
}

// books stops the bot and checks the store against the test's books and
// its own invariants: the export (storage.ExportDump) has each player
// holding start − staked + won (+ daily and grants), the number of
// tickets and chests played, game.Player.Check and CheckReveals, each
// ticket number once and in order, the keys and chests chained along the
// history; and `clefs audit` reports no breach.
func (f *fx) books() {
	t := f.t
	t.Helper()
	f.stop()
	st := f.store()
	d, ok := st.(storage.Dumper)
	if !ok {
		st.Close()
		t.Fatalf("store %T cannot be exported", st)
	}
	dump, err := storage.ExportDump(context.Background(), d)
	st.Close()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	seen := map[uint64]bool{}
	for _, dp := range dump.Players {
		user := fmt.Sprint(dp.ID.User)
		seen[dp.ID.User] = true
		p := dp.Player
		if err := p.Check(); err != nil {
			t.Errorf("player %s: %v", user, err)
		}
		if err := p.CheckReveals(dp.Reveals); err != nil {
			t.Errorf("player %s reveals: %v", user, err)
		}
		f.mu.Lock()
		want, known := f.want[user]
		plays, chests := f.plays[user], f.chests[user]
		f.mu.Unlock()
		if !known {
			continue // the moderator: never played
		}
		if p.Balance != want {
			t.Errorf("player %s holds %d, the books say %d (start − staked + won + daily + grants)", user, p.Balance, want)
		}
		if p.Stats.Plays != plays || p.TicketSeq != uint64(plays) || p.Stats.StakedCents != plays*game.Stake {
			t.Errorf("player %s: %d plays (ticket seq %d, staked %d), the test bought %d", user, p.Stats.Plays, p.TicketSeq, p.Stats.StakedCents, plays)
		}
		if p.Stats.Chests != chests || p.ChestSeq != chests {
			t.Errorf("player %s: %d chests (seq %d), the test opened %d", user, p.Stats.Chests, p.ChestSeq, chests)
		}
		checkHistory(t, user, p, dp.History)
	}
	f.mu.Lock()
	for user := range f.want {
		if !seen[id(user)] {
			t.Errorf("player %s not in the export", user)
		}
	}
	f.mu.Unlock()

	args := []string{"audit", "-data", f.cfg.DataPath}
	if f.cfg.RedisURL != "" {
		args = []string{"audit", "-redis", f.cfg.RedisURL}
	}
	var out strings.Builder
	if err := cli.Main(context.Background(), args, &out, &out); err != nil || !strings.Contains(out.String(), " 0 breaches") {
		t.Errorf("clefs audit: %v\n%s", err, out.String())
	}
}

// checkHistory checks a player's history (complete: the tests stay under
// game.MaxHistory lines) against its state: each ticket drawn once, in
// order; the keys found and the chests opened chained; the amounts
// summing to the balance.
func checkHistory(t *testing.T, user string, p game.Player, hist []game.Entry) {
	t.Helper()
	if len(hist) >= game.MaxHistory {
		t.Fatalf("player %s: %d history lines, the check needs a complete history", user, len(hist))
	}
	var ticket uint64
	keys, due := 0, false
	sum := p.StartingBalance
	var chests int64
	for i, e := range hist {
		sum += e.Amount
		switch e.Kind {
		case game.KindPlay:
			ticket++
			if e.TicketID != ticket {
				t.Errorf("player %s line %d: ticket %d, want %d (each ticket once, in order)", user, i, e.TicketID, ticket)
				ticket = e.TicketID
			}
			if due {
				t.Errorf("player %s line %d: ticket %d drawn while the chest was due", user, i, e.TicketID)
			}
			if e.Key {
				keys++
				if keys == game.MaxKeys {
					keys, due = 0, true
				}
			}
		case game.KindChest:
			chests++
			if !due || e.Chest != chests {
				t.Errorf("player %s line %d: chest %d opened (due %v), want chest %d after the third key", user, i, e.Chest, due, chests)
			}
			due = false
		}
	}
	open := int64(0)
	if p.Ticket != nil && !p.Ticket.Drawn {
		open = game.Stake // staked at purchase, drawn (and written) later
		ticket++
	}
	if sum-open != p.Balance {
		t.Errorf("player %s: start %d + history %d − open stake %d = %d, holds %d", user, p.StartingBalance, sum-p.StartingBalance, open, sum-open, p.Balance)
	}
	if ticket != p.TicketSeq {
		t.Errorf("player %s: %d tickets in the history, ticket seq %d", user, ticket, p.TicketSeq)
	}
	if keys != p.Keys || due != p.ChestDue {
		t.Errorf("player %s: the history gives %d keys (chest due %v), the player holds %d (due %v)", user, keys, due, p.Keys, p.ChestDue)
	}
}
