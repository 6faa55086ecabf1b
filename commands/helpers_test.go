package commands

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// IDs used by the payloads in testdata/.
const (
	testGuild   uint64 = 1100000000000000000
	testChannel uint64 = 1110000000000000000
	alice       uint64 = 1000000000000000001
	bob         uint64 = 1000000000000000002
	moderator   uint64 = 1000000000000000009
	memberPerms int64  = 131939382053959 // no Manage Server, no Administrator
	modPermsSet int64  = memberPerms | discordgo.PermissionManageGuild
	startCents  int64  = 2000
)

// testDrawer is a game.Drawer for tests. It draws with the real game
// engine (game.FairDraws of a fixed seed, ticket after ticket), whatever
// the player's seeds; want, when set, makes it draw again until the
// outcome satisfies it (e.g. "a key"), and script, when not empty, gives
// the next outcomes in order; so tests steer the game while every grid
// stays a real, truthful one (game.Validate).
type testDrawer struct {
	mu                   sync.Mutex
	fair                 *game.FairDraws
	want                 func(game.Outcome) bool
	script               []game.Outcome
	chests               []game.Chest
	n                    uint64 // the tickets and chests fair drew
	tickets, drawnChests int
}

var _ game.Drawer = (*testDrawer)(nil)

func (d *testDrawer) Ticket(_ game.Seed, _ string, _ uint64, keys int) (game.Outcome, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tickets++
	if len(d.script) > 0 {
		o := d.script[0]
		d.script = d.script[1:]
		return o, nil
	}
	for {
		d.n++
		o, err := d.fair.Ticket(d.n, keys)
		if err != nil {
			return o, err
		}
		if d.want == nil || d.want(o) {
			return o, nil
		}
	}
}

func (d *testDrawer) Chest(game.Seed, string, int64) (game.Chest, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drawnChests++
	if len(d.chests) > 0 {
		c := d.chests[0]
		d.chests = d.chests[1:]
		return c, nil
	}
	d.n++
	return d.fair.Chest(int64(d.n))
}

func (d *testDrawer) setWant(f func(game.Outcome) bool) {
	d.mu.Lock()
	d.want = f
	d.mu.Unlock()
}

// force makes the next draws give these outcomes, then the chests these
// lots.
func (d *testDrawer) force(os ...game.Outcome) {
	d.mu.Lock()
	d.script = append(d.script, os...)
	d.mu.Unlock()
}

func (d *testDrawer) forceChest(lots ...game.Lot) {
	d.mu.Lock()
	for _, l := range lots {
		d.chests = append(d.chests, game.Chest{Lot: l, Prize: l.Prize()})
	}
	d.mu.Unlock()
}

// draws returns how many tickets and chests were drawn.
func (d *testDrawer) draws() (tickets, chests int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tickets, d.drawnChests
}

// testCatalog is the product's catalog of words, failing the test if it
// does not load.
func testCatalog(tb testing.TB) *catalog {
	tb.Helper()
	c, err := newCatalog()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// clock is a settable clock shared by the store and the handlers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// observer records the metrics events.
type observer struct {
	mu           sync.Mutex
	interactions map[string]int // "kind outcome"
	plays        int
	chests       int
	purchases    int
	storeErrors  []string
	damaged      int
}

func (o *observer) Interaction(command, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.interactions == nil {
		o.interactions = map[string]int{}
	}
	o.interactions[command+" "+outcome]++
}
func (o *observer) Play(game.Tier, bool, int64, int64) { o.mu.Lock(); o.plays++; o.mu.Unlock() }
func (o *observer) Chest(game.Lot, int64)              { o.mu.Lock(); o.chests++; o.mu.Unlock() }
func (o *observer) Purchase(int64)                     { o.mu.Lock(); o.purchases++; o.mu.Unlock() }
func (o *observer) DamagedRecord()                     { o.mu.Lock(); o.damaged++; o.mu.Unlock() }
func (o *observer) StoreError(op string) {
	o.mu.Lock()
	o.storeErrors = append(o.storeErrors, op)
	o.mu.Unlock()
}

// env is one App over the embedded store in a temporary file (testStore).
type env struct {
	t      testing.TB
	app    *App
	store  *testStore
	clock  *clock
	drawer *testDrawer
	obs    *observer
	cfg    Config
	seq    int
	seeds  seeds
	fair   bool // draw with game.SeededDrawer instead of drawer
}

// testDefaults are the settings of the tests' guild.
var testDefaults = game.Settings{
	StartingBalance: startCents, DailyAmount: 500, DailyCooldown: 20 * time.Hour, PublicPlays: true,
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	fair, err := game.NewFairDraws(game.Seed{4, 2}, "")
	if err != nil {
		tb.Fatal(err)
	}
	e := &env{
		t:      tb,
		store:  newTestStore(tb),
		clock:  &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)},
		drawer: &testDrawer{fair: fair},
		obs:    &observer{},
	}
	e.open()
	return e
}

// open makes a fresh App over the store.
func (e *env) open() {
	e.t.Helper()
	e.cfg = Config{Now: e.clock.Now, Observer: e.obs, Logger: discardLogger(), Drawer: e.drawer, Seeds: &e.seeds}
	if e.fair {
		e.cfg.Drawer = game.SeededDrawer{}
	}
	e.app = New(e.cfg, e.store)
}

// restart closes the store and opens it again with a new App, as a
// restarted bot would.
func (e *env) restart() {
	e.t.Helper()
	if err := e.store.Close(); err != nil {
		e.t.Fatalf("close: %v", err)
	}
	e.store.reopen(e.t)
	e.open()
}

// seeds is an endless deterministic reader, for new players' seeds and
// rotations: each read differs from the others, as crypto/rand's would.
type seeds struct{ n atomic.Uint64 }

func (s *seeds) Read(b []byte) (int, error) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], s.n.Add(1))
	g := rand.NewChaCha8(key)
	for i := range b {
		b[i] = byte(g.Uint64())
	}
	return len(b), nil
}

// player returns the user's state (the zero value if never written).
func (e *env) player(user uint64) game.Player {
	e.t.Helper()
	v, err := e.store.Load(context.Background(), storage.PlayerID{Guild: testGuild, User: user})
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return v.Player
}

// exists reports whether the user was ever written.
func (e *env) exists(user uint64) bool {
	e.t.Helper()
	v, err := e.store.Load(context.Background(), storage.PlayerID{Guild: testGuild, User: user})
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return v.Exists()
}

// recorder is a Responder that keeps what it is sent.
type recorder struct {
	onRespond func() // called after each Respond, if set
	mu        sync.Mutex
	responses []*discordgo.InteractionResponse
	edits     []*discordgo.WebhookEdit
	followups []*discordgo.WebhookParams
}

func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	r.mu.Lock()
	r.responses = append(r.responses, resp)
	r.mu.Unlock()
	if r.onRespond != nil {
		r.onRespond()
	}
	return nil
}

func (r *recorder) EditOriginal(_ context.Context, _ *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.edits = append(r.edits, e)
	return nil
}

func (r *recorder) FollowUp(_ context.Context, _ *discordgo.Interaction, p *discordgo.WebhookParams) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.followups = append(r.followups, p)
	return nil
}

// loadPayload reads a testdata payload, lets edit change its JSON object and
// decodes it with discordgo, as the gateway would.
func loadPayload(tb testing.TB, file string, edit func(m map[string]any)) *discordgo.Interaction {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	if edit != nil {
		edit(m)
	}
	raw, err = json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(raw, &i); err != nil {
		tb.Fatalf("%s: decode: %v", file, err)
	}
	return &i
}

// as sets the member's user, permissions and locale of a payload.
func as(user uint64, perms int64, locale string) func(m map[string]any) {
	return func(m map[string]any) {
		mem := m["member"].(map[string]any)
		u := mem["user"].(map[string]any)
		u["id"] = strconv.FormatUint(user, 10)
		u["username"] = fmt.Sprintf("user%d", user%100)
		mem["permissions"] = strconv.FormatInt(perms, 10)
		m["locale"] = locale
	}
}

// opt is one option of a slash command payload.
type opt struct {
	name  string
	typ   int
	value any
}

// payload is loadPayload of file as user, with a new interaction ID.
func (e *env) payload(file string, user uint64, perms int64, locale string, edit func(m map[string]any)) *discordgo.Interaction {
	e.seq++
	seq := e.seq
	return loadPayload(e.t, file, func(m map[string]any) {
		as(user, perms, locale)(m)
		m["id"] = strconv.Itoa(1300000000000000100 + seq)
		edit(m)
	})
}

// slashPayload builds a slash command interaction from testdata/slash_play.json.
func (e *env) slashPayload(user uint64, perms int64, locale, name, sub string, opts ...opt) *discordgo.Interaction {
	return e.payload("slash_play.json", user, perms, locale, func(m map[string]any) {
		data := map[string]any{"id": "1210000000000000001", "name": name, "type": 1}
		var list []any
		for _, o := range opts {
			list = append(list, map[string]any{"name": o.name, "type": o.typ, "value": o.value})
		}
		if sub != "" {
			data["options"] = []any{map[string]any{"name": sub, "type": 1, "options": list}}
		} else if list != nil {
			data["options"] = list
		}
		m["data"] = data
	})
}

// clickPayload builds a button click on msg from testdata/button_click.json.
func (e *env) clickPayload(user uint64, perms int64, locale string, msg *discordgo.Message, customID string) *discordgo.Interaction {
	return e.payload("button_click.json", user, perms, locale, func(m map[string]any) {
		m["data"] = map[string]any{"custom_id": customID, "component_type": 2}
		if msg != nil {
			// discordgo does not encode a Message's components (json:"-"):
			// write them as Discord sends them.
			raw, _ := json.Marshal(msg)
			var mm map[string]any
			_ = json.Unmarshal(raw, &mm)
			raw, _ = json.Marshal(msg.Components)
			var comps []any
			_ = json.Unmarshal(raw, &comps)
			mm["components"] = comps
			m["message"] = mm
		}
	})
}

// cardWith is a message carrying one button per custom ID, in an action
// row: the card a click on one of them comes from.
func cardWith(ids ...string) *discordgo.Message {
	row := &discordgo.ActionsRow{}
	for _, id := range ids {
		row.Components = append(row.Components, &discordgo.Button{Label: "x", CustomID: id})
	}
	return &discordgo.Message{ID: "1310000000000000001", Components: []discordgo.MessageComponent{row}}
}

// handled is the answer to one interaction.
type handled struct {
	t   testing.TB
	rec *recorder
	r   *discordgo.InteractionResponse
}

// handle runs one interaction and checks the answer: exactly one callback,
// within Discord's limits.
func (e *env) handle(i *discordgo.Interaction) *handled {
	e.t.Helper()
	rec := &recorder{}
	e.app.Handle(context.Background(), rec, i)
	if len(rec.responses) != 1 {
		e.t.Fatalf("interaction got %d callbacks, want 1", len(rec.responses))
	}
	checkLimits(e.t, rec.responses[0])
	return &handled{t: e.t, rec: rec, r: rec.responses[0]}
}

func (e *env) slash(user uint64, locale, name string, opts ...opt) *handled {
	e.t.Helper()
	return e.handle(e.slashPayload(user, memberPerms, locale, name, "", opts...))
}

func (e *env) admin(user uint64, perms int64, sub string, opts ...opt) *handled {
	e.t.Helper()
	return e.handle(e.slashPayload(user, perms, "en-US", "admin", sub, opts...))
}

func (e *env) click(user uint64, msg *discordgo.Message, customID string) *handled {
	e.t.Helper()
	return e.handle(e.clickPayload(user, memberPerms, "en-US", msg, customID))
}

func (h *handled) ephemeral() bool {
	return h.r.Data != nil && h.r.Data.Flags&discordgo.MessageFlagsEphemeral != 0
}

// text is everything the reply shows as text.
func (h *handled) text() string { return dataText(h.r.Data) }

// dataText is everything d shows as text.
func dataText(d *discordgo.InteractionResponseData) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(d.Content)
	for _, e := range d.Embeds {
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

// message is the message the reply becomes, decoded as Discord would send
// it back with a later click.
func (h *handled) message() *discordgo.Message {
	h.t.Helper()
	raw, err := json.Marshal(h.r.Data)
	if err != nil {
		h.t.Fatal(err)
	}
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		h.t.Fatalf("decode message: %v", err)
	}
	m.ID = "1310000000000000001"
	return &m
}

// buttons lists the reply's buttons.
func (h *handled) buttons() []discordgo.Button {
	if h.r.Data == nil {
		return nil
	}
	return rowButtons(h.r.Data.Components...)
}

// button returns the button whose custom ID starts with prefix.
func (h *handled) button(prefix string) (discordgo.Button, bool) {
	for _, b := range h.buttons() {
		if strings.HasPrefix(b.CustomID, prefix) {
			return b, true
		}
	}
	return discordgo.Button{}, false
}

func (h *handled) mustButton(prefix string) discordgo.Button {
	h.t.Helper()
	b, ok := h.button(prefix)
	if !ok {
		h.t.Fatalf("no button %q in reply:\n%s", prefix, h.text())
	}
	return b
}

// expectUserError checks an ephemeral refusal containing want.
func (h *handled) expectUserError(want string) {
	h.t.Helper()
	if h.r.Type != discordgo.InteractionResponseChannelMessageWithSource || !h.ephemeral() {
		h.t.Fatalf("want an ephemeral message, got type %d flags %v: %s", h.r.Type, h.r.Data.Flags, h.text())
	}
	if !strings.HasPrefix(h.r.Data.Content, "❌") || !strings.Contains(h.text(), want) {
		h.t.Fatalf("reply %q is not a user error containing %q", h.text(), want)
	}
}

// checkLimits checks a response against Discord's limits: custom IDs of 1 to
// 100 characters, unique; at most 5 rows of 5 buttons; labels ≤ 80; embed
// sizes; content ≤ 2000.
func checkLimits(tb testing.TB, r *discordgo.InteractionResponse) {
	tb.Helper()
	d := r.Data
	if d == nil {
		return
	}
	if utf8.RuneCountInString(d.Content) > 2000 {
		tb.Errorf("content of %d characters", utf8.RuneCountInString(d.Content))
	}
	if len(d.Embeds) > 10 {
		tb.Errorf("%d embeds", len(d.Embeds))
	}
	total := 0
	for _, e := range d.Embeds {
		n := func(s string, max int, what string) {
			c := utf8.RuneCountInString(s)
			total += c
			if c > max {
				tb.Errorf("embed %s of %d characters (max %d)", what, c, max)
			}
		}
		n(e.Title, 256, "title")
		n(e.Description, 4096, "description")
		if len(e.Fields) > 25 {
			tb.Errorf("%d fields", len(e.Fields))
		}
		for _, f := range e.Fields {
			n(f.Name, 256, "field name")
			n(f.Value, 1024, "field value")
			if f.Name == "" || f.Value == "" {
				tb.Errorf("empty field %+v", f)
			}
		}
		if e.Footer != nil {
			n(e.Footer.Text, 2048, "footer")
		}
	}
	if total > 6000 {
		tb.Errorf("embeds total %d characters", total)
	}
	if len(d.Components) > 5 {
		tb.Errorf("%d action rows", len(d.Components))
	}
	seen := map[string]bool{}
	for _, c := range d.Components {
		bs := rowButtons(c)
		if len(bs) == 0 || len(bs) > 5 {
			tb.Errorf("action row with %d buttons", len(bs))
		}
		for _, b := range bs {
			if n := len(b.CustomID); n < 1 || n > maxCustomID {
				tb.Errorf("custom ID %q of %d chars", b.CustomID, n)
			}
			if seen[b.CustomID] {
				tb.Errorf("custom ID %q twice", b.CustomID)
			}
			seen[b.CustomID] = true
			if utf8.RuneCountInString(b.Label) > 80 {
				tb.Errorf("label %q too long", b.Label)
			}
		}
	}
	if _, err := json.Marshal(r); err != nil {
		tb.Errorf("marshal response: %v", err)
	}
}

// rowButtons returns the buttons of cs (Buttons), as values.
func rowButtons(cs ...discordgo.MessageComponent) []discordgo.Button {
	var out []discordgo.Button
	for b := range Buttons(cs) {
		out = append(out, *b)
	}
	return out
}

// settings returns the test guild's settings as stored.
func (e *env) settings() game.Settings {
	e.t.Helper()
	g, err := e.store.Guild(context.Background(), testGuild)
	if err != nil {
		e.t.Fatalf("guild: %v", err)
	}
	return g.Settings
}

// setBalance sets a player's balance behind the App's back (creating the
// player), as another process would.
func (e *env) setBalance(user uint64, cents int64) {
	e.t.Helper()
	now := storage.Timestamp(e.clock.Now())
	_, err := e.store.Run(context.Background(), storage.Step{
		ID: storage.PlayerID{Guild: testGuild, User: user}, Op: fmt.Sprintf("test-set-%d-%d", user, cents),
		Create: true, Start: startCents, Seeds: &e.seeds, Now: now,
		Move: game.Grant{Amount: cents, Set: true},
	})
	if err != nil {
		e.t.Fatalf("set balance: %v", err)
	}
}
