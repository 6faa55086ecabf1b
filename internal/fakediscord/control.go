package fakediscord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// ControlAPI is the reference of the control API, as `fakediscord -h`
// prints it and GET /_fake/ serves it.
const ControlAPI = `Control API: under /_fake/ on the fake's URL (BASE below), JSON in and out.

  POST /_fake/slash                a user runs a slash command → the bot's response
  POST /_fake/click                a user presses a button → the bot's response
  GET  /_fake/commands?guild=ID    the commands registered for a guild (no guild: global)
  GET  /_fake/messages?channel=ID  a channel's messages, oldest first
  GET  /_fake/failures             refused calls, missed deadlines, failed endpoint replies
  GET  /_fake/identifies           the gateway IDENTIFYs (tokens redacted)
  GET  /_fake/endpoint             the interactions endpoint ("" = gateway) and public key
  PUT  /_fake/endpoint             {"url": URL}: check it as the Developer Portal does
                                   (PING, bad signature → 401), then send interactions
                                   there; {"url": ""}: back to the gateway
  POST /_fake/activity             {"guild", "channel", "users"}: a user launches the
                                   Activity there → {"instance_id"}
  POST /_fake/authorize            {"user", "username", "locale"}: the Discord client's
                                   AUTHORIZE → {"code"}, for POST /oauth2/token
  GET  /_fake/                     this reference

Faults (see "Faults" below):
  POST   /_fake/faults             a Fault rule → {"id", "fault", "left"}
  GET    /_fake/faults             {"rules": [...], "injected": [...]}: the active rules
                                   and every fault injected so far
  DELETE /_fake/faults             remove every rule, end the global 429 window,
                                   the chaos and withheld heartbeat ACKs
  DELETE /_fake/faults/ID          remove one rule
  PUT    /_fake/global-rate-limit  {"duration": 1.5}: every REST call answers a global
                                   429 until then (0 ends it)
  PUT    /_fake/chaos              a Chaos: random faults on a fraction of REST calls
  DELETE /_fake/chaos              end it
  POST   /_fake/gateway            {"action": "reconnect"} op 7; {"action":
                                   "invalid_session", "resumable": true|false} op 9;
                                   {"action": "drop"} close the connections abruptly;
                                   {"action": "withhold_acks", "duration": 10} no op 11
  GET    /_fake/resumes            the gateway RESUMEs (with GET /_fake/identifies:
                                   resumed or identified again)

Slash body (name and user are required):
  name          the command, e.g. "play"
  user          the user's ID, e.g. "42"
  guild         the guild's ID; leave it out (or "") for a DM with the bot
  channel       the channel's ID; left out: a new one for each call
  username      the user's name; left out: "user" and the ID
  locale        the user's language, e.g. "fr", "en-US" (the default)
  guild_locale  the guild's preferred language, e.g. "fr" (default "en-US")
  perms         the member's permissions in the channel: "member" (the default:
                view, send, embed, history, react, use commands), "moderator"
                (adds Manage Server), "admin" (Administrator), or the bits as a
                number (32) or a string ("32")
  subcommand    the subcommand, e.g. "grant" (or "sub")
  group         the subcommand group, if any (or "subcommand_group")
  options       name → value, e.g. {"user": "42", "amount": "500"}; or a list
                [{"name": "user", "value": "42"}]. Values are checked against the
                registered command: a string option takes a string, an integer or
                number option a number, a boolean one true or false, a user,
                channel, role or mentionable one an ID (a string)
  bypass        true: skip the command's default_member_permissions and
                contexts, as a server's override does (the bot must check again)

Click body (message, custom_id and user are required):
  message       the message's ID: "message": {"id"} of an earlier answer
  custom_id     the button's custom_id: one of "message": {"buttons"}
  user, username, locale, guild_locale, perms: as for slash. The guild and
  the channel are the message's.

Answer of slash and click (it waits up to 10 s for the bot; after a deferral,
for its first edit or follow-up):
  {"interaction": "ID", "type": 4, "ephemeral": false, "latency_ms": 12, "edits": 0,
   "message": {"id": "...", "channel_id": "...", "content": "...", "embeds": [...],
               "buttons": [{"custom_id": "...", "label": "...", "emoji": "...", "row": 0}]},
   "follow_ups": [{"id": "...", "content": "...", "embeds": [...], "buttons": [...]}]}
  type: 4 message, 5 deferred message, 6 deferred update, 7 update.
Errors answer {"error": "..."}: 400 a user could not do that (unknown command,
missing permission, options that do not match) or a bad body; 502 the bot did
not answer in time or its endpoint failed; 503 no gateway connection for the
guild's shard.

Fault body (kind is required; durations are seconds, 1.234, or "1.5s"):
  kind          rate_limit (429 on the call's bucket, enforced: a call of that
                bucket before retry_after is a failure "retried before
                retry_after"), global_rate_limit (429 "global": true, enforced on
                every bucket), rate_limit_no_retry_after, rate_limit_negative,
                rate_limit_huge (1e9 s), rate_limit_not_json,
                rate_limit_bad_reset_after (the malformed 429s, not enforced),
                server_error (HTML body), slow (answer after delay), reset
                (close the connection, no answer), token_expired (401, 50027)
  route         "METHOD /template" after /api/v10, e.g.
                "POST /interactions/{id}/{token}/callback",
                "PATCH /webhooks/{app}/{token}/messages/@original",
                "POST /webhooks/{app}/{token}"; left out: every route
  bucket        an X-RateLimit-Bucket value; interaction: an interaction's ID
                (its callback, edits and follow-ups)
  count         the next N matching calls (default 1; with fraction: unlimited)
  fraction      each matching call with this probability (seeded: -seed)
  retry_after   of a 429 (default 1); scope: "user" (default) or "shared"
  status        of server_error: 500, 502 (default), 503, 504
  delay         of slow (required)
  after         true: process the call first, then fail it (server_error, slow,
                reset): the call took effect, the client sees the failure; a
                retried callback then gets 40060. Default false: before, nothing
                done.
Injected faults are not failures. A 40060, 10062 or 50027 of an interaction
that had an injected fault is listed as a "consequence" fault, not a failure.
Past its life (-token-life, default 15m) a token's edits and follow-ups get
401 Invalid Webhook Token (50027); past -ack (default 3s) a callback
gets 404 Unknown interaction (10062): both failures of the bot.

Chaos body: {"fraction": 0.1, "seed": 1, "kinds": ["rate_limit",
  "global_rate_limit", "server_error", "slow", "reset"] (the default),
  "retry_after": 0.5, "delay": 2, "after": 0.5 (the share of server_error, slow
  and reset after processing; default 0), "gateway_drops": 3, "gateway_every": 5
  (drop the gateway connections 3 times, every 5 s, alternately abruptly and
  by op 7)}

Examples:
  # /play
  curl -s $BASE/_fake/slash -d '{"guild":"1000","user":"42","name":"play"}'
  # /admin grant user:42 amount:500 by a moderator
  curl -s $BASE/_fake/slash -d '{"guild":"1000","user":"7","perms":"moderator",
    "name":"admin","subcommand":"grant","options":{"user":"42","amount":"500"}}'
  # press a button of an answer
  curl -s $BASE/_fake/click -d '{"message":"MESSAGE_ID","custom_id":"CUSTOM_ID","user":"42"}'
  # what went wrong
  curl -s $BASE/_fake/failures
  # the next 2 callbacks answer 429 for 1.5 s; then every edit of @original 502
  curl -s $BASE/_fake/faults -d '{"kind":"rate_limit","route":"POST /interactions/{id}/{token}/callback","count":2,"retry_after":1.5}'
  curl -s $BASE/_fake/faults -d '{"kind":"server_error","status":502,"route":"PATCH /webhooks/{app}/{token}/messages/@original","fraction":1}'
  # a callback that takes effect but is answered 2.5 s late
  curl -s $BASE/_fake/faults -d '{"kind":"slow","delay":2.5,"after":true,"route":"POST /interactions/{id}/{token}/callback"}'
  # 10% chaos, seeded
  curl -s -X PUT $BASE/_fake/chaos -d '{"fraction":0.1,"seed":7}'
`

var permNames = map[string]int64{"": 0, "member": PermsMember, "everyone": PermsMember,
	"moderator": PermsModerator, "mod": PermsModerator, "admin": PermsAdmin, "administrator": PermsAdmin}

// parsePerms reads the perms of the control API: absent or null (0, the
// default), a number, a decimal string, or "member", "moderator", "admin".
func parsePerms(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	text := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, err
		}
		if p, ok := permNames[strings.ToLower(strings.TrimSpace(text))]; ok {
			return p, nil
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf(`perms: want "member", "moderator", "admin" or the permission bits as a number; got %s`, raw)
	}
	return n, nil
}

// parseOptions reads the options of the control API: an object of name →
// value, in its order, or a list of {"name", "value"}. Numbers keep all
// their digits (json.Number), so that an ID given as a number survives.
func parseOptions(raw json.RawMessage) ([]Opt, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	switch raw[0] {
	case '[':
		var opts []Opt
		if err := dec.Decode(&opts); err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		return opts, nil
	case '{':
		_, _ = dec.Token() // {
		var opts []Opt
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("options: %w", err)
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("options: %w", err)
			}
			opts = append(opts, Opt{Name: key.(string), Value: v})
		}
		return opts, nil
	}
	return nil, fmt.Errorf(`options: want an object {"name": value} or a list [{"name", "value"}], got %s`, truncate(string(raw), 40))
}

// decodeStrict decodes b into v and refuses unknown fields, so that a typo
// in a control body is an error rather than an ignored field.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// UnmarshalJSON reads a Slash as the control API takes it (see ControlAPI):
// perms as a number, a string or a name, "subcommand" or "sub",
// "subcommand_group" or "group", options as an object or a list. Unknown
// fields are an error.
func (sl *Slash) UnmarshalJSON(b []byte) error {
	type plain Slash
	var aux struct {
		*plain
		Perms           json.RawMessage `json:"perms"`
		Options         json.RawMessage `json:"options"`
		Subcommand      string          `json:"subcommand"`
		SubcommandGroup string          `json:"subcommand_group"`
	}
	aux.plain = (*plain)(sl)
	if err := decodeStrict(b, &aux); err != nil {
		return err
	}
	var err error
	if sl.Perms, err = parsePerms(aux.Perms); err != nil {
		return err
	}
	if sl.Options, err = parseOptions(aux.Options); err != nil {
		return err
	}
	for _, alias := range []struct {
		field *string
		name  string
		value string
	}{{&sl.Sub, "subcommand", aux.Subcommand}, {&sl.Group, "subcommand_group", aux.SubcommandGroup}} {
		switch {
		case alias.value == "":
		case *alias.field != "" && *alias.field != alias.value:
			return fmt.Errorf("%s %q contradicts its short form %q", alias.name, alias.value, *alias.field)
		default:
			*alias.field = alias.value
		}
	}
	return nil
}

// UnmarshalJSON reads a Click as the control API takes it: perms as a
// number, a string or a name. Unknown fields are an error.
func (c *Click) UnmarshalJSON(b []byte) error {
	type plain Click
	var aux struct {
		*plain
		Perms json.RawMessage `json:"perms"`
	}
	aux.plain = (*plain)(c)
	if err := decodeStrict(b, &aux); err != nil {
		return err
	}
	var err error
	c.Perms, err = parsePerms(aux.Perms)
	return err
}

// ControlHandler serves the control API a person uses to drive the bot by
// hand (mounted under /_fake/ with Options.Control); ControlAPI is its
// reference.
func (s *Server) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, p *Pending, err error, r *http.Request) {
		if err != nil {
			if errors.Is(err, ErrNoGateway) || errors.Is(err, ErrClosed) {
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			} else {
				badRequest(w, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		resp, err := p.Wait(ctx)
		if err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error(), "interaction": p.ID()})
			return
		}
		writeJSON(w, http.StatusOK, controlResponse(p.ID(), resp))
	}
	mux.HandleFunc("GET /_fake/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, ControlAPI)
	})
	mux.HandleFunc("POST /_fake/slash", func(w http.ResponseWriter, r *http.Request) {
		var sl Slash
		if decodeBody(w, r, &sl) {
			p, err := s.Slash(r.Context(), sl)
			reply(w, p, err, r)
		}
	})
	mux.HandleFunc("POST /_fake/click", func(w http.ResponseWriter, r *http.Request) {
		var c Click
		if decodeBody(w, r, &c) {
			p, err := s.Click(r.Context(), c)
			reply(w, p, err, r)
		}
	})
	endpoint := func() map[string]string {
		return map[string]string{"url": s.InteractionsURL(), "public_key": s.PublicKeyHex()}
	}
	answer(mux, "GET /_fake/endpoint", func(r *http.Request) any { return endpoint() })
	mux.HandleFunc("PUT /_fake/endpoint", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			URL string `json:"url"`
		}
		if !decodeBody(w, r, &body) {
			return
		}
		if body.URL != "" {
			if err := s.ping(r.Context(), body.URL); err != nil {
				badRequest(w, err)
				return
			}
		}
		s.SetInteractionsURL(body.URL)
		writeJSON(w, http.StatusOK, endpoint())
	})
	answer(mux, "GET /_fake/commands", func(r *http.Request) any { return orEmpty(s.Commands(r.URL.Query().Get("guild"))) })
	answer(mux, "GET /_fake/messages", func(r *http.Request) any { return orEmpty(s.Messages(r.URL.Query().Get("channel"))) })
	answer(mux, "GET /_fake/failures", func(r *http.Request) any { return orEmpty(s.Failures()) })
	answer(mux, "GET /_fake/identifies", func(r *http.Request) any {
		ids := orEmpty(s.Identifies())
		for i := range ids {
			ids[i].Token = "[redacted]"
		}
		return ids
	})
	s.controlFaults(mux)
	s.controlActivity(mux)
	return mux
}

// orEmpty is list, or an empty list rather than nil (JSON [], not null).
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// badRequest answers the control API's 400 {"error"}.
func badRequest(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
}

// decodeBody decodes a control body (≤ 1 MiB) into v, refusing unknown
// fields; on an error it answers 400 and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = decodeStrict(b, v)
	}
	if err != nil {
		badRequest(w, fmt.Errorf("bad JSON: %w", err))
	}
	return err == nil
}

// answer serves pattern on mux with f's result as JSON.
func answer(mux *http.ServeMux, pattern string, f func(r *http.Request) any) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, f(r)) })
}

// handleJSON serves pattern on mux: the body decoded strictly into a T
// (decodeBody), then do's result as JSON, or its error as a 400.
func handleJSON[T any](mux *http.ServeMux, pattern string, do func(T) (any, error)) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		var v T
		if !decodeBody(w, r, &v) {
			return
		}
		if out, err := do(v); err != nil {
			badRequest(w, err)
		} else {
			writeJSON(w, http.StatusOK, out)
		}
	})
}

// controlResponse is the JSON the control API answers: the response, and
// the buttons of the message flattened for a person to pick a custom_id.
func controlResponse(id string, r Response) map[string]any {
	out := map[string]any{
		"interaction": id, "type": int(r.Type), "ephemeral": r.Ephemeral,
		"latency_ms": r.Latency.Milliseconds(), "edits": r.Edits,
	}
	if m := r.Message; m != nil {
		out["message"] = map[string]any{
			"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "embeds": m.Embeds,
			"buttons": Buttons(m),
		}
	}
	if len(r.FollowUps) > 0 {
		var fs []map[string]any
		for _, m := range r.FollowUps {
			fs = append(fs, map[string]any{"id": m.ID, "content": m.Content, "embeds": m.Embeds, "buttons": Buttons(m)})
		}
		out["follow_ups"] = fs
	}
	return out
}

// Button is a button of a message, flattened.
type Button struct {
	CustomID string `json:"custom_id"`
	Label    string `json:"label"`
	Emoji    string `json:"emoji,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Row      int    `json:"row"`
}

// Buttons lists the buttons of a message, row by row.
func Buttons(m *discordgo.Message) []Button {
	var out []Button
	for i, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, rc := range row.Components {
			b, ok := rc.(*discordgo.Button)
			if !ok {
				continue
			}
			e := ""
			if b.Emoji != nil {
				e = b.Emoji.Name
			}
			out = append(out, Button{CustomID: b.CustomID, Label: b.Label, Emoji: e, Disabled: b.Disabled, Row: i})
		}
	}
	return out
}
