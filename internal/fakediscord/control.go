package fakediscord

import (
	"bytes"
	"context"
	_ "embed"
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
//
//go:embed control.txt
var ControlAPI string

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
