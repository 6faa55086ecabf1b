package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The amounts CheckConcurrency moves besides the plays.
const (
	stressStart  = 1_000_000
	stressGrant  = 100
	stressShared = 7
	stressDaily  = 10
)

// tally is what the goroutines of CheckConcurrency saw happen to one player.
type tally struct {
	mu      sync.Mutex
	start   game.Player
	bought  map[uint64]bool         // tickets bought (not resumed)
	drawn   map[uint64]game.Outcome // outcomes drawn, by ticket
	chests  map[int64]game.Chest    // chests opened, by number
	shared  map[string]game.Result  // the first result of each shared operation
	granted atomic.Int64
	daily   atomic.Int64
	errs    []error
}

func (tl *tally) fail(format string, args ...any) {
	if len(tl.errs) < 10 {
		tl.errs = append(tl.errs, fmt.Errorf(format, args...))
	}
}

// CheckConcurrency has goroutines play rounds times each through
// Store.Run, goroutine g on players[g%len(players)]: buy, reveal all
// rows, open the chest when it is due (drawn with d), daily claims (10
// cents, no cooldown), grants, and repeated operations — a goroutine sends
// some of its operations twice, and every ten rounds the goroutines of
// one player all send one shared operation, which must apply once. A
// player remembers its last game.MaxOps operations: keep the goroutines of
// one player to 16 or so, so that a goroutine's resend, right after its
// first send, cannot fall out of that memory. Players are created with
// 1,000,000 cents if new. Afterwards it checks, for every player, from what
// the calls returned: balance = start + granted + daily + won − staked
// exactly, each ticket bought once and drawn once, each chest paid once,
// each shared operation applied once and answered with its first result,
// the statistics and game.Player.Check. It returns an error describing the
// breaches, nil if there are none.
func CheckConcurrency(ctx context.Context, st storage.Store, d game.Drawer, players []storage.PlayerID, goroutines, rounds int) error {
	if len(players) == 0 || goroutines <= 0 || rounds <= 0 {
		return errors.New("storetest: nothing to check")
	}
	tallies := make(map[storage.PlayerID]*tally, len(players))
	for _, id := range players {
		v, err := st.Load(ctx, id)
		if err != nil {
			return fmt.Errorf("player %v: %w", id, err)
		}
		p := v.Player
		if !v.Exists() {
			p = game.Player{StartingBalance: stressStart, Balance: stressStart}
		}
		tallies[id] = &tally{start: p, bought: map[uint64]bool{}, drawn: map[uint64]game.Outcome{}, chests: map[int64]game.Chest{}, shared: map[string]game.Result{}}
	}
	// The rounds run in phases of ten; between two phases every goroutine
	// sends its player's shared operation of the phase, all at once and
	// nothing else, so that none can fall out of the game.MaxOps
	// operations a player remembers before the last goroutine sends it.
	dead := make([]bool, goroutines) // the goroutines stopped by an error
	phase := func(run func(g int, id storage.PlayerID, tl *tally) error) {
		var wg sync.WaitGroup
		for g := range goroutines {
			if dead[g] {
				continue
			}
			id := players[g%len(players)]
			tl := tallies[id]
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := run(g, id, tl); err != nil {
					dead[g] = true
					tl.mu.Lock()
					tl.fail("goroutine %d: %w", g, err)
					tl.mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	for from := 0; from < rounds; from += 10 {
		phase(func(g int, id storage.PlayerID, tl *tally) error {
			for i := from; i < min(from+10, rounds); i++ {
				if err := playRound(ctx, st, d, id, tl, g, i); err != nil {
					return fmt.Errorf("round %d: %w", i, err)
				}
			}
			return nil
		})
		phase(func(g int, id storage.PlayerID, tl *tally) error {
			return sharedRound(ctx, st, id, tl, fmt.Sprintf("shared-%d", from))
		})
	}
	var errs []error
	for _, id := range players {
		tl := tallies[id]
		errs = append(errs, tl.errs...)
		v, err := st.Load(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("player %v: %w", id, err))
			continue
		}
		errs = append(errs, tl.check(id, v.Player)...)
	}
	return errors.Join(errs...)
}

// sharedRound sends the shared operation name, a grant, to the player.
func sharedRound(ctx context.Context, st storage.Store, id storage.PlayerID, tl *tally, name string) error {
	now := storage.Timestamp(time.Now())
	a, err := st.Run(ctx, storage.Step{ID: id, Op: name, Create: true, Start: stressStart, Seeds: rand.Reader, Now: now,
		Move: game.Grant{Amount: stressShared}})
	if err != nil {
		return fmt.Errorf("shared grant %s: %w", name, err)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	first, seen := tl.shared[name]
	switch {
	case !a.Repeated && seen:
		tl.fail("shared operation %s applied twice", name)
	case !a.Repeated:
		tl.shared[name] = a.Result
		tl.granted.Add(stressShared)
	case seen && a.Result != first:
		tl.fail("shared operation %s answered %+v, first %+v", name, a.Result, first)
	}
	return nil
}

// playRound is one round of goroutine g on player id.
func playRound(ctx context.Context, st storage.Store, d game.Drawer, id storage.PlayerID, tl *tally, g, i int) error {
	now := storage.Timestamp(time.Now())
	// send applies the operation what and, every fifth round, sends it
	// again at once, as a double click would: the second must change
	// nothing and answer with the first result.
	send := func(what string, do game.Move) (storage.Applied, error) {
		s := storage.Step{ID: id, Op: fmt.Sprintf("g%d-r%d-%s", g, i, what), Create: true, Start: stressStart, Seeds: rand.Reader, Now: now, Move: do}
		a, err := st.Run(ctx, s)
		if err != nil || i%5 != 0 {
			return a, err
		}
		again, err := st.Run(ctx, s)
		if err != nil {
			return a, fmt.Errorf("resend %s: %w", s.Op, err)
		}
		if !again.Repeated || again.Result != a.Result || len(again.History) != 0 {
			tl.mu.Lock()
			tl.fail("resent %s: repeated %v, result %+v; want the first result %+v", s.Op, again.Repeated, again.Result, a.Result)
			tl.mu.Unlock()
		}
		return a, nil
	}
	if (g+i)%20 == 7 {
		if _, err := send("grant", game.Grant{Amount: stressGrant}); err != nil {
			return fmt.Errorf("grant: %w", err)
		}
		tl.granted.Add(stressGrant)
	}
	if (g+i)%10 == 5 {
		_, err := send("daily", game.ClaimDaily{Amount: stressDaily, Cooldown: 0})
		switch {
		case errors.Is(err, game.ErrDailyCooldown):
			// Another goroutine claimed with a later clock: with no
			// cooldown, a claim is refused only for an earlier time.
		case err != nil:
			return fmt.Errorf("daily: %w", err)
		default:
			tl.daily.Add(stressDaily)
		}
	}
	b, err := send("buy", game.Buy{})
	switch {
	case errors.Is(err, game.ErrChestDue):
		seq := b.Player.ChestSeq + 1
		c, err := send("chest", game.OpenChest{Seq: seq, Drawer: d})
		if errors.Is(err, game.ErrNoChest) {
			return nil // opened by another goroutine, then another chest came
		}
		if err != nil {
			return fmt.Errorf("open chest %d: %w", seq, err)
		}
		if c.Result.Opened {
			tl.mu.Lock()
			if old, ok := tl.chests[seq]; ok {
				tl.fail("chest %d opened twice: %+v then %+v", seq, old, c.Result.Chest)
			}
			tl.chests[seq] = c.Result.Chest
			tl.mu.Unlock()
		}
		return nil
	case errors.Is(err, game.ErrInsufficientFunds):
		return nil
	case err != nil:
		return fmt.Errorf("buy: %w", err)
	}
	ticket := b.Result.Ticket
	if !b.Result.Resumed {
		tl.mu.Lock()
		if tl.bought[ticket] {
			tl.fail("ticket %d bought twice", ticket)
		}
		tl.bought[ticket] = true
		tl.mu.Unlock()
	}
	r, err := send("reveal", game.Reveal{Ticket: ticket, Rows: game.AllRows, Drawer: d})
	if errors.Is(err, game.ErrUnknownTicket) {
		return nil // revealed by another goroutine, which bought the next one
	}
	if err != nil {
		return fmt.Errorf("reveal %d: %w", ticket, err)
	}
	if r.Result.Ticket != ticket || r.Player.Ticket == nil || r.Player.Ticket.ID != ticket || !r.Player.Ticket.Drawn {
		tl.mu.Lock()
		tl.fail("ticket %d: reveal returned %+v, ticket %+v", ticket, r.Result, r.Player.Ticket)
		tl.mu.Unlock()
		return nil
	}
	if r.Result.Drawn {
		tl.mu.Lock()
		if old, ok := tl.drawn[ticket]; ok {
			tl.fail("ticket %d drawn twice: %+v then %+v", ticket, old, r.Player.Ticket.Outcome)
		}
		tl.drawn[ticket] = r.Player.Ticket.Outcome
		tl.mu.Unlock()
	}
	return nil
}

// check compares the player p with what the goroutines saw.
func (tl *tally) check(id storage.PlayerID, p game.Player) []error {
	var errs []error
	s0, granted, daily := tl.start, tl.granted.Load(), tl.daily.Load()
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("player %d/%d: "+format, append([]any{id.Guild, id.User}, args...)...))
	}
	var won int64
	for tid := range tl.bought {
		o, ok := tl.drawn[tid]
		if !ok {
			bad("ticket %d bought but never drawn", tid)
			continue
		}
		won += o.Prize
	}
	for tid := range tl.drawn {
		if !tl.bought[tid] {
			bad("ticket %d drawn but never bought", tid)
		}
	}
	for _, c := range tl.chests {
		won += c.Prize
	}
	staked := int64(len(tl.bought)) * game.Stake
	want := s0.Balance + granted + daily + won - staked
	if p.Balance != want {
		bad("balance %d, want start %d + granted %d + daily %d + won %d − staked %d = %d",
			p.Balance, s0.Balance, granted, daily, won, staked, want)
	}
	for _, c := range []struct {
		what      string
		got, want int64
	}{
		{"staked", p.Stats.StakedCents - s0.Stats.StakedCents, staked},
		{"won", p.Stats.WonCents - s0.Stats.WonCents, won},
		{"daily", p.Stats.DailyCents - s0.Stats.DailyCents, daily},
		{"granted", p.Stats.GrantedCents - s0.Stats.GrantedCents, granted},
		{"tickets numbered (bought)", int64(p.TicketSeq - s0.TicketSeq), int64(len(tl.bought))},
		{"chests numbered (opened)", p.ChestSeq - s0.ChestSeq, int64(len(tl.chests))},
	} {
		if c.got != c.want {
			bad("%s %d, want %d", c.what, c.got, c.want)
		}
	}
	if err := p.Check(); err != nil {
		bad("%v", err)
	}
	return errs
}

// testConcurrentOnePlayer: 8 goroutines on one player. With 16, a resend
// could find its operation already past the game.MaxOps a player remembers,
// the others' steps having gone by meanwhile (seen on Sentinel under load,
// where every step waits for the replica): the documented bound, not a fault.
func testConcurrentOnePlayer(t *testing.T, open OpenFunc) {
	st := open(t, storage.Options{Defaults: defaults})
	ids := []storage.PlayerID{pid(1)}
	if err := CheckConcurrency(context.Background(), st, RandomDrawer(21), ids, 8, 40); err != nil {
		t.Fatal(err)
	}
}

func testConcurrentManyPlayers(t *testing.T, open OpenFunc) {
	st := open(t, storage.Options{Defaults: defaults})
	var ids []storage.PlayerID
	for u := uint64(1); u <= 16; u++ {
		ids = append(ids, pid(u*7919))
	}
	ids = append(ids, storage.PlayerID{Guild: guild2, User: 7919})
	if err := CheckConcurrency(context.Background(), st, game.SeededDrawer{}, ids, 64, 25); err != nil {
		t.Fatal(err)
	}
	// The leaderboard follows every write.
	if err := boardAgrees(context.Background(), st, guild); err != nil {
		t.Fatalf("after the stress: %v", err)
	}
}
