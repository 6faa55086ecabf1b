package activity

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lesclefsdutresor/clefs/commands"
)

// Bus carries the table's messages between the bot's processes: a guild's
// messages reach every subscriber of that guild, each publisher's in order.
// LocalBus serves one process; redisstore.Bus several over Redis.
type Bus interface {
	// Publish returns how many subscribers (processes) the message reached.
	Publish(ctx context.Context, guild uint64, msg []byte) (int, error)
	// Subscribe calls fn with each message published for guild from its
	// return on, one at a time, until stop is called.
	Subscribe(ctx context.Context, guild uint64, fn func(msg []byte)) (stop func(), err error)
}

// LocalBus is the Bus of a single process (the embedded store).
type LocalBus struct {
	mu   sync.Mutex
	subs map[uint64][]*func([]byte) // by guild; a subscription is its own pointer
}

// Publish calls the guild's subscribers in turn.
func (b *LocalBus) Publish(_ context.Context, guild uint64, msg []byte) (int, error) {
	b.mu.Lock()
	fns := slices.Clone(b.subs[guild])
	b.mu.Unlock()
	for _, fn := range fns {
		(*fn)(msg)
	}
	return len(fns), nil
}

// Subscribe adds fn to the guild's subscribers.
func (b *LocalBus) Subscribe(_ context.Context, guild uint64, fn func([]byte)) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[uint64][]*func([]byte){}
	}
	b.subs[guild] = append(b.subs[guild], &fn)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.subs[guild] = slices.DeleteFunc(b.subs[guild], func(s *func([]byte)) bool { return s == &fn })
		if len(b.subs[guild]) == 0 {
			delete(b.subs, guild)
		}
	}, nil
}

// Bounds of the table.
const (
	maxSeats   = 25               // players shown per instance: the first to join
	maxStreams = 2 * maxSeats     // streams open per instance on one process
	maxBehind  = 64               // updates a stream lets pile up (coalesced) before it is dropped
	passLife   = 30 * time.Second // a stream pass's
	keepAlive  = 25 * time.Second // a comment on an idle stream, for the proxies
	writeWait  = 10 * time.Second // a page slower to take a write is dropped
	// quietFor is how long a guild's steps go unpublished after one that no
	// process heard (docs/activity.md, "The table", says why nothing is lost).
	quietFor = time.Second
)

// seat is what the table sees of a player (docs/activity.md, "The table").
type seat struct {
	User   string              `json:"user"`
	Ticket *commands.ActTicket `json:"ticket,omitempty"`
	Keys   int                 `json:"keys"`
	Chest  *commands.ActChest  `json:"chest,omitempty"`
}

// seatOf is the seat of a step's state: only who is there when the guild
// keeps plays private or the player is paused.
func seatOf(st commands.ActState) seat {
	s := seat{User: st.User}
	if st.Shown {
		s.Ticket, s.Keys, s.Chest = st.Ticket, st.Keys, st.Chest
	}
	return s
}

// older reports whether s comes before o, the same player's: a seat moves
// with the ticket, its rows revealed, its end, the chests opened. A seat
// without a ticket (hidden, or none bought) always replaces.
func (s seat) older(o seat) bool {
	if s.Ticket == nil || o.Ticket == nil {
		return false
	}
	rank := func(s seat) []int64 {
		var rows, end, chest int64
		for _, r := range s.Ticket.Rows {
			if r != nil {
				rows++
			}
		}
		if !s.Ticket.Open {
			end = 1
		}
		if s.Chest != nil {
			chest = s.Chest.ID
		}
		return []int64{int64(s.Ticket.ID), rows, end, chest}
	}
	return slices.Compare(rank(s), rank(o)) < 0
}

// message is what the bus carries: Kind "seat", "join", "here" or "leave",
// as docs/activity.md ("The table") tells.
type message struct {
	Kind     string `json:"k"`
	From     string `json:"f,omitempty"` // the process of a join
	Instance string `json:"i"`
	Seat     seat   `json:"s"`
}

// frame is one server-sent event, about one player (user) or, "", the table.
type frame struct {
	user string
	data []byte // "event: …\ndata: …\n\n"
}

func newFrame(event, user string, v any) frame {
	b, _ := json.Marshal(v) // seats: cannot fail
	return frame{user: user, data: append(append([]byte("event: "+event+"\ndata: "), b...), '\n', '\n')}
}

// hub keeps this process's tables, by instance, and their streams.
type hub struct {
	bus    Bus
	id     string
	now    func() time.Time
	subMu  sync.Mutex // held while the bus subscribes
	guilds map[uint64]*guildSub
	mu     sync.Mutex
	tables map[string]*table
	quiet  map[uint64]time.Time // under mu: guilds whose steps nobody heard, until when
}

type guildSub struct {
	n    int
	stop func()
}

// table is an instance's: its seats, first to join first, and the streams
// of its pages here.
type table struct {
	guild uint64
	seats []seat
	local map[string]int // streams open here, by user
	subs  map[*stream]bool
}

// stream is one page's: updates wait in pending, one per player, the
// latest, until its writer takes them.
type stream struct {
	mu      sync.Mutex
	pending []frame
	behind  int
	dropped bool
	wake    chan struct{}
}

var errFull = errors.New("activity: this table has too many pages open")

func newHub(bus Bus, now func() time.Time) *hub {
	return &hub{bus: cmp.Or[Bus](bus, &LocalBus{}), id: rand.Text(), now: now, guilds: map[uint64]*guildSub{}, tables: map[string]*table{}, quiet: map[uint64]time.Time{}}
}

// push queues f, replacing the same player's pending update; a stream too
// far behind is dropped (its page reconnects and gets the whole table).
func (s *stream) push(f frame) {
	s.mu.Lock()
	if i := slices.IndexFunc(s.pending, func(p frame) bool { return p.user == f.user }); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
		s.behind++
	}
	s.pending = append(s.pending, f)
	s.dropped = s.dropped || s.behind > maxBehind
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the pending updates, and whether the stream was dropped.
func (s *stream) take() ([]frame, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending
	s.pending, s.behind = nil, 0
	return p, s.dropped
}

// put seats s (or updates the seat) unless the table is full or s is older
// than the seat; it reports whether anything changed.
func (t *table) put(s seat) bool {
	i := slices.IndexFunc(t.seats, func(o seat) bool { return o.User == s.User })
	switch {
	case i < 0 && len(t.seats) >= maxSeats:
		return false
	case i < 0:
		t.seats = append(t.seats, s)
	case s.older(t.seats[i]):
		return false
	default:
		t.seats[i] = s
	}
	return true
}

func (t *table) send(f frame) {
	for s := range t.subs {
		s.push(f)
	}
}

// open opens a stream of instance in guild for the player at me, and
// returns it with the table as it is.
func (h *hub) open(ctx context.Context, guild uint64, instance string, me seat) (*stream, []seat, error) {
	h.subMu.Lock()
	g := h.guilds[guild]
	if g == nil {
		stop, err := h.bus.Subscribe(ctx, guild, h.deliver)
		if err != nil {
			h.subMu.Unlock()
			return nil, nil, err
		}
		g = &guildSub{stop: stop}
		h.guilds[guild] = g
	}
	g.n++
	h.subMu.Unlock()
	s := &stream{wake: make(chan struct{}, 1)}
	h.mu.Lock()
	delete(h.quiet, guild) // a table open here: every step is heard
	t := h.tables[instance]
	if t == nil {
		t = &table{guild: guild, local: map[string]int{}, subs: map[*stream]bool{}}
		h.tables[instance] = t
	}
	if len(t.subs) >= maxStreams {
		h.mu.Unlock()
		h.close(guild, instance, me.User, nil)
		return nil, nil, errFull
	}
	t.put(me)
	t.local[me.User]++
	t.subs[s] = true
	seats := slices.Clone(t.seats)
	h.mu.Unlock()
	h.publish(ctx, guild, message{Kind: "join", From: h.id, Instance: instance, Seat: me})
	return s, seats, nil
}

// close ends stream s (nil: a stream refused) of user; the last stream of
// a player here takes their seat away.
func (h *hub) close(guild uint64, instance, user string, s *stream) {
	h.mu.Lock()
	t := h.tables[instance]
	gone := false
	if s != nil {
		delete(t.subs, s)
		if t.local[user]--; t.local[user] <= 0 {
			delete(t.local, user)
			t.seats = slices.DeleteFunc(t.seats, func(o seat) bool { return o.User == user })
			gone = true
		}
	}
	if len(t.subs) == 0 {
		delete(h.tables, instance)
	}
	h.mu.Unlock()
	if gone {
		h.publish(context.Background(), guild, message{Kind: "leave", Instance: instance, Seat: seat{User: user}})
	}
	h.subMu.Lock()
	defer h.subMu.Unlock()
	if g := h.guilds[guild]; g != nil {
		if g.n--; g.n == 0 {
			g.stop()
			delete(h.guilds, guild)
		}
	}
}

// publish sends m to the guild's processes within writeWait, once: the
// pages catch up when they reconnect. A step's seat is not sent for
// quietFor after one that reached none.
func (h *hub) publish(ctx context.Context, guild uint64, m message) {
	ctx, cancel := context.WithTimeout(ctx, writeWait)
	defer cancel()
	step := m.Kind == "seat"
	if step {
		h.mu.Lock()
		quiet := h.now().Before(h.quiet[guild])
		h.mu.Unlock()
		if quiet {
			return
		}
	}
	b, _ := json.Marshal(m) // cannot fail
	n, err := h.bus.Publish(ctx, guild, b)
	if step && err == nil {
		h.mu.Lock()
		if n == 0 {
			h.quiet[guild] = h.now().Add(quietFor)
		} else {
			delete(h.quiet, guild)
		}
		h.mu.Unlock()
	}
}

// deliver takes a message of the bus to the tables here.
func (h *hub) deliver(b []byte) {
	var m message
	if json.Unmarshal(b, &m) != nil {
		return
	}
	h.mu.Lock()
	t := h.tables[m.Instance]
	var here []seat
	switch {
	case t == nil:
	case m.Kind == "leave":
		if t.local[m.Seat.User] == 0 {
			t.seats = slices.DeleteFunc(t.seats, func(o seat) bool { return o.User == m.Seat.User })
			t.send(newFrame("leave", m.Seat.User, m.Seat))
		}
	case t.put(m.Seat):
		t.send(newFrame("seat", m.Seat.User, m.Seat))
		fallthrough
	default:
		if m.Kind == "join" && m.From != h.id {
			for _, s := range t.seats {
				if t.local[s.User] > 0 {
					here = append(here, s)
				}
			}
		}
	}
	h.mu.Unlock()
	for _, s := range here {
		h.publish(context.Background(), t.guild, message{Kind: "here", Instance: m.Instance, Seat: s})
	}
}

// table serves api/table: POST, with the session, answers a pass for the
// stream, valid passLife; GET, with ?t=pass, is the stream (server-sent events):
// "table", every seat, then "seat" and "leave" as they come.
func (h *handler) table(w http.ResponseWriter, r *http.Request) {
	now := h.now()
	if r.Method == http.MethodPost {
		s, ok := h.bearer(w, r)
		if !ok {
			return
		}
		s.X, s.E = s.E, min(s.E, now.Add(passLife).Unix())
		h.reply(w, http.StatusOK, map[string]any{"pass": sign(h.passKey, s), "expires_in": s.X - now.Unix()})
		return
	}
	s, err := verify(h.passKey, r.URL.Query().Get("t"), now)
	if err != nil {
		h.refuse(w, http.StatusUnauthorized, "session", "no pass, or an expired one: ask another")
		return
	}
	if ok, wait := h.users.allow(s.U, now); !ok {
		h.tooMany(w, wait, s.U, "table")
		return
	}
	st, ok := h.act(w, r, s, commands.Act{Kind: commands.ActKindState})
	if !ok {
		return
	}
	guild, _ := strconv.ParseUint(s.G, 10, 64) // signed by us
	ctx := r.Context()
	me, seats, err := h.hub.open(ctx, guild, s.I, seatOf(st))
	if errors.Is(err, errFull) {
		h.tooMany(w, time.Minute, s.U, "table")
		return
	} else if err != nil {
		h.log.Warn("activity: the table's bus failed", "guild", s.G, "err", err)
		h.fail(w, http.StatusServiceUnavailable, "unavailable", "the table could not open: try again")
		return
	}
	defer h.hub.close(guild, s.I, s.U, me)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	end := time.After(time.Unix(s.X, 0).Sub(now))
	alive := time.NewTicker(keepAlive) // both collected once unreferenced (Go 1.23)
	out := [][]byte{newFrame("table", "", seats).data}
	for {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
		for _, b := range out {
			if _, err := w.Write(b); err != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		out = out[:0]
		select {
		case <-ctx.Done():
			return
		case <-h.done:
			return
		case <-end: // the page renews its session and comes back
			return
		case <-alive.C:
			out = append(out, []byte(": \n\n"))
		case <-me.wake:
			fs, dropped := me.take()
			if dropped {
				h.log.Info("activity: a slow page dropped from its table", "user", s.U, "instance", s.I)
				return
			}
			for _, f := range fs {
				out = append(out, f.data)
			}
		}
	}
}
