package fakediscord

import (
	"encoding/json"
	"net/http"
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

type gwPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s,omitempty"`
	T  string          `json:"t,omitempty"`
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
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
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
		switch p.Op {
		case 1: // heartbeat
			if err := c.send(map[string]any{"op": 11, "d": nil}); err != nil {
				return
			}
		case 2:
			if !c.identify(p.D) {
				return
			}
		case 6:
			if !c.resume(p.D) {
				return
			}
		case 3, 4, 8: // presence, voice state, request members: accepted, ignored
			if !c.authenticated() {
				c.close(closeNotAuthenticated, "Not authenticated.")
				return
			}
		default:
			c.close(closeUnknownOpcode, "Unknown opcode.")
			return
		}
	}
}

func (c *gwConn) authenticated() bool {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	return c.session != nil
}

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
	if id.Token != "Bot "+s.opts.Token && id.Token != s.opts.Token {
		s.mu.Lock()
		s.recordFailureLocked(Failure{At: time.Now(), Method: "GATEWAY", Path: "/gateway IDENTIFY", Code: closeAuthFailed, Message: "Authentication failed."})
		s.mu.Unlock()
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
	s.mu.Lock()
	sess := &session{id: strconv.FormatInt(time.Now().UnixNano(), 36) + s.snowflake()}
	sess.identify = Identify{At: time.Now(), Token: id.Token, Intents: id.Intents, Shard: shard, SessionID: sess.id}
	s.sessions[sess.id] = sess
	s.identifies = append(s.identifies, sess.identify)
	sess.seq++
	seq := sess.seq
	guilds := make([]map[string]any, 0, len(s.opts.Guilds))
	for _, g := range s.opts.Guilds {
		guilds = append(guilds, map[string]any{"id": g, "unavailable": true})
	}
	s.mu.Unlock()
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
	// Become the shard's connection and send READY before any dispatch:
	// numbering and writing happen under the write lock (taken after s.mu,
	// as dispatch does).
	s.mu.Lock()
	c.session = sess
	c.writeMu.Lock()
	close(s.identifiedCh)
	s.identifiedCh = make(chan struct{})
	s.mu.Unlock()
	err := c.writeLocked(map[string]any{"op": 0, "t": "READY", "s": seq, "d": ready})
	c.writeMu.Unlock()
	if err != nil {
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
	if r.Token != "Bot "+s.opts.Token && r.Token != s.opts.Token {
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
	s.mu.Lock()
	c.session = sess
	c.writeMu.Lock()
	sess.seq++
	seq := sess.seq
	close(s.identifiedCh)
	s.identifiedCh = make(chan struct{})
	s.mu.Unlock()
	err := c.writeLocked(map[string]any{"op": 0, "t": "RESUMED", "s": seq, "d": map[string]any{"_trace": []string{"fakediscord"}}})
	c.writeMu.Unlock()
	if err != nil {
		return false
	}
	s.log.Info("bot resumed", "session", sess.id, "seq", r.Seq)
	return true
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

func (c *gwConn) close(code int, text string) {
	c.writeMu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.writeMu.Unlock()
	_ = c.ws.Close()
}

// dispatch sends an event to the connection of the shard that owns guild
// ("" = DMs, shard 0). It reports whether a connection took it.
func (s *Server) dispatch(guild, event string, d any) (bool, error) {
	s.mu.Lock()
	var target *gwConn
	for c := range s.conns {
		if c.session == nil {
			continue
		}
		sh := c.session.identify.Shard
		want := 0
		if guild != "" {
			g, _ := strconv.ParseUint(guild, 10, 64)
			want = int((g >> 22) % uint64(sh[1]))
		}
		if sh[0] == want && (target == nil || c.opened.After(target.opened)) {
			target = c
		}
	}
	if target == nil {
		s.mu.Unlock()
		return false, nil
	}
	// Hold the connection's write lock from numbering to writing, so that
	// events go out in sequence order.
	target.writeMu.Lock()
	defer target.writeMu.Unlock()
	target.session.seq++
	seq := target.session.seq
	s.mu.Unlock()
	return true, target.writeLocked(map[string]any{"op": 0, "t": event, "s": seq, "d": d})
}
