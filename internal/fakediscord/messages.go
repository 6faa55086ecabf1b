package fakediscord

import (
	"encoding/json"
	"time"

	"github.com/bwmarrin/discordgo"
)

// message is a message in the fake's store: a response or follow-up of an
// interaction.
type message struct {
	id, channel, guild string
	typ                int // 0 default, 19 reply, 20 chat input command
	content            string
	embeds             json.RawMessage // nil: none
	components         json.RawMessage // nil: none
	flags              int
	created            time.Time
	edited             *time.Time
	interaction        *interaction // the interaction whose response or follow-up it is
	deleted            bool
}

// apply sets the present fields of p.
func (m *message) apply(p msgPatch) {
	if p.content != nil {
		m.content = *p.content
	}
	if p.setEmbeds {
		m.embeds = p.embeds
	}
	if p.setComponents {
		m.components = p.components
	}
}

func emptyArray(raw json.RawMessage) bool {
	var a []json.RawMessage
	return isNull(raw) || (json.Unmarshal(raw, &a) == nil && len(a) == 0)
}

// empty reports whether the message shows nothing (Discord refuses that).
func (m *message) empty() bool {
	return m.content == "" && emptyArray(m.embeds) && emptyArray(m.components)
}

// wire is the message as Discord's JSON.
func (s *Server) wireLocked(m *message) map[string]any {
	arr := func(raw json.RawMessage) any {
		if isNull(raw) {
			return []any{}
		}
		return raw
	}
	w := map[string]any{
		"id": m.id, "type": m.typ, "channel_id": m.channel, "content": m.content,
		"embeds": arr(m.embeds), "components": arr(m.components), "flags": m.flags,
		"author": s.botUser(), "attachments": []any{}, "mentions": []any{}, "mention_roles": []any{},
		"mention_everyone": false, "pinned": false, "tts": false,
		"timestamp":        m.created.UTC().Format("2006-01-02T15:04:05.000000+00:00"),
		"edited_timestamp": nil, "application_id": s.opts.AppID, "webhook_id": s.opts.AppID,
		"position": 0,
	}
	if m.guild != "" {
		w["guild_id"] = m.guild
	}
	if m.edited != nil {
		w["edited_timestamp"] = m.edited.UTC().Format("2006-01-02T15:04:05.000000+00:00")
	}
	if in := m.interaction; in != nil {
		user := in.userJSON()
		w["interaction"] = map[string]any{"id": in.id, "type": in.kind, "name": in.name, "user": user}
		meta := map[string]any{
			"id": in.id, "type": in.kind, "user": user,
			"authorizing_integration_owners": in.owners(),
		}
		if in.source != nil {
			meta["interacted_message_id"] = in.source.id
		}
		w["interaction_metadata"] = meta
	}
	return w
}

// toDiscordgo converts the message for tests, through its JSON.
func (s *Server) toDiscordgoLocked(m *message) *discordgo.Message {
	b, err := json.Marshal(s.wireLocked(m))
	if err != nil {
		return nil
	}
	var out discordgo.Message
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return &out
}

// Message returns a message by ID, as the bot last left it.
func (s *Server) Message(id string) (*discordgo.Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[id]
	if !ok || m.deleted {
		return nil, false
	}
	return s.toDiscordgoLocked(m), true
}

// Messages returns the messages of a channel, oldest first.
func (s *Server) Messages(channel string) []*discordgo.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*discordgo.Message
	for _, id := range sortedKeys(s.messages) { // snowflakes of equal length sort by time
		m := s.messages[id]
		if m.channel == channel && !m.deleted {
			out = append(out, s.toDiscordgoLocked(m))
		}
	}
	return out
}

// newMessageLocked stores a new message of in.
func (s *Server) newMessageLocked(in *interaction, p msgPatch, typ int) *message {
	m := &message{
		id: s.snowflake(), channel: in.channel, guild: in.guild, typ: typ,
		created: time.Now(), interaction: in, flags: p.flags,
	}
	m.apply(p)
	s.messages[m.id] = m
	return m
}
