package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// tally is what the players of CheckConcurrency saw happen to one player.
type tally struct {
	mu          sync.Mutex
	start       storage.Player
	bought      map[uint64]bool         // tickets bought (not resumed)
	drawn       map[uint64]game.Outcome // outcomes seen, by ticket
	chests      map[int64]game.Chest    // chests opened, by seq
	granted     int64
	daily       int64 // claims × dailyAmount
	dailyAmount int64
	errs        []error
}

func (t *tally) fail(format string, args ...any) {
	if len(t.errs) < 10 {
		t.errs = append(t.errs, fmt.Errorf(format, args...))
	}
}

// CheckConcurrency has goroutines play rounds times each, goroutine g on
// players[g%len(players)], mixing buys, reveals, chests, daily claims (when
// the guild enables them) and grants by moderator 1; the store's drawer
// decides the draws. Afterwards it checks, for every player, from what the
// calls returned: balance = start + granted + daily + won − staked exactly,
// each ticket bought once and drawn once (every caller saw the same outcome),
// each chest paid once, the statistics and storage.CheckInvariant. It returns
// an error describing the breaches, nil if there are none. The players
// should be fresh and rich enough for all the plays.
func CheckConcurrency(ctx context.Context, st storage.Store, players []storage.PlayerID, goroutines, rounds int) error {
	if len(players) == 0 || goroutines <= 0 || rounds <= 0 {
		return errors.New("storetest: nothing to check")
	}
	tallies := make(map[storage.PlayerID]*tally, len(players))
	for _, id := range players {
		p, err := st.Player(ctx, id)
		if err != nil {
			return fmt.Errorf("player %v: %w", id, err)
		}
		set, err := st.Settings(ctx, id.Guild)
		if err != nil {
			return fmt.Errorf("settings %d: %w", id.Guild, err)
		}
		tallies[id] = &tally{start: p, dailyAmount: set.DailyAmount, bought: map[uint64]bool{}, drawn: map[uint64]game.Outcome{}, chests: map[int64]game.Chest{}}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		id := players[g%len(players)]
		tl := tallies[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if err := playRound(ctx, st, id, tl, g, i); err != nil {
					tl.mu.Lock()
					tl.fail("goroutine %d round %d: %w", g, i, err)
					tl.mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	var errs []error
	for _, id := range players {
		tl := tallies[id]
		errs = append(errs, tl.errs...)
		p, err := st.Player(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("player %v: %w", id, err))
			continue
		}
		errs = append(errs, tl.check(p)...)
	}
	return errors.Join(errs...)
}

func playRound(ctx context.Context, st storage.Store, id storage.PlayerID, tl *tally, g, i int) error {
	if (g+i)%10 == 3 {
		_, err := st.ClaimDaily(ctx, id)
		switch {
		case err == nil:
			tl.mu.Lock()
			tl.daily += tl.dailyAmount
			tl.mu.Unlock()
		case errors.Is(err, storage.ErrDailyCooldown), errors.Is(err, storage.ErrInvalid):
		default:
			return fmt.Errorf("daily: %w", err)
		}
	}
	if (g+i)%20 == 7 {
		if _, err := st.Grant(ctx, 1, id, 100, "top-up"); err != nil {
			return fmt.Errorf("grant: %w", err)
		}
		tl.mu.Lock()
		tl.granted += 100
		tl.mu.Unlock()
	}
	p, t, resumed, err := st.Buy(ctx, id)
	switch {
	case errors.Is(err, storage.ErrChestDue):
		seq := p.ChestSeq + 1
		_, c, _, err := st.OpenChest(ctx, id, seq)
		if errors.Is(err, storage.ErrNoChest) {
			return nil // opened by someone else first
		}
		if err != nil {
			return fmt.Errorf("open chest %d: %w", seq, err)
		}
		tl.mu.Lock()
		defer tl.mu.Unlock()
		if old, ok := tl.chests[seq]; ok && old != c {
			tl.fail("chest %d opened twice: %+v then %+v", seq, old, c)
		}
		tl.chests[seq] = c
		return nil
	case errors.Is(err, storage.ErrInsufficientFunds):
		return nil
	case err != nil:
		return fmt.Errorf("buy: %w", err)
	}
	if !resumed {
		tl.mu.Lock()
		if tl.bought[t.ID] {
			tl.fail("ticket %d bought twice", t.ID)
		}
		tl.bought[t.ID] = true
		tl.mu.Unlock()
	}
	_, rt, err := st.Reveal(ctx, id, t.ID, storage.AllRows)
	if errors.Is(err, storage.ErrUnknownTicket) {
		return nil // revealed by another goroutine, which bought the next one
	}
	if err != nil {
		return fmt.Errorf("reveal %d: %w", t.ID, err)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if old, ok := tl.drawn[t.ID]; ok && old != rt.Outcome {
		tl.fail("ticket %d drawn twice: %+v then %+v", t.ID, old, rt.Outcome)
	}
	if !rt.Drawn || rt.ID != t.ID {
		tl.fail("ticket %d: reveal returned ticket %d drawn=%v", t.ID, rt.ID, rt.Drawn)
	}
	tl.drawn[t.ID] = rt.Outcome
	return nil
}

func (tl *tally) check(p storage.Player) []error {
	var errs []error
	s0 := tl.start
	id := p.ID
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
		if o.Tier.Winning() {
			won += o.Prize
		}
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
	daily := tl.daily
	want := s0.Balance + tl.granted + daily + won - staked
	if p.Balance != want {
		bad("balance %d, want start %d + granted %d + daily %d + won %d − staked %d = %d",
			p.Balance, s0.Balance, tl.granted, daily, won, staked, want)
	}
	if got := p.Stats.StakedCents - s0.Stats.StakedCents; got != staked {
		bad("staked %d, want %d", got, staked)
	}
	if got := p.Stats.WonCents - s0.Stats.WonCents; got != won {
		bad("won %d, want %d", got, won)
	}
	if got := p.Stats.DailyCents - s0.Stats.DailyCents; got != daily {
		bad("daily %d, want %d", got, daily)
	}
	if got := p.Stats.GrantedCents - s0.Stats.GrantedCents; got != tl.granted {
		bad("granted %d, want %d", got, tl.granted)
	}
	if got := int64(p.TicketSeq - s0.TicketSeq); got != int64(len(tl.bought)) {
		bad("%d tickets numbered, %d bought", got, len(tl.bought))
	}
	if got := p.ChestSeq - s0.ChestSeq; got != int64(len(tl.chests)) {
		bad("%d chests numbered, %d opened", got, len(tl.chests))
	}
	if err := storage.CheckInvariant(p); err != nil {
		bad("%v", err)
	}
	return errs
}
