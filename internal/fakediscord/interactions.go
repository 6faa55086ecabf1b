package fakediscord

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
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

// interaction is one dispatched interaction and what the bot did with it.
type interaction struct {
	srv                  *Server
	id, token            string
	kind                 discordgo.InteractionType
	name                 string // command name, for message.interaction
	guild, channel, user string
	username             string
	source               *message // the message of a component
	dispatched           time.Time
	timer                *time.Timer

	called    bool
	expired   bool
	calledAt  time.Time
	respType  discordgo.InteractionResponseType
	respData  json.RawMessage
	original  *message
	edits     int
	followUps []*message
	done      chan struct{} // closed at the callback or expiry
	editedCh  chan struct{} // closed and replaced at each edit or follow-up
	respEphem bool
	viaHTTP   bool  // sent to the interactions endpoint
	replied   bool  // the endpoint's reply, if viaHTTP, has been read
	failed    error // why the endpoint failed it (wraps ErrEndpoint); implies expired
	faulted   bool  // a fault was injected into one of its calls
}

func (in *interaction) userJSON() map[string]any {
	return map[string]any{
		"id": in.user, "username": in.username, "discriminator": "0", "global_name": in.username,
		"avatar": nil, "public_flags": 0,
	}
}

func (in *interaction) owners() map[string]any {
	if in.guild != "" {
		return map[string]any{"0": in.guild}
	}
	return map[string]any{"1": in.user}
}

// Pending is an interaction sent to the bot.
type Pending struct {
	in *interaction
}

// ID is the interaction's ID.
func (p *Pending) ID() string { return p.in.id }

// Response is what the bot answered to an interaction, as far as seen.
type Response struct {
	// Type is the callback's type (4 message, 5 deferred message, 6 deferred
	// update, 7 update).
	Type discordgo.InteractionResponseType
	// Data is the callback's data as sent (nil for 6 and 5 without data).
	Data *discordgo.InteractionResponseData
	// Ephemeral reports whether the response is only visible to the user.
	Ephemeral bool
	// Message is the message the response created or updated, after the
	// edits seen so far (nil if it was deleted).
	Message *discordgo.Message
	// Edits counts the edits of the original response.
	Edits int
	// FollowUps are the follow-up messages, oldest first.
	FollowUps []*discordgo.Message
	// Latency is the time from the dispatch to the callback.
	Latency time.Duration
}

// Wait waits for the bot's callback and, after a deferral (types 5 and 6),
// for the first edit of the original response or a follow-up, then returns
// the response. It fails with ErrNoCallback if the bot missed the deadline,
// and in HTTP mode with ErrEndpoint if the endpoint failed the interaction.
func (p *Pending) Wait(ctx context.Context) (Response, error) {
	in, s := p.in, p.in.srv
	select {
	case <-in.done:
	case <-ctx.Done():
		return Response{}, fmt.Errorf("fakediscord: waiting for the callback of %s: %w", in.id, ctx.Err())
	}
	for {
		s.mu.Lock()
		if in.failed != nil && !in.called {
			err := in.failed
			s.mu.Unlock()
			return Response{}, fmt.Errorf("interaction %s (%s): %w", in.id, in.name, err)
		}
		if in.expired && !in.called {
			s.mu.Unlock()
			return Response{}, fmt.Errorf("interaction %s (%s): %w", in.id, in.name, ErrNoCallback)
		}
		deferred := in.respType == discordgo.InteractionResponseDeferredChannelMessageWithSource ||
			in.respType == discordgo.InteractionResponseDeferredMessageUpdate
		settled := !deferred || in.edits > 0 || len(in.followUps) > 0
		ch := in.editedCh
		if settled {
			snap := s.snapshotLocked(in)
			s.mu.Unlock()
			return s.response(snap), nil
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Response{}, fmt.Errorf("fakediscord: waiting for the edit after deferral of %s: %w", in.id, ctx.Err())
		}
	}
}

// Snapshot returns the response as seen now, without waiting; ok is false
// before the callback.
func (p *Pending) Snapshot() (r Response, ok bool) {
	s := p.in.srv
	s.mu.Lock()
	if !p.in.called {
		s.mu.Unlock()
		return Response{}, false
	}
	snap := s.snapshotLocked(p.in)
	s.mu.Unlock()
	return s.response(snap), true
}

// responseSnap is what a Response is built from, copied under s.mu so that
// the decoding and encoding of the messages run without it.
type responseSnap struct {
	r         Response        // the scalar fields
	data      json.RawMessage // the callback's data, never modified once set
	original  *message        // a copy; nil if none or deleted
	followUps []message       // copies of those not deleted
}

func (s *Server) snapshotLocked(in *interaction) responseSnap {
	snap := responseSnap{
		r:    Response{Type: in.respType, Latency: in.calledAt.Sub(in.dispatched), Edits: in.edits, Ephemeral: in.respEphem},
		data: in.respData,
	}
	if in.original != nil && !in.original.deleted {
		m := *in.original
		snap.original = &m
		snap.r.Ephemeral = m.flags&flagEphemeral != 0
	}
	for _, m := range in.followUps {
		if !m.deleted {
			snap.followUps = append(snap.followUps, *m)
		}
	}
	return snap
}

// response builds the Response of a snapshot, without s.mu.
func (s *Server) response(snap responseSnap) Response {
	r := snap.r
	if !isNull(snap.data) {
		var d discordgo.InteractionResponseData
		if json.Unmarshal(snap.data, &d) == nil {
			r.Data = &d
		}
	}
	if snap.original != nil {
		r.Message = s.toDiscordgo(*snap.original)
	}
	for _, m := range snap.followUps {
		r.FollowUps = append(r.FollowUps, s.toDiscordgo(m))
	}
	return r
}

func randomToken() string {
	b := make([]byte, 48)
	_, _ = rand.Read(b)
	return "aW50ZXJhY3Rpb246" + base64.RawURLEncoding.EncodeToString(b)
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
	if locale == "" {
		locale = discordgo.EnglishUS
	}
	if guildLocale == "" {
		guildLocale = discordgo.EnglishUS
	}
	if perms == 0 {
		perms = PermsMember
	}
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
	if guild != "" {
		for _, c := range s.commands[guild] {
			if c.Name == name && c.Type == discordgo.ChatApplicationCommand {
				return c, guild
			}
		}
	}
	for _, c := range s.commands[""] {
		if c.Name == name && c.Type == discordgo.ChatApplicationCommand {
			return c, ""
		}
	}
	return nil, ""
}

// allowed applies default_member_permissions and contexts as Discord's client does.
func allowed(c *discordgo.ApplicationCommand, guild string, perms int64) bool {
	if guild == "" {
		if c.Contexts != nil {
			for _, ctx := range *c.Contexts {
				if ctx == discordgo.InteractionContextBotDM {
					return true
				}
			}
			return false
		}
		// dm_permission is deprecated but Discord still honours it.
		return c.DMPermission == nil || *c.DMPermission //lint:ignore SA1019 Discord still honours it
	}
	if c.Contexts != nil {
		ok := false
		for _, ctx := range *c.Contexts {
			ok = ok || ctx == discordgo.InteractionContextGuild
		}
		if !ok {
			return false
		}
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
	perms := sl.Perms
	if perms == 0 {
		perms = PermsMember
	}
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

// newInteractionLocked numbers a new interaction; token is a randomToken,
// drawn before taking the lock.
func (s *Server) newInteractionLocked(kind discordgo.InteractionType, guild, channel, user, username, token string) *interaction {
	if channel == "" {
		channel = s.snowflake()
	}
	if username == "" {
		username = defaultName(user)
	}
	in := &interaction{
		srv: s, id: s.snowflake(), token: token, kind: kind,
		guild: guild, channel: channel, user: user, username: username,
		done: make(chan struct{}), editedCh: make(chan struct{}),
	}
	return in
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

// keepLocked records id as the newest interaction and, with
// Options.KeepInteractions, forgets the oldest one past the bound.
func (s *Server) keepLocked(id string) {
	keep := s.opts.KeepInteractions
	if keep <= 0 {
		return
	}
	if len(s.kept) < keep {
		s.kept = append(s.kept, id)
		return
	}
	s.forgetLocked(s.kept[s.keptNext])
	s.kept[s.keptNext] = id
	s.keptNext = (s.keptNext + 1) % keep
}

// forgetLocked drops an interaction and the messages it created (its
// original response, unless that is the message it updated, and its
// follow-ups). One still waiting for its callback keeps its deadline, so
// that a Pending on it still ends.
func (s *Server) forgetLocked(id string) {
	in, ok := s.interactions[id]
	if !ok {
		return
	}
	delete(s.interactions, id)
	delete(s.byToken, in.token)
	if in.original != nil && in.original.interaction == in {
		delete(s.messages, in.original.id)
	}
	for _, m := range in.followUps {
		delete(s.messages, m.id)
	}
}

func (s *Server) expire(in *interaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.called || in.expired {
		return
	}
	in.expired = true
	s.recordFailureLocked(Failure{
		At: time.Now(), Method: "DEADLINE", Path: "/interactions/" + in.id + "/callback",
		Code: 10062, Message: fmt.Sprintf("Unknown interaction: no callback within %s", s.opts.AckTimeout), Interaction: in.id,
	})
	close(in.done)
}

// buildOptions types the options of sl against the command's definition.
func buildOptions(cmd *discordgo.ApplicationCommand, sl Slash) ([]any, map[string]any, error) {
	defs := cmd.Options
	var wrap func([]any) []any = func(o []any) []any { return o }
	if sl.Group != "" {
		g := findOpt(defs, sl.Group, discordgo.ApplicationCommandOptionSubCommandGroup)
		if g == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no group %q", ErrBadOptions, cmd.Name, sl.Group)
		}
		defs = g.Options
		prev := wrap
		wrap = func(o []any) []any { return prev([]any{map[string]any{"name": g.Name, "type": 2, "options": o}}) }
	}
	if sl.Sub != "" {
		sc := findOpt(defs, sl.Sub, discordgo.ApplicationCommandOptionSubCommand)
		if sc == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no subcommand %q", ErrBadOptions, cmd.Name, sl.Sub)
		}
		defs = sc.Options
		prev := wrap
		wrap = func(o []any) []any { return prev([]any{map[string]any{"name": sc.Name, "type": 1, "options": o}}) }
	}
	for _, d := range defs {
		if d.Type == discordgo.ApplicationCommandOptionSubCommand || d.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			return nil, nil, fmt.Errorf("%w: /%s needs a subcommand", ErrBadOptions, cmd.Name)
		}
	}
	given := map[string]bool{}
	out := []any{}
	resolved := map[string]any{}
	for _, o := range sl.Options {
		d := findOpt(defs, o.Name, 0)
		if d == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no option %q", ErrBadOptions, cmd.Name, o.Name)
		}
		if given[o.Name] {
			return nil, nil, fmt.Errorf("%w: option %q given twice", ErrBadOptions, o.Name)
		}
		given[o.Name] = true
		v, err := typedValue(d, o.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: option %q: %v", ErrBadOptions, o.Name, err)
		}
		out = append(out, map[string]any{"name": d.Name, "type": int(d.Type), "value": v})
		if d.Type == discordgo.ApplicationCommandOptionUser || d.Type == discordgo.ApplicationCommandOptionMentionable {
			id := v.(string)
			users, _ := resolved["users"].(map[string]any)
			if users == nil {
				users = map[string]any{}
				resolved["users"] = users
			}
			u := map[string]any{"id": id, "username": defaultName(id), "discriminator": "0", "global_name": nil, "avatar": nil, "public_flags": 0}
			users[id] = u
			if sl.Guild != "" {
				members, _ := resolved["members"].(map[string]any)
				if members == nil {
					members = map[string]any{}
					resolved["members"] = members
				}
				mem := memberJSON(nil, PermsMember)
				delete(mem, "user")
				members[id] = mem
			}
		}
	}
	for _, d := range defs {
		if d.Required && !given[d.Name] {
			return nil, nil, fmt.Errorf("%w: required option %q missing", ErrBadOptions, d.Name)
		}
	}
	return wrap(out), resolved, nil
}

func findOpt(defs []*discordgo.ApplicationCommandOption, name string, typ discordgo.ApplicationCommandOptionType) *discordgo.ApplicationCommandOption {
	for _, d := range defs {
		if d.Name == name && (typ == 0 || d.Type == typ) {
			return d
		}
	}
	return nil
}

// describe names the JSON kind of an option's value for an error.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64, json.Number:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// typedValue converts v to the option's JSON value and checks choices and bounds.
func typedValue(d *discordgo.ApplicationCommandOption, v any) (any, error) {
	num := func() (float64, bool) {
		switch x := v.(type) {
		case int:
			return float64(x), true
		case int64:
			return float64(x), true
		case uint64:
			return float64(x), true
		case float64:
			return x, true
		case json.Number:
			f, err := x.Float64()
			return f, err == nil
		}
		return 0, false
	}
	var out any
	switch d.Type {
	case discordgo.ApplicationCommandOptionString:
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %s", describe(v))
		}
		if d.MinLength != nil && runeLen(str) < *d.MinLength || d.MaxLength > 0 && runeLen(str) > d.MaxLength {
			return nil, fmt.Errorf("length %d out of bounds", runeLen(str))
		}
		out = str
	case discordgo.ApplicationCommandOptionInteger, discordgo.ApplicationCommandOptionNumber:
		f, ok := num()
		if !ok {
			return nil, fmt.Errorf("want a number, got %s", describe(v))
		}
		if d.Type == discordgo.ApplicationCommandOptionInteger && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return nil, fmt.Errorf("%v is not an integer Discord accepts", v)
		}
		if d.MinValue != nil && f < *d.MinValue || d.MaxValue != 0 && f > d.MaxValue {
			return nil, fmt.Errorf("%v out of bounds", v)
		}
		out = f
		if d.Type == discordgo.ApplicationCommandOptionInteger {
			out = int64(f)
		}
	case discordgo.ApplicationCommandOptionBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want a bool, got %s", describe(v))
		}
		out = b
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionChannel,
		discordgo.ApplicationCommandOptionRole, discordgo.ApplicationCommandOptionMentionable:
		var id string
		switch x := v.(type) {
		case string:
			id = x
		case json.Number: // all its digits, not a float's
			id = x.String()
		default:
			f, ok := num()
			if !ok {
				return nil, fmt.Errorf("want an ID, got %s", describe(v))
			}
			id = strconv.FormatUint(uint64(f), 10)
		}
		if n, err := strconv.ParseUint(id, 10, 64); err != nil || n == 0 {
			return nil, fmt.Errorf("%q is not a snowflake", id)
		}
		out = id
	default:
		return nil, fmt.Errorf("option type %d not supported by the fake", d.Type)
	}
	if len(d.Choices) > 0 {
		match := false
		for _, c := range d.Choices {
			cv := c.Value
			if i, ok := out.(int64); ok {
				out2 := float64(i)
				match = match || cv == out2
			} else {
				match = match || cv == out
			}
		}
		if !match {
			return nil, fmt.Errorf("%v is not one of the choices", v)
		}
	}
	return out, nil
}

// --- the bot's calls -------------------------------------------------------

func (s *Server) postCallback(w http.ResponseWriter, r *http.Request) {
	id, token := r.PathValue("id"), r.PathValue("token")
	s.mu.Lock()
	in, ok := s.interactions[id]
	s.mu.Unlock()
	if !ok || in.token != token {
		s.fail(w, r, http.StatusNotFound, 10062, "Unknown interaction", nil, id)
		return
	}
	body, files, ok := s.readMessageBody(w, r, id)
	if !ok {
		return
	}
	if e := s.acknowledge(in, body, files); e != nil {
		s.fail(w, r, e.status, e.code, e.message, e.errs, id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ackError is an initial response the fake refused, as Discord answers it.
type ackError struct {
	status, code int
	message      string
	errs         []fieldErr
}

// acknowledge applies an initial response (an InteractionResponse as valid
// JSON) to in, as Discord does: it validates it, refuses a second one or one
// past the deadline, then creates or updates the message. It is the one path
// of the callback endpoint and of the interactions endpoint's reply. files
// are those of a multipart body: attachments of the message it creates or
// updates (a deferral ignores them).
func (s *Server) acknowledge(in *interaction, body []byte, files []upload) *ackError {
	var resp struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data json.RawMessage                   `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return &ackError{http.StatusBadRequest, 50035, "Invalid Form Body", []fieldErr{{"type", "NUMBER_TYPE_COERCE", "Value is not int."}}}
	}
	component := in.kind == discordgo.InteractionMessageComponent || in.kind == discordgo.InteractionModalSubmit
	var patch msgPatch
	var errs []fieldErr
	switch resp.Type {
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseUpdateMessage:
		if isNull(resp.Data) {
			errs = append(errs, fieldErr{"data", "BASE_TYPE_REQUIRED", "This field is required"})
			break
		}
		patch, errs = parseMessage(resp.Data, "data", allowedResponseFlags)
		patch.files = files
		if resp.Type == discordgo.InteractionResponseUpdateMessage && !component {
			errs = append(errs, fieldErr{"type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type 7 is only valid for components"})
		}
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		if !isNull(resp.Data) {
			patch, errs = parseMessage(resp.Data, "data", allowedResponseFlags)
		}
	case discordgo.InteractionResponseDeferredMessageUpdate:
		if !component {
			errs = append(errs, fieldErr{"type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type 6 is only valid for components"})
		}
	default:
		errs = append(errs, fieldErr{"type", "BASE_TYPE_CHOICES", fmt.Sprintf("Value must be one of {4, 5, 6, 7}; got %d.", resp.Type)})
	}
	if len(errs) > 0 {
		return &ackError{http.StatusBadRequest, 50035, "Invalid Form Body", errs}
	}
	// A new message is empty or not whatever the state: checked before the
	// lock, but answered after the checks of the state, as before.
	var emptyNew bool
	if resp.Type == discordgo.InteractionResponseChannelMessageWithSource {
		m := &message{}
		m.apply(patch)
		emptyNew = m.empty()
	}
	s.mu.Lock()
	switch {
	case in.expired && !in.called:
		s.mu.Unlock()
		return &ackError{http.StatusNotFound, 10062, "Unknown interaction", nil}
	case in.called:
		s.mu.Unlock()
		return &ackError{http.StatusBadRequest, 40060, "Interaction has already been acknowledged.", nil}
	}
	// Check the resulting message before committing anything.
	switch resp.Type {
	case discordgo.InteractionResponseChannelMessageWithSource:
		if emptyNew {
			s.mu.Unlock()
			return &ackError{http.StatusBadRequest, 50006, "Cannot send an empty message", nil}
		}
	case discordgo.InteractionResponseUpdateMessage:
		m := *in.source
		m.apply(patch)
		if m.empty() {
			s.mu.Unlock()
			return &ackError{http.StatusBadRequest, 50006, "Cannot send an empty message", nil}
		}
	}
	in.called = true
	in.calledAt = time.Now()
	in.timer.Stop()
	in.respType = resp.Type
	in.respData = resp.Data
	typ := 20 // CHAT_INPUT_COMMAND
	if component {
		typ = 19 // REPLY
	}
	switch resp.Type {
	case discordgo.InteractionResponseChannelMessageWithSource:
		in.original = s.newMessageLocked(in, patch, typ)
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		in.original = s.newMessageLocked(in, msgPatch{flags: patch.flags & flagEphemeral}, typ)
		in.original.flags |= flagLoading
	case discordgo.InteractionResponseDeferredMessageUpdate:
		in.original = in.source
	case discordgo.InteractionResponseUpdateMessage:
		in.original = in.source
		in.source.apply(patch)
		s.registerLocked(in.source)
		now := time.Now()
		in.source.edited = &now
	}
	in.respEphem = in.original.flags&flagEphemeral != 0
	latency := in.calledAt.Sub(in.dispatched)
	close(in.done)
	s.mu.Unlock()
	s.log.Info("callback", "interaction", in.id, "type", int(resp.Type), "ephemeral", in.respEphem, "latency", latency, "content", truncate(derefOr(patch.content, ""), 80))
	return nil
}

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// webhookInteraction finds the interaction of a webhook call; it answers the
// error itself.
func (s *Server) webhookInteraction(w http.ResponseWriter, r *http.Request) (*interaction, bool) {
	app, token := r.PathValue("app"), r.PathValue("token")
	s.mu.Lock()
	in, ok := s.byToken[token]
	s.mu.Unlock()
	if ok {
		s.awaitReply(r.Context(), in)
	}
	s.mu.Lock()
	called := ok && in.called
	s.mu.Unlock()
	if app != s.opts.AppID || !ok || !called {
		// Before the callback the webhook does not exist yet.
		id := ""
		if ok {
			id = in.id
		}
		s.fail(w, r, http.StatusNotFound, 10015, "Unknown Webhook", nil, id)
		return nil, false
	}
	if time.Since(in.dispatched) > s.opts.TokenLife {
		s.fail(w, r, http.StatusUnauthorized, 50027, "Invalid Webhook Token", nil, in.id)
		return nil, false
	}
	return in, true
}

// target finds the message a webhook call names (@original or a follow-up).
func (s *Server) targetLocked(in *interaction, id string) *message {
	if id == "@original" {
		if in.original == nil || in.original.deleted {
			return nil
		}
		return in.original
	}
	if in.original != nil && in.original.id == id && !in.original.deleted {
		return in.original
	}
	for _, m := range in.followUps {
		if m.id == id && !m.deleted {
			return m
		}
	}
	return nil
}

func (s *Server) getWebhookMessage(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	m := s.targetLocked(in, r.PathValue("msg"))
	var snap message
	if m != nil {
		snap = *m
	}
	s.mu.Unlock()
	if m == nil {
		s.fail(w, r, http.StatusNotFound, 10008, "Unknown Message", nil, in.id)
		return
	}
	writeJSON(w, http.StatusOK, s.wire(snap))
}

func (s *Server) patchWebhookMessage(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	body, files, ok := s.readMessageBody(w, r, in.id)
	if !ok {
		return
	}
	patch, errs := parseMessage(body, "", allowedResponseFlags)
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, in.id)
		return
	}
	patch.files = files
	s.mu.Lock()
	m := s.targetLocked(in, r.PathValue("msg"))
	if m == nil {
		s.mu.Unlock()
		s.fail(w, r, http.StatusNotFound, 10008, "Unknown Message", nil, in.id)
		return
	}
	next := *m
	next.apply(patch)
	loading := m.flags&flagLoading != 0
	if next.empty() && (!loading || patch.content != nil || patch.setEmbeds || patch.setComponents) {
		s.mu.Unlock()
		s.fail(w, r, http.StatusBadRequest, 50006, "Cannot send an empty message", nil, in.id)
		return
	}
	m.apply(patch)
	m.flags &^= flagLoading
	s.registerLocked(m)
	now := time.Now()
	m.edited = &now
	if m == in.original {
		in.edits++
	}
	close(in.editedCh)
	in.editedCh = make(chan struct{})
	snap := *m
	s.mu.Unlock()
	s.log.Info("message edited", "interaction", in.id, "message", snap.id, "content", truncate(derefOr(patch.content, ""), 80))
	writeJSON(w, http.StatusOK, s.wire(snap))
}

func (s *Server) deleteWebhookMessage(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	m := s.targetLocked(in, r.PathValue("msg"))
	if m == nil {
		s.mu.Unlock()
		s.fail(w, r, http.StatusNotFound, 10008, "Unknown Message", nil, in.id)
		return
	}
	m.deleted = true
	close(in.editedCh)
	in.editedCh = make(chan struct{})
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) postFollowUp(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	body, files, ok := s.readMessageBody(w, r, in.id)
	if !ok {
		return
	}
	patch, errs := parseMessage(body, "", allowedResponseFlags)
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, in.id)
		return
	}
	patch.files = files
	probe := &message{}
	probe.apply(patch)
	if probe.empty() {
		s.fail(w, r, http.StatusBadRequest, 50006, "Cannot send an empty message", nil, in.id)
		return
	}
	s.mu.Lock()
	// A follow-up to a deferred message response replaces the loading message.
	var m *message
	if in.original != nil && in.original.flags&flagLoading != 0 && in.edits == 0 {
		m = in.original
		m.apply(patch)
		m.flags = patch.flags | (m.flags & flagEphemeral)
		s.registerLocked(m)
		in.edits++
	} else {
		m = s.newMessageLocked(in, patch, 0)
		in.followUps = append(in.followUps, m)
	}
	close(in.editedCh)
	in.editedCh = make(chan struct{})
	snap := *m
	s.mu.Unlock()
	s.log.Info("follow-up", "interaction", in.id, "message", snap.id, "ephemeral", snap.flags&flagEphemeral != 0, "content", truncate(snap.content, 80))
	if r.URL.Query().Get("wait") == "true" {
		writeJSON(w, http.StatusOK, s.wire(snap))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// --- commands ----------------------------------------------------------------

func (s *Server) checkApp(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("app") != s.opts.AppID {
		s.fail(w, r, http.StatusForbidden, 50001, "Missing Access", nil, "")
		return false
	}
	return true
}

func cloneCommands(cmds []*discordgo.ApplicationCommand) []*discordgo.ApplicationCommand {
	if cmds == nil {
		return nil
	}
	b, _ := json.Marshal(cmds)
	var out []*discordgo.ApplicationCommand
	_ = json.Unmarshal(b, &out)
	return out
}

func (s *Server) getCommands(w http.ResponseWriter, r *http.Request) {
	if !s.checkApp(w, r) {
		return
	}
	s.mu.Lock()
	cmds := cloneCommands(s.commands[r.PathValue("guild")])
	s.mu.Unlock()
	if cmds == nil {
		cmds = []*discordgo.ApplicationCommand{}
	}
	writeJSON(w, http.StatusOK, cmds)
}

func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
	if !s.checkApp(w, r) {
		return
	}
	guild := r.PathValue("guild")
	if guild != "" {
		if n, err := strconv.ParseUint(guild, 10, 64); err != nil || n == 0 {
			s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", []fieldErr{{"guild_id", "NUMBER_TYPE_COERCE", "Value is not snowflake."}}, "")
			return
		}
	}
	body, ok := s.readBody(w, r, "")
	if !ok {
		return
	}
	cmds, errs := validateCommands(body)
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, "")
		return
	}
	s.mu.Lock()
	old := map[string]string{}
	for _, c := range s.commands[guild] {
		old[fmt.Sprint(c.Type, "/", c.Name)] = c.ID
	}
	version := s.snowflake()
	for _, c := range cmds {
		if id, ok := old[fmt.Sprint(c.Type, "/", c.Name)]; ok {
			c.ID = id
		} else {
			c.ID = s.snowflake()
		}
		c.ApplicationID = s.opts.AppID
		c.GuildID = guild
		c.Version = version
	}
	s.commands[guild] = cmds
	s.commandsSeq++
	close(s.registeredCh)
	s.registeredCh = make(chan struct{})
	out := cloneCommands(cmds)
	s.mu.Unlock()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	s.log.Info("commands registered", "guild", guild, "names", names)
	if out == nil {
		out = []*discordgo.ApplicationCommand{}
	}
	writeJSON(w, http.StatusOK, out)
}
