package bot_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// The excerpt of Discord's OpenAPI specification that the fake's tests
// vendor (its README says what it holds and how it was extracted).
const specFile = "../internal/fakediscord/testdata/discord-openapi/openapi.json"

// spec compiles one schema of the excerpt.
func spec(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	f, err := os.Open(specFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(specFile, doc); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Compile(specFile + "#/components/schemas/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// conforms checks a JSON value against a schema of the excerpt.
func conforms(tb testing.TB, schema *jsonschema.Schema, v any, what string) {
	tb.Helper()
	if err := schema.Validate(v); err != nil {
		tb.Errorf("%s does not follow Discord's specification: %v", what, err)
	}
}

// decodeJSON decodes b as the schema library wants it (numbers exact).
func decodeJSON(tb testing.TB, b []byte) any {
	tb.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("%v: %s", err, b)
	}
	return v
}

// commandsConform checks a bulk overwrite's body, command by command,
// against ApplicationCommandUpdateRequest, and returns the commands. Where
// the specification and the documentation disagree the documentation wins:
// default_member_permissions is a string of digits there (and in
// discordgo), an integer in the specification.
func commandsConform(tb testing.TB, body []byte) []map[string]any {
	tb.Helper()
	schema := spec(tb, "ApplicationCommandUpdateRequest")
	list, ok := decodeJSON(tb, body).([]any)
	if !ok {
		tb.Fatalf("not an array: %s", body)
	}
	var out []map[string]any
	for _, v := range list {
		c, _ := v.(map[string]any)
		if p, ok := c["default_member_permissions"].(string); ok {
			c["default_member_permissions"] = json.Number(p)
		}
		conforms(tb, schema, c, fmt.Sprintf("command %v", c["name"]))
		out = append(out, c)
	}
	return out
}

// wire records what goes over a route: the bodies of the requests a
// handler serves, and those of its answers.
type wire struct {
	next http.Handler
	mu   sync.Mutex
	reqs map[string][][]byte // by "METHOD last-path-segment": "PUT commands", "POST callback"
	outs map[string][][]byte // the answers' bodies, keyed the same
}

func record(next http.Handler) *wire {
	return &wire{next: next, reqs: map[string][][]byte{}, outs: map[string][][]byte{}}
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	key := r.Method + " " + r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	t := &tee{ResponseWriter: rw}
	w.next.ServeHTTP(t, r)
	w.mu.Lock()
	w.reqs[key] = append(w.reqs[key], body)
	w.outs[key] = append(w.outs[key], t.buf.Bytes())
	w.mu.Unlock()
}

func (w *wire) requests(key string) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs[key]
}

func (w *wire) answers(key string) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.outs[key]
}

// tee keeps a copy of what a handler writes.
type tee struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (t *tee) Write(b []byte) (int, error) {
	t.buf.Write(b)
	return t.ResponseWriter.Write(b)
}

func (t *tee) Unwrap() http.ResponseWriter { return t.ResponseWriter } // for http.ResponseController's Flush

// app is the real handlers over an embedded store in a temporary file.
func app(tb testing.TB, activity bool) *commands.App {
	tb.Helper()
	st, err := boltstore.Open(filepath.Join(tb.TempDir(), "clefs.db"), storage.Options{
		Defaults: game.Settings{StartingBalance: 2000, PublicPlays: true, House: game.DefaultHouse},
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return commands.New(commands.Config{Activity: activity, Logger: quiet()}, st)
}

// TestScratchByHandLaunches: on either transport, /play's card has
// "Scratch by hand", and its press launches the Activity (a
// LAUNCH_ACTIVITY callback the fake records), sent as Discord's
// specification has it.
func TestScratchByHandLaunches(t *testing.T) {
	t.Parallel()
	launch := spec(t, "LaunchActivityInteractionCallbackRequest")
	for _, transport := range []string{"gateway", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := startFakeWith(t, fakediscord.Options{Token: token, Guilds: []string{guild}, Activities: true, PrivateKey: testKey})
			rest := record(srv.Handler()) // the bot's REST calls, callbacks included
			api := httptest.NewServer(rest)
			t.Cleanup(api.Close)
			h := app(t, true)
			ctx := waitCtx(t)
			var replies *wire // the HTTP endpoint's replies
			if transport == "gateway" {
				run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild, APIBase: api.URL}})
			} else {
				e := newEndpoint(t, h, bot.EndpointOptions{Options: bot.Options{GuildID: guild, APIBase: api.URL}})
				if err := e.Register(ctx); err != nil {
					t.Fatal(err)
				}
				replies = record(e)
				ep := httptest.NewServer(replies)
				t.Cleanup(ep.Close)
				srv.SetInteractionsURL(ep.URL + "/interactions")
			}
			if _, err := srv.WaitCommands(ctx, guild); err != nil {
				t.Fatal(err)
			}
			p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "2000", User: "7", Name: "play"})
			if err != nil {
				t.Fatal(err)
			}
			card, err := p.Wait(ctx)
			if err != nil || card.Message == nil {
				t.Fatalf("/play: %+v, %v", card, err)
			}
			p, err = srv.Click(ctx, fakediscord.Click{Message: card.Message.ID, CustomID: "v1:act:7", User: "7"})
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Wait(ctx)
			if err != nil || r.Type != commands.InteractionResponseLaunchActivity || r.Message != nil {
				t.Fatalf("press answered %+v, %v", r, err)
			}
			if l := srv.Launches(); len(l) != 1 || l[0].Interaction != p.ID() || l[0].User != "7" || l[0].Guild != guild || l[0].Channel != "2000" {
				t.Errorf("launches %+v", l)
			}
			// The fake has the answer as soon as it is written; the wire
			// keeps it once the handler returns, a moment later.
			var sent [][]byte
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if sent = rest.requests("POST callback"); replies != nil {
					sent = replies.answers("POST interactions")
				}
				if len(sent) >= 2 || time.Now().After(deadline) {
					break
				}
			}
			if len(sent) != 2 {
				t.Fatalf("%d answers sent, want the card's and the launch's", len(sent))
			}
			conforms(t, launch, decodeJSON(t, sent[1]), "the launch")
			for _, f := range srv.Failures() {
				t.Errorf("failure: %s", f)
			}
		})
	}
}

// TestRegisterKeepsTheEntryPoint: a global registration sends back the
// application's entry point as it is (its ID, name and handler), with the
// Activity on or off; on an application without one, it creates one only
// with the Activity on; a guild registration never sends one and leaves
// the global commands alone. Every command sent follows Discord's
// specification.
func TestRegisterKeepsTheEntryPoint(t *testing.T) {
	t.Parallel()
	srv := startFakeWith(t, fakediscord.Options{Token: token, Activities: true})
	rest := record(srv.Handler())
	api := httptest.NewServer(rest)
	t.Cleanup(api.Close)
	s := session(t, api.URL)
	ctx := waitCtx(t)
	on, off := app(t, true), app(t, false)
	register := func(g string, h *commands.App) []map[string]any {
		t.Helper()
		n, err := bot.Register(ctx, s, srv.AppID(), g, h.Definitions(), h.EntryPoint(), true)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(srv.Commands(g)); n != want {
			t.Errorf("Register counted %d commands, the application has %d", n, want)
		}
		puts := rest.requests("PUT commands")
		return commandsConform(t, puts[len(puts)-1])
	}
	entries := func(sent []map[string]any) (out []map[string]any) {
		for _, c := range sent {
			if c["type"] == json.Number("4") {
				out = append(out, c)
			}
		}
		return out
	}

	// An operator's entry point (renamed, app-handled) is kept as it is.
	ep, _ := srv.EntryPoint()
	custom := `[{"id":"` + ep.ID + `","type":4,"name":"scratch","description":"Scratch","handler":1}]`
	if _, err := s.RequestWithBucketID("PUT", discordgo.EndpointApplicationGlobalCommands(srv.AppID()), json.RawMessage(custom), "custom"); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*commands.App{off, on} {
		if e := entries(register("", h)); len(e) != 1 || e[0]["id"] != ep.ID || e[0]["name"] != "scratch" || e[0]["handler"] != json.Number("1") {
			t.Errorf("sent entry points %v, want the application's own", e)
		}
		if got, handler := srv.EntryPoint(); got == nil || got.ID != ep.ID || got.Name != "scratch" || handler != 1 {
			t.Errorf("entry point now %+v, handler %d", got, handler)
		}
	}
	if n := len(srv.Commands("")); n != len(on.Definitions())+1 {
		t.Errorf("%d global commands, want the definitions and the entry point", n)
	}

	// A guild registration: no entry point sent, the global one untouched.
	if e := entries(register(guild, on)); len(e) != 0 {
		t.Errorf("sent %v to a guild", e)
	}
	if got, _ := srv.EntryPoint(); got == nil || got.ID != ep.ID {
		t.Errorf("entry point after a guild registration: %+v", got)
	}

	// Without an entry point: none with the Activity off, ours with it on.
	if err := s.ApplicationCommandDelete(srv.AppID(), "", ep.ID); err != nil {
		t.Fatal(err)
	}
	if e := entries(register("", off)); len(e) != 0 {
		t.Errorf("created %v with the Activity off", e)
	}
	if got, _ := srv.EntryPoint(); got != nil {
		t.Errorf("entry point %+v with the Activity off", got)
	}
	register("", on)
	created, handler := srv.EntryPoint()
	if created == nil || created.Name != "launch" || handler != commands.HandlerDiscordLaunchActivity {
		t.Fatalf("created %+v, handler %d", created, handler)
	}
	register("", on) // again: the same one, kept
	if again, _ := srv.EntryPoint(); again == nil || again.ID != created.ID {
		t.Errorf("entry point %+v after a second registration, want %s", again, created.ID)
	}
	for _, f := range srv.Failures() {
		t.Errorf("failure: %s", f)
	}
}

// TestRegisterWithoutActivities: with the Activity configured on an
// application without Activities, every other command is registered and
// the entry point is left out, ErrNoActivities saying so: whether the
// application's flags tell (nothing refused), or Discord refuses the
// entry point's handler (flags out of date: the refusal, then the others).
func TestRegisterWithoutActivities(t *testing.T) {
	t.Parallel()
	srv := startFakeWith(t, fakediscord.Options{Token: token})
	s := session(t, srv.URL())
	on := app(t, true)
	for i, flag := range []bool{false, true} {
		n, err := bot.Register(waitCtx(t), s, srv.AppID(), "", on.Definitions(), on.EntryPoint(), flag)
		if !errors.Is(err, bot.ErrNoActivities) || !strings.Contains(err.Error(), "URL Mappings") || n != len(on.Definitions()) || len(srv.Commands("")) != n {
			t.Errorf("flag %v: Register = %d, %v; the application has %d commands", flag, n, err, len(srv.Commands("")))
		}
		if f := srv.Failures(); len(f) != i || i == 1 && !strings.Contains(f[0].String(), "APPLICATION_COMMAND_HANDLER_INVALID") {
			t.Errorf("flag %v: failures %v", flag, f)
		}
	}
}
