package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// The responsible-play cases (game/care.go): the stores persist the care
// state whole, and a limit holds however many plays come at once, since
// Buy checks it in the same compare-and-set step that debits the stake.

func buyIn(h game.House, now time.Time) func(game.Player) (game.Step, error) {
	return func(p game.Player) (game.Step, error) { return p.Buy(h, now) }
}

func setLimits(now time.Time, reminder time.Duration, sets ...game.LimitSet) func(game.Player) (game.Step, error) {
	return func(p game.Player) (game.Step, error) { return p.SetLimits(sets, reminder, now) }
}

// raceBuys has n goroutines buy tickets for id under house h and reveal
// them with d, through Apply with operation IDs of their own, until Buy
// refuses them with game.ErrLimitReached: every goroutine ends on such a
// refusal, so the refusals come at least n times. It returns the tickets
// bought (not resumed) and one of the refusals.
func raceBuys(t *testing.T, e *env, id storage.PlayerID, h game.House, d game.Drawer, n int) (int, *game.LimitError) {
	t.Helper()
	now := e.clock.Now()
	var (
		bought  atomic.Int64
		mu      sync.Mutex
		refusal *game.LimitError
		wg      sync.WaitGroup
	)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				a, err := e.apply(id, buyIn(h, now))
				var le *game.LimitError
				switch {
				case errors.As(err, &le):
					mu.Lock()
					refusal = le
					mu.Unlock()
					return
				case err != nil:
					t.Errorf("goroutine %d: buy: %v", g, err)
					return
				}
				if !a.Result.Resumed {
					bought.Add(1)
				}
				_, err = e.apply(id, reveal(d, a.Result.Ticket, game.AllRows, now))
				if err != nil && !errors.Is(err, game.ErrUnknownTicket) {
					t.Errorf("goroutine %d: reveal %d: %v", g, a.Result.Ticket, err)
					return
				}
			}
			t.Errorf("goroutine %d: 1000 plays and no limit reached", g)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return int(bought.Load()), refusal
}

// testCareLimitRace: no limit can be crossed by simultaneous plays. One
// player under a limit of 10 stakes a day (their own stake limit, their
// own loss limit, the house's stake limit), 32 goroutines playing at
// once: exactly the tickets the limit allows are bought, every later Buy
// is refused with a *game.LimitError, and the balance, statistics and
// spend count exactly those tickets.
func testCareLimitRace(t *testing.T, open OpenFunc) {
	const goroutines = 32
	limit := 10 * game.Stake
	losing := &Drawer{} // Loss(false): no prize, no key, no chest
	cases := []struct {
		name  string
		setup func(e *env, id storage.PlayerID)
		house game.House
		kind  game.LimitKind
	}{
		{name: "StakeDay", kind: game.LimitStakeDay, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "set limit", setLimits(e.clock.Now(), -1, game.LimitSet{Kind: game.LimitStakeDay, Amount: limit}))
		}},
		// Two prizes first, so that the loss counted (stakes − prizes)
		// is below the stakes: the limit allows more than 10 plays.
		{name: "LossDay", kind: game.LimitLossDay, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "set limit", setLimits(e.clock.Now(), -1, game.LimitSet{Kind: game.LimitLossDay, Amount: limit}))
			win := &Drawer{PlayFunc: func(int) game.Outcome { return Win(game.TierCandle) }}
			e.play(id, win)
			e.play(id, win)
		}},
		{name: "HouseStakeDay", kind: game.LimitStakeDay, house: game.House{MaxStakeDay: limit}, setup: func(e *env, id storage.PlayerID) {
			e.must(id, "create", setLimits(e.clock.Now(), -1))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, open, defaults)
			id := pid(1)
			c.setup(e, id)
			now := e.clock.Now()
			p0 := e.load(id).Player
			s0 := p0.SpendAt(now)
			used := s0.StakedDay
			if c.kind.Loss() {
				used -= s0.WonDay
			}
			want := int((limit - used) / game.Stake)
			if c.kind.Loss() && want <= 10 {
				t.Fatalf("the prizes left %d plays under the loss limit: the case tests nothing the stake limit does not", want)
			}

			bought, refusal := raceBuys(t, e, id, c.house, losing, goroutines)
			if bought != want {
				t.Fatalf("%d goroutines at once bought %d tickets under a %v limit of %d cents (%d used before); want %d",
					goroutines, bought, c.kind, limit, used, want)
			}
			if refusal == nil || refusal.Kind != c.kind || refusal.House != (c.house.MaxStakeDay != 0) || refusal.Limit != limit {
				t.Fatalf("refusal %+v, want the %v limit of %d cents (house %v)", refusal, c.kind, limit, c.house.MaxStakeDay != 0)
			}
			p := e.load(id).Player
			sound(t, "after the race", p)
			staked := int64(want) * game.Stake
			s := p.SpendAt(now)
			if p.TicketSeq != p0.TicketSeq+uint64(want) || p.Stats.Plays != p0.Stats.Plays+int64(want) ||
				p.Stats.StakedCents != p0.Stats.StakedCents+staked || p.Balance != p0.Balance-staked ||
				s.StakedDay != s0.StakedDay+staked || s.StakedWeek != s0.StakedWeek+staked || s.WonDay != s0.WonDay {
				t.Fatalf("after %d tickets: %+v, spend %+v; before %+v, spend %+v", want, p, s, p0, s0)
			}
			if p.Ticket == nil || p.Ticket.Open() {
				t.Fatalf("a ticket left open: %+v", p.Ticket)
			}
			h, err := e.st.History(e.ctx, id, storage.HistoryLimit)
			if err != nil {
				t.Fatal(err)
			}
			plays := 0
			for _, l := range h {
				if l.Kind == game.KindPlay {
					plays++
				}
			}
			if want := int(p.Stats.Plays); plays != want {
				t.Fatalf("%d play lines for %d plays", plays, want)
			}
			// The next one is refused too, and writes nothing.
			v := e.load(id)
			_, err = e.apply(id, buyIn(c.house, now))
			wantErr(t, "a buy after the race", err, game.ErrLimitReached)
			same(t, "after a refused buy", e.load(id), v)
		})
	}
}

// testCarePause: a pause is written and read back, refuses plays and the
// daily bonus, a repeated pause operation changes nothing, and a
// moderator's lift ends it, with its audit entry.
func testCarePause(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	e.play(id, &Drawer{})
	now := e.clock.Now()
	until := now.Add(2 * time.Hour)
	a, err := storage.Apply(e.ctx, e.st, e.step(id, "pause-1", func(p game.Player) (game.Step, error) { return p.Pause(until, now) }))
	if err != nil {
		t.Fatal(err)
	}
	v := e.load(id)
	same(t, "Load after a pause", v.Player, a.Player)
	if !v.Player.Care.PausedUntil.Equal(until) || v.Player.Care.PausedUntil != storage.Timestamp(until) || !v.Player.Paused(now) {
		t.Fatalf("paused until %v, want %v", v.Player.Care.PausedUntil, until)
	}
	h, _ := e.st.History(e.ctx, id, 1)
	if len(h) != 1 || h[0].Kind != game.KindPause || h[0].At != now || h[0].Balance != v.Player.Balance {
		t.Fatalf("history after a pause: %+v", h)
	}

	// Paused: no ticket, no daily bonus, nothing written.
	e.clock.Advance(time.Minute)
	var pe *game.PausedError
	if _, err := e.apply(id, buy(e.clock.Now())); !errors.As(err, &pe) || pe.Until != until {
		t.Fatalf("buy while paused: %v, want a *game.PausedError until %v", err, until)
	}
	_, err = e.apply(id, func(p game.Player) (game.Step, error) { return p.ClaimDaily(25, time.Hour, e.clock.Now()) })
	wantErr(t, "daily while paused", err, game.ErrPaused)
	same(t, "after refusals", e.load(id), v)

	// The same operation again (a second click) changes nothing, even
	// with another time.
	again, err := storage.Apply(e.ctx, e.st, e.step(id, "pause-1", func(p game.Player) (game.Step, error) {
		return p.Pause(until.Add(time.Hour), e.clock.Now())
	}))
	if err != nil || !again.Repeated || again.Result != a.Result {
		t.Fatalf("repeated pause: %+v, %v", again, err)
	}
	same(t, "after a repeated pause", e.load(id), v)
	if h, _ := e.st.History(e.ctx, id, storage.HistoryLimit); len(h) != 2 {
		t.Fatalf("a repeated pause wrote history: %+v", h)
	}

	// A moderator lifts it, with a reason in the audit log.
	lifted := e.clock.Now()
	l, err := storage.Apply(e.ctx, e.st, storage.Step{ID: id, Op: "lift-1", Now: lifted,
		Do: func(p game.Player) (game.Step, error) { return p.LiftPause(lifted) },
		Audit: func(s game.Step) *game.AuditEntry {
			return &game.AuditEntry{At: lifted, Guild: guild, Actor: mod, Target: id.User, Action: "lift-pause", Reason: "asked by mail"}
		}})
	if err != nil {
		t.Fatal(err)
	}
	v = e.load(id)
	same(t, "Load after the lift", v.Player, l.Player)
	if v.Player.Paused(lifted) || v.Player.Care.PausedUntil != lifted {
		t.Fatalf("after the lift: paused until %v", v.Player.Care.PausedUntil)
	}
	if h, _ := e.st.History(e.ctx, id, 1); len(h) != 1 || h[0].Kind != game.KindLift || h[0].At != lifted {
		t.Fatalf("history after the lift: %+v", h)
	}
	au, err := e.st.Audit(e.ctx, guild, 10)
	if err != nil || len(au) != 1 || au[0].Action != "lift-pause" || au[0].Target != id.User || au[0].Reason != "asked by mail" || au[0].At != lifted {
		t.Fatalf("audit after the lift: %+v, %v", au, err)
	}
	// Not paused any more: a second lift is refused, writing nothing;
	// the player plays again.
	_, err = e.apply(id, func(p game.Player) (game.Step, error) { return p.LiftPause(e.clock.Now()) })
	wantErr(t, "lift without a pause", err, game.ErrNotPaused)
	same(t, "after a refused lift", e.load(id), v)
	e.play(id, &Drawer{})
}

// testCarePendingLimit: a raise of a limit is stored waiting, round-trips
// and takes effect only game.RaiseDelay after it was asked; a stricter
// amount takes effect at once. The limit is weekly, so that the day the
// clock moves to does not start the count again.
func testCarePendingLimit(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	d := &Drawer{}
	// The clock is on a Saturday afternoon: the week ends more than a
	// day later.
	if now := e.clock.Now(); game.WeekStart(now).AddDate(0, 0, 7).Sub(now) <= game.RaiseDelay+time.Minute {
		t.Fatalf("the clock's week ends at %v, too soon after %v", game.WeekStart(now).AddDate(0, 0, 7), now)
	}
	e.must(id, "set limit", setLimits(e.clock.Now(), 10*time.Minute, game.LimitSet{Kind: game.LimitStakeWeek, Amount: 2 * game.Stake}))
	e.play(id, d)
	e.play(id, d)
	_, err := e.apply(id, buy(e.clock.Now()))
	wantErr(t, "a third stake under a limit of two", err, game.ErrLimitReached)

	asked := e.clock.Now()
	a := e.must(id, "raise", setLimits(asked, -1, game.LimitSet{Kind: game.LimitStakeWeek, Amount: 4 * game.Stake}))
	v := e.load(id)
	same(t, "Load after the raise", v.Player, a.Player)
	wantLimit := game.Limit{Amount: 2 * game.Stake, Next: 4 * game.Stake, At: asked.Add(game.RaiseDelay)}
	if got := v.Player.Care.Limits[game.LimitStakeWeek]; got != wantLimit || v.Player.Care.Reminder != 10*time.Minute {
		t.Fatalf("limit stored as %+v, reminder %v; want %+v, 10m", got, v.Player.Care.Reminder, wantLimit)
	}

	e.clock.Advance(game.RaiseDelay - time.Millisecond)
	_, err = e.apply(id, buy(e.clock.Now()))
	wantErr(t, "a buy just before the raise", err, game.ErrLimitReached)
	e.clock.Advance(time.Millisecond)
	e.play(id, d)
	e.play(id, d)
	var le *game.LimitError
	if _, err := e.apply(id, buy(e.clock.Now())); !errors.As(err, &le) || le.Limit != 4*game.Stake || le.Used != 4*game.Stake {
		t.Fatalf("a fifth stake under the raised limit: %v", err)
	}

	// Stricter: at once, nothing waits.
	e.must(id, "lower", setLimits(e.clock.Now(), -1, game.LimitSet{Kind: game.LimitStakeDay, Amount: game.Stake}))
	if got := e.load(id).Player.Care.Limits[game.LimitStakeDay]; got != (game.Limit{Amount: game.Stake}) {
		t.Fatalf("a lower limit stored as %+v", got)
	}
}

// carePopulate gives e's store players whose care state has every part
// set (limits in force and waiting, a reminder, a pause, spend and a
// session), and a guild whose settings have house rules; it returns the
// players and the guild.
func carePopulate(t *testing.T, e *env) ([]storage.PlayerID, uint64) {
	t.Helper()
	d := RandomDrawer(5)
	a, b := pid(1), storage.PlayerID{Guild: guild2, User: 2}
	for range 3 {
		e.play(a, d)
		e.play(b, d)
	}
	now := e.clock.Now()
	e.must(a, "limits", setLimits(now, 20*time.Minute,
		game.LimitSet{Kind: game.LimitStakeDay, Amount: 5000}, game.LimitSet{Kind: game.LimitLossWeek, Amount: 3000}))
	e.must(a, "raise", setLimits(now, -1, game.LimitSet{Kind: game.LimitStakeDay, Amount: 0}))
	e.must(b, "pause", func(p game.Player) (game.Step, error) { return p.Pause(now.Add(72*time.Hour), now) })
	set := game.Settings{StartingBalance: 2000, DailyAmount: 30, DailyCooldown: 20 * time.Hour,
		House: game.House{MaxStakeDay: 4000, MinInterval: 1500 * time.Millisecond, RealityPlays: 25, RealityEvery: 30 * time.Minute}}
	if _, err := e.st.UpdateGuild(e.ctx, guild2, func(storage.VersionedGuild) (storage.GuildWrite, error) {
		return storage.GuildWrite{Guild: game.Guild{Settings: set, Ops: []string{"house-1"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return []storage.PlayerID{a, b}, guild2
}

// testCareDumpRoundTrip: the care state of players and the house rules of
// guilds go through a dump and an import unchanged, and the dump says so
// in its own fields.
func testCareDumpRoundTrip(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	if _, ok := e.st.(storage.Dumper); !ok {
		t.Skip("the store is not a storage.Dumper")
	}
	ids, g := carePopulate(t, e)
	data := writeDump(t, e.st)
	raw := readRawDump(t, data)
	ra, rb := raw.Players[0].Player.Care, raw.Players[1].Player.Care
	if ra == nil || rb == nil || ra.Limits["stake-day"].At == 0 || ra.Limits["loss-week"].Amount != 3000 || ra.Reminder != (20*time.Minute).Milliseconds() ||
		ra.Spend == nil || ra.Session == nil || rb.Paused == 0 || raw.Guilds[0].Settings == nil || raw.Guilds[0].Settings.House == nil {
		t.Fatalf("the dump lacks the care state:\n%s", data)
	}
	dd := readDump(t, data)
	e2 := newEnv(t, open, defaults)
	if err := e2.st.(storage.Dumper).Import(e2.ctx, dd); err != nil {
		t.Fatal(err)
	}
	sameStores(t, e.st, e2.st, ids, []uint64{g}, storage.DumpVersion)
	if again := writeDump(t, e2.st); !bytes.Equal(again, data) {
		t.Fatalf("export → import → export differs:\n%s\n---\n%s", firstDiff(data, again), firstDiff(again, data))
	}
	// The imported rules hold: the paused player cannot play.
	_, err := e2.apply(ids[1], buy(e2.clock.Now()))
	wantErr(t, "buy of a paused player after import", err, game.ErrPaused)
}

// testCareImportRefused: a dump whose care state or house rules are bad
// is refused as ErrInvalid, naming the record, and nothing of it is
// written; a decoded dump made bad after Decode is refused by Import too.
func testCareImportRefused(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	if _, ok := e.st.(storage.Dumper); !ok {
		t.Skip("the store is not a storage.Dumper")
	}
	carePopulate(t, e)
	data := writeDump(t, e.st)
	target := newEnv(t, open, defaults)
	before := writeDump(t, target.st)
	cases := []struct {
		name, want string
		edit       func(d *rawDump)
	}{
		{"negative limit", "players[0]", func(d *rawDump) {
			d.Players[0].Player.Care.Limits["loss-week"] = schema.Limit{Amount: -100}
		}},
		{"pending not looser", "players[0]", func(d *rawDump) {
			c := d.Players[0].Player.Care
			l := c.Limits["loss-week"]
			l.Next, l.At = 2000, c.Limits["stake-day"].At
			c.Limits["loss-week"] = l
		}},
		{"reminder out of range", "players[0]", func(d *rawDump) { d.Players[0].Player.Care.Reminder = (48 * time.Hour).Milliseconds() }},
		{"unknown limit name", "players[1]", func(d *rawDump) {
			d.Players[1].Player.Care.Limits = map[string]schema.Limit{"stake-year": {Amount: 100}}
		}},
		{"house out of range", "guilds[0]", func(d *rawDump) {
			d.Guilds[0].Settings.House = &schema.HouseRules{MinInterval: (3 * time.Hour).Milliseconds()}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := readRawDump(t, data) // a fresh copy to edit
			c.edit(d)
			// Through the bytes, as clefs import reads them.
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(b, compact(t, data)) {
				t.Fatal("the edit changed nothing")
			}
			dd, err := storage.ReadDump(bytes.NewReader(b), Seeds(3))
			wantErr(t, "ReadDump", err, storage.ErrInvalid)
			if !strings.Contains(err.Error(), c.want) || dd != nil {
				t.Fatalf("ReadDump: %v (%v), want an error naming %s and no dump", err, dd, c.want)
			}
			if after := writeDump(t, target.st); !bytes.Equal(after, before) {
				t.Fatal("a refused dump changed the store")
			}
		})
	}
	// Import checks each player again.
	dd := readDump(t, data)
	dd.Players[1].Player.Care.Limits[game.LimitLossDay] = game.Limit{Amount: 100, Next: 50, At: e.clock.Now()}
	err := target.st.(storage.Dumper).Import(target.ctx, dd)
	wantErr(t, "Import of an unsound care state", err, storage.ErrInvalid)
	if !strings.Contains(err.Error(), "players[1]") {
		t.Fatalf("error %q does not name players[1]", err)
	}
	if after := writeDump(t, target.st); !bytes.Equal(after, before) {
		t.Fatalf("a refused import changed the store:\n%s", after)
	}
}

// rawDump is a dump of version storage.DumpVersion as its JSON has it
// (docs/STORAGE.md), for tests that look into it or edit it.
type rawDump struct {
	Version int                 `json:"version"`
	Players []schema.DumpPlayer `json:"players"`
	Guilds  []schema.DumpGuild  `json:"guilds"`
}

// readRawDump parses data strictly into a rawDump: a field it does not
// know fails the test, so that nothing is lost when it is written back.
func readRawDump(t *testing.T, data []byte) *rawDump {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d rawDump
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("a dump that the suite cannot read: %v", err)
	}
	if d.Version != storage.DumpVersion {
		t.Fatalf("a dump of version %d, want %d", d.Version, storage.DumpVersion)
	}
	return &d
}

// compact returns the JSON data without its indentation.
func compact(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
