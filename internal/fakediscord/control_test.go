package fakediscord_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

func TestSlashJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want fakediscord.Slash
		err  string
	}{
		{`{"user":"1","name":"play"}`, fakediscord.Slash{User: "1", Name: "play"}, ""},
		{`{"user":"1","name":"play","perms":32}`, fakediscord.Slash{User: "1", Name: "play", Perms: 32}, ""},
		{`{"user":"1","name":"play","perms":"32"}`, fakediscord.Slash{User: "1", Name: "play", Perms: 32}, ""},
		{`{"user":"1","name":"play","perms":"member"}`, fakediscord.Slash{User: "1", Name: "play", Perms: fakediscord.PermsMember}, ""},
		{`{"user":"1","name":"play","perms":"Moderator"}`, fakediscord.Slash{User: "1", Name: "play", Perms: fakediscord.PermsModerator}, ""},
		{`{"user":"1","name":"play","perms":"admin"}`, fakediscord.Slash{User: "1", Name: "play", Perms: fakediscord.PermsAdmin}, ""},
		{`{"user":"1","name":"play","perms":null}`, fakediscord.Slash{User: "1", Name: "play"}, ""},
		{`{"user":"1","name":"play","perms":"root"}`, fakediscord.Slash{}, `perms: want "member"`},
		{`{"user":"1","name":"play","perms":-1}`, fakediscord.Slash{}, "perms"},
		{`{"user":"1","name":"play","perms":1.5}`, fakediscord.Slash{}, "perms"},
		{`{"user":"1","name":"a","subcommand":"grant","options":{"user":"42","times":2,"id":123456789012345678901}}`,
			fakediscord.Slash{User: "1", Name: "a", Sub: "grant", Options: []fakediscord.Opt{
				{Name: "user", Value: "42"}, {Name: "times", Value: json.Number("2")}, {Name: "id", Value: json.Number("123456789012345678901")}}}, ""},
		{`{"user":"1","name":"a","sub":"grant","group":"g","options":[{"name":"ok","value":true}]}`,
			fakediscord.Slash{User: "1", Name: "a", Sub: "grant", Group: "g", Options: []fakediscord.Opt{{Name: "ok", Value: true}}}, ""},
		{`{"user":"1","name":"a","subcommand_group":"g","subcommand":"s"}`, fakediscord.Slash{User: "1", Name: "a", Sub: "s", Group: "g"}, ""},
		{`{"user":"1","name":"a","sub":"x","subcommand":"y"}`, fakediscord.Slash{}, "contradicts"},
		{`{"user":"1","name":"a","options":"user=42"}`, fakediscord.Slash{}, "options: want an object"},
		{`{"user":"1","name":"a","subcomand":"grant"}`, fakediscord.Slash{}, `unknown field "subcomand"`},
		{`{"user":"1","name":"a","locale":"fr","guild_locale":"fr","channel":"9","username":"Ana","bypass":true}`,
			fakediscord.Slash{User: "1", Name: "a", Locale: discordgo.French, GuildLocale: discordgo.French, Channel: "9", Username: "Ana", Bypass: true}, ""},
	}
	for _, tt := range tests {
		var got fakediscord.Slash
		err := json.Unmarshal([]byte(tt.body), &got)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: err = %v, want %q", tt.body, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.body, err)
		case tt.err == "" && !reflect.DeepEqual(got, tt.want):
			t.Errorf("%s:\n got %+v\nwant %+v", tt.body, got, tt.want)
		}
	}
	// What a Go caller marshals, the control API reads back.
	in := fakediscord.Slash{User: "1", Name: "a", Sub: "s", Perms: fakediscord.PermsModerator, Options: []fakediscord.Opt{{Name: "x", Value: "y"}}}
	b, _ := json.Marshal(in)
	var out fakediscord.Slash
	if err := json.Unmarshal(b, &out); err != nil || !reflect.DeepEqual(in, out) {
		t.Errorf("round trip of %s: %+v, %v", b, out, err)
	}
	var c fakediscord.Click
	if err := json.Unmarshal([]byte(`{"message":"1","custom_id":"x","user":"2","perms":"admin","guild_locale":"fr"}`), &c); err != nil ||
		c.Perms != fakediscord.PermsAdmin || c.GuildLocale != discordgo.French {
		t.Errorf("click = %+v, %v", c, err)
	}
	if err := json.Unmarshal([]byte(`{"message":"1","perms":"boss"}`), &c); err == nil {
		t.Error("click with perms \"boss\" accepted")
	}
}

// TestControlAPI drives a bot through the control API as a person with curl
// does: the bodies of the ControlAPI reference reach the bot as meant.
func TestControlAPI(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Control: true})
	c := connect(t, srv, token)
	register(t, c, srv, "", playCmd, adminCmd)
	var seen atomic.Pointer[discordgo.Interaction]
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		seen.Store(i)
		resp := message("hello", buttons("again")...)
		if i.Type == discordgo.InteractionMessageComponent {
			resp.Type = discordgo.InteractionResponseUpdateMessage
			resp.Data.Content = "again"
		}
		_ = s.InteractionRespond(i, resp)
	})
	post := func(path, body string) (int, map[string]any) {
		t.Helper()
		return callJSON(t, "POST", srv.URL()+path, body)
	}

	code, out := post("/_fake/slash", `{"guild":"1000","user":"7","perms":"moderator","name":"admin","subcommand":"grant","options":{"user":"42","amount":"500"}}`)
	if code != 200 || out["message"] == nil {
		t.Fatalf("slash: %d %v", code, out)
	}
	i := seen.Load()
	d := i.ApplicationCommandData()
	if i.Member.Permissions != fakediscord.PermsModerator || d.Options[0].Name != "grant" ||
		d.Options[0].Options[0].UserValue(nil).ID != "42" || d.Options[0].Options[1].StringValue() != "500" {
		t.Errorf("the bot saw %+v with options %+v", i.Member, d.Options[0])
	}
	// A member may not; the bits as a number may.
	if code, out := post("/_fake/slash", `{"guild":"1000","user":"7","name":"admin","subcommand":"grant","options":{"user":"42","amount":"1"}}`); code != 400 || !strings.Contains(out["error"].(string), "may not") {
		t.Errorf("member runs /admin: %d %v", code, out)
	}
	if code, out := post("/_fake/slash", `{"guild":"1000","user":"7","perms":32,"name":"admin","subcommand":"grant","options":{"user":"42","amount":"1"}}`); code != 200 {
		t.Errorf("perms 32 (Manage Server): %d %v", code, out)
	}
	if code, _ := post("/_fake/slash", `{"guild":"1000","user":"43","name":"play","locale":"fr","guild_locale":"fr"}`); code != 200 {
		t.Fatalf("French /play: %d", code)
	}
	if i := seen.Load(); i.Locale != discordgo.French || i.GuildLocale == nil || *i.GuildLocale != discordgo.French {
		t.Errorf("French user saw locale %q, guild locale %v", i.Locale, i.GuildLocale)
	}
	if code, _ := post("/_fake/slash", `{"user":"42","name":"play"}`); code != 200 {
		t.Fatalf("DM: %d", code)
	}
	if i := seen.Load(); i.GuildID != "" || i.Member != nil || i.User.ID != "42" {
		t.Errorf("DM seen as %+v", i)
	}
	msg := out["message"].(map[string]any)
	code, out = post("/_fake/click", `{"message":"`+msg["id"].(string)+`","custom_id":"again","user":"7","perms":"admin"}`)
	if code != 200 || out["message"].(map[string]any)["content"] != "again" {
		t.Errorf("click: %d %v", code, out)
	}
	if i := seen.Load(); i.Member.Permissions != fakediscord.PermsAdmin {
		t.Errorf("click perms = %d, want PermsAdmin", i.Member.Permissions)
	}
	if code, out := post("/_fake/slash", `{"user":"42","name":"play","subcomand":"x"}`); code != 400 || !strings.Contains(out["error"].(string), "subcomand") {
		t.Errorf("typo in a field: %d %v", code, out)
	}

	resp, err := http.Get(srv.URL() + "/_fake/")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(ref) != fakediscord.ControlAPI {
		t.Errorf("GET /_fake/ = %d, %d bytes; want the reference", resp.StatusCode, len(ref))
	}
	noFailures(t, srv)
}

// TestControlEndpoint switches to an interactions endpoint through the
// control API: a PUT checks it first, as the Developer Portal does.
func TestControlEndpoint(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Control: true})
	put := func(url string) (int, map[string]any) {
		t.Helper()
		return oauthCall(t, http.MethodPut, srv.URL()+"/_fake/endpoint", "", "", `{"url":"`+url+`"}`)
	}
	trusting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"type":1}`) }))
	defer trusting.Close()
	if code, out := put(trusting.URL); code != 400 || !strings.Contains(fmt.Sprint(out["error"]), "401") {
		t.Errorf("PUT an endpoint that skips the signature: %d %v", code, out)
	}
	if srv.InteractionsURL() != "" {
		t.Errorf("a refused endpoint was set: %q", srv.InteractionsURL())
	}
	ep := startEndpoint(t, fakediscord.TestPublicKeyHex)
	if code, out := put(ep.URL); code != 200 || out["url"] != ep.URL || out["public_key"] != fakediscord.TestPublicKeyHex {
		t.Errorf("PUT a good endpoint: %d %v", code, out)
	}
	if code, out := put(""); code != 200 || out["url"] != "" || srv.InteractionsURL() != "" {
		t.Errorf("PUT back to the gateway: %d %v", code, out)
	}
}
