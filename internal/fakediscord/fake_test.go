package fakediscord_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

const token = "fake-token.abc"

// rewrite sends every request for discord.com to the fake.
type rewrite struct{ base *url.URL }

func (rw rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.URL.Host == "discord.com" {
		r.URL.Scheme, r.URL.Host = rw.base.Scheme, rw.base.Host
	}
	return http.DefaultTransport.RoundTrip(r)
}

func startFake(tb testing.TB, opts fakediscord.Options) *fakediscord.Server {
	tb.Helper()
	if opts.Token == "" {
		opts.Token = token
	}
	srv := fakediscord.New(opts)
	if err := srv.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// client is a discordgo session whose interaction handler a test sets.
type client struct {
	s       *discordgo.Session
	mu      sync.Mutex
	handler func(s *discordgo.Session, i *discordgo.Interaction)
}

func (c *client) handle(f func(s *discordgo.Session, i *discordgo.Interaction)) {
	c.mu.Lock()
	c.handler = f
	c.mu.Unlock()
}

// restSession is a discordgo session on the fake's REST API, as a bot on
// an interactions endpoint uses it: no gateway.
func restSession(tb testing.TB, srv *fakediscord.Server, tok string) *discordgo.Session {
	tb.Helper()
	s, err := discordgo.New("Bot " + tok)
	if err != nil {
		tb.Fatal(err)
	}
	base, _ := url.Parse(srv.URL())
	s.Client = &http.Client{Transport: rewrite{base}, Timeout: 5 * time.Second}
	return s
}

func connect(tb testing.TB, srv *fakediscord.Server, tok string, shard ...int) *client {
	tb.Helper()
	s := restSession(tb, srv, tok)
	s.Identify.Intents = discordgo.IntentsNone
	if len(shard) == 2 {
		s.ShardID, s.ShardCount = shard[0], shard[1]
	}
	c := &client{s: s}
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		c.mu.Lock()
		h := c.handler
		c.mu.Unlock()
		if h != nil {
			h(s, ic.Interaction)
		}
	})
	if err := s.Open(); err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return c
}

func ctxT(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

var playCmd = &discordgo.ApplicationCommand{
	Name: "play", Description: "Buy a ticket",
	NameLocalizations:        &map[discordgo.Locale]string{discordgo.French: "jouer"},
	DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.French: "Acheter un ticket"},
}

var adminCmd = &discordgo.ApplicationCommand{
	Name: "admin", Description: "Moderators' tools", DefaultMemberPermissions: ptr(int64(discordgo.PermissionManageGuild)),
	Contexts: &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
	Options: []*discordgo.ApplicationCommandOption{{
		Type: discordgo.ApplicationCommandOptionSubCommand, Name: "grant", Description: "Give credits",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionUser, Name: "user", Description: "Who", Required: true},
			{Type: discordgo.ApplicationCommandOptionString, Name: "amount", Description: "How much", Required: true},
			{Type: discordgo.ApplicationCommandOptionInteger, Name: "times", Description: "How many times", MinValue: ptr(1.0), MaxValue: 5},
		},
	}},
}

func ptr[T any](v T) *T { return &v }

const guild = "111111111111111111"

func register(tb testing.TB, c *client, srv *fakediscord.Server, g string, cmds ...*discordgo.ApplicationCommand) []*discordgo.ApplicationCommand {
	tb.Helper()
	got, err := c.s.ApplicationCommandBulkOverwrite(srv.AppID(), g, cmds)
	if err != nil {
		tb.Fatalf("bulk overwrite: %v", err)
	}
	return got
}

func buttons(customIDs ...string) []discordgo.MessageComponent {
	row := discordgo.ActionsRow{}
	for _, id := range customIDs {
		row.Components = append(row.Components, discordgo.Button{Label: id, CustomID: id, Style: discordgo.PrimaryButton})
	}
	return []discordgo.MessageComponent{row}
}

func noFailures(tb testing.TB, srv *fakediscord.Server) {
	tb.Helper()
	for _, f := range srv.Failures() {
		tb.Errorf("failure: %s", f)
	}
}

func TestPlayAndClick(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Guilds: []string{guild}})
	c := connect(t, srv, token)
	ctx := ctxT(t)
	id, err := srv.WaitIdentified(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Token != "Bot "+token || id.Intents != discordgo.IntentsNone || id.Shard != [2]int{0, 1} {
		t.Errorf("identify = %+v", id)
	}
	if c.s.State.User == nil || c.s.State.User.ID != srv.AppID() || !c.s.State.User.Bot {
		t.Errorf("READY user = %+v, want the bot %s", c.s.State.User, srv.AppID())
	}
	got := register(t, c, srv, guild, playCmd)
	if len(got) != 1 || got[0].ID == "" || got[0].ApplicationID != srv.AppID() || got[0].GuildID != guild {
		t.Fatalf("registered = %+v", got[0])
	}
	if cmds := srv.Commands(guild); len(cmds) != 1 || (*cmds[0].NameLocalizations)[discordgo.French] != "jouer" {
		t.Fatalf("Commands(guild) = %+v", cmds)
	}
	// Registering again keeps the command's ID, like Discord.
	if again := register(t, c, srv, guild, playCmd); again[0].ID != got[0].ID {
		t.Errorf("ID changed on overwrite: %s → %s", got[0].ID, again[0].ID)
	}

	var seen atomic.Pointer[discordgo.Interaction]
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		seen.Store(i)
		switch i.Type {
		case discordgo.InteractionApplicationCommand:
			err := s.InteractionRespond(i, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "grid", Components: buttons("row:1", "auto")},
			})
			if err != nil {
				t.Errorf("respond: %v", err)
			}
		case discordgo.InteractionMessageComponent:
			err := s.InteractionRespond(i, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "clicked " + i.MessageComponentData().CustomID, Components: buttons("again")},
			})
			if err != nil {
				t.Errorf("update: %v", err)
			}
		}
	})
	p, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "222", User: "333", Locale: discordgo.French, Name: "play"}))
	i := seen.Load()
	if i.ID != p.ID() || i.GuildID != guild || i.ChannelID != "222" || i.Member == nil || i.Member.User.ID != "333" ||
		i.Locale != discordgo.French || i.Member.Permissions != fakediscord.PermsMember || i.Version != 1 || i.AppID != srv.AppID() ||
		i.ApplicationCommandData().Name != "play" || i.GuildLocale == nil || i.Token == "" {
		t.Errorf("interaction as the bot saw it: %+v", i)
	}
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Ephemeral || r.Message == nil ||
		r.Message.Content != "grid" || r.Message.ChannelID != "222" || r.Latency <= 0 || r.Latency > 3*time.Second {
		t.Fatalf("response = %+v", r)
	}
	if bs := fakediscord.Buttons(r.Message); len(bs) != 2 || bs[0].CustomID != "row:1" || bs[1].CustomID != "auto" {
		t.Fatalf("buttons = %+v", bs)
	}

	_, r2 := answered(t, ctx)(srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "auto", User: "333"}))
	i = seen.Load()
	if i.Message == nil || i.Message.ID != r.Message.ID || i.Message.Content != "grid" || i.Member.User.ID != "333" {
		t.Errorf("component interaction message = %+v", i.Message)
	}
	if r2.Type != discordgo.InteractionResponseUpdateMessage || r2.Message.ID != r.Message.ID || r2.Message.Content != "clicked auto" {
		t.Errorf("update response = %+v", r2)
	}
	if m, _ := srv.Message(r.Message.ID); m.Content != "clicked auto" || m.EditedTimestamp == nil {
		t.Errorf("stored message = %+v", m)
	}
	// The old button is gone.
	if _, err := srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "auto", User: "333"}); !errors.Is(err, fakediscord.ErrNoSuchButton) {
		t.Errorf("click on a removed button: %v", err)
	}
	noFailures(t, srv)
}

func TestDeferredEditAndFollowUp(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		if err := s.InteractionRespond(i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
		}); err != nil {
			t.Errorf("defer: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
		content := "done"
		if _, err := s.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content}); err != nil {
			t.Errorf("edit: %v", err)
		}
		if _, err := s.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "more", Flags: discordgo.MessageFlagsEphemeral}); err != nil {
			t.Errorf("follow-up: %v", err)
		}
	})
	p, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"}))
	if r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || !r.Ephemeral || r.Message.Content != "done" || r.Edits != 1 {
		t.Errorf("response = %+v", r)
	}
	if r.Message.Flags&discordgo.MessageFlagsLoading != 0 {
		t.Errorf("still loading after the edit: flags %d", r.Message.Flags)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		r, _ = p.Snapshot()
		if len(r.FollowUps) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(r.FollowUps) != 1 || r.FollowUps[0].Content != "more" || r.FollowUps[0].Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("follow-ups = %+v", r.FollowUps)
	}
	// An ephemeral message's buttons are only for its user — and this one has none.
	if _, err := srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "x", User: "6"}); !errors.Is(err, fakediscord.ErrUnknownMessage) {
		t.Errorf("click by another user on an ephemeral message: %v", err)
	}
	noFailures(t, srv)
}

func restCode(err error) (int, int) {
	var re *discordgo.RESTError
	if errors.As(err, &re) {
		code := 0
		if re.Message != nil {
			code = re.Message.Code
		}
		return re.Response.StatusCode, code
	}
	return 0, 0
}

func TestOneCallbackOnly(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	second := make(chan error, 1)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "one"}}
		if err := s.InteractionRespond(i, resp); err != nil {
			t.Errorf("first: %v", err)
		}
		second <- s.InteractionRespond(i, resp)
	})
	p, _ := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"}))
	if st, code := restCode(<-second); st != 400 || code != 40060 {
		t.Errorf("second callback: %d %d, want 400 40060", st, code)
	}
	f := srv.Failures()
	if len(f) != 1 || f[0].Code != 40060 || f[0].Interaction != p.ID() {
		t.Errorf("failures = %v", f)
	}
}

func TestDeadline(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{AckTimeout: 100 * time.Millisecond})
	ctx := ctxT(t)
	late := make(chan error, 1)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		time.Sleep(250 * time.Millisecond)
		late <- s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "late"}})
	})
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(ctx); !errors.Is(err, fakediscord.ErrNoCallback) {
		t.Fatalf("Wait = %v, want ErrNoCallback", err)
	}
	if st, code := restCode(<-late); st != 404 || code != 10062 {
		t.Errorf("late callback: %d %d, want 404 10062", st, code)
	}
	f := srv.Failures()
	if len(f) != 2 || f[0].Code != 10062 || f[0].Status != 0 || f[1].Status != 404 {
		t.Errorf("failures = %v", f)
	}
}

func TestMessageValidation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 2001)
	many := func(n int) []discordgo.MessageComponent {
		var out []discordgo.MessageComponent
		for r := 0; r < n; r++ {
			out = append(out, discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "b", CustomID: "id" + string(rune('a'+r)), Style: 1}}})
		}
		return out
	}
	six := discordgo.ActionsRow{}
	for i := 0; i < 6; i++ {
		six.Components = append(six.Components, discordgo.Button{Label: "b", CustomID: "c" + string(rune('a'+i)), Style: 1})
	}
	embeds := func(n int) []*discordgo.MessageEmbed {
		var out []*discordgo.MessageEmbed
		for i := 0; i < n; i++ {
			out = append(out, &discordgo.MessageEmbed{Title: "t"})
		}
		return out
	}
	tests := []struct {
		name string
		data *discordgo.InteractionResponseData
		typ  discordgo.InteractionResponseType
		code int
		path string // a key expected in the errors JSON
	}{
		{"content too long", &discordgo.InteractionResponseData{Content: long}, 4, 50035, `"content"`},
		{"empty", &discordgo.InteractionResponseData{}, 4, 50006, ""},
		{"eleven embeds", &discordgo.InteractionResponseData{Embeds: embeds(11)}, 4, 50035, `"embeds"`},
		{"title too long", &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{{Title: strings.Repeat("x", 257)}}}, 4, 50035, `"title"`},
		{"field without value", &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{{Fields: []*discordgo.MessageEmbedField{{Name: "n"}}}}}, 4, 50035, `"value"`},
		{"six rows", &discordgo.InteractionResponseData{Components: many(6)}, 4, 50035, `"components"`},
		{"six buttons", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{six}}, 4, 50035, `"components"`},
		{"duplicate custom_id", &discordgo.InteractionResponseData{Components: buttons("a", "a")}, 4, 50035, "COMPONENT_CUSTOM_ID_DUPLICATED"},
		{"custom_id too long", &discordgo.InteractionResponseData{Components: buttons(strings.Repeat("x", 101))}, 4, 50035, `"custom_id"`},
		{"label too long", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: strings.Repeat("x", 81), CustomID: "a", Style: 1}}}}}, 4, 50035, `"label"`},
		{"button without label", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{CustomID: "a", Style: 1}}}}}, 4, 50035, "BUTTON_COMPONENT_INVALID"},
		{"bad flags", &discordgo.InteractionResponseData{Content: "x", Flags: discordgo.MessageFlagsCrossPosted}, 4, 50035, `"flags"`},
		{"update on a command", &discordgo.InteractionResponseData{Content: "x"}, 7, 50035, `"type"`},
		{"deferred update on a command", nil, 6, 50035, `"type"`},
	}
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errc := make(chan error, 2)
			c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
				errc <- s.InteractionRespond(i, &discordgo.InteractionResponse{Type: tt.typ, Data: tt.data})
				// A refused callback does not count: a good one still works.
				errc <- s.InteractionRespond(i, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Content: "ok"}})
			})
			before := len(srv.Failures())
			p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
			if err != nil {
				t.Fatal(err)
			}
			st, code := restCode(<-errc)
			if st != 400 || code != tt.code {
				t.Errorf("status %d code %d, want 400 %d", st, code, tt.code)
			}
			if err := <-errc; err != nil {
				t.Errorf("good callback after a refused one: %v", err)
			}
			if r, err := p.Wait(ctx); err != nil || r.Message.Content != "ok" {
				t.Errorf("Wait = %+v, %v", r, err)
			}
			f := srv.Failures()[before:]
			if len(f) != 1 || f[0].Code != tt.code || !strings.Contains(f[0].Errors, tt.path) {
				t.Errorf("failures = %v, want one with %s", f, tt.path)
			}
		})
	}
}

func TestCommandValidation(t *testing.T) {
	t.Parallel()
	opt := func(o *discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
		return &discordgo.ApplicationCommand{Name: "x", Description: "d", Options: []*discordgo.ApplicationCommandOption{o}}
	}
	var tooMany []*discordgo.ApplicationCommandOption
	for i := 0; i < 26; i++ {
		tooMany = append(tooMany, &discordgo.ApplicationCommandOption{Type: 3, Name: "o" + string(rune('a'+i)), Description: "d"})
	}
	tests := []struct {
		name string
		cmds []*discordgo.ApplicationCommand
		want string
	}{
		{"uppercase", []*discordgo.ApplicationCommand{{Name: "Play", Description: "d"}}, "lowercase"},
		{"space", []*discordgo.ApplicationCommand{{Name: "pl ay", Description: "d"}}, "APPLICATION_COMMAND_INVALID_NAME"},
		{"long name", []*discordgo.ApplicationCommand{{Name: strings.Repeat("a", 33), Description: "d"}}, "APPLICATION_COMMAND_INVALID_NAME"},
		{"no description", []*discordgo.ApplicationCommand{{Name: "play"}}, `"description"`},
		{"long description", []*discordgo.ApplicationCommand{{Name: "play", Description: strings.Repeat("d", 101)}}, `"description"`},
		{"duplicate", []*discordgo.ApplicationCommand{{Name: "a", Description: "d"}, {Name: "a", Description: "d"}}, "DUPLICATE_NAME"},
		{"bad locale", []*discordgo.ApplicationCommand{{Name: "a", Description: "d", NameLocalizations: &map[discordgo.Locale]string{"xx": "b"}}}, `"xx"`},
		{"bad localized name", []*discordgo.ApplicationCommand{{Name: "a", Description: "d", NameLocalizations: &map[discordgo.Locale]string{discordgo.French: "Jouer"}}}, `"fr"`},
		{"26 options", []*discordgo.ApplicationCommand{{Name: "a", Description: "d", Options: tooMany}}, `"options"`},
		{"required after optional", []*discordgo.ApplicationCommand{{Name: "a", Description: "d", Options: []*discordgo.ApplicationCommandOption{
			{Type: 3, Name: "a", Description: "d"}, {Type: 3, Name: "b", Description: "d", Required: true}}}}, "REQUIRED_INVALID"},
		{"option without description", []*discordgo.ApplicationCommand{opt(&discordgo.ApplicationCommandOption{Type: 3, Name: "a"})}, `"description"`},
		{"choice value too long", []*discordgo.ApplicationCommand{opt(&discordgo.ApplicationCommandOption{Type: 3, Name: "a", Description: "d",
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "n", Value: strings.Repeat("v", 101)}}})}, `"value"`},
		{"mixed subcommands", []*discordgo.ApplicationCommand{{Name: "a", Description: "d", Options: []*discordgo.ApplicationCommandOption{
			{Type: 1, Name: "s", Description: "d"}, {Type: 3, Name: "o", Description: "d"}}}}, "mix"},
	}
	srv := startFake(t, fakediscord.Options{})
	c := connect(t, srv, token)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Failures())
			_, err := c.s.ApplicationCommandBulkOverwrite(srv.AppID(), guild, tt.cmds)
			if st, code := restCode(err); st != 400 || code != 50035 {
				t.Fatalf("err = %v, want 400 50035", err)
			}
			f := srv.Failures()[before:]
			if len(f) != 1 || !strings.Contains(f[0].Errors, tt.want) {
				t.Errorf("failures = %v, want %s", f, tt.want)
			}
			if cmds := srv.Commands(guild); cmds != nil {
				t.Errorf("refused commands were kept: %v", cmds)
			}
		})
	}
	// The real definitions of this test pass.
	register(t, c, srv, "", playCmd, adminCmd)
	if n := len(srv.Commands("")); n != 2 {
		t.Errorf("%d global commands, want 2", n)
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	if _, err := restSession(t, srv, "wrong").User("@me"); err == nil {
		t.Error("GET /users/@me with a wrong token succeeded")
	} else if st, _ := restCode(err); st != 401 {
		t.Errorf("status %d, want 401", st)
	}
	// The gateway refuses an IDENTIFY with a wrong token with close code 4004.
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+"/gateway/?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var hello struct {
		Op int `json:"op"`
		D  struct {
			HeartbeatInterval int `json:"heartbeat_interval"`
		} `json:"d"`
	}
	if err := ws.ReadJSON(&hello); err != nil || hello.Op != 10 || hello.D.HeartbeatInterval != 41250 {
		t.Fatalf("HELLO = %+v, %v", hello, err)
	}
	if err := ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{"token": "Bot wrong", "intents": 0, "properties": map[string]string{}}}); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4004 {
		t.Errorf("after a bad IDENTIFY: %v, want close 4004", err)
	}
	found := false
	for _, f := range srv.Failures() {
		found = found || f.Code == 4004
	}
	if !found {
		t.Errorf("no 4004 recorded: %v", srv.Failures())
	}
	// The right token works.
	good := connect(t, srv, token)
	u, err := good.s.User("@me")
	if err != nil || u.ID != srv.AppID() {
		t.Errorf("User(@me) = %+v, %v", u, err)
	}
}

func TestSlashChecks(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	c := connect(t, srv, token)
	ctx := ctxT(t)
	register(t, c, srv, "", playCmd, adminCmd)
	var got atomic.Pointer[discordgo.Interaction]
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		got.Store(i)
		_ = s.InteractionRespond(i, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Content: "ok", Flags: discordgo.MessageFlagsEphemeral}})
	})
	grant := func(opts ...fakediscord.Opt) fakediscord.Slash {
		return fakediscord.Slash{Guild: guild, User: "9", Name: "admin", Sub: "grant", Perms: fakediscord.PermsModerator, Options: opts}
	}
	tests := []struct {
		name string
		sl   fakediscord.Slash
		want error
	}{
		{"unknown", fakediscord.Slash{Guild: guild, User: "9", Name: "nope"}, fakediscord.ErrUnknownCommand},
		{"member runs admin", fakediscord.Slash{Guild: guild, User: "9", Name: "admin", Sub: "grant"}, fakediscord.ErrForbidden},
		{"admin in a DM", fakediscord.Slash{User: "9", Name: "admin", Sub: "grant", Bypass: false}, fakediscord.ErrForbidden},
		{"missing required", grant(fakediscord.Opt{Name: "user", Value: "42"}), fakediscord.ErrBadOptions},
		{"wrong type", grant(fakediscord.Opt{Name: "user", Value: "42"}, fakediscord.Opt{Name: "amount", Value: 5}), fakediscord.ErrBadOptions},
		{"out of bounds", grant(fakediscord.Opt{Name: "user", Value: "42"}, fakediscord.Opt{Name: "amount", Value: "5"}, fakediscord.Opt{Name: "times", Value: 6}), fakediscord.ErrBadOptions},
		{"unknown option", grant(fakediscord.Opt{Name: "who", Value: "42"}), fakediscord.ErrBadOptions},
		{"no subcommand", fakediscord.Slash{Guild: guild, User: "9", Name: "admin", Perms: fakediscord.PermsModerator}, fakediscord.ErrBadOptions},
	}
	for _, tt := range tests {
		if _, err := srv.Slash(ctx, tt.sl); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	// A moderator's grant arrives typed, with the user resolved.
	answered(t, ctx)(srv.Slash(ctx, grant(fakediscord.Opt{Name: "user", Value: "42"}, fakediscord.Opt{Name: "amount", Value: "5.00"}, fakediscord.Opt{Name: "times", Value: 2})))
	d := got.Load().ApplicationCommandData()
	sub := d.Options[0]
	if sub.Name != "grant" || sub.Type != discordgo.ApplicationCommandOptionSubCommand || len(sub.Options) != 3 {
		t.Fatalf("options = %+v", d.Options)
	}
	if sub.Options[0].UserValue(nil).ID != "42" || sub.Options[1].StringValue() != "5.00" || sub.Options[2].IntValue() != 2 {
		t.Errorf("values = %v %v %v", sub.Options[0].Value, sub.Options[1].Value, sub.Options[2].Value)
	}
	if d.Resolved == nil || d.Resolved.Users["42"] == nil || d.Resolved.Members["42"] == nil {
		t.Errorf("resolved = %+v", d.Resolved)
	}
	// A member with the server's override (Bypass) reaches the bot, which must check again.
	answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "10", Name: "admin", Sub: "grant", Bypass: true,
		Options: []fakediscord.Opt{{Name: "user", Value: "42"}, {Name: "amount", Value: "1"}}}))
	if i := got.Load(); i.Member.Permissions&discordgo.PermissionManageGuild != 0 {
		t.Errorf("bypassing member has Manage Server: %d", i.Member.Permissions)
	}
	// A DM: user, no member, no guild.
	answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{User: "11", Name: "play"}))
	if i := got.Load(); i.GuildID != "" || i.Member != nil || i.User == nil || i.User.ID != "11" || i.Context != discordgo.InteractionContextBotDM {
		t.Errorf("DM interaction = %+v", i)
	}
	noFailures(t, srv)
}

func TestResumeAfterDrop(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		_ = s.InteractionRespond(i, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Content: "ok"}})
	})
	srv.Disconnect()
	// discordgo reconnects with RESUME; the session (and IDENTIFY count) is kept.
	deadline := time.Now().Add(8 * time.Second)
	for {
		p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "5", Name: "play"})
		if err == nil {
			if _, err := p.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			break
		}
		if !errors.Is(err, fakediscord.ErrNoGateway) || time.Now().After(deadline) {
			t.Fatalf("after the drop: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(srv.Identifies()); n != 1 {
		t.Errorf("%d IDENTIFYs, want 1 (the reconnection resumes)", n)
	}
	noFailures(t, srv)
}

func TestShards(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	c0 := connect(t, srv, token, 0, 2)
	c1 := connect(t, srv, token, 1, 2)
	ctx := ctxT(t)
	register(t, c0, srv, "", playCmd)
	var on0, on1 atomic.Int32
	answer := func(n *atomic.Int32) func(s *discordgo.Session, i *discordgo.Interaction) {
		return func(s *discordgo.Session, i *discordgo.Interaction) {
			n.Add(1)
			_ = s.InteractionRespond(i, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Content: "ok"}})
		}
	}
	c0.handle(answer(&on0))
	c1.handle(answer(&on1))
	// Guild IDs whose shard (id >> 22) % 2 is 0 and 1.
	g0, g1 := "4194304", "8388608" // 1<<22 → shard 1, 2<<22 → shard 0
	for _, g := range []string{g0, g1, ""} {
		answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: g, User: "5", Name: "play"}))
	}
	if on0.Load() != 2 || on1.Load() != 1 {
		t.Errorf("shard 0 got %d, shard 1 got %d; want 2 and 1", on0.Load(), on1.Load())
	}
	ids := srv.Identifies()
	if len(ids) != 2 || ids[0].Shard[1] != 2 || ids[0].Shard[0] == ids[1].Shard[0] {
		t.Errorf("identifies = %+v", ids)
	}
}

// answered returns a function that waits for the answer to the interaction
// just sent, failing the test on an error: answered(t, ctx)(srv.Slash(ctx, s)).
func answered(t *testing.T, ctx context.Context) func(*fakediscord.Pending, error) (*fakediscord.Pending, fakediscord.Response) {
	return func(p *fakediscord.Pending, err error) (*fakediscord.Pending, fakediscord.Response) {
		t.Helper()
		var r fakediscord.Response
		if err == nil {
			r, err = p.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p, r
	}
}
