package e2e_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// The chaos test's faults: 429s (per route and global) answered with this
// retry_after, 5xx with HTML bodies, slow answers and connection resets on
// a tenth of the REST calls, half of the 5xx, slow and reset faults after
// the call took effect.
const (
	chaosFraction   = 0.1
	chaosRetryAfter = 500 * time.Millisecond
	chaosDrops      = 3 // gateway drops during the faults
)

// chaosSettings reads the test's length and seed from the environment:
// CLEFS_CHAOS (a duration, e.g. 5m: that long with 50 players; unset:
// 12 s with 12, for go test -race ./...) and
// CLEFS_CHAOS_SEED (unset: from the clock), to replay a failure.
func chaosSettings(t *testing.T) (d time.Duration, players int, seed uint64) {
	d, players, seed = 12*time.Second, 12, uint64(time.Now().UnixNano())
	if v := os.Getenv("CLEFS_CHAOS"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d < time.Second {
			t.Fatalf("CLEFS_CHAOS=%q: want a duration of at least 1s, e.g. 5m", v)
		}
		players = 50
	}
	if v := os.Getenv("CLEFS_CHAOS_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("CLEFS_CHAOS_SEED=%q: want an unsigned integer", v)
		}
	}
	return d, players, seed
}

// TestChaos: players play (/play, Auto, the chest when due) through the
// real bot (cli.Serve, its gateway) on Redis while the fake Discord fails
// REST calls at random and drops the gateway; a player whose interaction
// fails tries again as a person would (the same button on the same card,
// or /play). Then the faults stop, every player recovers (/play, and a
// click through whatever it hands back), the bot stops, and each player is
// audited against the store and its whole history: no credit created or
// lost, no ticket drawn twice or lost, no key lost or doubled, every
// result reachable, and no call the fake Discord refused (a retry before
// retry_after, a second acknowledgement). Timings are logged, never
// judged. (The HTTP endpoint answers in the HTTP reply, out of the REST
// faults' reach: the Fault tests run it under faults of its edits.)
func TestChaos(t *testing.T) {
	// Not parallel: it keeps the cores busy, so it runs alone among e2e's
	// tests, before the parallel ones; .ci/run runs it before any other package.
	d, n, seed := chaosSettings(t)
	t.Logf("chaos: %s of faults, %d players, seed %d", d, n, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay the faults' draws with CLEFS_CHAOS_SEED=%d", seed)
		}
	})
	h := newHarness(t, map[string]string{"REDIS_URL": redistest.URL(t), "STARTING_BALANCE": "100000", "APP_EMOJIS": "false"})
	h.fair = true // the production draws: their history lines are checked
	h.start()
	st := h.store()
	defer st.Close()
	ps := make([]*chaosPlayer, n)
	for k := range ps {
		ps[k] = newChaosPlayer(h.srv, st, k)
	}
	everyone := func(f func(*chaosPlayer)) {
		var wg sync.WaitGroup
		for _, p := range ps {
			wg.Go(func() { f(p) })
		}
		wg.Wait()
	}
	err := h.srv.SetChaos(fakediscord.Chaos{Fraction: chaosFraction, Seed: seed, RetryAfter: chaosRetryAfter,
		Delay: 2 * time.Second, After: 0.5, GatewayDrops: chaosDrops, GatewayEvery: d / (chaosDrops + 1)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	everyone(func(p *chaosPlayer) { p.play(ctx, time.Now().Add(d)) })
	h.srv.StopChaos()

	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := h.srv.WaitIdentified(rctx); err != nil {
		t.Fatalf("the gateway did not come back after the faults: %v", err)
	}
	everyone(func(p *chaosPlayer) { p.recoverPlay(rctx) })
	h.stop() // every answer, late ones included, is in

	breaches := h.chaosRefusals(ps)
	var sent, failed, notDelivered, cycles, chests int64
	for _, p := range ps {
		p.readHistory(ctx)
		if p.hist.unread != nil {
			t.Fatalf("player %s: a read of the history failed, so it cannot be audited: %v", p.user, p.hist.unread)
		}
		v, err := st.Load(ctx, p.id)
		if err != nil {
			t.Fatalf("player %s: %v", p.user, err)
		}
		onCard := map[uint64]bool{}
		for _, m := range h.srv.Messages(p.channel) {
			if n, done, ok := cardTicket(m); ok && done && p.shows(m) {
				onCard[n] = true
			}
		}
		for _, b := range p.audit(v.Player, h.cfg.StartingBalance, p.hist.lines, onCard) {
			breaches = append(breaches, "player "+p.user+": "+b)
		}
		sent, failed, notDelivered = sent+p.sent, failed+p.failed, notDelivered+p.notDelivered
		cycles, chests = cycles+p.cycles, chests+p.chests
	}
	t.Logf("%d interactions sent, %d failed and tried again, %d not delivered (no gateway); %d results seen during the faults, %d chests",
		sent, failed, notDelivered, cycles, chests)
	for k, b := range breaches {
		if k == 20 {
			t.Errorf("… %d breaches more", len(breaches)-k)
			break
		}
		t.Errorf("BREACH %s", b)
	}
	// The run must have meant something.
	if cycles == 0 || chests == 0 {
		t.Errorf("%d results seen and %d chests opened during the run: too few to prove anything", cycles, chests)
	}
}

// chaosRefusals reads the fake's faults and refusals after a run: it logs
// the faults by kind and the time players took to see a result delayed
// by one 429, checks that faults were injected, and returns the calls the
// fake refused as breaches. Two refusals are no fault of the bot and are
// excused:
//   - 10062 Unknown interaction, at most one per send whose gateway write
//     failed in a drop: the fake forgets that interaction, yet RESUME
//     replays it to the bot, as Discord would, and the bot answers it;
//   - 10015 Unknown Webhook on an interaction that had an injected fault:
//     its callback failed because of the fault, so the edit that follows
//     a deferral finds no message.
func (h *harness) chaosRefusals(ps []*chaosPlayer) []string {
	t := h.t
	byKind := map[string]int{}
	hit429, hitOther, faulted := map[string]int{}, map[string]bool{}, map[string]bool{}
	rest := 0
	for _, f := range h.srv.Faults() {
		k := string(f.Kind)
		if f.After {
			k += " (after)"
		}
		byKind[k]++
		faulted[f.Interaction] = f.Interaction != ""
		switch f.Kind {
		case fakediscord.FaultGatewayDrop, fakediscord.FaultGatewayReconnect, fakediscord.FaultGatewayInvalidSession,
			fakediscord.FaultHeartbeatAcks, fakediscord.FaultConsequence:
		default:
			rest++
		}
		switch f.Kind {
		case fakediscord.FaultRateLimit, fakediscord.FaultGlobalRateLimit:
			hit429[f.Interaction]++
		case fakediscord.FaultConsequence:
		default:
			hitOther[f.Interaction] = true
		}
	}
	t.Logf("faults: %d on REST calls; by kind %v", rest, byKind)
	if rest == 0 {
		t.Error("no REST call got a fault: the run proves nothing")
	}
	if byKind[string(fakediscord.FaultGatewayDrop)]+byKind[string(fakediscord.FaultGatewayReconnect)] == 0 {
		t.Error("the gateway was never dropped")
	}

	// The time to see the result of the actions hit by one 429 and no
	// other fault, against retry_after + 1 s (a target, logged).
	var took []time.Duration
	var lost int64
	for _, p := range ps {
		lost += p.lostDispatch
		for _, a := range p.actions {
			n, other := 0, false
			for _, id := range a.ids {
				n, other = n+hit429[id], other || hitOther[id]
			}
			if n == 1 && !other {
				took = append(took, a.took)
			}
		}
	}
	if len(took) > 0 {
		slices.Sort(took)
		bound := chaosRetryAfter + time.Second
		within, _ := slices.BinarySearch(took, bound+1)
		t.Logf("time to result of the %d actions hit by one 429: p50 %s, p99 %s; %d within retry_after + 1 s = %s",
			len(took), took[len(took)/2], took[len(took)*99/100], within, bound)
	}

	var out, excused []string
	unknown := int64(0)
	for _, f := range h.srv.Failures() {
		switch {
		case f.Code == 10062 && f.Message == "Unknown interaction" && unknown < lost:
			unknown++
			excused = append(excused, "replayed after a failed gateway write: "+f.String())
		case f.Code == 10015 && faulted[f.Interaction]:
			excused = append(excused, "after a faulted callback: "+f.String())
		default:
			out = append(out, fmt.Sprintf("discord: the fake Discord refused: %s", f))
		}
	}
	if len(excused) > 0 {
		t.Logf("excused: %d refusals that are no fault of the bot: %s", len(excused), strings.Join(excused, "; "))
	}
	return out
}

// TestChaosAuditCatches runs the chaos audit on a player's history broken
// in each way it must catch, from a sound one: a cent of a prize lost
// (the balance still equals start − staked + won), a key dropped, a ticket
// bought and never drawn, a chest opened twice, a result never shown.
func TestChaosAuditCatches(t *testing.T) {
	t.Parallel()
	const start = 100_000
	g := game.Grid{game.Key, game.Key, game.Key, game.Key, game.Key, game.Key, game.Key, game.Key, game.Key}
	var hist []game.Entry
	pl := game.Player{StartingBalance: start, Balance: start, Seed: game.Seed{1}}
	shown := map[uint64]*shownTicket{}
	for n := uint64(1); n <= 4; n++ { // three keys, then the chest
		if n == 4 {
			pl.Balance += 100
			pl.Stats.WonCents += 100
			pl.Stats.Chests, pl.ChestSeq, pl.ChestDue = 1, 1, false
			hist = append(hist, game.Entry{Kind: game.KindChest, Chest: 1, Amount: 100, Balance: pl.Balance, Fair: true})
			continue
		}
		pl.Balance -= game.Stake
		pl.Stats.Plays++
		pl.Stats.StakedCents += game.Stake
		pl.Stats.Keys++
		pl.TicketSeq = n
		hist = append(hist, game.Entry{Kind: game.KindPlay, TicketID: n, Amount: -game.Stake, Balance: pl.Balance,
			KeysBefore: int(n - 1), Key: true, Grid: g, Fair: true})
		shown[n] = &shownTicket{done: true, winRow: -1}
	}
	audit := func(pl game.Player, hist []game.Entry, shown map[uint64]*shownTicket) []string {
		return (&chaosPlayer{tickets: shown}).audit(pl, start, hist, nil)
	}
	if b := audit(pl, hist, shown); len(b) != 0 {
		t.Fatalf("a sound history: %q", b)
	}
	for _, tt := range []struct {
		name, kind string
		brk        func(pl *game.Player, hist []game.Entry, shown map[uint64]*shownTicket) []game.Entry
	}{
		{"a cent of a prize lost", "credit", func(pl *game.Player, hist []game.Entry, _ map[uint64]*shownTicket) []game.Entry {
			pl.Balance--
			pl.Stats.WonCents--
			return hist
		}},
		{"a key dropped", "key", func(_ *game.Player, hist []game.Entry, _ map[uint64]*shownTicket) []game.Entry {
			hist[2].KeysBefore = 1
			return hist
		}},
		{"a ticket never drawn", "ticket", func(_ *game.Player, hist []game.Entry, _ map[uint64]*shownTicket) []game.Entry {
			return slices.Delete(hist, 1, 2)
		}},
		{"a chest opened twice", "key", func(_ *game.Player, hist []game.Entry, _ map[uint64]*shownTicket) []game.Entry {
			return append(hist, hist[3])
		}},
		{"a result never shown", "unreachable", func(_ *game.Player, hist []game.Entry, shown map[uint64]*shownTicket) []game.Entry {
			delete(shown, 2)
			return slices.Delete(hist, 1, 2)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, s := pl, map[uint64]*shownTicket{}
			for n, st := range shown {
				s[n] = st
			}
			found := audit(p, tt.brk(&p, slices.Clone(hist), s), s)
			if !slices.ContainsFunc(found, func(b string) bool { return strings.HasPrefix(b, tt.kind+": ") }) {
				t.Errorf("no %s breach found: %q", tt.kind, found)
			}
		})
	}
}

// TestHistoryLogMerge checks how the audit pieces a player's whole
// history together from reads of its last lines: overlapping reads add
// only their new lines, and a read that shares no line with the log (lines
// written and trimmed between two reads) is a gap, which the audit
// reports.
func TestHistoryLogMerge(t *testing.T) {
	t.Parallel()
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
