package fakediscord

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Gateway close codes (Discord's and RFC 6455's) used by the fake.
const (
	websocketGoingAway     = 1001
	closeNotAuthenticated  = 4003
	closeAuthFailed        = 4004
	closeInvalidShard      = 4010
	closeInvalidIntents    = 4013
	closeDecodeError       = 4002
	closeUnknownOpcode     = 4001
	closeAlreadyIdentified = 4005
)

// session is a gateway session, kept across connections for RESUME.
type session struct {
	id       string
	identify Identify
	seq      int64
	backlog  []sentEvent // the last dispatches, replayed on RESUME
}

// sentEvent is a dispatch kept for RESUME.
type sentEvent struct {
	seq  int64
	name []byte
	d    json.RawMessage
}

// backlogSize bounds a session's replayable dispatches.
const backlogSize = 1000

// Resume is a gateway RESUME the fake accepted.
type Resume struct {
	At        time.Time `json:"at"`
	SessionID string    `json:"session_id"`
	Seq       int64     `json:"seq"`      // the client's last sequence number
	Replayed  int       `json:"replayed"` // dispatches sent again
}

// gwConn is one gateway websocket connection.
type gwConn struct {
	srv     *Server
	ws      *websocket.Conn
	opened  time.Time
	writeMu sync.Mutex
	session *session // nil until IDENTIFY or RESUME; guarded by srv.mu
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// gwPayload is what the fake reads of a client's payload.
type gwPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
}

func (s *Server) handleGateway(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	c := &gwConn{srv: s, ws: ws, opened: time.Now()}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.locked(func() { delete(s.conns, c) })
		ws.Close()
		s.log.Info("gateway connection closed")
	}()
	hb := s.opts.HeartbeatInterval.Milliseconds()
	if err := c.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": hb}, "s": nil, "t": nil}); err != nil {
		return
	}
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var p gwPayload
		if err := json.Unmarshal(data, &p); err != nil {
			c.close(closeDecodeError, "Decode error")
			return
		}
		ok := true
		switch p.Op {
		case 1: // heartbeat, ACKed unless WithholdHeartbeatAcks
			if !time.Now().Before(read(s, &s.noAckUntil)) {
				ok = c.send(map[string]any{"op": 11, "d": nil}) == nil
			}
		case 2:
			ok = c.identify(p.D)
		case 6:
			ok = c.resume(p.D)
		case 3, 4, 8: // presence, voice state, request members: accepted, ignored
			if ok = c.authenticated(); !ok {
				c.close(closeNotAuthenticated, "Not authenticated.")
			}
		default:
			ok = false
			c.close(closeUnknownOpcode, "Unknown opcode.")
		}
		if !ok {
			return
		}
	}
}

// gatewayToken reports whether an IDENTIFY's or RESUME's token is the bot's.
func (s *Server) gatewayToken(t string) bool { return t == "Bot "+s.opts.Token || t == s.opts.Token }

func (c *gwConn) authenticated() bool { return read(c.srv, &c.session) != nil }

func (c *gwConn) identify(raw json.RawMessage) bool {
	s := c.srv
	var id struct {
		Token   string           `json:"token"`
		Intents discordgo.Intent `json:"intents"`
		Shard   *[2]int          `json:"shard"`
	}
	if err := json.Unmarshal(raw, &id); err != nil {
		c.close(closeDecodeError, "Decode error")
		return false
	}
	if c.authenticated() {
		c.close(closeAlreadyIdentified, "Already authenticated.")
		return false
	}
	if !s.gatewayToken(id.Token) {
		s.locked(func() {
			s.recordFailureLocked(Failure{At: time.Now(), Method: "GATEWAY", Path: "/gateway IDENTIFY", Code: closeAuthFailed, Message: "Authentication failed."})
		})
		c.close(closeAuthFailed, "Authentication failed.")
		return false
	}
	if id.Intents < 0 || id.Intents >= 1<<26 {
		c.close(closeInvalidIntents, "Invalid intent(s).")
		return false
	}
	shard := [2]int{0, 1}
	if id.Shard != nil {
		shard = *id.Shard
		if shard[1] < 1 || shard[0] < 0 || shard[0] >= shard[1] {
			c.close(closeInvalidShard, "Invalid shard.")
			return false
		}
	}
	// READY lists the guilds of this shard only.
	guilds := make([]map[string]any, 0, len(s.opts.Guilds))
	for _, g := range s.opts.Guilds {
		if shardOf(g, shard[1]) == shard[0] {
			guilds = append(guilds, map[string]any{"id": g, "unavailable": true})
		}
	}
	s.mu.Lock()
	sess := &session{id: strconv.FormatInt(time.Now().UnixNano(), 36) + s.snowflake()}
	sess.identify = Identify{At: time.Now(), Token: id.Token, Intents: id.Intents, Shard: shard, SessionID: sess.id}
	s.sessions[sess.id] = sess
	s.identifies = append(s.identifies, sess.identify)
	ready := map[string]any{
		"v": 10, "user": s.botUser(), "guilds": guilds, "session_id": sess.id,
		"session_type": "normal", "resume_gateway_url": s.gatewayURL(),
		"application":      map[string]any{"id": s.opts.AppID, "flags": 1 << 23},
		"private_channels": []any{}, "relationships": []any{}, "presences": []any{},
		"_trace": []string{"[\"fakediscord\"]"}, "user_settings": map[string]any{},
	}
	if id.Shard != nil {
		ready["shard"] = shard
	}
	if c.becomeLocked(sess, nil, "READY", ready) != nil {
		return false
	}
	s.log.Info("bot identified", "session", sess.id, "intents", int64(id.Intents), "shard", shard)
	return true
}

func (c *gwConn) resume(raw json.RawMessage) bool {
	s := c.srv
	var r struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		c.close(closeDecodeError, "Decode error")
		return false
	}
	if !s.gatewayToken(r.Token) {
		c.close(closeAuthFailed, "Authentication failed.")
		return false
	}
	s.mu.Lock()
	sess, ok := s.sessions[r.SessionID]
	if !ok {
		s.mu.Unlock()
		// INVALID_SESSION, not resumable: the client identifies again.
		return c.send(map[string]any{"op": 9, "d": false}) == nil
	}
	// Another connection of the same session is superseded.
	var old []*gwConn
	for oc := range s.conns {
		if oc != c && oc.session == sess {
			old = append(old, oc)
		}
	}
	s.mu.Unlock()
	for _, oc := range old {
		oc.close(websocketGoingAway, "resumed elsewhere")
	}
	// Replay the dispatches after the client's sequence, then RESUMED.
	s.mu.Lock()
	replay := slices.DeleteFunc(slices.Clone(sess.backlog), func(e sentEvent) bool { return e.seq <= r.Seq })
	s.resumes = append(s.resumes, Resume{At: time.Now(), SessionID: sess.id, Seq: r.Seq, Replayed: len(replay)})
	if c.becomeLocked(sess, replay, "RESUMED", map[string]any{"_trace": []string{"fakediscord"}}) != nil {
		return false
	}
	s.log.Info("bot resumed", "session", sess.id, "seq", r.Seq, "replayed", len(replay))
	return true
}

// becomeLocked makes c the connection of sess and, before any other
// dispatch of it can be numbered (under the write lock, taken after s.mu as
// dispatch does), writes replay then the event t (READY or RESUMED). The
// caller holds s.mu; becomeLocked releases it.
func (c *gwConn) becomeLocked(sess *session, replay []sentEvent, t string, d any) error {
	c.session = sess
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	sess.seq++
	seq := sess.seq
	wake(&c.srv.identifiedCh)
	c.srv.mu.Unlock()
	for _, e := range replay {
		if err := c.writeDispatchLocked(e.name, e.seq, e.d); err != nil {
			return err
		}
	}
	return c.writeLocked(map[string]any{"op": 0, "t": t, "s": seq, "d": d})
}

func (c *gwConn) send(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.writeLocked(v)
}

// writeLocked writes a payload; the caller holds c.writeMu.
func (c *gwConn) writeLocked(v any) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

// writeDispatchLocked writes a dispatch (op 0) whose d is already encoded,
// as writeLocked would encode it, without encoding d again; the caller holds
// c.writeMu.
func (c *gwConn) writeDispatchLocked(event []byte, seq int64, d json.RawMessage) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	w, err := c.ws.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	// The keys in encoding/json's order for a map: d, op, s, t.
	tail := append(make([]byte, 0, 64), `,"op":0,"s":`...)
	tail = strconv.AppendInt(tail, seq, 10)
	tail = append(tail, `,"t":`...)
	tail = append(append(tail, event...), "}\n"...)
	for _, b := range [][]byte{[]byte(`{"d":`), d, tail} {
		if _, err := w.Write(b); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

func (c *gwConn) close(code int, text string) {
	c.writeMu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.writeMu.Unlock()
	_ = c.ws.Close()
}

// shardOf is the shard that owns guild among count, as Discord computes it:
// (guild_id >> 22) % count. DMs ("") are on shard 0.
func shardOf(guild string, count int) int {
	if guild == "" {
		return 0
	}
	g, _ := strconv.ParseUint(guild, 10, 64)
	return int((g >> 22) % uint64(count))
}

// dispatch sends an event to every session whose shard owns guild, each on
// its newest connection, as Discord does: two bot processes identified
// with the same shard (or, while resharding, with overlapping shards) both
// get it. It reports whether a connection took it; an error only if none
// did and a write failed. d must be valid, compact JSON (json.Marshal's):
// it is written as is.
func (s *Server) dispatch(guild, event string, d json.RawMessage) (bool, error) {
	name, err := json.Marshal(event)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	targets := map[*session]*gwConn{}
	for c := range s.conns {
		if c.session == nil {
			continue
		}
		sh := c.session.identify.Shard
		if sh[0] != shardOf(guild, sh[1]) {
			continue
		}
		if t, ok := targets[c.session]; !ok || c.opened.After(t.opened) {
			targets[c.session] = c
		}
	}
	s.mu.Unlock()
	var firstErr error
	took := false
	for _, c := range targets {
		// Hold the connection's write lock from numbering to writing, so
		// that events go out in sequence order.
		s.mu.Lock()
		c.writeMu.Lock()
		c.session.seq++
		seq := c.session.seq
		c.session.backlog = append(c.session.backlog, sentEvent{seq: seq, name: name, d: d})
		if n := len(c.session.backlog); n > backlogSize {
			c.session.backlog = append(c.session.backlog[:0:0], c.session.backlog[n-backlogSize:]...)
		}
		s.mu.Unlock()
		err := c.writeDispatchLocked(name, seq, d)
		c.writeMu.Unlock()
		if err != nil {
			s.log.Warn("gateway write failed", "session", c.session.id, "event", event, "err", err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		took = true
	}
	if took {
		return true, nil
	}
	return false, firstErr
}

// Resumes returns the gateway RESUMEs accepted so far; with Identifies it
// tells whether a session resumed or identified again.
func (s *Server) Resumes() []Resume { return copyOf(s, &s.resumes) }

// authedConns lists the connections that identified or resumed.
func (s *Server) authedConns() []*gwConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.DeleteFunc(slices.Collect(maps.Keys(s.conns)), func(c *gwConn) bool { return c.session == nil })
}

// Reconnect sends op 7 RECONNECT on every identified connection; discordgo
// closes it and RESUMEs on a new one. It returns how many got it.
func (s *Server) Reconnect() int {
	n := 0
	for _, c := range s.authedConns() {
		if c.send(map[string]any{"op": 7, "d": nil}) == nil {
			n++
		}
	}
	s.locked(func() {
		s.recordFaultLocked(InjectedFault{Kind: FaultGatewayReconnect, Detail: fmt.Sprintf("op 7 to %d connections", n)})
	})
	return n
}

// InvalidateSession sends op 9 INVALID_SESSION with d = resumable on every
// identified connection. The connection is no longer authenticated: the
// client must IDENTIFY again (READY, a new session) or, if resumable,
// may RESUME. Not resumable, the session is forgotten and a RESUME of it
// gets op 9 false. It returns how many connections got it.
func (s *Server) InvalidateSession(resumable bool) int {
	conns := s.authedConns()
	n := 0
	for _, c := range conns {
		// Unauthenticate under the write lock, so that no dispatch of the
		// session follows op 9 on this connection.
		s.mu.Lock()
		c.writeMu.Lock()
		sess := c.session
		c.session = nil
		if sess != nil && !resumable {
			delete(s.sessions, sess.id)
		}
		s.mu.Unlock()
		err := c.writeLocked(map[string]any{"op": 9, "d": resumable})
		c.writeMu.Unlock()
		if err == nil {
			n++
		}
	}
	s.locked(func() {
		s.recordFaultLocked(InjectedFault{Kind: FaultGatewayInvalidSession, Detail: fmt.Sprintf("op 9 d:%t to %d connections", resumable, n)})
	})
	return n
}

// WithholdHeartbeatAcks stops answering heartbeats with op 11 for d (0
// resumes at once); discordgo reconnects after 5 intervals without one.
func (s *Server) WithholdHeartbeatAcks(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noAckUntil = time.Now().Add(d)
	if d > 0 {
		s.recordFaultLocked(InjectedFault{Kind: FaultHeartbeatAcks, Detail: "for " + d.String()})
	}
}
