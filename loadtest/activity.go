package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lesclefsdutresor/clefs/activity"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// activityClient plays the players' Activity page against the bot's
// Activity API at base ("http://host:port/activity/"), and their Discord
// client against the fake Discord (an instance launched, a code authorized).
type activityClient struct {
	base string
	hc   *http.Client
	srv  *fakediscord.Server
}

// step sends the player's next Activity request and records its latency,
// from its send to the answer read, under "activity " + its route. A
// player first starts a session (its Discord client launches the Activity
// and authorizes it; the page posts the code); then each round opens the
// chest when one is due and plays three tickets, each bought (or the open
// one resumed) and revealed row by row; then, once per session, it asks
// for the daily bonus (claimed by /daily already, it is refused: a 409 the
// page shows), and it reads the state.
func (a *activityClient) step(ctx context.Context, p *player, rec *recording) error {
	var kind string
	var body map[string]any
	switch st := p.state; {
	case p.session == "":
		inst := a.srv.StartActivity(fakediscord.Activity{Guild: p.guild, Channel: p.channel, Users: []string{p.user}})
		kind, body = "session", map[string]any{"code": a.srv.Authorize(fakediscord.OAuthUser{ID: p.user}), "instance_id": inst}
	case st.ChestDue > 0:
		kind, body = "chest", map[string]any{"op": p.nextOp(), "chest": st.ChestDue}
	case st.Ticket != nil && st.Ticket.Open:
		row := 0
		for row < 2 && st.Ticket.Rows[row] != nil {
			row++
		}
		kind, body = "reveal", map[string]any{"op": p.nextOp(), "ticket": st.Ticket.ID, "row": row}
	case p.bought < 3:
		kind, body = "buy", map[string]any{"op": p.nextOp()}
		p.bought++
	case !p.daily:
		kind, body, p.daily = "daily", map[string]any{"op": p.nextOp()}, true
	default:
		kind, p.bought = "state", 0
	}
	if kind != "session" {
		p.pace(ctx)
	}
	start := time.Now()
	if err := a.do(ctx, p, kind, body); err != nil {
		p.errors++
		return fmt.Errorf("player %s, activity %s: %w", p.user, kind, err)
	}
	rec.add("activity "+kind, time.Since(start))
	p.calls++
	switch {
	case kind == "reveal" && p.state.Ticket != nil && !p.state.Ticket.Open:
		p.cycles++
	case kind == "chest":
		p.chests++
	case kind == "state":
		p.rounds++
	}
	return nil
}

// do sends one request of kind with body (none for the state) and reads
// the state the answer carries into p.state (and the session into
// p.session).
func (a *activityClient) do(ctx context.Context, p *player, kind string, body map[string]any) error {
	method, sent := http.MethodGet, []byte(nil)
	if body != nil {
		var err error
		if sent, err = json.Marshal(body); err != nil {
			return err
		}
		method = http.MethodPost
	}
	var resp *http.Response
	var b []byte
	for resp == nil || resp.StatusCode == http.StatusTooManyRequests { // a wave of logins: wait as told, as the page does
		if resp != nil {
			after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(max(after, 1)) * time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, a.base+"api/"+kind, bytes.NewReader(sent))
		if err != nil {
			return err
		}
		if p.session != "" {
			req.Header.Set("Authorization", "Bearer "+p.session)
		}
		if resp, err = a.hc.Do(req); err != nil {
			return err
		}
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
	}
	var err error
	switch {
	case resp.StatusCode == http.StatusConflict && kind == "daily":
		var refused struct{ State commands.ActState }
		err = json.Unmarshal(b, &refused)
		p.state = refused.State
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %.200s", resp.Status, b)
	case kind == "session":
		var s struct {
			Session string            `json:"session"`
			State   commands.ActState `json:"state"`
		}
		err = json.Unmarshal(b, &s)
		p.session, p.state = s.Session, s.State
	default:
		p.state = commands.ActState{}
		err = json.Unmarshal(b, &p.state)
	}
	return err
}

// pace keeps the player within the Activity's limit per user (a bucket of
// activity.DefaultBurst requests refilled at DefaultRate a second), as a
// page scratched by hand stays: after DefaultBurst-2 requests at once, one
// per 1/DefaultRate.
func (p *player) pace(ctx context.Context) {
	if p.paced++; p.paced > activity.DefaultBurst-2 {
		select {
		case <-time.After(time.Until(p.last.Add(time.Second / activity.DefaultRate))):
		case <-ctx.Done():
		}
	}
	p.last = time.Now()
}
