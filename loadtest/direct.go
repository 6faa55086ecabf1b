package loadtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// directLoop plays cycles by calling the store's steps directly, one
// goroutine per player, for d: the store's own ceiling, without handlers,
// rendering, transport or fake Discord. It returns the cycles, store calls
// and chests.
func directLoop(ctx context.Context, s storage.Store, players []*player, d time.Duration, errs *errLog) (cycles, calls, chests int64) {
	var stop atomic.Bool
	var nCycles, nCalls, nChests, nErrs atomic.Int64
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				c, ch, err := DirectCycle(ctx, s, p.id)
				nCalls.Add(int64(c))
				nChests.Add(int64(ch))
				if err != nil {
					errs.add(fmt.Errorf("direct, player %d: %w", p.id.User, err))
					if nErrs.Add(1) > 1000 {
						return
					}
					continue
				}
				nCycles.Add(1)
			}
		}()
	}
	wg.Wait()
	return nCycles.Load(), nCalls.Load(), nChests.Load()
}

// DirectCycle plays one cycle on the store as the handlers would, without
// them: Buy, Reveal of all rows, and OpenChest when a chest is due (before
// or after). It returns the number of store calls made and of chests
// opened.
func DirectCycle(ctx context.Context, s storage.Store, id storage.PlayerID) (calls, chests int, err error) {
	_, t, _, err := s.Buy(ctx, id)
	calls++
	if errors.Is(err, storage.ErrChestDue) {
		p, perr := s.Player(ctx, id)
		calls++
		if perr != nil {
			return calls, chests, perr
		}
		if _, _, _, cerr := s.OpenChest(ctx, id, p.ChestSeq+1); cerr != nil {
			return calls + 1, chests, cerr
		}
		calls++
		chests++
		_, t, _, err = s.Buy(ctx, id)
		calls++
	}
	if err != nil {
		return calls, chests, err
	}
	p, _, err := s.Reveal(ctx, id, t.ID, storage.AllRows)
	calls++
	if err != nil {
		return calls, chests, err
	}
	if p.ChestPending {
		_, _, _, err := s.OpenChest(ctx, id, p.ChestSeq+1)
		calls++
		if err != nil {
			return calls, chests, err
		}
		chests++
	}
	return calls, chests, nil
}
