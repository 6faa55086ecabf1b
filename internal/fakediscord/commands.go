package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

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
