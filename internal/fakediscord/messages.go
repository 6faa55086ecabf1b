package fakediscord

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bwmarrin/discordgo"
)

// message is a message in the fake's store: a response or follow-up of an
// interaction. Its fields are guarded by Server.mu; a copy of it (a
// snapshot, see wire) may be read without the lock, since nothing it refers
// to is modified in place: apply and the edits replace the raw JSON and the
// edited time, they never write into them, and the fields of its interaction
// that wire reads are set before the interaction is published.
type message struct {
	id, channel, guild string
	typ                int // 0 default, 19 reply, 20 chat input command
	content            string
	embeds             json.RawMessage // nil: none
	components         json.RawMessage // nil: none
	hasEmbeds          bool            // embeds is a non-empty array
	hasComponents      bool            // components is a non-empty array
	flags              int
	attachments        []*attachment // replaced, never written into, by apply
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
		m.embeds, m.hasEmbeds = p.embeds, p.hasEmbeds
	}
	if p.setComponents {
		m.components, m.hasComponents = p.components, p.hasComponents
	}
	if p.setKept || len(p.files) > 0 {
		// A new slice: snapshots share the old one.
		var next []*attachment
		for _, a := range m.attachments {
			if !p.setKept || slices.Contains(p.kept, a.id) {
				next = append(next, a)
			}
		}
		// Without an ID until Server.registerLocked gives them one.
		for _, f := range p.files {
			next = append(next, &attachment{filename: f.filename, contentType: f.contentType, data: f.data})
		}
		m.attachments = next
	}
}

func emptyArray(raw json.RawMessage) bool {
	var a []json.RawMessage
	return isNull(raw) || (json.Unmarshal(raw, &a) == nil && len(a) == 0)
}

// empty reports whether the message shows nothing (Discord refuses that).
// It decodes nothing: parseMessage found out whether the arrays are empty.
func (m *message) empty() bool {
	return m.content == "" && !m.hasEmbeds && !m.hasComponents && len(m.attachments) == 0
}

// emptyAfter reports whether m, once p is applied, shows nothing.
func emptyAfter(m message, p msgPatch) bool {
	m.apply(p)
	return m.empty()
}

// orArray is raw, or [] for null.
func orArray(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return json.RawMessage("[]")
	}
	return raw
}

// wire is the message as Discord's JSON. m is a snapshot (a copy taken
// under s.mu): wire runs without the lock.
func (s *Server) wire(m message) map[string]any {
	attachments := []any{}
	for _, a := range m.attachments {
		attachments = append(attachments, s.attachmentWire(a))
	}
	w := map[string]any{
		"id": m.id, "type": m.typ, "channel_id": m.channel, "content": m.content,
		"embeds": orArray(m.embeds), "components": orArray(m.components), "flags": m.flags,
		"author": s.botUser(), "attachments": attachments, "mentions": []any{}, "mention_roles": []any{},
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

// toDiscordgo converts a snapshot of a message for tests, without s.mu, to
// what discordgo decodes from wire(m): the embeds and components are
// decoded by discordgo from their JSON, the rest is set directly, which
// spares encoding the whole message and decoding it again (most of the
// cost of Pending.Wait). TestToDiscordgo holds it to the round trip.
func (s *Server) toDiscordgo(m message) *discordgo.Message {
	ts := func(t time.Time) (time.Time, error) {
		// As encoding/json decodes what wire encodes.
		return time.Parse(time.RFC3339, t.UTC().Format("2006-01-02T15:04:05.000000+00:00"))
	}
	created, err := ts(m.created)
	if err != nil {
		return nil
	}
	out := &discordgo.Message{
		ID: m.id, ChannelID: m.channel, GuildID: m.guild, Content: m.content,
		Timestamp: created, Type: discordgo.MessageType(m.typ), Flags: discordgo.MessageFlags(m.flags),
		Author: &discordgo.User{
			ID: s.botID, Username: botName, Discriminator: "0", Bot: true, Verified: true,
		},
		Attachments: []*discordgo.MessageAttachment{}, Mentions: []*discordgo.User{}, MentionRoles: []string{},
		Embeds: []*discordgo.MessageEmbed{}, Components: []discordgo.MessageComponent{},
		WebhookID: s.opts.AppID,
	}
	for _, a := range m.attachments {
		out.Attachments = append(out.Attachments, s.attachmentDiscordgo(a))
	}
	if m.edited != nil {
		edited, err := ts(*m.edited)
		if err != nil {
			return nil
		}
		out.EditedTimestamp = &edited
	}
	// The embeds and components as discordgo decodes them, in one message.
	var parts discordgo.Message
	if json.Unmarshal(fmt.Appendf(nil, `{"embeds":%s,"components":%s}`, orArray(m.embeds), orArray(m.components)), &parts) != nil {
		return nil
	}
	out.Embeds, out.Components = parts.Embeds, parts.Components
	if in := m.interaction; in != nil {
		user := func() *discordgo.User {
			return &discordgo.User{ID: in.user, Username: in.username, Discriminator: "0", GlobalName: in.username}
		}
		out.Interaction = &discordgo.MessageInteraction{ID: in.id, Type: in.kind, Name: in.name, User: user()}
		meta := &discordgo.MessageInteractionMetadata{
			ID: in.id, Type: in.kind, User: user(),
			AuthorizingIntegrationOwners: map[discordgo.ApplicationIntegrationType]string{},
		}
		if in.guild != "" {
			meta.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall] = in.guild
		} else {
			meta.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationUserInstall] = in.user
		}
		if in.source != nil {
			meta.InteractedMessageID = in.source.id
		}
		out.InteractionMetadata = meta
	}
	return out
}

// Message returns a message by ID, as the bot last left it.
func (s *Server) Message(id string) (*discordgo.Message, bool) {
	s.mu.Lock()
	m, ok := s.messages[id]
	if !ok || m.deleted {
		s.mu.Unlock()
		return nil, false
	}
	snap := *m
	s.mu.Unlock()
	return s.toDiscordgo(snap), true
}

// Messages returns the messages of a channel, oldest first.
func (s *Server) Messages(channel string) []*discordgo.Message {
	s.mu.Lock()
	var snaps []message
	for _, m := range s.messages {
		if m.channel == channel && !m.deleted {
			snaps = append(snaps, *m)
		}
	}
	s.mu.Unlock()
	// Snowflakes of equal length sort by time.
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].id < snaps[j].id })
	var out []*discordgo.Message
	for _, m := range snaps {
		out = append(out, s.toDiscordgo(m))
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
	s.registerLocked(m)
	s.messages[m.id] = m
	return m
}
