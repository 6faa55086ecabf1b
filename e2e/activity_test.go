package e2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// activityClient plays the Activity's page against the bot's public
// listener.
type activityClient struct {
	t       *testing.T
	base    string // http://host:port/activity/
	session string
}

func (c *activityClient) do(method, path, body string) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.session != "" {
		req.Header.Set("Authorization", "Bearer "+c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// step runs a game step and returns the state it answers.
func (c *activityClient) step(kind, body string) commands.ActState {
	c.t.Helper()
	status, b := c.do("POST", "api/"+kind, body)
	var st commands.ActState
	if status != 200 || json.Unmarshal(b, &st) != nil {
		c.t.Fatalf("%s %s: %d %s", kind, body, status, b)
	}
	return st
}

// TestActivity runs the whole bot (cli.Serve) with the Activity on: the
// public listener serves /fair and the page; the handshake proves the
// player through the fake Discord; a /play ticket is finished in the
// Activity and announced in the channel, naming the player; an Activity
// ticket is finished with the buttons; the balances match /balance and the
// store; where the bot may not post, the announcements pause.
func TestActivity(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"PUBLIC_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret})
	h.draw.set(win(game.TierSabre))
	h.start()
	c := &activityClient{t: t, base: "http://" + <-h.public + "/activity/"}
	fair := "http://" + strings.TrimSuffix(strings.TrimPrefix(c.base, "http://"), "/activity/") + "/fair"
	if resp, err := http.Get(fair); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /fair on the public listener: %v %v", resp, err)
	}

	card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	inst := h.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: chan1, Users: []string{alice}})
	code := h.srv.Authorize(fakediscord.OAuthUser{ID: alice, Locale: "en-US"})
	status, b := c.do("POST", "api/session", `{"code":"`+code+`","instance_id":"`+inst+`"}`)
	var s struct {
		Session string
		State   commands.ActState
	}
	if status != 200 || json.Unmarshal(b, &s) != nil {
		t.Fatalf("session: %d %s", status, b)
	}
	c.session = s.Session
	if st := s.State; st.Ticket == nil || !st.Ticket.Open || st.Balance != 1950 {
		t.Fatalf("the /play ticket in the Activity: %s", b)
	}
	st := c.step("reveal", `{"op":"e2e-reveal-row-0001","ticket":1,"row":1}`)
	if st.Ticket.Rows[0] != nil || st.Ticket.Rows[1] == nil || st.Ticket.Rows[2] != nil || st.Balance != 1950 {
		t.Fatalf("row 2 shown: %+v balance %d", st.Ticket.Rows, st.Balance)
	}
	st = c.step("reveal", `{"op":"e2e-reveal-auto-0001","ticket":1,"row":-1}`)
	if st.Ticket.Open || st.Ticket.Prize != 500 || st.Balance != 2450 {
		t.Fatalf("finished: %+v balance %d", st.Ticket, st.Balance)
	}
	// Plays are public: the finished ticket is announced in the channel.
	deadline := time.Now().Add(10 * time.Second)
	for announced := false; !announced; {
		for _, m := range h.srv.Messages(chan1) {
			announced = announced || (m.Interaction == nil && strings.Contains(text(m), "You win") && m.Content == "<@"+alice+"> scratched this ticket by hand:")
		}
		if !announced && time.Now().After(deadline) {
			t.Fatalf("no announcement in the channel: %d messages", len(h.srv.Messages(chan1)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The /play card, clicked, shows the ticket as the Activity left it.
	if r := h.click(card, "v1:auto:", alice); !strings.Contains(text(r.Message), "You win") || shownBalance(t, r.Message) != 2450 {
		t.Errorf("the /play card after the Activity: %s", text(r.Message))
	}

	h.draw.set(loss(true))
	st = c.step("buy", `{"op":"e2e-buy-from-page-001"}`)
	if st.Ticket.ID != 2 || st.Balance != 2400 {
		t.Fatalf("bought in the Activity: %+v %d", st.Ticket, st.Balance)
	}
	resumed := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
	h.click(resumed, "v1:auto:", alice)
	status, b = c.do("GET", "api/state", "")
	if err := json.Unmarshal(b, &st); status != 200 || err != nil || st.Ticket.Open || !st.Ticket.Key || st.Keys != 1 {
		t.Fatalf("the Activity after the buttons: %d %s", status, b)
	}
	if got := shownBalance(t, h.slash(fakediscord.Slash{User: alice, Name: "balance"}).Message); got != st.Balance {
		t.Errorf("/balance %d, the Activity %d", got, st.Balance)
	}
	// The bot loses the right to post in the channel: the first ticket
	// finished after that meets a 403 (50013), and the announcements there
	// pause with one warning naming the permissions; the next ticket is
	// not announced.
	h.srv.DenyChannel(chan1)
	h.draw.set(loss(false))
	const warning = "grant it View Channel, Send Messages and Embed Links there"
	for i := range 2 {
		st = c.step("buy", `{"op":"e2e-buy-denied-0000`+strconv.Itoa(i)+`"}`)
		st = c.step("reveal", `{"op":"e2e-auto-denied-000`+strconv.Itoa(i)+`","ticket":`+strconv.FormatUint(st.Ticket.ID, 10)+`,"row":-1}`)
		for deadline := time.Now().Add(10 * time.Second); i == 0 && !strings.Contains(h.logs.String(), warning); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no warning after a 403 on an announcement")
			}
		}
	}
	h.stop()
	denied := 0
	for _, f := range h.srv.Faults() {
		if f.Kind == fakediscord.FaultMissingPermissions {
			denied++
		}
	}
	if n := strings.Count(h.logs.String(), warning); denied != 1 || n != 1 {
		t.Errorf("two tickets finished where the bot may not post: %d 403s, %d warnings; want 1 of each", denied, n)
	}
	if p := h.player(alice); p.Balance != st.Balance || p.Keys != st.Keys || p.Stats.Plays != 4 {
		t.Errorf("store: balance %d keys %d plays %d, the Activity %d %d", p.Balance, p.Keys, p.Stats.Plays, st.Balance, st.Keys)
	}
	h.noFailures()
}

// TestPublicListenerWithoutActivity: PUBLIC_ADDR alone serves /fair, and
// no Activity (no client secret to prove who plays).
func TestPublicListenerWithoutActivity(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"PUBLIC_ADDR": "127.0.0.1:0"})
	h.start()
	base := "http://" + <-h.public
	for path, want := range map[string]int{"/fair": 200, "/activity/": 404, "/activity/api/config": 404} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
