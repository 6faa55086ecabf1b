package loadtest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// directLoop plays cycles by applying the game's steps to the store
// directly, one goroutine per player, for d: the store's own ceiling,
// without handlers, rendering, transport or fake Discord. It returns the
// cycles, store steps and chests.
func directLoop(ctx context.Context, s storage.Store, d game.Drawer, players []*player, dur time.Duration, errs *errLog) (cycles, calls, chests int64) {
	var nCycles, nCalls, nChests, nErrs atomic.Int64
	loop(ctx, len(players), dur, func(k int) bool {
		p := players[k]
		c, ch, err := directCycle(ctx, s, d, p.id, p.nextOp())
		nCalls.Add(int64(c))
		nChests.Add(int64(ch))
		if err != nil {
			errs.add(fmt.Errorf("direct, player %d: %w", p.id.User, err))
			return nErrs.Add(1) <= 1000
		}
		nCycles.Add(1)
		return true
	})
	return nCycles.Load(), nCalls.Load(), nChests.Load()
}

// directCycle plays one cycle on the store as the handlers would, without
// them: Store.Run of game's Buy, then of Reveal of all rows, and of
// OpenChest when a chest is due (before the Buy or after the Reveal), each
// under its own operation ID op+":buy", op+":reveal", op+":chest…" (op
// must be unique to the cycle) and drawn with d. The player must exist. It
// returns the number of steps applied and of chests opened.
func directCycle(ctx context.Context, s storage.Store, d game.Drawer, id storage.PlayerID, op string) (calls, chests int, err error) {
	step := func(name string, m game.Move) (storage.Applied, error) {
		calls++
		a, err := s.Run(ctx, storage.Step{ID: id, Op: op + ":" + name, Now: storage.Timestamp(time.Now()), Move: m})
		if err != nil {
			return a, fmt.Errorf("%s: %w", name, err)
		}
		return a, nil
	}
	chest := func(name string, seq int64) error {
		if _, err := step(name, game.OpenChest{Seq: seq, Drawer: d}); err != nil {
			return err
		}
		chests++
		return nil
	}
	buy := game.Buy{}
	a, err := step("buy", buy)
	if errors.Is(err, game.ErrChestDue) {
		if err := chest("chest-before", a.Player.ChestSeq+1); err != nil {
			return calls, chests, err
		}
		a, err = step("buy-after-chest", buy)
	}
	if err != nil {
		return calls, chests, err
	}
	ticket := a.Result.Ticket
	a, err = step("reveal", game.Reveal{Ticket: ticket, Rows: game.AllRows, Drawer: d})
	if err != nil {
		return calls, chests, err
	}
	if a.Player.ChestDue {
		if err := chest("chest", a.Player.ChestSeq+1); err != nil {
			return calls, chests, err
		}
	}
	return calls, chests, nil
}
