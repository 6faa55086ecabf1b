package fakediscord_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// oauthCall sends a request to the fake and decodes its JSON answer.
func oauthCall(t *testing.T, method, u, ctype, auth, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// TestOAuthAndActivityInstances: a code is exchanged once, with the
// client's credentials, for a token that reads its user; an instance reads
// with the bot token in Discord's shape; the control API does what the
// Discord client does.
func TestOAuthAndActivityInstances(t *testing.T) {
	srv := startFake(t, fakediscord.Options{Control: true})
	api := srv.URL() + "/api/v10"
	form := func(code, secret string) string {
		return url.Values{"client_id": {srv.AppID()}, "client_secret": {secret}, "grant_type": {"authorization_code"}, "code": {code}}.Encode()
	}
	const formType = "application/x-www-form-urlencoded"

	_, m := oauthCall(t, "POST", srv.URL()+"/_fake/authorize", "application/json", "", `{"user":"42","locale":"fr","global_name":"Alice"}`)
	code, _ := m["code"].(string)
	if st, m := oauthCall(t, "POST", api+"/oauth2/token", formType, "", form(code, "wrong")); st != 401 || m["error"] != "invalid_client" {
		t.Errorf("wrong secret: %d %v", st, m)
	}
	st, m := oauthCall(t, "POST", api+"/oauth2/token", formType, "", form(code, fakediscord.TestClientSecret))
	access, _ := m["access_token"].(string)
	if st != 200 || access == "" || m["token_type"] != "Bearer" {
		t.Fatalf("exchange: %d %v", st, m)
	}
	if st, m := oauthCall(t, "POST", api+"/oauth2/token", formType, "", form(code, fakediscord.TestClientSecret)); st != 400 || m["error"] != "invalid_grant" {
		t.Errorf("a code used twice: %d %v", st, m)
	}
	if st, _ := oauthCall(t, "POST", api+"/oauth2/token", "application/json", "", `{}`); st != 400 {
		t.Errorf("JSON to the token route: %d", st)
	}
	st, m = oauthCall(t, "GET", api+"/users/@me", "", "Bearer "+access, "")
	if st != 200 || m["id"] != "42" || m["locale"] != "fr" || m["global_name"] != "Alice" || m["username"] == "" {
		t.Errorf("users/@me by bearer: %d %v", st, m)
	}
	if st, _ := oauthCall(t, "GET", api+"/users/@me", "", "Bearer forged", ""); st != 401 {
		t.Errorf("a forged bearer token: %d", st)
	}
	if st, m := oauthCall(t, "GET", api+"/users/@me", "", "Bot "+token, ""); st != 200 || m["bot"] != true {
		t.Errorf("users/@me as the bot: %d %v", st, m)
	}

	_, m = oauthCall(t, "POST", srv.URL()+"/_fake/activity", "application/json", "", `{"guild":"7","channel":"8","users":["42"]}`)
	inst, _ := m["instance_id"].(string)
	path := api + "/applications/" + srv.AppID() + "/activity-instances/" + inst
	if st, _ := oauthCall(t, "GET", path, "", "", ""); st != 401 {
		t.Errorf("an instance without the bot token: %d", st)
	}
	if st, _ := oauthCall(t, "GET", path+"x", "", "Bot "+token, ""); st != 404 {
		t.Errorf("an unknown instance: %d", st)
	}
	st, m = oauthCall(t, "GET", path, "", "Bot "+token, "")
	loc, _ := m["location"].(map[string]any)
	users, _ := m["users"].([]any)
	if st != 200 || m["application_id"] != srv.AppID() || m["instance_id"] != inst || m["launch_id"] == "" ||
		loc["kind"] != "gc" || loc["guild_id"] != "7" || loc["channel_id"] != "8" || loc["id"] != "gc-7-8" || !slices.Contains(users, any("42")) {
		t.Errorf("instance: %d %v", st, m)
	}
	srv.EndActivity(inst)
	if st, _ := oauthCall(t, "GET", path, "", "Bot "+token, ""); st != 404 {
		t.Errorf("an ended instance: %d", st)
	}

	if st, _ := oauthCall(t, "POST", api+"/channels/8/messages", "application/json", "Bot "+token, `{"content":"hello"}`); st != 200 {
		t.Errorf("channel message: %d", st)
	}
	if ms := srv.Messages("8"); len(ms) != 1 || ms[0].Content != "hello" {
		t.Errorf("channel 8 holds %v", ms)
	}
}
