package activity_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
)

const carol = "100000000000000003"

// event is one server-sent event of the table.
type event struct {
	name string
	data string
}

// seat is a seat as the page reads it.
type seat struct {
	User   string
	Ticket *commands.ActTicket
	Keys   int
	Chest  *commands.ActChest
}

func (e event) seats(t *testing.T) []seat {
	t.Helper()
	data := e.data // the table's seats, or one seat
	if e.name != "table" {
		data = "[" + data + "]"
	}
	var ss []seat
	if err := json.Unmarshal([]byte(data), &ss); err != nil {
		t.Fatalf("%s: %v", e.data, err)
	}
	return ss
}

// open asks a ticket with session and opens the table's stream; close
// ends it, as a page leaving.
func (f *fixture) open(session string) (<-chan event, func()) {
	f.t.Helper()
	a := f.do("POST", "api/table", session, "")
	var tk struct{ Pass string }
	if err := json.Unmarshal(a.body, &tk); a.status != 200 || err != nil {
		f.t.Fatalf("ticket: %d %s", a.status, a.body)
	}
	if b := f.do("GET", "api/table?t="+tk.Pass[:len(tk.Pass)-2], "", ""); b.status != 401 {
		f.t.Errorf("a tampered ticket: %d %s", b.status, b.body)
	}
	if b := f.do("GET", "api/table?t="+session, "", ""); b.status != 401 {
		f.t.Errorf("a session as a ticket: %d %s", b.status, b.body)
	}
	resp, err := http.Get(f.url + "api/table?t=" + tk.Pass)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		f.t.Fatalf("stream: %v %v", resp, err)
	}
	c := make(chan event, 100)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(resp.Body)
		var e event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				e.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			case line == "" && e.name != "":
				c <- e
				e = event{}
			}
		}
	}()
	f.t.Cleanup(func() { resp.Body.Close() })
	return c, func() { resp.Body.Close() }
}

// next is the stream's next event.
func next(t *testing.T, c <-chan event) event {
	t.Helper()
	select {
	case e, ok := <-c:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(time.Minute):
		t.Fatal("no event")
	}
	return event{}
}

// Three pages in one instance, two players and one who watches: each
// sees who joins, every step of the others as its player was answered
// (the revealed rows, nothing else), their results, and who leaves.
func TestTable(t *testing.T) {
	f := newFixture(t)
	inst := f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: []string{alice, bob, carol}})
	sa, _ := f.loginIn(inst, alice)
	sb, _ := f.loginIn(inst, bob)
	sc, _ := f.loginIn(inst, carol)
	ea, _ := f.open(sa)
	if ss := next(t, ea).seats(t); len(ss) != 1 || ss[0].User != alice {
		t.Fatalf("alice's first table: %+v", ss)
	}
	next(t, ea) // her own join
	eb, _ := f.open(sb)
	if ss := next(t, eb).seats(t); len(ss) != 2 || ss[0].User != alice || ss[1].User != bob {
		t.Fatalf("bob's first table: %+v", ss)
	}
	next(t, eb)
	ec, closeCarol := f.open(sc)
	next(t, ec)
	next(t, ec)
	for _, want := range []struct {
		e    <-chan event
		user string
	}{{ea, bob}, {ea, carol}, {eb, carol}} {
		if ss := next(t, want.e).seats(t); ss[0].User != want.user || ss[0].Ticket != nil {
			t.Errorf("saw %+v join, want %s", ss, want.user)
		}
	}
	play := func(session, user string, pages ...<-chan event) {
		steps := []struct{ kind, body string }{
			{"buy", `{"op":"buy-` + user + `"}`},
			{"reveal", `{"op":"reveal-` + user + `","ticket":TICKET,"row":2}`},
			{"reveal", `{"op":"auto-` + user + `","ticket":TICKET,"row":-1}`},
		}
		ticket := "0"
		for _, s := range steps {
			st := f.step(session, s.kind, strings.ReplaceAll(s.body, "TICKET", ticket))
			ticket = strconv.FormatUint(st.Ticket.ID, 10)
			for _, e := range pages {
				ss := next(t, e).seats(t)
				if len(ss) != 1 || ss[0].User != user || !reflect.DeepEqual(ss[0].Ticket, st.Ticket) || ss[0].Keys != st.Keys {
					t.Errorf("after %s of %s, the table shows %+v %+v, the player %+v", s.kind, user, ss, ss[0].Ticket, st.Ticket)
				}
			}
		}
	}
	play(sa, alice, ea, eb, ec)
	play(sb, bob, ea, eb, ec)
	closeCarol()
	for _, e := range []<-chan event{ea, eb} {
		if e := next(t, e); e.name != "leave" || e.seats(t)[0].User != carol {
			t.Errorf("after carol left: %+v", e)
		}
	}
}

// With plays private, or a player paused, the table shows who is there
// and no ticket.
func TestTableHides(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	inst := f.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: channel, Users: []string{alice, bob}})
	sa, _ := f.loginIn(inst, alice)
	sb, _ := f.loginIn(inst, bob)
	f.step(sb, "buy", `{"op":"buy-00000000000000b1"}`)
	f.step(sb, "reveal", `{"op":"reveal-000000000000b1","ticket":1,"row":0}`)
	now := time.Now() // the game's clock
	if _, err := f.store.Run(ctx, storage.Step{ID: storage.PlayerID{Guild: 900000000000000001, User: 100000000000000002},
		Op: "pause-b", Move: game.Pause{Until: now.Add(24 * time.Hour)}, Now: now}); err != nil {
		t.Fatal(err)
	}
	eb, _ := f.open(sb)
	next(t, eb)
	ea, _ := f.open(sa)
	if ss := next(t, ea).seats(t); len(ss) != 2 || ss[0].User != bob || ss[0].Ticket != nil {
		t.Errorf("a paused player at the table: %+v", ss)
	}
	off := false
	if _, err := f.store.RunGuild(ctx, storage.GuildStep{Guild: 900000000000000001, Op: "private",
		Move: game.ChangeSettings{Patch: game.SettingsPatch{PublicPlays: &off}, Actor: 1, Reason: "test"}, Now: now}); err != nil {
		t.Fatal(err)
	}
	next(t, eb)
	next(t, eb) // the joins
	st := f.step(sa, "buy", `{"op":"buy-00000000000000a1"}`)
	f.step(sa, "reveal", `{"op":"reveal-000000000000a1","ticket":`+strconv.FormatUint(st.Ticket.ID, 10)+`,"row":-1}`)
	for range 2 {
		if ss := next(t, eb).seats(t); ss[0].User != alice || ss[0].Ticket != nil || ss[0].Keys != 0 {
			t.Errorf("with plays private, bob sees %+v", ss)
		}
	}
}
