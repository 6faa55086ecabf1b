package activity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// seatAt is user's seat on ticket id with the first n rows revealed.
func seatAt(user string, id uint64, n int) seat {
	t := &commands.ActTicket{ID: id, Open: n < 3}
	for r := range n {
		t.Rows[r] = &[3]int{r, r, r}
	}
	return seat{User: user, Ticket: t}
}

// wait takes s's updates until one satisfies ok (or fails after a
// minute: the test then hangs no longer).
func wait(t *testing.T, s *stream, ok func(f frame) bool) []frame {
	t.Helper()
	var got []frame
	deadline := time.After(time.Minute)
	for {
		select {
		case <-s.wake:
		case <-deadline:
			t.Fatalf("no such update among %d", len(got))
		}
		fs, dropped := s.take()
		if dropped {
			t.Fatal("dropped")
		}
		for _, f := range fs {
			if got = append(got, f); ok(f) {
				return got
			}
		}
	}
}

// The first 25 to join are seated, in order; a stale seat never replaces
// a newer one; a page that does not take its updates is dropped, and the
// others get every update, coalesced, in order.
func TestHubBounds(t *testing.T) {
	ctx := context.Background()
	h := newHub(nil, time.Now)
	var streams []*stream
	for i := range 30 {
		s, seats, err := h.open(ctx, 1, "inst", seat{User: strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, maxSeats); len(seats) != want || seats[len(seats)-1].User != strconv.Itoa(want-1) {
			t.Fatalf("stream %d sees %d seats, last %v", i, len(seats), seats[len(seats)-1])
		}
		streams = append(streams, s)
	}
	for _, s := range streams {
		s.take()
	}
	slow, quick := streams[0], streams[1]
	for ticket := uint64(1); ticket <= 100; ticket++ {
		h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatAt("3", ticket, 0)})
		if got := wait(t, quick, func(frame) bool { return true }); len(got) != 1 || !strings.Contains(string(got[0].data), fmt.Sprintf(`"id":%d,`, ticket)) {
			t.Fatalf("update %d: %q", ticket, got)
		}
	}
	h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatAt("3", 2, 3)}) // stale: not sent
	h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatAt("3", 100, 3)})
	if got := wait(t, quick, func(frame) bool { return true }); len(got) != 1 || !strings.Contains(string(got[0].data), `"id":100,"open":false`) {
		t.Errorf("after a stale seat and the last: %q", got)
	}
	if _, dropped := slow.take(); !dropped {
		t.Error("the page that took nothing is not dropped")
	}
	h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatAt("26", 1, 1)}) // not seated: the table is full
	h.close(1, "inst", "2", streams[2])
	if got := wait(t, quick, func(frame) bool { return true }); len(got) != 1 || !strings.HasPrefix(string(got[0].data), "event: leave\ndata: {\"user\":\"2\"") {
		t.Errorf("after a page left: %q", got)
	}
}

// A seat shows only what the guild's rules let others see.
func TestSeatOf(t *testing.T) {
	st := commands.ActState{User: "7", Keys: 2, Ticket: seatAt("7", 3, 1).Ticket}
	if s := seatOf(st); s.Ticket != nil || s.Keys != 0 {
		t.Errorf("a hidden player's seat: %+v", s)
	}
	st.Shown = true
	if s := seatOf(st); s.Ticket == nil || s.Keys != 2 {
		t.Errorf("a shown player's seat: %+v", s)
	}
}

// Two processes on Redis (single and Cluster), each with its own client
// and a page of one instance: both pages see the same seats in the same
// order, whichever process published them, and each sees the other join.
func TestHubOnRedis(t *testing.T) {
	for name, url := range map[string]func(testing.TB) string{"single": redistest.URL, "cluster": redistest.ClusterURL} {
		t.Run(name, func(t *testing.T) {
			u := url(t)
			ctx := context.Background()
			guild := redistest.UniqueGuild(t)
			var hubs [2]*hub
			var streams [2]*stream
			for i := range hubs {
				c, err := redisstore.NewClient(u)
				if err != nil {
					t.Fatal(err)
				}
				st := redisstore.New(c, storage.Options{})
				t.Cleanup(func() { st.Close() })
				hubs[i] = newHub(st, time.Now)
				s, seats, err := hubs[i].open(ctx, guild, "inst", seat{User: "p" + strconv.Itoa(i)})
				if err != nil {
					t.Fatal(err)
				}
				if len(seats) != 1 {
					t.Fatalf("hub %d: %d seats at first", i, len(seats))
				}
				streams[i] = s
				t.Cleanup(func() { hubs[i].close(guild, "inst", "p"+strconv.Itoa(i), s) })
			}
			// The first sees the second join; the second hears of the first.
			wait(t, streams[0], func(f frame) bool { return f.user == "p1" })
			wait(t, streams[1], func(f frame) bool { return f.user == "p0" })
			for n := 1; n <= 3; n++ {
				for i := range hubs {
					hubs[i].publish(ctx, guild, message{Kind: "seat", Instance: "inst", Seat: seatAt("p"+strconv.Itoa(i), 1, n)})
				}
			}
			for i := range streams {
				seen := map[string][]int{}
				wait(t, streams[i], func(f frame) bool {
					var s seat
					_ = json.Unmarshal(f.data[bytes.Index(f.data, []byte("data: "))+6:], &s)
					if s.Ticket != nil {
						seen[s.User] = append(seen[s.User], rowsShown(s))
					}
					return len(seen["p0"]) > 0 && seen["p0"][len(seen["p0"])-1] == 3 && len(seen["p1"]) > 0 && seen["p1"][len(seen["p1"])-1] == 3
				})
				for user, ns := range seen {
					if !slices.IsSorted(ns) || len(slices.Compact(slices.Clone(ns))) != len(ns) {
						t.Errorf("page %d saw %s's rows as %v", i, user, ns)
					}
				}
			}
		})
	}
}

func rowsShown(s seat) int {
	n := 0
	for _, r := range s.Ticket.Rows {
		if r != nil {
			n++
		}
	}
	return n
}

// Fan-out of one reveal to a full table of 25 pages, each served by its
// own writer into a discarding connection: the CPU per receiver is
// ns/op ÷ 25 (docs/activity.md).
func BenchmarkTableFanOut(b *testing.B) {
	ctx := context.Background()
	h := newHub(nil, time.Now)
	var wg sync.WaitGroup
	done := make(chan struct{})
	got := make(chan struct{}, maxSeats)
	var streams []*stream
	for i := range maxSeats {
		s, _, err := h.open(ctx, 1, "inst", seat{User: strconv.Itoa(i)})
		if err != nil {
			b.Fatal(err)
		}
		streams = append(streams, s)
	}
	for _, s := range streams {
		<-s.wake // the others joining
		s.take()
	}
	for _, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				case <-s.wake:
					fs, _ := s.take()
					for _, f := range fs {
						_, _ = io.Discard.Write(f.data)
						got <- struct{}{}
					}
				}
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatAt("0", uint64(n+1), 1+n%3)})
		for range maxSeats {
			<-got
		}
	}
	b.StopTimer()
	close(done)
	wg.Wait()
}

// What the table adds to a step when no table of the guild is open: after
// the first, which reached nobody, the guild is quiet and its steps are
// not published.
func BenchmarkTablePublishNoTable(b *testing.B) {
	ctx := context.Background()
	h := newHub(nil, time.Now)
	st := commands.ActState{User: "7", Keys: 1, Shown: true, Ticket: seatAt("7", 3, 2).Ticket}
	b.ReportAllocs()
	for b.Loop() {
		h.publish(ctx, 1, message{Kind: "seat", Instance: "inst", Seat: seatOf(st)})
	}
}

// countingBus counts the messages published through it.
type countingBus struct {
	LocalBus
	mu sync.Mutex
	n  int
}

func (b *countingBus) Publish(ctx context.Context, guild uint64, msg []byte) (int, error) {
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	return b.LocalBus.Publish(ctx, guild, msg)
}

func (b *countingBus) count() int { b.mu.Lock(); defer b.mu.Unlock(); return b.n }

// A step that no process heard quiets the guild's steps for quietFor; a
// table opened here, or the time passed, ends it.
func TestHubQuietWhenNobodyListens(t *testing.T) {
	ctx := context.Background()
	bus := &countingBus{}
	now := time.Unix(1_800_000_000, 0)
	h := newHub(bus, func() time.Time { return now })
	step := func(n int) { h.publish(ctx, 1, message{Kind: "seat", Instance: "i", Seat: seatAt("u", 1, n)}) }
	step(1)
	step(2)
	if got := bus.count(); got != 1 {
		t.Fatalf("with nobody listening, %d steps published, want the first only", got)
	}
	now = now.Add(quietFor)
	step(3)
	if got := bus.count(); got != 2 {
		t.Fatalf("after quietFor, %d published, want 2", got)
	}
	s, _, err := h.open(ctx, 1, "i", seat{User: "w"}) // publishes its join
	if err != nil {
		t.Fatal(err)
	}
	step(1)
	step(2)
	if got := bus.count(); got != 5 {
		t.Fatalf("with a table open, %d published, want 5 (2, the join, 2 steps)", got)
	}
	wait(t, s, func(f frame) bool { return bytes.Contains(f.data, []byte(`"u"`)) })
}
