package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// serveTwo runs two bot processes (h.spawn) on h's configuration, each
// serving the HTTP endpoint, and returns their addresses and a function
// that stops both.
func (h *harness) serveTwo() (addrs []string, stop func()) {
	h.t.Helper()
	a, _, stopA := h.spawn(h.cfg)
	b, _, stopB := h.spawn(h.cfg)
	return []string{a, b}, func() { stopA(); stopB() }
}

// roundRobin is a load balancer in front of bot processes: each request goes
// to the next backend in turn. It counts what each one got.
type roundRobin struct {
	backends []*httputil.ReverseProxy
	next     atomic.Uint64
	served   []atomic.Int64
}

func newRoundRobin(tb testing.TB, addrs []string) *httptest.Server {
	rr := &roundRobin{served: make([]atomic.Int64, len(addrs))}
	for _, a := range addrs {
		u, err := url.Parse("http://" + a)
		if err != nil {
			tb.Fatal(err)
		}
		rr.backends = append(rr.backends, httputil.NewSingleHostReverseProxy(u))
	}
	srv := httptest.NewServer(rr)
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() {
		for i := range rr.served {
			if rr.served[i].Load() == 0 {
				tb.Errorf("backend %d served nothing", i)
			}
		}
	})
	return srv
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int((rr.next.Add(1) - 1) % uint64(len(rr.backends)))
	rr.served[i].Add(1)
	rr.backends[i].ServeHTTP(w, r)
}

// TestHTTPEndpointsBehindALoadBalancer runs two bot processes on one Redis,
// each serving the HTTP interactions endpoint, behind a round-robin proxy
// that the fake Discord posts to. The same tickets are clicked through both
// at once: each ticket is drawn once and debited once.
func TestHTTPEndpointsBehindALoadBalancer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, httpEnv(map[string]string{"REDIS_URL": redistest.URL(t)}))
	addrs, stop := h.serveTwo()
	lb := newRoundRobin(t, addrs)
	h.srv.SetInteractionsURL(lb.URL + "/interactions")
	if err := h.srv.Ping(h.ctx()); err != nil {
		t.Fatalf("the Developer Portal's PING through the load balancer: %v", err)
	}

	players := []string{"100000000000000101", "100000000000000102", "100000000000000103"}
	h.draw.set(win(game.TierCandle)) // a prize paid twice would show
	for _, u := range players {
		// Two /play at once: one ticket, one debit, whichever process each lands on.
		ps := []*fakediscord.Pending{h.send(fakediscord.Slash{User: u, Name: "play"}), h.send(fakediscord.Slash{User: u, Name: "play"})}
		var card fakediscord.Response
		for _, p := range ps {
			card = h.answered(p, nil, "/play")
		}
		// Six clicks on Auto at once, spread over both processes.
		bursts, err := h.srv.ClickBurst(h.ctx(), fakediscord.Click{Message: card.Message.ID, CustomID: button(t, card.Message, "v1:auto:"), User: u}, 6)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range bursts {
			h.answered(p, nil, "Auto")
		}
	}
	stop()
	for _, u := range players {
		p := h.player(u)
		if p.Stats.Plays != 1 || p.Stats.Wins != 1 || p.Balance != 2000-game.Stake+100 || p.Ticket == nil || !p.Ticket.Drawn || p.Ticket.Open() {
			t.Errorf("player %s: %d plays, %d wins, balance %d, ticket %+v; want one ticket, debited once, drawn and paid once", u, p.Stats.Plays, p.Stats.Wins, p.Balance, p.Ticket)
		}
	}
	h.noFailures()
}
