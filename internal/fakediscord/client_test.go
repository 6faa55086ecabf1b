package fakediscord_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// TestActivityClient: the Activity's origin maps every path to the bot's
// /activity + path, query and all, and hands a redirect back as it is; the
// client page is served; AUTHORIZE gives a code for the user, in the locale
// given, which the token route exchanges; AUTHENTICATE reads the token's
// user and refuses an unknown token.
func TestActivityClient(t *testing.T) {
	srv := startFake(t, fakediscord.Options{})
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/activity/go" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		io.WriteString(w, "bot:"+r.URL.RequestURI())
	}))
	defer bot.Close()
	front := httptest.NewServer(srv.ActivityClient(strings.TrimPrefix(bot.URL, "http://"), fakediscord.OAuthUser{ID: "42", Locale: "fr"}))
	defer front.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := noRedirect.Get(front.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Get("Location")
	}
	for path, want := range map[string]string{
		"/?instance_id=i-1&frame_id=f": "bot:/activity?instance_id=i-1&frame_id=f",
		"/app.js":                      "bot:/activity/app.js",
		"/api/state?x=1":               "bot:/activity/api/state?x=1",
	} {
		if st, body, _ := get(path); st != 200 || body != want {
			t.Errorf("GET %s: %d %q, want %q", path, st, body, want)
		}
	}
	if st, _, loc := get("/go"); st != http.StatusFound || loc != "/elsewhere" {
		t.Errorf("a redirect of the bot's: %d to %q, want it handed back as it is", st, loc)
	}
	if st, body, _ := get("/client/client.html"); st != 200 || !strings.Contains(body, `<script src="client.js"`) {
		t.Errorf("the client page: %d %.80q", st, body)
	}

	if st, m := oauthCall(t, "POST", front.URL+"/client/authorize", "application/json", "", `{"client_id":"1","response_type":"code","scope":["identify"],"user":"42"}`); st != 400 {
		t.Errorf("AUTHORIZE for another application: %d %v", st, m)
	}
	_, m := oauthCall(t, "POST", front.URL+"/client/authorize", "application/json", "", `{"client_id":"`+srv.AppID()+`","response_type":"code","scope":["identify"],"user":"42"}`)
	code, _ := m["code"].(string)
	form := "client_id=" + srv.AppID() + "&client_secret=" + fakediscord.TestClientSecret + "&grant_type=authorization_code&code=" + code
	_, m = oauthCall(t, "POST", srv.URL()+"/api/v10/oauth2/token", "application/x-www-form-urlencoded", "", form)
	access, _ := m["access_token"].(string)
	if _, me := oauthCall(t, "GET", srv.URL()+"/api/v10/users/@me", "", "Bearer "+access, ""); me["id"] != "42" || me["locale"] != "fr" {
		t.Errorf("the user of AUTHORIZE's code: %v", me)
	}
	st, m := oauthCall(t, "POST", front.URL+"/client/authenticate", "application/json", "", `{"access_token":"`+access+`"}`)
	if user, _ := m["user"].(map[string]any); st != 200 || user["id"] != "42" || m["access_token"] != access {
		t.Errorf("AUTHENTICATE: %d %v", st, m)
	}
	if st, _ := oauthCall(t, "POST", front.URL+"/client/authenticate", "application/json", "", `{"access_token":"forged"}`); st != 401 {
		t.Errorf("AUTHENTICATE with a forged token: %d", st)
	}
}
