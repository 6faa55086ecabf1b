package fakediscord_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// gwClient is a minimal gateway client: it identifies with a shard and
// collects the guild IDs of the INTERACTION_CREATEs it receives.
type gwClient struct {
	ws     *websocket.Conn
	ready  []string // the guilds of READY
	events chan string
}

// dialGateway opens a raw connection to the fake's gateway and reads its
// HELLO.
func dialGateway(tb testing.TB, srv *fakediscord.Server) *websocket.Conn {
	tb.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+"/gateway/?v=10&encoding=json", nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	var hello struct{ Op int }
	if err := ws.ReadJSON(&hello); err != nil || hello.Op != 10 {
		tb.Fatalf("HELLO: %+v, %v", hello, err)
	}
	return ws
}

func dialShard(tb testing.TB, srv *fakediscord.Server, shard, count int) *gwClient {
	tb.Helper()
	ws := dialGateway(tb, srv)
	err := ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{
		"token": "Bot " + token, "intents": 0, "properties": map[string]string{}, "shard": []int{shard, count},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	var ready struct {
		T string
		D struct {
			Shard  []int
			Guilds []struct{ ID string }
		}
	}
	if err := ws.ReadJSON(&ready); err != nil || ready.T != "READY" {
		tb.Fatalf("READY: %+v, %v", ready, err)
	}
	if len(ready.D.Shard) != 2 || ready.D.Shard[0] != shard || ready.D.Shard[1] != count {
		tb.Errorf("READY shard = %v, want [%d %d]", ready.D.Shard, shard, count)
	}
	c := &gwClient{ws: ws, events: make(chan string, 16)}
	for _, g := range ready.D.Guilds {
		c.ready = append(c.ready, g.ID)
	}
	sort.Strings(c.ready)
	go func() {
		defer close(c.events)
		for {
			var ev struct {
				T string
				D struct {
					GuildID string `json:"guild_id"`
				}
			}
			if ws.ReadJSON(&ev) != nil {
				return
			}
			if ev.T == "INTERACTION_CREATE" {
				c.events <- ev.D.GuildID
			}
		}
	}()
	return c
}

// got returns the guilds of the interactions received within a short wait.
func (c *gwClient) got() []string {
	var out []string
	for {
		select {
		case g := <-c.events:
			out = append(out, g)
		case <-time.After(200 * time.Millisecond):
			sort.Strings(out)
			return out
		}
	}
}

// TestShardRouting: each session gets only its shard's guilds, in READY and
// in events, whatever its shard count: while a bot reshards from 1 to 2,
// the old session and the new one owning a guild both get its events, as
// on Discord.
func TestShardRouting(t *testing.T) {
	t.Parallel()
	// (id >> 22) % 2: g0 is on shard 0 of 2, g1 on shard 1 of 2.
	g0, g1 := strconv.Itoa(2<<22), strconv.Itoa(3<<22)
	srv := startFake(t, fakediscord.Options{Guilds: []string{g0, g1}, RecommendedShards: 2, AckTimeout: time.Minute})
	register(t, &client{s: restSession(t, srv, token)}, srv, "", playCmd)

	var gb struct {
		URL               string `json:"url"`
		Shards            int    `json:"shards"`
		SessionStartLimit struct {
			Total          int `json:"total"`
			Remaining      int `json:"remaining"`
			ResetAfter     int `json:"reset_after"`
			MaxConcurrency int `json:"max_concurrency"`
		} `json:"session_start_limit"`
	}
	getJSON(t, srv.URL()+"/api/v10/gateway/bot", &gb)
	if gb.Shards != 2 || !strings.HasPrefix(gb.URL, "ws://") || gb.SessionStartLimit.Total != 1000 ||
		gb.SessionStartLimit.Remaining != 1000 || gb.SessionStartLimit.MaxConcurrency != 1 {
		t.Errorf("GET /gateway/bot = %+v", gb)
	}

	s0, s1 := dialShard(t, srv, 0, 2), dialShard(t, srv, 1, 2)
	if strings.Join(s0.ready, ",") != g0 || strings.Join(s1.ready, ",") != g1 {
		t.Errorf("READY guilds: shard 0 %v, shard 1 %v; want [%s] and [%s]", s0.ready, s1.ready, g0, g1)
	}
	slash := func(g string) {
		t.Helper()
		if _, err := srv.Slash(ctxT(t), fakediscord.Slash{Guild: g, User: "5", Name: "play"}); err != nil {
			t.Fatalf("slash in %q: %v", g, err)
		}
	}
	for _, g := range []string{g0, g1, ""} {
		slash(g)
	}
	if got := s0.got(); strings.Join(got, ",") != set("", g0) {
		t.Errorf("shard 0/2 got %q, want the DM and %s", got, g0)
	}
	if got := s1.got(); strings.Join(got, ",") != g1 {
		t.Errorf("shard 1/2 got %q, want %s", got, g1)
	}

	// An old unsharded session still connected shares every guild.
	old := dialShard(t, srv, 0, 1)
	if strings.Join(old.ready, ",") != set(g0, g1) {
		t.Errorf("READY guilds of shard 0/1: %v", old.ready)
	}
	slash(g1)
	if got := old.got(); strings.Join(got, ",") != g1 {
		t.Errorf("shard 0/1 got %q, want %s", got, g1)
	}
	if got, got0 := s1.got(), s0.got(); strings.Join(got, ",") != g1 || len(got0) != 0 {
		t.Errorf("shard 1/2 got %q, shard 0/2 got %q; want %s and nothing", got, got0, g1)
	}

	getJSON(t, srv.URL()+"/api/v10/gateway/bot", &gb)
	if gb.SessionStartLimit.Remaining != 1000-3 || gb.SessionStartLimit.ResetAfter <= 0 || gb.SessionStartLimit.ResetAfter > 24*3600*1000 {
		t.Errorf("session_start_limit after 3 IDENTIFYs = %+v", gb.SessionStartLimit)
	}
}

// getJSON GETs url as the bot and decodes its JSON answer into v.
func getJSON(tb testing.TB, url string, v any) {
	tb.Helper()
	a := call(tb, http.DefaultClient, http.MethodGet, url, "")
	if a.err != nil || a.status != http.StatusOK || json.Unmarshal([]byte(a.body), v) != nil {
		tb.Fatalf("GET %s: %d %v %q", url, a.status, a.err, a.body)
	}
}

// set is the sorted, comma-joined form of got and c.ready.
func set(xs ...string) string {
	sort.Strings(xs)
	return strings.Join(xs, ",")
}
