package fakediscord

import (
	"embed"
	"encoding/json"
	"net/http"
	"net/http/httputil"
	"slices"
	"strings"
	"time"
)

//go:embed client
var clientFiles embed.FS

// ActivityClient is the Activity's origin as Discord serves it
// (<application id>.discordsays.com) with a fake Discord client in it. Its
// root URL mapping forwards every path P, query and all, to the bot's
// /activity + P (the root to the bare /activity) at the address bot
// (host:port) and hands every answer back as it is, a redirect too. Under
// /client/ is the client page, client/client.html?user=U&instance=I
// [&platform=mobile], which frames the Activity and plays the client's side
// of the SDK: AUTHORIZE (POST /client/authorize, a code for the user, with
// the locale of users' entry of that ID) and AUTHENTICATE (POST
// /client/authenticate, the access token's user).
func (s *Server) ActivityClient(bot string, users ...OAuthUser) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /client/", http.FileServerFS(clientFiles))
	mux.HandleFunc("POST /client/authorize", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ClientID     string   `json:"client_id"`
			ResponseType string   `json:"response_type"`
			Scope        []string `json:"scope"`
			User         string   `json:"user"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.ClientID != s.opts.AppID || in.ResponseType != "code" || !slices.Equal(in.Scope, []string{"identify"}) || in.User == "" {
			http.Error(w, "AUTHORIZE: want the application's client_id, response_type code, scope [identify] and a user", http.StatusBadRequest)
			return
		}
		u := OAuthUser{ID: in.User}
		if i := slices.IndexFunc(users, func(u OAuthUser) bool { return u.ID == in.User }); i >= 0 {
			u = users[i]
		}
		writeJSON(w, http.StatusOK, map[string]string{"code": s.Authorize(u)})
	})
	mux.HandleFunc("POST /client/authenticate", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			AccessToken string `json:"access_token"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		g, _ := lookup(s, s.oauth.tokens, in.AccessToken)
		if g == nil {
			http.Error(w, "AUTHENTICATE: unknown access token", http.StatusUnauthorized)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"access_token": in.AccessToken, "scopes": []string{"identify"},
			"user": map[string]any{"id": g.user.ID, "username": g.user.Username, "discriminator": "0", "avatar": nil,
				"public_flags": 0, "global_name": g.user.GlobalName}, "expires": g.expires.UTC().Format(time.RFC3339),
			"application": map[string]any{"id": s.opts.AppID, "name": "Les Clefs du Trésor", "description": "", "icon": nil},
		})
	})
	mux.Handle("/", &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = "http", bot, bot
		r.Out.URL.Path, r.Out.URL.RawPath = strings.TrimSuffix("/activity"+r.In.URL.Path, "/"), ""
	}})
	return mux
}
