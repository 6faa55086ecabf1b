package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// launchActivity is the LAUNCH_ACTIVITY callback (type 12), which
// discordgo v0.29 does not name.
const launchActivity discordgo.InteractionResponseType = 12

// Launch is an Activity launched by a LAUNCH_ACTIVITY callback: by whom,
// where, in answer to which interaction.
type Launch struct {
	At                   time.Time
	Interaction          string
	Guild, Channel, User string
}

// Launches returns the Activities launched so far, oldest first.
func (s *Server) Launches() []Launch { return copyOf(s, &s.launches) }

func (s *Server) postCallback(w http.ResponseWriter, r *http.Request) {
	id, token := r.PathValue("id"), r.PathValue("token")
	in, ok := lookup(s, s.interactions, id)
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
	case launchActivity: // no data; the wording of these refusals is the fake's own
		switch {
		case !s.opts.Activities:
			errs = append(errs, fieldErr{"type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type 12 is only valid for applications with Activities enabled"})
		case in.kind != discordgo.InteractionApplicationCommand && in.kind != discordgo.InteractionMessageComponent:
			errs = append(errs, fieldErr{"type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type 12 is only valid for application commands and components"})
		}
	default:
		errs = append(errs, fieldErr{"type", "BASE_TYPE_CHOICES", fmt.Sprintf("Value must be one of {4, 5, 6, 7, 12}; got %d.", resp.Type)})
	}
	if len(errs) > 0 {
		return &ackError{http.StatusBadRequest, 50035, "Invalid Form Body", errs}
	}
	s.mu.Lock()
	var e *ackError
	switch {
	case in.expired && !in.called:
		e = &ackError{http.StatusNotFound, 10062, "Unknown interaction", nil}
	case in.called:
		e = &ackError{http.StatusBadRequest, 40060, "Interaction has already been acknowledged.", nil}
	// The resulting message is checked before anything is committed.
	case resp.Type == discordgo.InteractionResponseChannelMessageWithSource && emptyAfter(message{}, patch),
		resp.Type == discordgo.InteractionResponseUpdateMessage && emptyAfter(*in.source, patch):
		e = &ackError{http.StatusBadRequest, 50006, "Cannot send an empty message", nil}
	}
	if e != nil {
		s.mu.Unlock()
		return e
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
	case launchActivity: // no message: Discord opens the Activity
		s.launches = append(s.launches, Launch{At: in.calledAt, Interaction: in.id, Guild: in.guild, Channel: in.channel, User: in.user})
	}
	in.respEphem = in.original != nil && in.original.flags&flagEphemeral != 0
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
