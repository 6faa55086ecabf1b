package fakediscord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// Application command types and entry-point handlers that discordgo v0.29
// does not name.
const (
	primaryEntryPoint     discordgo.ApplicationCommandType = 4 // PRIMARY_ENTRY_POINT: global only, one at most
	handlerApp                                             = 1 // APP_HANDLER: the app answers the interaction
	handlerDiscordLaunch                                   = 2 // DISCORD_LAUNCH_ACTIVITY: Discord launches the Activity itself
	codeEntryPointRemoved                                  = 50240
	flagEmbedded                                           = 1 << 17 // the application's EMBEDDED flag: it has an Activity
)

// appCommand is a registered command as Discord keeps it, with the
// entry point's handler that discordgo's type lacks.
type appCommand struct {
	discordgo.ApplicationCommand
	Handler int `json:"handler,omitempty"`
}

// defaultEntryPoint is the entry point Discord creates when Activities are
// enabled: named "launch", launched by Discord itself.
func (s *Server) defaultEntryPoint() *appCommand {
	return &appCommand{
		ApplicationCommand: discordgo.ApplicationCommand{
			ID: s.snowflake(), ApplicationID: s.opts.AppID, Version: s.snowflake(),
			Type: primaryEntryPoint, Name: "launch", Description: "Launch " + botName,
		},
		Handler: handlerDiscordLaunch,
	}
}

// cloneCommands copies cmds as discordgo has them (without handlers).
func cloneCommands(cmds []*appCommand) []*discordgo.ApplicationCommand {
	if cmds == nil {
		return nil
	}
	b, _ := json.Marshal(cmds)
	var out []*discordgo.ApplicationCommand
	_ = json.Unmarshal(b, &out)
	return out
}

// getCommands lists the commands of a guild, or the global ones, handlers
// included. A registered command is replaced, never modified: it is
// encoded without the lock.
func (s *Server) getCommands(w http.ResponseWriter, r *http.Request) {
	cmds, _ := lookup(s, s.commands, r.PathValue("guild"))
	writeJSON(w, http.StatusOK, orEmpty(cmds))
}

func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
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
	cmds, errs := validateCommands(body, guild != "", s.opts.Activities)
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, "")
		return
	}
	s.mu.Lock()
	// A command keeps its ID when the overwrite names it by ID, or by
	// type and name.
	byID, byName := map[string]*appCommand{}, map[string]*appCommand{}
	for _, c := range s.commands[guild] {
		byID[c.ID] = c
		byName[fmt.Sprint(c.Type, "/", c.Name)] = c
	}
	kept := map[string]bool{}
	for _, c := range cmds {
		old := byID[c.ID]
		if old == nil || old.Type != c.Type {
			old = byName[fmt.Sprint(c.Type, "/", c.Name)]
		}
		c.ID = s.snowflake()
		if old != nil {
			c.ID, kept[old.ID] = old.ID, true
			if c.Type == primaryEntryPoint && c.Handler == 0 {
				c.Handler = old.Handler
			}
		}
		if c.Type == primaryEntryPoint && c.Handler == 0 {
			c.Handler = handlerApp // the fake's choice: Discord documents no default
		}
	}
	for _, c := range s.commands[guild] {
		if c.Type == primaryEntryPoint && !kept[c.ID] {
			s.mu.Unlock()
			s.fail(w, r, http.StatusBadRequest, codeEntryPointRemoved, "You cannot remove this app's Primary Entry Point command.", nil, "")
			return
		}
	}
	version := s.snowflake()
	for _, c := range cmds {
		c.ApplicationID = s.opts.AppID
		c.GuildID = guild
		c.Version = version
	}
	s.commands[guild] = cmds
	s.registered[guild] = true
	s.commandsSeq++
	wake(&s.registeredCh)
	s.mu.Unlock()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	s.log.Info("commands registered", "guild", guild, "names", names)
	writeJSON(w, http.StatusOK, orEmpty(cmds))
}

// deleteCommand deletes one command, as Discord does, the entry point
// included (then a global overwrite may leave it out).
func (s *Server) deleteCommand(w http.ResponseWriter, r *http.Request) {
	guild, id := r.PathValue("guild"), r.PathValue("command")
	s.mu.Lock()
	cmds := s.commands[guild]
	i := slices.IndexFunc(cmds, func(c *appCommand) bool { return c.ID == id })
	if i >= 0 {
		s.commands[guild] = slices.Delete(slices.Clone(cmds), i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		s.fail(w, r, http.StatusNotFound, 10063, "Unknown application command", nil, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// WaitCommands waits until commands are registered for guild ("" = global)
// and returns them. The entry point that Options.Activities creates is
// not a registration.
func (s *Server) WaitCommands(ctx context.Context, guild string) ([]*discordgo.ApplicationCommand, error) {
	for {
		s.mu.Lock()
		cmds, ok := s.commands[guild], s.registered[guild]
		ch := s.registeredCh
		s.mu.Unlock()
		if ok {
			return cloneCommands(cmds), nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("fakediscord: waiting for commands of %q: %w", guild, ctx.Err())
		}
	}
}

// Commands returns the commands of guild ("" = global), as discordgo has
// them; EntryPoint gives the entry point's handler too.
func (s *Server) Commands(guild string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneCommands(s.commands[guild])
}

// EntryPoint returns the application's entry-point command and its
// handler (1 APP_HANDLER, 2 DISCORD_LAUNCH_ACTIVITY); nil if it has none.
func (s *Server) EntryPoint() (*discordgo.ApplicationCommand, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.commands[""] {
		if c.Type == primaryEntryPoint {
			return cloneCommands([]*appCommand{c})[0], c.Handler
		}
	}
	return nil, 0
}

// Registrations counts the bulk overwrites of commands accepted so far.
func (s *Server) Registrations() int { return read(s, &s.commandsSeq) }
