package commands

import (
	"sync"
	"time"
)

// watchdog answers for slow handlers: it has late send the deferral of the
// interactions still running after Config.DeferAfter, and it cancels the
// context of those still running after Config.Timeout and has late send
// their apology. One goroutine per App wakes
// every tick while interactions are in flight and exits when none are, so
// following an interaction costs a map insert and delete under a mutex; a
// timer per interaction cost several µs to arm and stop, on every
// interaction, for the rare slow one (BENCHMARKS.md).
type watchdog struct {
	a    *App
	tick time.Duration

	mu      sync.Mutex
	live    map[*answer]lateStage // in flight, with what late was last asked to do
	running bool                  // a loop goroutine is ticking
}

// lateStage is how far the watchdog has gone with an interaction.
type lateStage uint8

const (
	onTime lateStage = iota
	deferDue
	timeoutDue
)

// newWatchdog ticks at a twentieth of the shorter delay, between 1 and
// 50 ms: the deferral leaves at most 50 ms after DeferAfter (2 s by
// default, within Discord's 3 s).
func newWatchdog(a *App) *watchdog {
	tick := min(a.cfg.DeferAfter, a.cfg.Timeout) / 20
	tick = min(max(tick, time.Millisecond), 50*time.Millisecond)
	return &watchdog{a: a, tick: tick, live: map[*answer]lateStage{}}
}

// watch follows ans until done is called.
func (w *watchdog) watch(ans *answer) {
	w.mu.Lock()
	w.live[ans] = onTime
	if !w.running {
		w.running = true
		go w.loop()
	}
	w.mu.Unlock()
}

// done stops following ans. late may still be running for it: ans's mutex
// and state settle who answers.
func (w *watchdog) done(ans *answer) {
	w.mu.Lock()
	delete(w.live, ans)
	w.mu.Unlock()
}

func (w *watchdog) loop() {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	cfg := w.a.cfg
	for now := range t.C {
		w.mu.Lock()
		if len(w.live) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		for ans, stage := range w.live {
			age := now.Sub(ans.began)
			switch {
			case stage < timeoutDue && age >= cfg.Timeout:
				w.live[ans] = timeoutDue
				ans.cancel() // the handler's store calls see their context end
				go w.a.late(ans, timeoutDue)
			case stage < deferDue && age >= cfg.DeferAfter && cfg.DeferAfter < cfg.Timeout:
				w.live[ans] = deferDue
				go w.a.late(ans, deferDue)
			}
		}
		w.mu.Unlock()
	}
}
