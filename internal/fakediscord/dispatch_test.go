package fakediscord

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// TestDispatchFrame checks that a dispatch written from its encoded d is
// the frame writeLocked (WebSocket's WriteJSON of the payload) would write.
func TestDispatchFrame(t *testing.T) {
	conns := make(chan *websocket.Conn, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		conns <- ws
	}))
	defer hs.Close()
	client, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := &gwConn{ws: <-conns}
	defer c.ws.Close()

	d, _ := json.Marshal(map[string]any{"id": "1", "token": "a<b>&é", "data": map[string]any{"name": "play"}})
	if err := c.writeLocked(map[string]any{"op": 0, "t": "INTERACTION_CREATE", "s": int64(42), "d": json.RawMessage(d)}); err != nil {
		t.Fatal(err)
	}
	if err := c.writeDispatchLocked([]byte(`"INTERACTION_CREATE"`), 42, d); err != nil {
		t.Fatal(err)
	}
	_, want, err := client.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := client.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("dispatch frame\n got %s\nwant %s", got, want)
	}
}
