package fakediscord

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
)

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
	editedCh  chan struct{} // closed and replaced at each edit or follow-up (wake)
	respEphem bool
	viaHTTP   bool  // sent to the interactions endpoint
	replied   bool  // the endpoint's reply, if viaHTTP, has been read
	failed    error // why the endpoint failed it (wraps ErrEndpoint); implies expired
	faulted   bool  // a fault was injected into one of its calls
}

// wake closes *ch, waking those waiting on it, and replaces it; the caller
// holds s.mu.
func wake(ch *chan struct{}) {
	close(*ch)
	*ch = make(chan struct{})
}

// ID is the interaction's ID; "" for none (nil).
func (in *interaction) ID() string {
	if in == nil {
		return ""
	}
	return in.id
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
	// update, 7 update, 12 launch of the Activity: no message, see
	// Server.Launches).
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
		if in.expired && !in.called {
			err := cmp.Or(in.failed, ErrNoCallback) // failed implies expired
			s.mu.Unlock()
			return Response{}, fmt.Errorf("interaction %s (%s): %w", in.id, in.name, err)
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

// newInteractionLocked numbers a new interaction; token is a randomToken,
// drawn before taking the lock.
func (s *Server) newInteractionLocked(kind discordgo.InteractionType, guild, channel, user, username, token string) *interaction {
	if channel == "" {
		channel = s.snowflake()
	}
	username = cmp.Or(username, defaultName(user))
	in := &interaction{
		srv: s, id: s.snowflake(), token: token, kind: kind,
		guild: guild, channel: channel, user: user, username: username,
		done: make(chan struct{}), editedCh: make(chan struct{}),
	}
	return in
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
