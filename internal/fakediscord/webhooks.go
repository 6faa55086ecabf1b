package fakediscord

import (
	"net/http"
	"time"
)

// webhookInteraction finds the interaction of a webhook call; it answers the
// error itself.
func (s *Server) webhookInteraction(w http.ResponseWriter, r *http.Request) (*interaction, bool) {
	app, token := r.PathValue("app"), r.PathValue("token")
	in, _ := lookup(s, s.byToken, token)
	if in == nil || app != s.opts.AppID || !s.awaitReply(r.Context(), in) {
		// Before the callback the webhook does not exist yet.
		s.fail(w, r, http.StatusNotFound, 10015, "Unknown Webhook", nil, in.ID())
		return nil, false
	}
	if time.Since(in.dispatched) > s.opts.TokenLife {
		s.fail(w, r, http.StatusUnauthorized, 50027, "Invalid Webhook Token", nil, in.id)
		return nil, false
	}
	return in, true
}

// lockTarget locks s.mu and finds the message a webhook call names
// (@original or a follow-up). When there is none it unlocks, answers 404
// and returns nil.
func (s *Server) lockTarget(w http.ResponseWriter, r *http.Request, in *interaction) *message {
	s.mu.Lock()
	id := r.PathValue("msg")
	if o := in.original; o != nil && !o.deleted && (id == "@original" || o.id == id) {
		return o
	}
	for _, m := range in.followUps {
		if m.id == id && !m.deleted {
			return m
		}
	}
	s.mu.Unlock()
	s.fail(w, r, http.StatusNotFound, 10008, "Unknown Message", nil, in.id)
	return nil
}

func (s *Server) getWebhookMessage(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	m := s.lockTarget(w, r, in)
	if m == nil {
		return
	}
	snap := *m
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.wire(snap))
}

func (s *Server) patchWebhookMessage(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	patch, ok := s.readMessage(w, r, in.id, allowedResponseFlags)
	if !ok {
		return
	}
	m := s.lockTarget(w, r, in)
	if m == nil {
		return
	}
	loading := m.flags&flagLoading != 0
	if emptyAfter(*m, patch) && (!loading || patch.content != nil || patch.setEmbeds || patch.setComponents) {
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
	wake(&in.editedCh)
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
	m := s.lockTarget(w, r, in)
	if m == nil {
		return
	}
	m.deleted = true
	wake(&in.editedCh)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) postFollowUp(w http.ResponseWriter, r *http.Request) {
	in, ok := s.webhookInteraction(w, r)
	if !ok {
		return
	}
	patch, ok := s.readMessage(w, r, in.id, allowedResponseFlags)
	if !ok {
		return
	}
	if emptyAfter(message{}, patch) {
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
	wake(&in.editedCh)
	snap := *m
	s.mu.Unlock()
	s.log.Info("follow-up", "interaction", in.id, "message", snap.id, "ephemeral", snap.flags&flagEphemeral != 0, "content", truncate(snap.content, 80))
	if r.URL.Query().Get("wait") == "true" {
		writeJSON(w, http.StatusOK, s.wire(snap))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
