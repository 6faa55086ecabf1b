package commands

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// gatedStore holds every Run and Reveals of the real store until the gate
// opens, as a stalled backend would; the test opens it once the deferral
// is sent.
type gatedStore struct {
	storage.Store
	gate chan struct{}
}

func (s gatedStore) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	<-s.gate
	return s.Store.Run(ctx, step)
}

func (s gatedStore) Reveals(ctx context.Context, id storage.PlayerID) (game.Reveals, error) {
	<-s.gate
	return s.Store.Reveals(ctx, id)
}

// failingStore fails (or panics in) every Run.
type failingStore struct {
	storage.Store
	panic bool
}

var errBackendDown = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (s failingStore) Run(context.Context, storage.Step) (storage.Applied, error) {
	if s.panic {
		panic("store exploded")
	}
	return storage.Applied{}, errBackendDown
}

func TestSlowStoreIsDeferred(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.DeferAfter = 20 * time.Millisecond
	var st gatedStore
	a := New(cfg, &st)
	// gated returns a recorder whose first callback opens a fresh gate.
	gated := func() *recorder {
		st = gatedStore{Store: e.store, gate: make(chan struct{})}
		gate := st.gate
		return &recorder{onRespond: func() { close(gate) }}
	}

	// A command: "thinking" (type 5), then the card by editing the original.
	rec := gated()
	a.Handle(context.Background(), rec, e.slashPayload(alice, memberPerms, "en-US", "play", ""))
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("responses %+v, want one deferred response", rec.responses)
	}
	if rec.responses[0].Data == nil || rec.responses[0].Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Error("/play's deferral should be ephemeral (the safe choice before settings are read)")
	}
	if len(rec.edits) != 1 || rec.edits[0].Embeds == nil || len(*rec.edits[0].Embeds) != 1 || rec.edits[0].Components == nil {
		t.Fatalf("edits %+v, want the card", rec.edits)
	}
	p := e.player(alice)

	// A button: deferred update (type 6), then the edit.
	rec = gated()
	a.Handle(context.Background(), rec, e.clickOnCard(alice, autoID(alice, p.Ticket.ID)))
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("button responses %+v, want one deferred update", rec.responses)
	}
	if len(rec.edits) != 1 || !strings.Contains((*rec.edits[0].Embeds)[0].Description, e.app.glyphs().sym[e.player(alice).Ticket.Outcome.Grid[0]]) {
		t.Fatalf("button edit %+v", rec.edits)
	}

	// A user error after a button's deferral is an ephemeral follow-up, not an
	// edit of the card.
	rec = gated()
	a.Handle(context.Background(), rec, e.clickOnCard(alice, autoID(alice, 999)))
	if len(rec.followups) != 1 || rec.followups[0].Flags&discordgo.MessageFlagsEphemeral == 0 || len(rec.edits) != 0 {
		t.Fatalf("stale click after deferral: follow-ups %+v edits %+v", rec.followups, rec.edits)
	}
}

// stuckStore never returns from Run until released: a backend that ignores
// its context.
type stuckStore struct {
	storage.Store
	release chan struct{}
}

func (s stuckStore) Run(context.Context, storage.Step) (storage.Applied, error) {
	<-s.release
	return storage.Applied{}, errBackendDown
}

// deferredApp is an App over st that defers after 10 ms and times out at
// 400 ms: the deferral must fire before the Timeout even on a loaded
// machine, whose timers may run tens of milliseconds late.
func (e *env) deferredApp(st storage.Store) *App {
	cfg := e.cfg
	cfg.DeferAfter, cfg.Timeout = 10*time.Millisecond, 400*time.Millisecond
	return New(cfg, st)
}

// TestStoreIgnoringItsDeadline: the handler runs on Handle's goroutine, so
// Handle returns when the stuck store does; but the interaction is deferred
// after DeferAfter and answered with an apology at Timeout, while the store
// is still stuck, and the handler's late result is dropped.
func TestStoreIgnoringItsDeadline(t *testing.T) {
	e := newEnv(t)
	st := stuckStore{Store: e.store, release: make(chan struct{})}
	a := e.deferredApp(st)
	rec := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Handle(context.Background(), rec, e.slashPayloadLocked(alice, "play"))
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec.mu.Lock()
		n := len(rec.edits)
		rec.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			close(st.release)
			t.Fatal("no answer while the store ignores its deadline")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("Handle returned while its store call is still running")
	default:
	}
	close(st.release)
	<-done
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredChannelMessageWithSource ||
		len(rec.edits) != 1 || !strings.Contains(*rec.edits[0].Content, "Sorry") || len(rec.followups) != 0 {
		t.Fatalf("responses %+v edits %+v follow-ups %+v", rec.responses, rec.edits, rec.followups)
	}
	if n := e.obs.interactions["play internal_error"]; n != 1 || len(e.obs.interactions) != 1 {
		t.Fatalf("observed %v, want one internal error", e.obs.interactions)
	}
}

// TestTimeoutBeforeDeferral: with a Timeout shorter than DeferAfter, a
// stuck store gets the apology as the initial response.
func TestTimeoutBeforeDeferral(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.Timeout = 20 * time.Millisecond
	st := stuckStore{Store: e.store, release: make(chan struct{})}
	a := New(cfg, st)
	rec := &recorder{onRespond: func() { close(st.release) }}
	a.Handle(context.Background(), rec, e.slashPayloadLocked(alice, "play"))
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseChannelMessageWithSource ||
		!strings.Contains(rec.responses[0].Data.Content, "Sorry") || len(rec.edits) != 0 {
		t.Fatalf("responses %+v edits %+v", rec.responses, rec.edits)
	}
}

func TestInternalErrorIsLoggedAndApologised(t *testing.T) {
	for _, panics := range []bool{false, true} {
		e := newEnv(t)
		var logs syncBuffer
		cfg := e.cfg
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		obs := &observer{}
		cfg.Observer = obs
		a := New(cfg, failingStore{Store: e.store, panic: panics})
		rec := &recorder{}
		a.Handle(context.Background(), rec, e.slashPayload(alice, memberPerms, "fr", "play", ""))
		if len(rec.responses) != 1 {
			t.Fatalf("panic=%v: %d responses", panics, len(rec.responses))
		}
		d := rec.responses[0].Data
		if d.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(d.Content, "Désolé") {
			t.Fatalf("panic=%v: reply %q", panics, d.Content)
		}
		if strings.Contains(d.Content, "6379") || strings.Contains(d.Content, "nil map") {
			t.Fatalf("internal details leaked to the user: %q", d.Content)
		}
		l := logs.String()
		for _, want := range []string{"guild=1100000000000000000", "user=1000000000000000001", "command=play"} {
			if !strings.Contains(l, want) {
				t.Errorf("panic=%v: log lacks %q:\n%s", panics, want, l)
			}
		}
		if !panics && (len(obs.storeErrors) != 1 || obs.storeErrors[0] != "buy") {
			t.Errorf("store errors %v", obs.storeErrors)
		}
		if obs.interactions["play internal_error"] != 1 {
			t.Errorf("observer: %v", obs.interactions)
		}
	}
}

func TestPingAndAutocomplete(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	e.app.Handle(context.Background(), rec, &discordgo.Interaction{Type: discordgo.InteractionPing})
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponsePong {
		t.Fatalf("ping: %+v", rec.responses)
	}
	rec = &recorder{}
	e.app.Handle(context.Background(), rec, &discordgo.Interaction{Type: discordgo.InteractionApplicationCommandAutocomplete})
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionApplicationCommandAutocompleteResult {
		t.Fatalf("autocomplete: %+v", rec.responses)
	}
	e.app.Handle(context.Background(), rec, nil) // must not panic
}

// TestGarbageInteractions sends malformed interactions built in memory
// (shapes the JSON decoder would never produce) and checks that each gets one
// ephemeral refusal and changes nothing.
func TestGarbageInteractions(t *testing.T) {
	e := newEnv(t)
	mem := &discordgo.Member{User: &discordgo.User{ID: "1000000000000000001"}}
	cases := map[string]*discordgo.Interaction{
		"no data":            {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000", Member: mem},
		"nil data pointer":   {Type: discordgo.InteractionApplicationCommand, Data: (*discordgo.ApplicationCommandInteractionData)(nil)},
		"wrong data type":    {Type: discordgo.InteractionApplicationCommand, Data: discordgo.MessageComponentInteractionData{CustomID: "x"}},
		"component no data":  {Type: discordgo.InteractionMessageComponent, GuildID: "1100000000000000000", Member: mem},
		"component cmd data": {Type: discordgo.InteractionMessageComponent, Data: discordgo.ApplicationCommandInteractionData{Name: "play"}},
		"modal":              {Type: discordgo.InteractionModalSubmit, Data: discordgo.ModalSubmitInteractionData{CustomID: "v1:auto:1:1"}},
		"type 99":            {Type: 99},
		"member no user": {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000",
			Member: &discordgo.Member{}, Data: discordgo.ApplicationCommandInteractionData{Name: "play"}},
		"bad guild id": {Type: discordgo.InteractionApplicationCommand, GuildID: "guild", Member: mem,
			Data: discordgo.ApplicationCommandInteractionData{Name: "play"}},
		"bad user id": {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000",
			Member: &discordgo.Member{User: &discordgo.User{ID: "-5"}}, Data: discordgo.ApplicationCommandInteractionData{Name: "play"}},
		"unknown command": {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000", Member: mem,
			Data: discordgo.ApplicationCommandInteractionData{Name: "drop table"}},
		"admin nil option": {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000",
			Member: &discordgo.Member{User: mem.User, Permissions: modPermsSet},
			Data:   discordgo.ApplicationCommandInteractionData{Name: "admin", Options: []*discordgo.ApplicationCommandInteractionDataOption{nil}}},
		"admin nil sub options": {Type: discordgo.InteractionApplicationCommand, GuildID: "1100000000000000000",
			Member: &discordgo.Member{User: mem.User, Permissions: modPermsSet},
			Data: discordgo.ApplicationCommandInteractionData{Name: "admin", Options: []*discordgo.ApplicationCommandInteractionDataOption{
				{Name: "grant", Type: discordgo.ApplicationCommandOptionSubCommand, Options: []*discordgo.ApplicationCommandInteractionDataOption{nil, {Name: "user", Type: discordgo.ApplicationCommandOptionUser}}},
			}}},
	}
	for name, i := range cases {
		rec := &recorder{}
		e.app.Handle(context.Background(), rec, i)
		if len(rec.responses) != 1 {
			t.Errorf("%s: %d responses", name, len(rec.responses))
			continue
		}
		d := rec.responses[0].Data
		if d == nil || d.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.HasPrefix(d.Content, "❌") {
			t.Errorf("%s: reply %+v", name, d)
		}
	}
	if e.store.writeCount() != 0 {
		t.Fatalf("garbage changed the state: %d writes", e.store.writeCount())
	}
}

// FuzzHandle throws random custom IDs and options at the handlers: no panic
// escapes, every interaction gets exactly one callback, and no credit is
// created or lost (the invariant holds).
func FuzzHandle(f *testing.F) {
	for _, s := range []string{"v1:auto:1000000000000000001:1", "v1:row:1000000000000000001:1:2", "v1:again:1000000000000000001:0",
		"v1:chest:1000000000000000001:1", "v1:rg:1000000000000000009:1796040000", "12.50", "-3", "NaN"} {
		f.Add(s, s, uint8(0))
	}
	e := newEnv(f)
	e.drawer.setWant(func(o game.Outcome) bool { return o.Key || o.Tier.Winning() })
	f.Fuzz(func(t *testing.T, id, value string, pick uint8) {
		e.t = t // the helpers report to this input's test
		var i *discordgo.Interaction
		users := []uint64{alice, bob, moderator}
		user := users[int(pick)%len(users)]
		perms := memberPerms
		if pick&4 != 0 {
			perms = modPermsSet
		}
		switch pick % 5 {
		case 0:
			i = e.clickOnCard(user, id)
		case 1:
			i = e.slashPayload(user, perms, "fr", "admin", "grant", opt{"user", optUser, value}, opt{"amount", optString, id})
		case 2:
			i = e.slashPayload(user, perms, "en-US", "admin", "settings", opt{"starting-balance", optString, value}, opt{"channel", optChannel, id})
		case 3:
			i = e.slashPayload(user, perms, "en-US", "play", "")
		case 4:
			i = e.slashPayload(user, perms, value, id, "")
		}
		rec := &recorder{}
		e.app.Handle(context.Background(), rec, i)
		if len(rec.responses) != 1 {
			t.Fatalf("%d responses", len(rec.responses))
		}
		checkLimits(t, rec.responses[0])
		for _, u := range users {
			if !e.exists(u) {
				continue
			}
			if err := e.player(u).Check(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestConcurrentPlayers runs many players clicking at once (with -race, a
// check that the App shares nothing unsafely).
func TestConcurrentPlayers(t *testing.T) {
	e := newEnv(t)
	var wg sync.WaitGroup
	for k := 0; k < 16; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := uint64(2000000000000000000 + k)
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			for n := 0; n < 10; n++ {
				rec := &recorder{}
				e.app.Handle(context.Background(), rec, e.slashPayloadLocked(user, "play"))
				p := e.player(user)
				if p.Ticket == nil {
					if p.ChestDue {
						rec = &recorder{}
						e.app.Handle(context.Background(), rec, e.clickOnCard(user, chestID(user, p.ChestSeq+1)))
						continue
					}
					t.Errorf("user %d: no ticket after /play: %+v", user, rec.responses[0].Data)
					return
				}
				id := autoID(user, p.Ticket.ID)
				if rng.IntN(2) == 0 {
					id = rowID(user, p.Ticket.ID, rng.IntN(3))
				}
				rec = &recorder{}
				e.app.Handle(context.Background(), rec, e.clickOnCard(user, id))
				e.app.Handle(context.Background(), &recorder{}, e.clickOnCard(user, autoID(user, p.Ticket.ID)))
			}
			if err := e.player(user).Check(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// Nothing is kept for interactions that are over.
	if n := e.app.players.size(); n != 0 {
		t.Errorf("%d player locks kept", n)
	}
}

func (e *env) slashPayloadLocked(user uint64, name string) *discordgo.Interaction {
	payloadMu.Lock()
	defer payloadMu.Unlock()
	return e.slashPayload(user, memberPerms, "en-US", name, "")
}

// ctxStore blocks Run until its context ends, as a store call honouring
// its context does, and reports the context's error.
type ctxStore struct {
	storage.Store
	err chan error
}

// Guild answers at once, as a cached read would, so that Run is the
// store call that meets the context.
func (ctxStore) Guild(context.Context, uint64) (storage.VersionedGuild, error) {
	return storage.VersionedGuild{Guild: game.Guild{Settings: game.Settings{PublicPlays: true}}}, nil
}

func (s ctxStore) Run(ctx context.Context, _ storage.Step) (storage.Applied, error) {
	<-ctx.Done()
	s.err <- ctx.Err()
	return storage.Applied{}, ctx.Err()
}

// TestTimeoutCancelsTheStoreCall: at Timeout the handler's context ends
// with its deadline, the store call returns, and the player gets the
// apology after the deferral.
func TestTimeoutCancelsTheStoreCall(t *testing.T) {
	e := newEnv(t)
	st := ctxStore{Store: e.store, err: make(chan error, 1)}
	a := e.deferredApp(st)
	cfg := a.cfg
	rec := &recorder{}
	start := time.Now()
	a.Handle(context.Background(), rec, e.slashPayloadLocked(alice, "play"))
	if took := time.Since(start); took < cfg.Timeout {
		t.Fatalf("Handle returned after %v, before the Timeout of %v", took, cfg.Timeout)
	}
	if err := <-st.err; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("store call ended with %v, want context.DeadlineExceeded", err)
	}
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredChannelMessageWithSource ||
		len(rec.edits) != 1 || !strings.Contains(*rec.edits[0].Content, "Sorry") {
		t.Fatalf("responses %+v edits %+v", rec.responses, rec.edits)
	}
}

// TestCallerCancelReachesTheStoreCall: when the context given to Handle
// ends (the bot shutting down), the handler's store call sees its own
// context end, and the player gets an answer.
func TestCallerCancelReachesTheStoreCall(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.DeferAfter, cfg.Timeout = time.Hour, 2*time.Hour
	st := ctxStore{Store: e.store, err: make(chan error, 1)}
	app := New(cfg, st)
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		app.Handle(ctx, rec, e.slashPayload(alice, memberPerms, "en-US", "play", ""))
	}()
	time.Sleep(20 * time.Millisecond) // the store call is waiting
	cancel()
	select {
	case err := <-st.err:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("store call ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the store call did not see the caller's context end")
	}
	<-done
	if len(rec.responses) != 1 {
		t.Fatalf("%d responses, want the apology", len(rec.responses))
	}
	// A context already over: the handler's is over from the start.
	app.Handle(ctx, &recorder{}, e.slashPayload(alice, memberPerms, "en-US", "play", ""))
	if err := <-st.err; !errors.Is(err, context.Canceled) {
		t.Fatalf("store call with an ended context: %v", err)
	}
}

// TestFastHandlerSendsOneResponse: a handler that returns before DeferAfter
// is answered once; its deferral and apology callbacks never fire later.
func TestFastHandlerSendsOneResponse(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.DeferAfter, cfg.Timeout = 50*time.Millisecond, 100*time.Millisecond
	a := New(cfg, e.store)
	rec := &recorder{}
	a.Handle(context.Background(), rec, e.slashPayload(alice, memberPerms, "en-US", "rules", ""))
	time.Sleep(3 * cfg.Timeout)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseChannelMessageWithSource ||
		len(rec.edits) != 0 || len(rec.followups) != 0 {
		t.Fatalf("responses %+v edits %d follow-ups %d, want the reply alone", rec.responses, len(rec.edits), len(rec.followups))
	}
}

// panicky is a Responder that panics on every call, counting them.
type panicky struct{ calls atomic.Int64 }

func (p *panicky) Respond(context.Context, *discordgo.Interaction, *discordgo.InteractionResponse) error {
	p.calls.Add(1)
	panic("responder exploded")
}
func (p *panicky) EditOriginal(context.Context, *discordgo.Interaction, *discordgo.WebhookEdit) error {
	p.calls.Add(1)
	panic("responder exploded")
}
func (p *panicky) FollowUp(context.Context, *discordgo.Interaction, *discordgo.WebhookParams) error {
	p.calls.Add(1)
	panic("responder exploded")
}

// TestPanickingResponder: a panic while answering on a timer's goroutine
// (the deferral, the apology) does not escape it; on Handle's goroutine it
// reaches the caller, the transport's entry, which recovers it (bot's
// TestPanicDoesNotStopTheBot). Nothing is sent twice.
func TestPanickingResponder(t *testing.T) {
	e := newEnv(t)
	st := stuckStore{Store: e.store, release: make(chan struct{})}
	a := e.deferredApp(st)
	t.Cleanup(a.Wait) // the late step, which t.Context's end stops, before the store closes

	var fast panicky
	if p := handleRecovered(t.Context(), e.app, &fast, e.slashPayload(alice, memberPerms, "en-US", "rules", "")); p == nil || fast.calls.Load() != 1 {
		t.Fatalf("fast reply: panic %v, %d calls to the Responder, want it and 1", p, fast.calls.Load())
	}

	var slow panicky
	go func() { // the store answers once both went out, or after 10 s if they never do
		for end := time.Now().Add(10 * time.Second); slow.calls.Load() < 2 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		close(st.release)
	}()
	handleRecovered(t.Context(), a, &slow, e.slashPayload(alice, memberPerms, "en-US", "play", ""))
	if n := slow.calls.Load(); n != 2 {
		t.Fatalf("slow reply: %d calls to the Responder, want 2 (the deferral, the apology)", n)
	}
}

// handleRecovered runs a.Handle, returning its panic as a transport's entry recovers it.
func handleRecovered(ctx context.Context, a *App, r Responder, i *discordgo.Interaction) (p any) {
	defer func() { p = recover() }()
	a.Handle(ctx, r, i)
	return nil
}
