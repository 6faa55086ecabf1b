package fakediscord

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// ControlHandler serves the control API a person uses to drive the bot by
// hand (mounted under /_fake/ with Options.Control):
//
//	POST /_fake/slash    body: Slash as JSON    → the Response (waits ≤ 10 s)
//	POST /_fake/click    body: Click as JSON    → the Response (waits ≤ 10 s)
//	GET  /_fake/commands?guild=ID               → the registered commands
//	GET  /_fake/messages?channel=ID             → the channel's messages
//	GET  /_fake/failures                        → refused calls and missed deadlines
//	GET  /_fake/identifies                      → gateway IDENTIFYs
//
// Errors answer {"error": "..."} with status 400 (a user could not do
// that), 502 (the bot did not answer) or 503 (the bot is not connected).
func (s *Server) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, p *Pending, err error, r *http.Request) {
		if err != nil {
			status := http.StatusBadRequest
			if err == ErrNoGateway {
				status = http.StatusServiceUnavailable
			}
			writeJSON(w, status, map[string]string{"error": err.Error()})
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
	mux.HandleFunc("POST /_fake/slash", func(w http.ResponseWriter, r *http.Request) {
		var sl Slash
		if err := json.NewDecoder(r.Body).Decode(&sl); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad JSON: " + err.Error()})
			return
		}
		p, err := s.Slash(r.Context(), sl)
		reply(w, p, err, r)
	})
	mux.HandleFunc("POST /_fake/click", func(w http.ResponseWriter, r *http.Request) {
		var c Click
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad JSON: " + err.Error()})
			return
		}
		p, err := s.Click(r.Context(), c)
		reply(w, p, err, r)
	})
	mux.HandleFunc("GET /_fake/commands", func(w http.ResponseWriter, r *http.Request) {
		cmds := s.Commands(r.URL.Query().Get("guild"))
		if cmds == nil {
			cmds = []*discordgo.ApplicationCommand{}
		}
		writeJSON(w, http.StatusOK, cmds)
	})
	mux.HandleFunc("GET /_fake/messages", func(w http.ResponseWriter, r *http.Request) {
		msgs := s.Messages(r.URL.Query().Get("channel"))
		if msgs == nil {
			msgs = []*discordgo.Message{}
		}
		writeJSON(w, http.StatusOK, msgs)
	})
	mux.HandleFunc("GET /_fake/failures", func(w http.ResponseWriter, r *http.Request) {
		f := s.Failures()
		if f == nil {
			f = []Failure{}
		}
		writeJSON(w, http.StatusOK, f)
	})
	mux.HandleFunc("GET /_fake/identifies", func(w http.ResponseWriter, r *http.Request) {
		ids := s.Identifies()
		for i := range ids {
			ids[i].Token = "[redacted]"
		}
		if ids == nil {
			ids = []Identify{}
		}
		writeJSON(w, http.StatusOK, ids)
	})
	return mux
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
