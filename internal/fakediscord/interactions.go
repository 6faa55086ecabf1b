package fakediscord

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Errors of Slash, Click and Pending.Wait: what Discord's client would not
// let a user do, and what the bot or its endpoint failed to do.
var (
	ErrNoGateway      = errors.New("fakediscord: no gateway connection for this shard")
	ErrUnknownCommand = errors.New("fakediscord: no such command registered")
	ErrForbidden      = errors.New("fakediscord: the user may not use this command here")
	ErrBadOptions     = errors.New("fakediscord: options do not match the command")
	ErrNoSuchButton   = errors.New("fakediscord: no such enabled button on the message")
	ErrUnknownMessage = errors.New("fakediscord: unknown message")
	ErrNoCallback     = errors.New("fakediscord: the bot did not call back in time")
	// ErrClosed: the server is closed, nothing is dispatched any more.
	ErrClosed = errors.New("fakediscord: the server is closed")
	// ErrEndpoint is the error of Pending.Wait when the interactions
	// endpoint failed the interaction: a transport error, a non-2xx
	// status, or a reply the fake refused (see Server.Failures).
	ErrEndpoint = errors.New("fakediscord: the interactions endpoint failed the interaction")
)

// Opt is one option value of a slash command. Value is a string, bool,
// integer or float (an integer option takes an integer or an integral
// float; user, channel, role and mentionable options take the ID as a
// string or an integer).
type Opt struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Slash describes a user running a slash command. As JSON (the control
// API's body) it also takes perms as a number or a name, "subcommand" and
// "subcommand_group" for sub and group, and options as an object of name →
// value; see ControlAPI.
type Slash struct {
	Guild    string           `json:"guild"`   // "" for a DM
	Channel  string           `json:"channel"` // "" picks a channel ID
	User     string           `json:"user"`
	Username string           `json:"username"` // "" derives one from User
	Locale   discordgo.Locale `json:"locale"`   // "" = en-US
	// GuildLocale is the guild's preferred locale; "" = en-US.
	GuildLocale discordgo.Locale `json:"guild_locale"`
	// Perms are the member's permissions in the channel; 0 = PermsMember.
	Perms   int64  `json:"perms,string"`
	Name    string `json:"name"`
	Group   string `json:"group"` // subcommand group, if any
	Sub     string `json:"sub"`   // subcommand, if any
	Options []Opt  `json:"options"`
	// Bypass skips the checks of the command's default_member_permissions
	// and contexts, as if the server's settings let this user run it.
	Bypass bool `json:"bypass"`
}

// Click describes a user pressing a button of a message; the guild and the
// channel are the message's. As JSON it takes perms like Slash.
type Click struct {
	Message  string           `json:"message"`
	CustomID string           `json:"custom_id"`
	User     string           `json:"user"`
	Username string           `json:"username"` // "" derives one from User
	Locale   discordgo.Locale `json:"locale"`   // "" = en-US
	// GuildLocale is the guild's preferred locale; "" = en-US.
	GuildLocale discordgo.Locale `json:"guild_locale"`
	// Perms are the member's permissions in the channel; 0 = PermsMember.
	Perms int64 `json:"perms,string"`
}

// randomToken is an interaction's token, "interaction:" in base64 and
// random bytes as Discord's.
func randomToken() string { return "aW50ZXJhY3Rpb246" + secretToken(48) }

// secretToken is n random bytes, base64url: a token no one can guess.
func secretToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func defaultName(user string) string { return "user" + user }

// memberJSON is the member object of a guild interaction.
func memberJSON(user map[string]any, perms int64) map[string]any {
	return map[string]any{
		"user": user, "roles": []string{}, "joined_at": "2024-01-15T10:00:00.000000+00:00",
		"deaf": false, "mute": false, "flags": 0, "pending": false, "nick": nil, "avatar": nil,
		"premium_since": nil, "communication_disabled_until": nil, "unusual_dm_activity_until": nil,
		"permissions": strconv.FormatInt(perms, 10),
	}
}

// basePayload fills the fields every interaction has. It reads only fields
// of in set before it is published, and runs without s.mu.
func (s *Server) basePayload(in *interaction, perms int64, locale, guildLocale discordgo.Locale) map[string]any {
	locale = cmp.Or(locale, discordgo.EnglishUS)
	guildLocale = cmp.Or(guildLocale, discordgo.EnglishUS)
	perms = cmp.Or(perms, PermsMember)
	d := map[string]any{
		"id": in.id, "application_id": s.opts.AppID, "type": in.kind, "token": in.token, "version": 1,
		"channel_id": in.channel, "locale": locale, "entitlements": []any{},
		"authorizing_integration_owners": in.owners(),
		"app_permissions":                strconv.FormatInt(PermsMember|discordgo.PermissionAttachFiles, 10),
		"attachment_size_limit":          26214400,
	}
	user := in.userJSON()
	if in.guild != "" {
		d["guild_id"] = in.guild
		d["guild_locale"] = guildLocale
		d["guild"] = map[string]any{"id": in.guild, "locale": guildLocale, "features": []any{}}
		d["member"] = memberJSON(user, perms)
		d["channel"] = map[string]any{"id": in.channel, "type": 0, "guild_id": in.guild, "name": "general", "flags": 0, "permissions": strconv.FormatInt(perms, 10)}
		d["context"] = 0
	} else {
		d["user"] = user
		d["channel"] = map[string]any{"id": in.channel, "type": 1, "flags": 0, "recipients": []any{user}}
		d["context"] = 1
	}
	return d
}

// findCommandLocked finds the command a user in guild would run by name.
func (s *Server) findCommandLocked(guild, name string) (*discordgo.ApplicationCommand, string) {
	for _, g := range []string{guild, ""} {
		for _, c := range s.commands[g] {
			if c.Name == name && c.Type == discordgo.ChatApplicationCommand {
				return &c.ApplicationCommand, g
			}
		}
	}
	return nil, ""
}

// allowed applies default_member_permissions and contexts as Discord's client does.
func allowed(c *discordgo.ApplicationCommand, guild string, perms int64) bool {
	switch {
	case guild == "" && c.Contexts != nil:
		return slices.Contains(*c.Contexts, discordgo.InteractionContextBotDM)
	case guild == "":
		//lint:ignore SA1019 dm_permission is deprecated but Discord still honours it.
		return c.DMPermission == nil || *c.DMPermission
	case c.Contexts != nil && !slices.Contains(*c.Contexts, discordgo.InteractionContextGuild):
		return false
	}
	if c.DefaultMemberPermissions == nil || perms&discordgo.PermissionAdministrator != 0 {
		return true
	}
	need := *c.DefaultMemberPermissions
	return need != 0 && perms&need == need
}

// Slash dispatches a slash command to the bot, typed and checked against
// the registered definition, and returns at once.
func (s *Server) Slash(ctx context.Context, sl Slash) (*Pending, error) {
	if sl.User == "" {
		return nil, errors.New("fakediscord: Slash.User is required")
	}
	s.mu.Lock()
	cmd, cmdGuild := s.findCommandLocked(sl.Guild, sl.Name)
	s.mu.Unlock()
	// A registered command is replaced, never modified: it is read
	// without the lock.
	if cmd == nil {
		return nil, fmt.Errorf("%w: /%s in guild %q", ErrUnknownCommand, sl.Name, sl.Guild)
	}
	perms := cmp.Or(sl.Perms, PermsMember)
	if !sl.Bypass && !allowed(cmd, sl.Guild, perms) {
		return nil, fmt.Errorf("%w: /%s", ErrForbidden, sl.Name)
	}
	opts, resolved, err := buildOptions(cmd, sl)
	if err != nil {
		return nil, err
	}
	tok := randomToken()
	s.mu.Lock()
	in := s.newInteractionLocked(discordgo.InteractionApplicationCommand, sl.Guild, sl.Channel, sl.User, sl.Username, tok)
	in.name = sl.Name
	s.mu.Unlock()
	// in is not published before send: it is built without the lock.
	d := s.basePayload(in, sl.Perms, sl.Locale, sl.GuildLocale)
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": 1, "options": opts}
	if cmdGuild != "" {
		data["guild_id"] = cmdGuild
	}
	if len(resolved) > 0 {
		data["resolved"] = resolved
	}
	d["data"] = data
	return s.send(ctx, in, d)
}

// Click dispatches a button press on a message to the bot and returns at once.
func (s *Server) Click(ctx context.Context, c Click) (*Pending, error) {
	ps, err := s.ClickBurst(ctx, c, 1)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// ClickBurst presses the button n times at once, as a hasty user's client
// does: every press is checked against the message as it is now, before any
// answer can change it, then all are dispatched.
func (s *Server) ClickBurst(ctx context.Context, c Click, n int) ([]*Pending, error) {
	if c.User == "" {
		return nil, errors.New("fakediscord: Click.User is required")
	}
	if n < 1 {
		return nil, errors.New("fakediscord: ClickBurst needs n ≥ 1")
	}
	// The presses see the message as it is now: a snapshot, checked and
	// encoded without the lock.
	s.mu.Lock()
	m, ok := s.messages[c.Message]
	if !ok || m.deleted {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrUnknownMessage, c.Message)
	}
	snap := *m
	s.mu.Unlock()
	if snap.flags&flagEphemeral != 0 && snap.interaction != nil && snap.interaction.user != c.User {
		return nil, fmt.Errorf("%w: message %s is ephemeral, only its user sees it", ErrUnknownMessage, c.Message)
	}
	if !hasButton(snap.components, c.CustomID) {
		return nil, fmt.Errorf("%w: %q on message %s", ErrNoSuchButton, c.CustomID, c.Message)
	}
	toks := make([]string, n)
	for k := range toks {
		toks[k] = randomToken()
	}
	ins := make([]*interaction, n)
	s.mu.Lock()
	for k := range n {
		in := s.newInteractionLocked(discordgo.InteractionMessageComponent, snap.guild, snap.channel, c.User, c.Username, toks[k])
		in.source = m
		if snap.interaction != nil {
			in.name = snap.interaction.name
		}
		ins[k] = in
	}
	s.mu.Unlock()
	wire := s.wire(snap)
	payloads := make([]map[string]any, n)
	for k, in := range ins {
		d := s.basePayload(in, c.Perms, c.Locale, c.GuildLocale)
		d["data"] = map[string]any{"custom_id": c.CustomID, "component_type": int(discordgo.ButtonComponent)}
		d["message"] = wire
		payloads[k] = d
	}
	ps := make([]*Pending, n)
	for k := range n {
		p, err := s.send(ctx, ins[k], payloads[k])
		if err != nil {
			return ps[:k], err
		}
		ps[k] = p
	}
	return ps, nil
}

// hasButton reports whether an enabled, non-link button with customID is in the components.
func hasButton(raw json.RawMessage, customID string) bool {
	if isNull(raw) {
		return false
	}
	var cs []wireComponent
	if json.Unmarshal(raw, &cs) != nil {
		return false
	}
	var walk func([]wireComponent) bool
	walk = func(cs []wireComponent) bool {
		for _, c := range cs {
			if c.Type == int(discordgo.ButtonComponent) && c.CustomID != nil && *c.CustomID == customID && !c.Disabled {
				return true
			}
			if walk(c.Components) || (c.Accessory != nil && walk([]wireComponent{*c.Accessory})) {
				return true
			}
		}
		return false
	}
	return walk(cs)
}

// send dispatches the interaction, on the gateway or to the interactions
// endpoint, and starts its deadline.
func (s *Server) send(ctx context.Context, in *interaction, payload map[string]any) (*Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("fakediscord: encoding the interaction: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	s.interactions[in.id] = in
	s.byToken[in.token] = in
	s.keepLocked(in.id)
	in.dispatched = time.Now()
	in.timer = time.AfterFunc(s.opts.AckTimeout, func() { s.expire(in) })
	endpoint := s.endpoint
	if endpoint != "" {
		in.viaHTTP = true
		s.wg.Add(1)
	}
	s.mu.Unlock()
	if endpoint != "" {
		s.log.Info("interaction posted", "id", in.id, "kind", in.kind.String(), "name", in.name, "user", in.user, "guild", in.guild, "url", endpoint)
		go s.post(in, endpoint, body)
		return &Pending{in: in}, nil
	}
	ok, err := s.dispatch(in.guild, "INTERACTION_CREATE", body)
	if !ok || err != nil {
		s.mu.Lock()
		in.timer.Stop()
		delete(s.interactions, in.id)
		delete(s.byToken, in.token)
		s.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("fakediscord: dispatch: %w", err)
		}
		return nil, ErrNoGateway
	}
	s.log.Info("interaction sent", "id", in.id, "kind", in.kind.String(), "name", in.name, "user", in.user, "guild", in.guild)
	return &Pending{in: in}, nil
}
