package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Floor is what the Redis server spends on the least a round trip can
// cost: `EVAL "return 1" 0`, from as many goroutines as the run has
// players, over the store's own client (its pool, as the bot's). A play
// cycle is two round trips, so PerCycle, two EVALs, is the floor a
// cycle's Redis CPU is compared with.
type Floor struct {
	Goroutines int           `json:"goroutines"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Calls      int64         `json:"calls"`
	Errors     int64         `json:"errors"`
	ServerCPU  time.Duration `json:"server_cpu_ns"`
	PerEval    time.Duration `json:"server_cpu_per_eval_ns"`
	PerCycle   time.Duration `json:"server_cpu_per_cycle_ns"` // 2 × PerEval
	// ToServerPerEval and FromServerPerEval are the bytes per EVAL
	// (INFO stats), to compare with a cycle's.
	ToServerPerEval   float64 `json:"to_server_bytes_per_eval"`
	FromServerPerEval float64 `json:"from_server_bytes_per_eval"`
}

// runFloor measures the floor for d with n goroutines.
func runFloor(ctx context.Context, b *backend, n int, d time.Duration, log *slog.Logger) (Floor, error) {
	log.Info("measuring the Redis floor: EVAL \"return 1\" 0", "duration", d, "goroutines", n)
	before, err := b.server(ctx)
	if err != nil {
		return Floor{}, fmt.Errorf("loadtest: floor: %w", err)
	}
	var calls, nErrs atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	loop(ctx, n, d, func(int) bool {
		if err := b.redis.Eval(ctx, "return 1", nil).Err(); err != nil {
			firstErr.CompareAndSwap(nil, err)
			return nErrs.Add(1) <= 100
		}
		calls.Add(1)
		return true
	})
	f := Floor{Goroutines: n, Elapsed: time.Since(start), Calls: calls.Load(), Errors: nErrs.Load()}
	after, err := b.server(ctx)
	if err != nil {
		return f, fmt.Errorf("loadtest: floor: %w", err)
	}
	if f.Errors > 0 {
		return f, fmt.Errorf("loadtest: floor: %d EVALs failed, the first: %v", f.Errors, firstErr.Load())
	}
	delta := after.sub(before)
	f.ServerCPU = delta.CPU
	if f.Calls > 0 {
		f.PerEval = f.ServerCPU / time.Duration(f.Calls)
		f.PerCycle = 2 * f.PerEval
		f.ToServerPerEval = float64(delta.NetIn) / float64(f.Calls)
		f.FromServerPerEval = float64(delta.NetOut) / float64(f.Calls)
	}
	return f, nil
}
