package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// tracker runs the interactions of a transport and lets a shutdown wait
// for those in progress: once it is closing it refuses new ones.
type tracker struct {
	h       Handler
	log     *slog.Logger
	timeout time.Duration // the shutdown's wait

	ctx    context.Context // the handlers'; cancelled when the shutdown wait runs out
	cancel context.CancelFunc

	mu       sync.Mutex  // orders enter's check and inflight.Add before stop
	closing  atomic.Bool // set under mu
	inflight sync.WaitGroup
	handled  atomic.Int64
	dropped  atomic.Int64 // refused while shutting down
}

func newTracker(h Handler, log *slog.Logger, timeout time.Duration) *tracker {
	ctx, cancel := context.WithCancel(context.Background())
	return &tracker{h: h, log: log, timeout: positiveOr(timeout, DefaultShutdownTimeout), ctx: ctx, cancel: cancel}
}

// handle runs the handler on i through r, logging through log, unless the
// transport is shutting down, and reports whether it did (a panic included).
// A panic on the interaction's goroutine is recovered here, as
// commands.App.Handle leaves it to its caller.
func (t *tracker) handle(r commands.Responder, i *discordgo.Interaction, log *slog.Logger) (handled bool) {
	if !t.enter() {
		log.Warn("interaction dropped: shutting down", "interaction", i.ID)
		return false
	}
	defer t.inflight.Done()
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic in interaction handler", "interaction", i.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	t.handled.Add(1)
	handled = true // also after a panic: the endpoint then says "no answer", not "shutting down"
	t.h.Handle(commands.WithLogger(t.ctx, log), r, i)
	return handled
}

// stop refuses new interactions; those in progress go on.
func (t *tracker) stop() {
	t.mu.Lock()
	t.closing.Store(true)
	t.mu.Unlock()
}

// enter counts an interaction in flight, or as dropped while closing.
func (t *tracker) enter() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing.Load() {
		t.dropped.Add(1)
		return false
	}
	t.inflight.Add(1)
	return true
}

// shutdown stops taking interactions and waits for those in progress up
// to the timeout from start; then it cancels them and waits one more second.
func (t *tracker) shutdown(start time.Time) error {
	t.stop()
	defer t.cancel()
	done := make(chan struct{})
	go func() { t.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(max(t.timeout-time.Since(start), 0)):
	}
	t.log.Warn("shutdown: interactions still running; cancelling them", "timeout", t.timeout)
	t.cancel()
	select {
	case <-done:
		return nil
	case <-time.After(time.Second):
		return errors.New("bot: interactions still running after the shutdown timeout")
	}
}

// apologise answers an undecodable interaction with a short apology, if
// its id and token can be read at all.
func (t *tracker) apologise(r commands.Responder, raw []byte, log *slog.Logger) {
	i, err := decodeLeniently(raw)
	if err != nil {
		log.Error("interaction not decodable, not answerable", "err", err, "bytes", len(raw))
		return
	}
	if !t.enter() {
		return
	}
	defer t.inflight.Done()
	log.Error("interaction not decodable; answering with an apology", "interaction", i.ID, "type", int(i.Type))
	ctx, cancel := context.WithTimeout(t.ctx, replyDeadline)
	defer cancel()
	if err := r.Respond(ctx, i, apology(i.Locale)); err != nil {
		log.Warn("apology failed", "interaction", i.ID, "err", err)
	}
}
