package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// chaosConfig is a short chaos on both transports at once: a few players,
// faults on a fifth of the REST calls, one gateway drop (half-way), keys on
// every play so that chests come every third ticket.
func chaosConfig(tb testing.TB) ChaosConfig {
	return ChaosConfig{
		Transports: []string{Gateway, HTTP}, Players: 4, Guilds: 2, Duration: 2 * time.Second,
		Fraction: 0.2, Seed: 22, GatewayDrops: 1, Recovery: 30 * time.Second,
		Logger: testLogger(tb), Drawer: keyDrawer{game.NewSecureSource()},
	}
}

// TestChaos runs a short chaos on each store and checks that it finds no
// breach, that faults were injected and every ticket's result reached its
// player, and what the report says.
func TestChaos(t *testing.T) {
	for _, store := range []string{StoreBolt, StoreRedis} {
		t.Run(store, func(t *testing.T) {
			cfg := chaosConfig(t)
			if store == StoreRedis {
				cfg.Store, cfg.RedisURL = StoreRedis, redistest.URL(t)
			}
			rep, err := Chaos(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Chaos: %v; report %+v", err, rep)
			}
			if rep.BreachTotal != 0 || len(rep.FirstBreaches) != 0 || len(rep.Phases) != 2 {
				t.Fatalf("report %+v", rep)
			}
			if rep.Balance != rep.Start-rep.Staked+rep.Won || rep.Start != 2*4*startBalance || rep.Staked == 0 {
				t.Errorf("books %d = %d − %d + %d", rep.Balance, rep.Start, rep.Staked, rep.Won)
			}
			for _, ph := range rep.Phases {
				if ph.Interactions == 0 || ph.Tickets == 0 || ph.Chests == 0 || ph.Open != 0 ||
					ph.Seen+ph.SeenInRecovery+ph.OnlyInHistory != ph.Tickets || ph.HistoryReads < int64(ph.Players) ||
					ph.Tickets*game.Stake > rep.Staked || len(ph.Failures) != 0 {
					t.Errorf("%s: %+v", ph.Transport, ph)
				}
			}
			// The gateway's answers go over REST, through the faults.
			gw := rep.Phases[0]
			if gw.Transport != Gateway || gw.RESTFaults == 0 || gw.Faults[string("gateway_drop")]+gw.Faults["gateway_reconnect"] != 1 {
				t.Errorf("gateway faults: %+v", gw.Faults)
			}
			var text, js bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"breaches: 0 (credit 0, ticket 0, key 0, unreachable 0, discord 0)", "gateway:", "http:", "retry_after"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, text.String())
				}
			}
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var back ChaosReport
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Phases[0].Interactions != gw.Interactions {
				t.Errorf("JSON %v: %s", err, js.String())
			}
		})
	}
}

// breakingStore breaks the writes of one player (the first whose write
// matches) with brk, which says whether it changed the write: a store
// that loses a credit or a key without its records looking unsound.
type breakingStore struct {
	storage.Store
	brk    func(w *storage.Write) bool
	mu     sync.Mutex
	victim storage.PlayerID
	broken int
}

func (s *breakingStore) Update(ctx context.Context, id storage.PlayerID, op string, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	return s.Store.Update(ctx, id, op, func(v storage.Versioned) (storage.Write, error) {
		w, err := fn(v)
		if err != nil || w.Skip {
			return w, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.victim == (storage.PlayerID{}) || s.victim == id {
			if s.brk(&w) {
				s.victim = id
				s.broken++
			}
		}
		return w, nil
	})
}

// drew reports whether w draws a ticket.
func drew(w *storage.Write) bool {
	for _, e := range w.History {
		if e.Kind == game.KindPlay {
			return true
		}
	}
	return false
}

// TestChaosCatchesBreaches runs the chaos over stores that lose a cent
// of a prize (the balance still equals start − staked + won), drop a key
// just found, or count a ticket bought that is never drawn, and checks
// that the audit finds each and the run fails with ErrBreach.
func TestChaosCatchesBreaches(t *testing.T) {
	for _, tt := range []struct {
		name, kind string
		brk        func(w *storage.Write) bool
	}{
		{"a cent of a prize lost", BreachCredit, func(w *storage.Write) bool {
			p := &w.Player
			if len(w.History) == 0 || p.Stats.WonCents < 1 {
				return false
			}
			p.Balance--
			p.Stats.WonCents--
			return true
		}},
		{"a key dropped", BreachKey, func(w *storage.Write) bool {
			p := &w.Player
			if !drew(w) || p.Keys == 0 {
				return false
			}
			p.Keys--
			return true
		}},
		{"a ticket skipped", BreachTicket, func(w *storage.Write) bool {
			p := &w.Player
			if !drew(w) || p.Ticket == nil || p.TicketSeq != p.Ticket.ID {
				return false
			}
			// The next ticket is numbered one further: one is bought (and
			// charged) that no draw ever shows.
			p.TicketSeq++
			p.Stats.Plays++
			p.Stats.StakedCents += game.Stake
			p.Balance -= game.Stake
			return true
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := chaosConfig(t)
			cfg.Transports, cfg.Players, cfg.Duration, cfg.Fraction = []string{Gateway}, 2, time.Second, 0.05
			cfg.GatewayDrops = -1 // none: the breaks are the store's
			var bs *breakingStore
			cfg.Wrap = func(st storage.Store) storage.Store {
				bs = &breakingStore{Store: st, brk: tt.brk}
				return bs
			}
			rep, err := Chaos(context.Background(), cfg)
			if !errors.Is(err, ErrBreach) {
				t.Fatalf("Chaos over a store that breaks: %v, want ErrBreach; report %+v", err, rep)
			}
			if bs.broken == 0 {
				t.Fatal("the store broke nothing: the test proves nothing")
			}
			if rep.Breaches[tt.kind] == 0 || rep.BreachTotal == 0 || len(rep.FirstBreaches) == 0 {
				t.Fatalf("no %s breach found (%d writes broken): %+v", tt.kind, bs.broken, rep.Breaches)
			}
			for _, b := range rep.FirstBreaches {
				if want := bs.victim; b.Player != "" && !strings.HasSuffix(b.Player, "/"+strconv.FormatUint(want.User, 10)) {
					t.Errorf("breach of player %s, but only %d/%d was broken: %s", b.Player, want.Guild, want.User, b)
				}
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "BREACH "+tt.kind) {
				t.Errorf("the report does not list the breach:\n%s", text.String())
			}
			t.Logf("%d writes broken; found: %v", bs.broken, rep.FirstBreaches)
		})
	}
}

// TestHistoryLogMerge checks how the audit pieces a player's whole
// history together from reads of its last lines: overlapping reads add
// only their new lines, and a read that shares no line with the log (lines
// written and trimmed between two reads) is a gap, which the audit
// reports.
func TestHistoryLogMerge(t *testing.T) {
	line := func(n uint64) game.Entry {
		return game.Entry{Kind: game.KindPlay, TicketID: n, At: time.Unix(int64(n), 0), Balance: int64(n)}
	}
	read := func(from, to uint64) []game.Entry { // newest first
		var out []game.Entry
		for n := to; n >= from && n > 0; n-- {
			out = append(out, line(n))
		}
		return out
	}
	var h historyLog
	h.merge(read(1, 3))
	h.merge(read(1, 3)) // nothing new
	h.merge(read(2, 7)) // the oldest trimmed, four new
	h.merge(read(5, 9))
	if h.gap != "" || len(h.lines) != 9 {
		t.Fatalf("log of %d lines, gap %q", len(h.lines), h.gap)
	}
	for k, e := range h.lines {
		if e.TicketID != uint64(k+1) {
			t.Fatalf("line %d is ticket %d", k, e.TicketID)
		}
	}
	h.merge(read(12, 14)) // 10 and 11 never read
	if h.gap == "" || len(h.lines) != 12 {
		t.Fatalf("a read past lines never read: gap %q, %d lines", h.gap, len(h.lines))
	}
}
