package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/wire"
)

// Fixed parts of the simulated Discord payloads. The shapes follow what
// Discord sends for INTERACTION_CREATE (application command and message
// component) so that unmarshalling costs what it costs in production.
const (
	appID       = "1200000000000000001"
	commandID   = "1200000000000000002"
	botUserJSON = `{"id":"` + appID + `","username":"Les Clefs du Trésor","discriminator":"0","global_name":null,"avatar":null,"bot":true}`
	timestamp   = "2025-01-01T12:00:00.000000+00:00"
	// permissions of an ordinary member (no Manage Server).
	memberPerms = "2222085186637376"
	appPerms    = "2248473465835073"
)

// payloads builds the interaction JSON of one simulated player. It reuses
// its buffer: the bytes returned are valid until the next call.
type payloads struct {
	guild, channel, user string
	locale               string
	command              string
	seq                  uint64 // interaction counter, for ids and tokens
	buf                  []byte
}

func (p *payloads) head(typ int) {
	p.seq++
	b := p.buf[:0]
	b = append(b, `{"id":"`...)
	b = strconv.AppendUint(b, 1300000000000000000+p.seq, 10)
	b = append(b, `","application_id":"`+appID+`","type":`...)
	b = strconv.AppendInt(b, int64(typ), 10)
	p.buf = b
}

func (p *payloads) tail() []byte {
	b := p.buf
	b = append(b, `,"guild_id":"`...)
	b = append(b, p.guild...)
	b = append(b, `","channel_id":"`...)
	b = append(b, p.channel...)
	b = append(b, `","channel":{"id":"`...)
	b = append(b, p.channel...)
	b = append(b, `","type":0,"guild_id":"`...)
	b = append(b, p.guild...)
	b = append(b, `","name":"jeux","nsfw":false,"position":3,"permissions":"`+appPerms+`"}`...)
	b = append(b, `,"member":{"user":{"id":"`...)
	b = append(b, p.user...)
	b = append(b, `","username":"player`...)
	b = append(b, p.user...)
	b = append(b, `","discriminator":"0","global_name":"Player","avatar":null,"public_flags":0},"roles":[],"joined_at":"`+timestamp+`","premium_since":null,"deaf":false,"mute":false,"pending":false,"flags":0,"nick":null,"avatar":null,"permissions":"`+memberPerms+`"}`...)
	b = append(b, `,"locale":"`...)
	b = append(b, p.locale...)
	b = append(b, `","guild_locale":"en-US","token":"aW50ZXJhY3Rpb246`...)
	b = strconv.AppendUint(b, p.seq, 36)
	b = append(b, p.user...)
	b = append(b, `","version":1,"app_permissions":"`+appPerms+`","entitlements":[],"authorizing_integration_owners":{"0":"`...)
	b = append(b, p.guild...)
	b = append(b, `"},"context":0}`...)
	p.buf = b
	return b
}

// slash returns the payload of the slash command /<command> with no option.
func (p *payloads) slash() []byte {
	p.head(int(discordgo.InteractionApplicationCommand))
	p.buf = append(p.buf, `,"data":{"id":"`+commandID+`","name":"`...)
	p.buf = append(p.buf, p.command...)
	p.buf = append(p.buf, `","type":1,"guild_id":"`...)
	p.buf = append(p.buf, p.guild...)
	p.buf = append(p.buf, `"}`...)
	return p.tail()
}

// click returns the payload of a click on the button customID of message
// msg (the message JSON as Discord would send it).
func (p *payloads) click(customID string, msg []byte) []byte {
	p.head(int(discordgo.InteractionMessageComponent))
	p.buf = append(p.buf, `,"data":{"custom_id":`...)
	p.buf = appendJSONString(p.buf, customID)
	p.buf = append(p.buf, `,"component_type":2},"message":`...)
	p.buf = append(p.buf, msg...)
	return p.tail()
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	if !needsEscape(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			return true
		}
	}
	return false
}

// recorder is the Responder of the load generator: it encodes every
// response to JSON as the bot's responder does (package wire for the
// answer and its edits, discordgo's marshalling for follow-ups), and keeps
// the last message shown
// (its Go value, for the buttons, and its JSON, for the next click's
// "message" field).
type recorder struct {
	mu       sync.Mutex
	typ      discordgo.InteractionResponseType // of the initial response; 0 if none
	data     *discordgo.InteractionResponseData
	edit     *discordgo.WebhookEdit
	body     []byte // JSON of the last edit
	resp     []byte // JSON of the initial response, if it had data
	followUp int
	edited   chan struct{}
	err      error
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.typ, r.data, r.edit, r.body, r.resp, r.followUp, r.err = 0, nil, nil, nil, nil, 0, nil
	if r.edited == nil {
		r.edited = make(chan struct{}, 1)
	}
	select { // drop a signal left by the previous interaction
	case <-r.edited:
	default:
	}
	r.mu.Unlock()
}

// Respond implements commands.Responder.
func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	b, err := wire.AppendResponse(make([]byte, 0, 2048), resp)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = fmt.Errorf("marshal response: %w", err)
		return r.err
	}
	if r.typ != 0 {
		r.err = fmt.Errorf("interaction answered twice (types %d and %d)", r.typ, resp.Type)
		return r.err
	}
	r.typ = resp.Type
	r.data = resp.Data
	if resp.Data != nil {
		r.resp = b // its "data" is found after the interaction is measured (see messageBody)
	}
	return nil
}

// EditOriginal implements commands.Responder.
func (r *recorder) EditOriginal(_ context.Context, _ *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	b, err := wire.AppendWebhookEdit(make([]byte, 0, 2048), e)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = fmt.Errorf("marshal edit: %w", err)
		return r.err
	}
	r.edit = e
	r.body = b
	select {
	case r.edited <- struct{}{}:
	default:
	}
	return nil
}

// FollowUp implements commands.Responder.
func (r *recorder) FollowUp(_ context.Context, _ *discordgo.Interaction, p *discordgo.WebhookParams) error {
	_, err := json.Marshal(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = fmt.Errorf("marshal follow-up: %w", err)
		return r.err
	}
	r.followUp++
	return nil
}

// deferred reports whether the initial response was a deferral still
// waiting for its edit.
func (r *recorder) deferred() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return (r.typ == discordgo.InteractionResponseDeferredChannelMessageWithSource ||
		r.typ == discordgo.InteractionResponseDeferredMessageUpdate) && r.edit == nil
}

// messageBody returns the JSON of the message the last response showed (an
// edit's, or the initial response's "data"), or nil.
func (r *recorder) messageBody() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.body != nil {
		return r.body
	}
	if r.resp != nil {
		return dataOf(r.resp)
	}
	return nil
}

// dataOf returns the "data" object of a marshalled InteractionResponse
// ({"type":N,"data":{...}}), or nil.
func dataOf(b []byte) []byte {
	const key = `"data":`
	i := bytes.Index(b, []byte(key))
	if i < 0 || len(b) < i+len(key)+2 || b[len(b)-1] != '}' {
		return nil
	}
	d := b[i+len(key) : len(b)-1]
	if len(d) == 0 || d[0] != '{' {
		return nil
	}
	return d
}

// components returns the components of the message shown last.
func (r *recorder) components() []discordgo.MessageComponent {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.edit != nil {
		if r.edit.Components != nil {
			return *r.edit.Components
		}
		return nil
	}
	if r.data != nil {
		return r.data.Components
	}
	return nil
}

// text returns a short description of the message shown last, for errors.
func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err.Error()
	}
	var content string
	var embeds []*discordgo.MessageEmbed
	switch {
	case r.edit != nil:
		if r.edit.Content != nil {
			content = *r.edit.Content
		}
		if r.edit.Embeds != nil {
			embeds = *r.edit.Embeds
		}
	case r.data != nil:
		content, embeds = r.data.Content, r.data.Embeds
	default:
		return fmt.Sprintf("no message (response type %d)", r.typ)
	}
	parts := []string{}
	if content != "" {
		parts = append(parts, content)
	}
	for _, e := range embeds {
		if e == nil {
			continue
		}
		if e.Title != "" {
			parts = append(parts, e.Title)
		}
		if e.Description != "" {
			parts = append(parts, e.Description)
		}
	}
	s := strings.Join(parts, " | ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// message builds the JSON of the message Discord would attach to a click
// on it: the fields Discord adds, then the response's data fields.
func message(b []byte, id uint64, channel string, body []byte) []byte {
	b = append(b, `{"id":"`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `","channel_id":"`...)
	b = append(b, channel...)
	b = append(b, `","type":20,"author":`+botUserJSON+`,"timestamp":"`+timestamp+`","edited_timestamp":null,"tts":false,"mention_everyone":false,"mentions":[],"mention_roles":[],"attachments":[],"pinned":false,"application_id":"`+appID+`"`...)
	body = bytes.TrimSpace(body)
	if len(body) > 2 && body[0] == '{' {
		b = append(b, ',')
		b = append(b, body[1:]...) // the data's fields and its closing brace
		return b
	}
	return append(b, '}')
}

// buttonKind tells what a button of the game's card does, as the load
// generator understands it.
type buttonKind int

const (
	buttonOther buttonKind = iota
	buttonAuto
	buttonChest
)

// classify tells a button's kind from its label, the way a player reads it
// (English and French labels).
func classify(b *discordgo.Button) buttonKind {
	l := strings.ToLower(b.Label)
	switch {
	case strings.Contains(l, "auto"):
		return buttonAuto
	case strings.Contains(l, "chest"), strings.Contains(l, "coffre"):
		return buttonChest
	}
	return buttonOther
}

// findButton returns the custom ID of the first enabled button of kind k.
func findButton(cs []discordgo.MessageComponent, k buttonKind) (string, bool) {
	for _, c := range cs {
		var inner []discordgo.MessageComponent
		switch row := c.(type) {
		case discordgo.ActionsRow:
			inner = row.Components
		case *discordgo.ActionsRow:
			if row != nil {
				inner = row.Components
			}
		case discordgo.Button:
			inner = []discordgo.MessageComponent{&row}
		case *discordgo.Button:
			inner = []discordgo.MessageComponent{row}
		}
		for _, ic := range inner {
			var b *discordgo.Button
			switch v := ic.(type) {
			case discordgo.Button:
				b = &v
			case *discordgo.Button:
				b = v
			}
			if b == nil || b.Disabled || b.CustomID == "" {
				continue
			}
			if classify(b) == k {
				return b.CustomID, true
			}
		}
	}
	return "", false
}

// buttonLabels lists the labels of the buttons shown, for error messages.
func buttonLabels(cs []discordgo.MessageComponent) []string {
	var out []string
	for _, c := range cs {
		var inner []discordgo.MessageComponent
		switch row := c.(type) {
		case discordgo.ActionsRow:
			inner = row.Components
		case *discordgo.ActionsRow:
			if row != nil {
				inner = row.Components
			}
		}
		for _, ic := range inner {
			switch v := ic.(type) {
			case discordgo.Button:
				out = append(out, v.Label)
			case *discordgo.Button:
				out = append(out, v.Label)
			}
		}
	}
	return out
}
