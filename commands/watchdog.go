package commands

import (
	"sync"
	"time"
)

// watchdog answers for slow handlers: it has late send the deferral of the
// interactions still running after Config.DeferAfter, and it cancels the
// context of those still running after Config.Timeout and has late send
// their apology. It also cancels a handler's context when the context
// Handle was given ends. One goroutine per App wakes
// every tick while interactions are in flight and exits when none are, so
// following an interaction costs linking it into a list and out under a
// mutex; a timer per interaction cost several µs to arm and stop, on every
// interaction, for the rare slow one (BENCHMARKS.md).
type watchdog struct {
	a    *App
	tick time.Duration

	mu      sync.Mutex
	live    answer // the list of answers in flight, through watch.prev and watch.next; live itself is its sentinel
	running bool   // a loop goroutine is ticking
}

// watched is what the watchdog keeps in an answer, guarded by its mutex.
type watched struct {
	prev, next *answer
	stage      lateStage // what late was last asked to do
	ctxDone    bool      // the handler's context was cancelled because the caller's ended
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
	w := &watchdog{a: a, tick: tick}
	w.live.watch.prev, w.live.watch.next = &w.live, &w.live
	return w
}

// watch follows ans until done is called.
func (w *watchdog) watch(ans *answer) {
	w.mu.Lock()
	last := w.live.watch.prev
	ans.watch = watched{prev: last, next: &w.live, stage: onTime}
	last.watch.next, w.live.watch.prev = ans, ans
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
	if p, n := ans.watch.prev, ans.watch.next; p != nil {
		p.watch.next, n.watch.prev = n, p
		ans.watch.prev, ans.watch.next = nil, nil
	}
	w.mu.Unlock()
}

// size returns how many interactions are followed.
func (w *watchdog) size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for ans := w.live.watch.next; ans != &w.live; ans = ans.watch.next {
		n++
	}
	return n
}

func (w *watchdog) loop() {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	cfg := w.a.cfg
	for now := range t.C {
		w.mu.Lock()
		if w.live.watch.next == &w.live {
			w.running = false
			w.mu.Unlock()
			return
		}
		for ans := w.live.watch.next; ans != &w.live; ans = ans.watch.next {
			if !ans.watch.ctxDone && ans.ctx.Err() != nil {
				ans.watch.ctxDone = true
				ans.cancel() // the caller's context ended: so does the handler's
			}
			age := now.Sub(ans.began)
			switch stage := ans.watch.stage; {
			case stage < timeoutDue && age >= cfg.Timeout:
				ans.watch.stage = timeoutDue
				ans.cancel() // the handler's store calls see their context end
				go w.a.late(ans, timeoutDue)
			case stage < deferDue && age >= cfg.DeferAfter && cfg.DeferAfter < cfg.Timeout:
				ans.watch.stage = deferDue
				go w.a.late(ans, deferDue)
			}
		}
		w.mu.Unlock()
	}
}
