package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// stallRead is how long the store's client waits for a reply: the stalls
// last a few times longer, so that go-redis gives up on a reply and
// resends, and may give up altogether.
const stallRead = 200 * time.Millisecond

// busyScript keeps Redis busy for ARGV[1] microseconds: Redis serves no
// one meanwhile, then runs what it received, in order, including commands
// of clients that gave up.
const busyScript = `
local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
while true do
  t = redis.call('TIME')
  if t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1]) then return 1 end
end`

// stall stalls Redis from admin for d; wait returns when it is over.
type stall struct {
	name    string
	d       time.Duration
	retries int  // the store's client's MaxRetries
	fails   bool // Apply gives up before the stall ends
	start   func(ctx context.Context, admin *redis.Client, d time.Duration) (wait func() error)
}

func pause(ctx context.Context, admin *redis.Client, d time.Duration) func() error {
	err := admin.Do(ctx, "CLIENT", "PAUSE", d.Milliseconds(), "WRITE").Err()
	return func() error { time.Sleep(d); return err }
}

func busy(ctx context.Context, admin *redis.Client, d time.Duration) func() error {
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { err = admin.Eval(ctx, busyScript, nil, d.Microseconds()).Err() })
	time.Sleep(30 * time.Millisecond) // let it start
	return func() error { wg.Wait(); return err }
}

var stalls = []stall{
	// Redis holds the writes of paused clients and drops those of
	// clients that leave: the last resend runs.
	{"CLIENT PAUSE WRITE", 600 * time.Millisecond, 3, false, pause},
	// A busy Redis runs everything it received once free, the sends of
	// clients that gave up included: the script runs twice.
	{"busy script", 600 * time.Millisecond, 3, false, busy},
	// go-redis gives up before Redis is free, and Redis then runs the
	// first send: Apply fails although the step was applied.
	{"busy script past the retries", 900 * time.Millisecond, 1, true, busy},
}

// evalshaCalls returns how many times Redis ran EVALSHA.
func evalshaCalls(ctx context.Context, tb testing.TB, admin *redis.Client) int {
	tb.Helper()
	info, err := admin.Info(ctx, "commandstats").Result()
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(line, "cmdstat_evalsha:calls="); ok {
			n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			return n
		}
	}
	return 0
}

// A grant under a Redis stall is applied once; so are a debit, a buy and a
// reveal. The store's client gives up on a reply after stallRead and
// resends (MaxRetries 3) while Redis stalls; Redis may then run the first
// send too. Whether Apply succeeds or fails, the step is applied exactly
// once, and applying it again with the same operation ID (the user's "try
// again") changes nothing and returns the first result.
func TestStalledRedisAppliesOnce(t *testing.T) {
	for _, sl := range stalls {
		t.Run(sl.name, func(t *testing.T) {
			ctx := context.Background()
			st, _, admin := newStore(t, redistest.URL(t), func(o *redis.Options) {
				o.ReadTimeout, o.WriteTimeout, o.DialTimeout = stallRead, stallRead, stallRead
				o.MaxRetries = sl.retries
			})
			id := storage.PlayerID{Guild: 1, User: 2}
			create(t, st, id, 1000)
			var ticket uint64
			failed := 0
			steps := []struct {
				name    string
				step    func() storage.Step
				history int // lines the step adds
				audit   int // moderator log entries it adds
			}{
				{"grant", func() storage.Step { return grant(id, "op-grant", 500) }, 1, 1},
				{"debit", func() storage.Step { return grant(id, "op-debit", -1) }, 1, 1},
				{"buy", func() storage.Step { return buy(id, "op-buy") }, 0, 0},
				{"reveal", func() storage.Step { return reveal(id, "op-reveal", ticket) }, 1, 0},
			}
			for _, sp := range steps {
				before := mustLoad(t, st, id)
				hist, audit := historyLen(t, st, id), auditLen(t, st, id.Guild)
				s := sp.step()
				want, err := game.Apply(before.Player, s.Move, s.Now) // what applying it once gives
				if err != nil {
					t.Fatal(err)
				}
				calls := evalshaCalls(ctx, t, admin)

				wait := sl.start(ctx, admin, sl.d)
				start := time.Now()
				got, applyErr := st.Run(ctx, s)
				took := time.Since(start)
				if err := wait(); err != nil {
					t.Fatalf("stall: %v", err)
				}
				time.Sleep(50 * time.Millisecond) // what Redis received runs now
				// EVALSHA runs: the step's script, sent again by go-redis.
				ran := evalshaCalls(ctx, t, admin) - calls
				t.Logf("%s: Apply took %v, error %v, repeated %v; Redis ran EVALSHA %d times",
					sp.name, took.Round(time.Millisecond), applyErr, got.Repeated, ran)
				if applyErr != nil {
					failed++
				}

				after := mustLoad(t, st, id)
				if after.Version != before.Version+1 {
					t.Fatalf("%s: version %d → %d: applied %d times", sp.name, before.Version, after.Version, after.Version-before.Version)
				}
				if after.Player.Balance != want.Player.Balance || after.Player.TicketSeq != want.Player.TicketSeq ||
					after.Player.Stats != want.Player.Stats {
					t.Fatalf("%s: balance %d stats %+v, want %d %+v", sp.name, after.Player.Balance, after.Player.Stats, want.Player.Balance, want.Player.Stats)
				}
				if n := historyLen(t, st, id); n != hist+sp.history {
					t.Fatalf("%s: %d history lines, want %d", sp.name, n, hist+sp.history)
				}
				// The audit line is written with the step, whether Apply
				// failed or not: never twice, never for a step not applied.
				if n := auditLen(t, st, id.Guild); n != audit+sp.audit {
					t.Fatalf("%s: %d audit entries, want %d", sp.name, n, audit+sp.audit)
				}
				if applyErr == nil && got.Result != want.Result {
					t.Fatalf("%s: result %+v, want %+v", sp.name, got.Result, want.Result)
				}
				if applyErr != nil && errors.Is(applyErr, game.ErrInvalid) {
					t.Fatalf("%s: %v", sp.name, applyErr)
				}

				// The user tries again: nothing more happens, the first
				// result comes back.
				again := mustApply(t, st, s)
				if !again.Repeated || again.Result != want.Result {
					t.Fatalf("%s again: %+v, want a repeat of %+v", sp.name, again, want.Result)
				}
				final := mustLoad(t, st, id)
				if final.Version != after.Version || historyLen(t, st, id) != hist+sp.history || auditLen(t, st, id.Guild) != audit+sp.audit {
					t.Fatalf("%s again changed something: version %d → %d", sp.name, after.Version, final.Version)
				}
				agree(t, st, id.Guild, []uint64{id.User})
				if sp.name == "buy" {
					ticket = want.Result.Ticket
				}
			}
			if sl.fails && failed == 0 {
				t.Errorf("no Apply failed: the case of a step applied although Apply failed was not tried")
			}
			p := mustLoad(t, st, id).Player
			if p.Ticket == nil || !p.Ticket.Drawn || p.Ticket.Revealed != game.AllRows || p.Stats.Plays != 1 {
				t.Fatalf("the ticket: %+v, plays %d", p.Ticket, p.Stats.Plays)
			}
			h, _ := st.History(ctx, id, storage.HistoryLimit)
			plays := 0
			for _, e := range h {
				if e.Kind == game.KindPlay {
					plays++
				}
			}
			if plays != 1 {
				t.Fatalf("the ticket was drawn %d times in the history", plays)
			}
		})
	}
}
