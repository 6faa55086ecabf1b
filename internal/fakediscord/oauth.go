package fakediscord

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
)

// What an Activity asks of Discord (the bot's package activity): the
// OAuth2 code exchange (POST /oauth2/token), the user of an access token
// (GET /users/@me with "Authorization: Bearer"), the application's Activity
// instances (GET /applications/{app}/activity-instances/{instance_id}, Bot
// token), and a message posted in a channel with the bot token (POST
// /channels/{channel}/messages: a finished ticket announced). Shapes from
// Discord's OpenAPI spec: UserPIIResponse, EmbeddedActivityInstance.
//
// A test plays the Discord client's part with StartActivity (a user
// launches the Activity in a channel) and Authorize (the client's
// AUTHORIZE: a code for a user), or from the control API (ControlAPI).

// TestClientSecret is the application's client secret the fake expects.
const TestClientSecret = "fake-client-secret"

// CodeLife is how long an authorization code can be exchanged;
// AccessTokenLife an access token's life (Discord's: 7 days).
const (
	CodeLife        = 10 * time.Minute
	AccessTokenLife = 7 * 24 * time.Hour
)

// OAuthUser is a user who authorizes the application (GET /users/@me).
type OAuthUser struct {
	ID         string `json:"user"`
	Username   string `json:"username"` // "" derives one from ID
	GlobalName string `json:"global_name"`
	Locale     string `json:"locale"` // "" = en-US
}

// Activity is an Activity instance: where it runs and who is in it. Guild
// "" is a DM's ("pc" location).
type Activity struct {
	Guild   string   `json:"guild"`
	Channel string   `json:"channel"`
	Users   []string `json:"users"`
}

// oauthState is the fake's OAuth2 and Activity state, under Server.mu.
type oauthState struct {
	codes     map[string]*grant
	tokens    map[string]*grant
	instances map[string]*activityInstance
	denied    map[string]bool // channels where the bot may not post (DenyChannel)
}

// grant is an authorization code or an access token of a user.
type grant struct {
	user    OAuthUser
	expires time.Time
}

type activityInstance struct {
	Activity
	id, launch string
}

// StartActivity starts an instance of the application's Activity (a user
// launched it) and returns its ID, "i-LAUNCH-gc-GUILD-CHANNEL" as
// Discord's.
func (s *Server) StartActivity(a Activity) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := &activityInstance{Activity: a, launch: s.snowflake()}
	in.Users = slices.Clone(a.Users)
	if a.Guild != "" {
		in.id = "i-" + in.launch + "-gc-" + a.Guild + "-" + a.Channel
	} else {
		in.id = "i-" + in.launch + "-pc-" + a.Channel
	}
	s.oauth.instances[in.id] = in
	return in.id
}

// EndActivity ends an instance: its route answers 404 from then on.
func (s *Server) EndActivity(id string) { s.locked(func() { delete(s.oauth.instances, id) }) }

// Authorize is the Discord client's AUTHORIZE for u (scope identify): it
// returns an authorization code, valid once, for CodeLife.
func (s *Server) Authorize(u OAuthUser) string {
	u.Username = cmp.Or(u.Username, defaultName(u.ID))
	u.Locale = cmp.Or(u.Locale, "en-US")
	code := secretToken(22)
	s.locked(func() { s.oauth.codes[code] = &grant{user: u, expires: time.Now().Add(CodeLife)} })
	return code
}

// oauthFail answers an OAuth2 error as Discord's token route does
// ({"error", "error_description"}) and records it as a Failure.
func (s *Server) oauthFail(w http.ResponseWriter, r *http.Request, status int, code, desc string) {
	s.locked(func() { s.recordFailureLocked(newFailure(r.Method, r.URL.Path, status, 0, code+": "+desc, nil, "")) })
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// postToken exchanges an authorization code (form-encoded, as RFC 6749
// and Discord require; client_id and client_secret in the form or as
// Basic authentication).
func (s *Server) postToken(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		s.oauthFail(w, r, http.StatusBadRequest, "invalid_request", "the token route takes application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		s.oauthFail(w, r, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != s.opts.AppID || secret != TestClientSecret {
		s.oauthFail(w, r, http.StatusUnauthorized, "invalid_client", "")
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != "authorization_code" {
		s.oauthFail(w, r, http.StatusBadRequest, "unsupported_grant_type", "")
		return
	}
	code := r.PostForm.Get("code")
	s.mu.Lock()
	g := s.oauth.codes[code]
	delete(s.oauth.codes, code) // a code is used once, whatever happens
	var token string
	ok := g != nil && time.Now().Before(g.expires)
	if ok {
		token = secretToken(24)
		s.oauth.tokens[token] = &grant{user: g.user, expires: time.Now().Add(AccessTokenLife)}
	}
	s.mu.Unlock()
	if !ok {
		s.oauthFail(w, r, http.StatusBadRequest, "invalid_grant", `Invalid "code" in request.`)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": token, "token_type": "Bearer", "expires_in": int(AccessTokenLife / time.Second),
		"refresh_token": secretToken(24), "scope": "identify",
	})
}

// bearerMe answers GET /users/@me for an OAuth2 access token; it reports
// false when the request carries none (a bot's call).
func (s *Server) bearerMe(w http.ResponseWriter, r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	g, _ := lookup(s, s.oauth.tokens, token)
	if g == nil || time.Now().After(g.expires) {
		s.fail(w, r, http.StatusUnauthorized, 0, "401: Unauthorized", nil, "")
		return true
	}
	u := g.user
	var global any
	if u.GlobalName != "" {
		global = u.GlobalName
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": u.ID, "username": u.Username, "discriminator": "0", "global_name": global, "avatar": nil,
		"public_flags": 0, "flags": 0, "mfa_enabled": false, "locale": u.Locale, "premium_type": 0,
	})
	return true
}

// getActivityInstance answers an instance of the application's Activity,
// or 404 as Discord does for one not running.
func (s *Server) getActivityInstance(w http.ResponseWriter, r *http.Request) {
	// An instance is never modified: it is read without the lock.
	snap, _ := lookup(s, s.oauth.instances, r.PathValue("instance"))
	if snap == nil || r.PathValue("app") != s.opts.AppID {
		s.fail(w, r, http.StatusNotFound, 0, "404: Not Found", nil, "")
		return
	}
	loc := map[string]any{"kind": "gc", "channel_id": snap.Channel}
	if snap.Guild != "" {
		loc["id"], loc["guild_id"] = "gc-"+snap.Guild+"-"+snap.Channel, snap.Guild
	} else {
		loc["id"], loc["kind"] = "pc-"+snap.Channel, "pc"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"application_id": s.opts.AppID, "instance_id": snap.id, "launch_id": snap.launch, "location": loc, "users": orEmpty(snap.Users),
	})
}

// DenyChannel takes from the bot the permission to post in channel: its
// messages there are answered 403, code 50013, each recorded as a
// FaultMissingPermissions (Faults), not as a Failure.
func (s *Server) DenyChannel(channel string) { s.locked(func() { s.oauth.denied[channel] = true }) }

// postChannelMessage posts a message of the bot's in a channel, checked as
// a webhook's message is (content, embeds, components, flags).
func (s *Server) postChannelMessage(w http.ResponseWriter, r *http.Request) {
	denied := false
	s.locked(func() {
		if denied = s.oauth.denied[r.PathValue("channel")]; denied {
			s.recordFaultLocked(InjectedFault{Kind: FaultMissingPermissions, Method: r.Method, Route: "POST /channels/{channel}/messages", Path: r.URL.Path, Status: http.StatusForbidden})
		}
	})
	if denied {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Missing Permissions", "code": 50013})
		return
	}
	patch, ok := s.readMessage(w, r, "", 0)
	if !ok {
		return
	}
	if emptyAfter(message{}, patch) {
		s.fail(w, r, http.StatusBadRequest, 50006, "Cannot send an empty message", nil, "")
		return
	}
	m := &message{channel: r.PathValue("channel"), created: time.Now()}
	m.apply(patch)
	s.mu.Lock()
	m.id = s.snowflake()
	for _, in := range s.oauth.instances {
		if in.Channel == m.channel {
			m.guild = in.Guild
		}
	}
	s.registerLocked(m)
	s.messages[m.id] = m
	snap := *m
	s.mu.Unlock()
	s.log.Info("channel message", "channel", snap.channel, "message", snap.id)
	writeJSON(w, http.StatusOK, s.wire(snap))
}

// controlActivity serves the control API's Activity routes.
func (s *Server) controlActivity(mux *http.ServeMux) {
	handleJSON(mux, "POST /_fake/activity", func(a Activity) (any, error) {
		if a.Channel == "" {
			return nil, errors.New(`want {"guild", "channel", "users"}`)
		}
		return map[string]string{"instance_id": s.StartActivity(a)}, nil
	})
	handleJSON(mux, "POST /_fake/authorize", func(u OAuthUser) (any, error) {
		if u.ID == "" {
			return nil, errors.New(`want {"user", "username", "locale"}`)
		}
		return map[string]string{"code": s.Authorize(u)}, nil
	})
}
