package commands

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Late results (late.go): a step still running at its deadline, or failing
// on the store, goes on under its operation ID and its answer replaces the
// apology. The stalls are played by stallStore, a wrapper whose gate the
// test opens; the waits between tries move the test's clock (Config.Wait),
// so the token's 15 minutes pass without waiting for them.

// size returns how many continuations are reserved.
func (s *lateSet) size() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.ids) }

// stallMode is how stallStore's first Run behaves.
type stallMode int

const (
	// writeLate: the call waits for the gate, ignoring its context, then
	// writes and fails with the context's error — a Redis that applied a
	// command after the client gave up on it.
	writeLate stallMode = iota
	// ignoreDeadline: the call waits for the gate, ignoring its context,
	// then writes and succeeds — a store ignoring its deadline.
	ignoreDeadline
	// failFast: the call fails at once with errBackendDown, writing
	// nothing.
	failFast
)

// stallStore stalls the first player write (Run) per mode; later writes
// stall until their context ends, writing nothing, while stillDown is set
// (the store is still stalled for the retries), and pass through once it
// is not.
type stallStore struct {
	storage.Store
	mode stallMode
	gate chan struct{} // closed by the test: the stalled write may go on

	mu        sync.Mutex
	calls     int
	stillDown bool
	entered   chan struct{} // closed when the first Run starts
}

func newStallStore(inner storage.Store, mode stallMode) *stallStore {
	return &stallStore{Store: inner, mode: mode, gate: make(chan struct{}), entered: make(chan struct{})}
}

func (s *stallStore) setDown(down bool) {
	s.mu.Lock()
	s.stillDown = down
	s.mu.Unlock()
}

func (s *stallStore) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	s.mu.Lock()
	s.calls++
	first, down := s.calls == 1, s.stillDown
	s.mu.Unlock()
	switch {
	case first:
		close(s.entered)
		if s.mode == failFast {
			return storage.Applied{}, errBackendDown
		}
		<-s.gate
		a, err := s.Store.Run(context.Background(), step)
		if err != nil || s.mode == ignoreDeadline {
			return a, err
		}
		<-ctx.Done() // the client gave up long ago
		return storage.Applied{}, ctx.Err()
	case down:
		<-ctx.Done()
		return storage.Applied{}, ctx.Err()
	}
	return s.Store.Run(ctx, step)
}

// lateEnv is an App over a stallStore, with a short Timeout (the first
// try's deadline passes in real time) and waits that move the clock.
type lateEnv struct {
	*env
	st   *stallStore
	app  *App
	logs *syncBuffer
	// waits, when set, receives each wait's context before it returns:
	// a test holds the continuation there.
	hold  chan struct{}
	waits int
	mu    sync.Mutex
}

func newLateEnv(t *testing.T, mode stallMode, deferAfter time.Duration) *lateEnv {
	t.Helper()
	e := newEnv(t)
	le := &lateEnv{env: e, st: newStallStore(e.store, mode), logs: &syncBuffer{}}
	cfg := e.cfg
	cfg.Timeout = 100 * time.Millisecond
	cfg.DeferAfter = deferAfter
	cfg.Logger = slog.New(slog.NewTextHandler(le.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Wait = func(ctx context.Context, d time.Duration) error {
		le.mu.Lock()
		le.waits++
		hold := le.hold
		le.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		e.clock.Add(d)
		return ctx.Err()
	}
	le.app = New(cfg, le.st)
	return le
}

// run handles i on a goroutine and returns its recorder and a channel
// closed when Handle has returned.
func (le *lateEnv) run(ctx context.Context, i *discordgo.Interaction) (*recorder, chan struct{}) {
	rec := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		le.app.Handle(ctx, rec, i)
	}()
	return rec, done
}

// settle waits for Handle and every continuation to end.
func (le *lateEnv) settle(done chan struct{}) {
	<-done
	le.app.Wait()
}

// first returns the first answer the user saw: the initial message, or
// after a deferral the edit or the follow-up that followed it.
func first(t *testing.T, rec *recorder) string {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.responses) != 1 {
		t.Fatalf("%d callbacks, want 1", len(rec.responses))
	}
	r := rec.responses[0]
	switch {
	case r.Type == discordgo.InteractionResponseChannelMessageWithSource:
		return r.Data.Content
	case len(rec.followups) > 0:
		return rec.followups[0].Content
	case len(rec.edits) > 0:
		return *rec.edits[0].Content
	}
	t.Fatalf("no answer after the deferral: %+v", r)
	return ""
}

// waitFor polls cond (under rec's lock) until it holds; the test's own
// deadline ends a hang.
func waitFor(rec *recorder, cond func() bool) {
	for {
		rec.mu.Lock()
		ok := cond()
		rec.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// editText is the text an edit shows.
func editText(e *discordgo.WebhookEdit) string {
	d := &discordgo.InteractionResponseData{}
	if e.Content != nil {
		d.Content = *e.Content
	}
	if e.Embeds != nil {
		d.Embeds = *e.Embeds
	}
	return dataText(d)
}

func grantOpts() []opt {
	return []opt{{"user", optUser, "1000000000000000002"}, {"amount", optString, "1.00"}}
}

// TestLateGrantIsMadeOnceAndTold is the scenario: a moderator's
// grant whose store call passes its deadline while the write still
// happens. The moderator is first told the answer will come (naming
// /admin player, not the audit log), then the apology is replaced with the
// true "granted"; the grant is made once, and the same interaction sent
// again changes nothing.
func TestLateGrantIsMadeOnceAndTold(t *testing.T) {
	for name, mode := range map[string]stallMode{"deadline error, write lands": writeLate, "store ignores its deadline": ignoreDeadline} {
		t.Run(name, func(t *testing.T) {
			le := newLateEnv(t, mode, DefaultDeferAfter)
			i := le.slashPayload(moderator, modPermsSet, "en-US", "admin", "grant", grantOpts()...)
			rec, done := le.run(context.Background(), i)
			waitFor(rec, func() bool { return len(rec.responses) > 0 })
			apologyText := first(t, rec)
			if !strings.Contains(apologyText, "/admin player") || strings.Contains(apologyText, "audit") ||
				!strings.Contains(apologyText, "update this message") {
				t.Errorf("apology %q: want /admin player and an update promised, no audit log", apologyText)
			}
			if le.exists(bob) {
				t.Fatal("the grant is written before the store answers")
			}
			close(le.st.gate) // Redis answers
			le.settle(done)

			if p := le.player(bob); p.Balance != startCents+100 {
				t.Fatalf("bob's balance %d, want %d: one grant of 1.00", p.Balance, startCents+100)
			}
			if n := le.store.writeCount(); n != 1 {
				t.Errorf("%d player writes, want 1", n)
			}
			rec.mu.Lock()
			if len(rec.edits) != 1 {
				t.Fatalf("%d edits, want the apology replaced once: %+v", len(rec.edits), rec.edits)
			}
			got := editText(rec.edits[0])
			rec.mu.Unlock()
			if !strings.Contains(got, "received 1.00") || !strings.Contains(got, "21.00") {
				t.Errorf("edit %q, want the grant and the new balance", got)
			}
			if !strings.Contains(le.logs.String(), "late result delivered") {
				t.Errorf("no log line of the late result:\n%s", le.logs.String())
			}
			if n := le.app.late.size(); n != 0 {
				t.Errorf("%d continuations left", n)
			}

			// The client sends the same interaction again: the recorded result.
			again := le.env.handle(i) // not through le.app: a plain store
			if !strings.Contains(again.text(), "received 1.00") || !strings.Contains(again.text(), "21.00") {
				t.Errorf("the repeat answers %q", again.text())
			}
			h2 := &recorder{}
			le.app.Handle(context.Background(), h2, i)
			le.app.Wait()
			if p := le.player(bob); p.Balance != startCents+100 || le.store.writeCount() != 1 {
				t.Errorf("after the repeats: balance %d, %d writes", p.Balance, le.store.writeCount())
			}
			es, err := le.store.Audit(context.Background(), testGuild, 10)
			if err != nil || len(es) != 1 {
				t.Errorf("audit %v %v, want one grant", es, err)
			}
		})
	}
}

// TestLateStepGivesUpAtTokenEnd: a store stalled past the token's life
// (every try times out) ends the tries before the token does, with one
// warning and the apology replaced by "still unknown, see /admin player";
// the write that landed is the only one.
func TestLateStepGivesUpAtTokenEnd(t *testing.T) {
	le := newLateEnv(t, writeLate, DefaultDeferAfter)
	cfg := le.app.cfg
	cfg.Timeout = 20 * time.Millisecond // each try stalls until its deadline
	le.app = New(cfg, le.st)
	le.st.setDown(true)
	start := le.clock.Now()
	rec, done := le.run(context.Background(), le.slashPayload(moderator, modPermsSet, "fr", "admin", "grant", grantOpts()...))
	waitFor(rec, func() bool { return len(rec.responses) > 0 })
	if a := first(t, rec); !strings.Contains(a, "/admin joueur") || strings.Contains(a, "journal") {
		t.Errorf("French apology %q: want /admin joueur, not the audit log", a)
	}
	close(le.st.gate)
	le.settle(done)

	if p := le.player(bob); p.Balance != startCents+100 || le.store.writeCount() != 1 {
		t.Fatalf("balance %d after %d writes, want one grant", p.Balance, le.store.writeCount())
	}
	if testing.Verbose() {
		t.Log(le.logs.String())
	}
	if n := strings.Count(le.logs.String(), "late step given up"); n != 1 {
		t.Errorf("%d give-up lines, want 1:\n%s", n, le.logs.String())
	}
	if d := le.clock.Now().Sub(start); d > tokenLife {
		t.Errorf("tried until %v after the interaction, past the token's %v", d, tokenLife)
	}
	le.mu.Lock()
	waits := le.waits
	le.mu.Unlock()
	if waits < 5 {
		t.Errorf("gave up after %d waits: the backoff is not bounded", waits)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 1 || !strings.Contains(editText(rec.edits[0]), "/admin joueur") ||
		!strings.Contains(editText(rec.edits[0]), "pas pu confirmer") {
		t.Fatalf("edits %d, last %q: want the give-up message", len(rec.edits), editText(rec.edits[len(rec.edits)-1]))
	}
}

// TestLateDailyIsPaidOnce: /daily under the same stall pays once, and the
// player's apology is replaced with the bonus.
func TestLateDailyIsPaidOnce(t *testing.T) {
	le := newLateEnv(t, writeLate, DefaultDeferAfter)
	rec, done := le.run(context.Background(), le.slashPayload(alice, memberPerms, "en-US", "daily", ""))
	waitFor(rec, func() bool { return len(rec.responses) > 0 })
	if a := first(t, rec); !strings.Contains(a, "update this message") || !strings.Contains(a, "twice") {
		t.Errorf("player apology %q", a)
	}
	close(le.st.gate)
	le.settle(done)
	if p := le.player(alice); p.Balance != startCents+500 {
		t.Fatalf("balance %d, want one bonus of 5.00", p.Balance)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 1 || !strings.Contains(editText(rec.edits[0]), "You received **5.00 credits**. Balance: **25.00") {
		t.Fatalf("edits %d: %q, want the bonus", len(rec.edits), editText(rec.edits[0]))
	}
}

// TestLateUserErrorIsTheAnswer: a step that failed on the store and is
// refused on its retry (not enough credits) gets the refusal in place of
// the apology, and nothing is charged.
func TestLateUserErrorIsTheAnswer(t *testing.T) {
	le := newLateEnv(t, failFast, DefaultDeferAfter)
	le.setBalance(alice, 30)
	rec, done := le.run(context.Background(), le.slashPayload(alice, memberPerms, "en-US", "play", ""))
	le.settle(done)
	if a := first(t, rec); !strings.Contains(a, "update this message") {
		t.Errorf("apology %q", a)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 1 || !strings.HasPrefix(*rec.edits[0].Content, "❌") || !strings.Contains(*rec.edits[0].Content, "Not enough credits") {
		t.Fatalf("edits %+v: want the refusal", rec.edits)
	}
	if p := le.player(alice); p.Balance != 30 || p.Stats.Plays != 0 {
		t.Errorf("balance %d, %d plays", p.Balance, p.Stats.Plays)
	}
}

// TestLateClick: a reveal whose write lands after the deadline draws once;
// its card replaces the apology. Answered before any deferral, the apology
// is a new message (the original response), which becomes the card; after
// a deferral the original response is the card itself, which is edited,
// the apology being a follow-up.
func TestLateClick(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		t.Run(map[bool]string{false: "apology first", true: "after a deferral"}[deferred], func(t *testing.T) {
			deferAfter := DefaultDeferAfter
			if deferred {
				deferAfter = time.Millisecond
			}
			le := newLateEnv(t, writeLate, deferAfter)
			e := le.env
			card := e.slash(alice, "en-US", "play") // through e.app: the store as it is
			row := card.mustButton("v1:row:").CustomID
			rec, done := le.run(context.Background(), e.clickPayload(alice, memberPerms, "en-US", card.message(), row))
			if deferred {
				waitFor(rec, func() bool { return len(rec.followups) > 0 })
			} else {
				waitFor(rec, func() bool { return len(rec.responses) > 0 })
			}
			if a := first(t, rec); !strings.Contains(a, "update this message") {
				t.Errorf("apology %q", a)
			}
			close(le.st.gate)
			le.settle(done)
			if n, _ := e.drawer.draws(); n != 1 {
				t.Errorf("%d draws, want 1", n)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			r := rec.responses[0]
			switch {
			case deferred && r.Type != discordgo.InteractionResponseDeferredMessageUpdate,
				!deferred && (r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0):
				t.Fatalf("callback %+v", r)
			}
			if len(rec.edits) != 1 || rec.edits[0].Components == nil || len(*rec.edits[0].Components) == 0 ||
				rec.edits[0].Embeds == nil || len(*rec.edits[0].Embeds) == 0 {
				t.Fatalf("edits %+v: want the card", rec.edits)
			}
			if len(rec.followups) != map[bool]int{false: 0, true: 1}[deferred] {
				t.Errorf("%d follow-ups", len(rec.followups))
			}
		})
	}
}

// TestOneContinuationPerInteraction: the same interaction delivered again
// while its step goes on gets the plain apology and starts nothing more;
// the continuation alone answers, once.
func TestOneContinuationPerInteraction(t *testing.T) {
	le := newLateEnv(t, failFast, DefaultDeferAfter)
	le.hold = make(chan struct{})
	le.st.setDown(true)
	i := le.slashPayload(moderator, modPermsSet, "en-US", "admin", "grant", grantOpts()...)
	rec1, done1 := le.run(context.Background(), i)
	<-done1 // the continuation is held in its first wait
	rec2, done2 := le.run(context.Background(), i)
	<-done2
	// Between tries the moderator's lock is free: their next command is
	// answered at once.
	bal, done := le.run(context.Background(), le.slashPayload(moderator, modPermsSet, "en-US", "balance", ""))
	<-done
	if a := first(t, bal); strings.Contains(a, "Sorry") {
		t.Errorf("/balance during the continuation: %q", a)
	}
	if a := first(t, rec2); strings.Contains(a, "update this message") || !strings.Contains(a, "/admin player") {
		t.Errorf("second delivery's apology %q: want the plain one", a)
	}
	if n := le.app.late.size(); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	le.st.setDown(false)
	close(le.hold)
	le.app.Wait()
	if p := le.player(bob); p.Balance != startCents+100 || le.store.writeCount() != 1 {
		t.Fatalf("balance %d after %d writes", p.Balance, le.store.writeCount())
	}
	rec1.mu.Lock()
	defer rec1.mu.Unlock()
	rec2.mu.Lock()
	defer rec2.mu.Unlock()
	if len(rec1.edits) != 1 || !strings.Contains(editText(rec1.edits[0]), "received 1.00") || len(rec2.edits) != 0 {
		t.Fatalf("edits %d and %d", len(rec1.edits), len(rec2.edits))
	}
}

// TestLateStepEndsWithTheProcess: when Handle's context ends (shutdown),
// the continuation stops at once, with one line saying where the outcome
// shows, and edits nothing.
func TestLateStepEndsWithTheProcess(t *testing.T) {
	le := newLateEnv(t, failFast, DefaultDeferAfter)
	le.hold = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	rec, done := le.run(ctx, le.slashPayload(alice, memberPerms, "en-US", "daily", ""))
	<-done
	cancel()
	le.app.Wait()
	if !strings.Contains(le.logs.String(), "late step abandoned at shutdown") {
		t.Errorf("no shutdown line:\n%s", le.logs.String())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 0 || le.app.late.size() != 0 {
		t.Errorf("%d edits, %d continuations", len(rec.edits), le.app.late.size())
	}
}

// TestPlainApologyWhenShuttingDown: a step failing while Handle's context
// has ended does not promise an update.
func TestPlainApologyWhenShuttingDown(t *testing.T) {
	le := newLateEnv(t, failFast, DefaultDeferAfter)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec, done := le.run(ctx, le.slashPayload(alice, memberPerms, "en-US", "daily", ""))
	le.settle(done)
	if a := first(t, rec); strings.Contains(a, "update this message") {
		t.Errorf("apology %q promises an update during a shutdown", a)
	}
}

func TestTokenExpiry(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	snow := func(at time.Time) string {
		ms := at.UnixMilli() - 1420070400000
		return strconv.FormatUint(uint64(ms)<<22, 10)
	}
	for _, c := range []struct {
		id   string
		want time.Time
	}{
		{snow(now.Add(-time.Minute)), now.Add(-time.Minute).Add(tokenLife)}, // from its creation
		{snow(now.Add(time.Minute)), now.Add(tokenLife)},                    // a clock behind Discord's
		{snow(now.Add(-time.Hour)), now.Add(tokenLife)},                     // not plausible
		{"not a snowflake", now.Add(tokenLife)},
	} {
		if got := tokenExpiry(c.id, now); !got.Equal(c.want) {
			t.Errorf("tokenExpiry(%s) = %v, want %v", c.id, got, c.want)
		}
	}
}

// TestLateMessagesAreHonest: a player's apology says a retry is safe; a
// moderator's, late or not, sends to /admin player, not the audit log.
func TestLateMessagesAreHonest(t *testing.T) {
	c := testCatalog(t)
	for _, l := range []*lang{c.en, c.fr} {
		if s := l.T(apology("play"), nil); !strings.Contains(s, "twice") && !strings.Contains(s, "deux fois") {
			t.Errorf("player apology %q does not say a retry is safe", s)
		}
		for _, kind := range []string{"admin grant", "admin set-balance", "admin reset"} {
			for _, id := range []string{apology(kind), lateApology(kind), lateGaveUp(kind)} {
				s := l.T(id, nil)
				if !strings.Contains(s, "/admin player") && !strings.Contains(s, "/admin joueur") {
					t.Errorf("fr=%v %s: %q does not name /admin player", l.fr, id, s)
				}
				if strings.Contains(s, "audit") || strings.Contains(s, "journal") {
					t.Errorf("fr=%v %s: %q sends to the audit log instead of the player's history", l.fr, id, s)
				}
			}
		}
		for _, id := range []string{lateApology("play"), lateApology("admin grant")} {
			if s := l.T(id, nil); !strings.Contains(s, "update this message") && !strings.Contains(s, "mettrai ce message à jour") {
				t.Errorf("fr=%v %s: %q does not say the message will be updated", l.fr, id, s)
			}
		}
	}
}

// TestLateReservationFreedOnPanic: a Responder that panics while sending
// the apology leaves no continuation reserved nor running.
func TestLateReservationFreedOnPanic(t *testing.T) {
	le := newLateEnv(t, failFast, DefaultDeferAfter)
	var p panicky
	handleRecovered(context.Background(), le.app, &p, le.slashPayload(alice, memberPerms, "en-US", "daily", ""))
	le.app.Wait()
	if n := le.app.late.size(); n != 0 {
		t.Fatalf("%d continuations reserved after a panic", n)
	}
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("%d calls to the Responder, want the apology alone", n)
	}
}
