package commands

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Jobs too big for one interaction (a reset-guild) run in the background
// (App.RunJobs); their progress and lease, in the guild's record, let the
// next process take one up after a crash (docs/STORAGE.md §4, Reset-guild).

const (
	// JobLease is how long a process holds a job without recording
	// progress; the lease is renewed with each batch.
	JobLease = 30 * time.Second
	JobScan  = 15 * time.Second // how often a runner looks for jobs to take up
	jobEdit  = 3 * time.Second  // how often the confirmation shows the progress
)

// jobConfig is RunJobs' configuration (zero: the defaults above); tests
// shorten it and name the holder.
type jobConfig struct {
	holder            string // this process's ID in leases; "" draws one
	lease, scan, edit time.Duration
	batch             int // players between two progress records (resetBatch)
}

type jobs struct {
	*steps
	timeout  time.Duration // Config.Timeout
	wake     chan struct{} // one token wakes the runner
	mu       sync.Mutex
	watches  []watch
	running  sync.Map    // the guilds whose job runs in this process
	runnerOn atomic.Bool // RunJobs runs
}

// watch is a confirmation that shows a job's progress until it ends or
// its token dies.
type watch struct {
	rq    *request // the confirmation's: its guild, Responder and language
	op    string
	until time.Time
}

func (a *jobs) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// addWatch hands w to the runner, which starts showing it at its next round.
func (a *jobs) addWatch(w watch) {
	a.mu.Lock()
	a.watches = append(a.watches, w)
	a.mu.Unlock()
	a.signal()
}

// RunJobs runs the background jobs (reset-guild) until ctx ends, then
// waits for them to stop where they are. Call it once per process, in
// every mode that handles interactions. It returns ctx's error.
func (a *App) RunJobs(ctx context.Context) error {
	return background(a.jobs.log, "the job runner", func() error { return a.jobs.runJobs(ctx, jobConfig{}) })
}

func (a *jobs) runJobs(ctx context.Context, c jobConfig) error {
	if c.holder == "" {
		c.holder = "p-" + rand.Text()
	}
	c.lease = cmp.Or(c.lease, JobLease)
	c.scan = cmp.Or(c.scan, JobScan)
	c.edit = cmp.Or(c.edit, jobEdit)
	c.batch = cmp.Or(c.batch, resetBatch)
	if !a.runnerOn.CompareAndSwap(false, true) {
		return errors.New("commands: jobs: RunJobs is already running")
	}
	defer a.runnerOn.Store(false)
	a.log.Info("commands: job runner started", "holder", c.holder)

	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(c.scan)
	defer tick.Stop()
	for {
		a.mu.Lock()
		ws := a.watches
		a.watches = nil
		a.mu.Unlock()
		for _, w := range ws {
			wg.Go(func() { background(a.log, "a job's progress", func() error { a.showProgress(ctx, c, w); return nil }) })
		}
		guilds, err := a.store.Jobs(ctx)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("commands: jobs: list", "err", err)
		}
		for _, g := range guilds {
			if _, busy := a.running.LoadOrStore(g, true); busy {
				continue
			}
			wg.Go(func() {
				defer a.running.Delete(g)
				background(a.log, "a reset-guild", func() error {
					if err := a.runReset(ctx, c, g); err != nil && ctx.Err() == nil {
						a.log.Warn("commands: jobs: reset-guild stopped; it goes on at the next scan", "guild", g, "err", err)
					}
					return nil
				})
			})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		case <-a.wake:
		}
	}
}

// jobWorkers is how many players of a batch a job resets at once: the
// steps are independent, and bbolt commits concurrent ones together.
const jobWorkers = 16

// resetPlayers resets the users of guild to start credits, each in its
// own step under "<op>:<user>", so that running the batch again resets no
// one twice, and returns how many it reset.
func (a *jobs) resetPlayers(ctx context.Context, guild uint64, op string, start int64, users []uint64) (int64, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count int64
		errs  []error
		slots = make(chan struct{}, jobWorkers)
	)
	for _, u := range users {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			err := background(a.log, "a player's reset", func() error {
				_, err := a.run(ctx, storage.Step{
					ID: storage.PlayerID{Guild: guild, User: u}, Op: op + ":" + strconv.FormatUint(u, 10), Start: start, Repair: true,
					Move: game.Reset{Start: start},
				})
				return err
			})
			mu.Lock()
			switch {
			case errors.Is(err, storage.ErrNoPlayer): // gone meanwhile
			case err != nil:
				errs = append(errs, fmt.Errorf("player %d: %w", u, err))
			default:
				count++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return count, errors.Join(errs...)
}

// runReset runs the guild's reset-guild, if it can take its lease: it
// resets the players after the last one recorded, batch by batch,
// recording the progress (and renewing the lease) after each. It stops
// between two batches once stop ends; a step already started completes
// (within Config.Timeout), so that a write and its audit line stay whole.
func (a *jobs) runReset(stop context.Context, c jobConfig, guild uint64) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(stop))
	defer cancel()
	defer context.AfterFunc(stop, func() { time.AfterFunc(a.timeout, cancel) })()
	g, err := a.store.Guild(ctx, guild)
	if err != nil {
		return fmt.Errorf("guild: %w", err)
	}
	r := g.Reset
	if r == nil || r.Finished() {
		return nil
	}
	op := r.Op
	ap, err := a.runGuild(ctx, guild, op, game.Lease{Holder: c.holder, TTL: c.lease})
	if err != nil {
		return nilIfLost(fmt.Errorf("take the lease: %w", err))
	}
	if ap.Repeated {
		return nil
	}
	set, err := a.settings(ctx, guild)
	if err != nil {
		return err
	}
	after := ap.Guild.Reset.After
	var users []uint64 // first listed, then reset: bbolt allows no write while it lists
	if err := a.store.Players(ctx, guild, func(u uint64) error {
		if u > after {
			users = append(users, u)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	log := a.log.With("guild", guild, "op", op, "holder", c.holder)
	log.Info("commands: reset-guild running", "after", after, "left", len(users))
	for start := 0; start < len(users); start += c.batch {
		if err := stop.Err(); err != nil {
			return err
		}
		batch := users[start:min(start+c.batch, len(users))]
		done, err := a.resetPlayers(ctx, guild, op, set.StartingBalance, batch)
		if err != nil {
			return fmt.Errorf("players %d to %d of %d: %w", start+1, start+len(batch), len(users), err)
		}
		_, err = a.runGuild(ctx, guild, op, game.Progress{Holder: c.holder, After: batch[len(batch)-1], Count: done, TTL: c.lease})
		if err != nil {
			return nilIfLost(err)
		}
	}
	done, err := a.runGuild(ctx, guild, op, game.EndReset{Holder: c.holder})
	if err != nil {
		return nilIfLost(fmt.Errorf("finish: %w", err))
	}
	if r := done.Guild.Reset; r != nil && r.Op == op {
		log.Info("commands: reset-guild finished", "players", r.Count)
	}
	return nil
}

// nilIfLost is nil when err says the lease went to another process, or
// the job ended elsewhere: this process stops it without error.
func nilIfLost(err error) error {
	if errors.Is(err, game.ErrLeaseHeld) || errors.Is(err, game.ErrNoReset) {
		return nil
	}
	return err
}

// showProgress edits the confirmation w with its job's progress every
// c.edit, until the job ends, the token dies or ctx ends.
func (a *jobs) showProgress(ctx context.Context, c jobConfig, w watch) {
	t := time.NewTicker(c.edit)
	defer t.Stop()
	var shown int64 = -1
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if a.clock().After(w.until) {
			return
		}
		g, err := a.store.Guild(ctx, w.rq.guild)
		if err != nil {
			continue
		}
		r := g.Reset
		rep, end := resetEnded(w.rq.l, r, w.op)
		if !end {
			if r.Count == shown {
				continue
			}
			rep = resetRunning(w.rq.l, *r, "")
		}
		if err := w.rq.r.EditOriginal(ctx, w.rq.i, webhookEdit(rep.data)); err != nil {
			a.log.Warn("commands: reset-guild progress: edit failed", "interaction", w.rq.i.ID, "err", err)
		}
		if end {
			return
		}
		shown = r.Count
	}
}

// resetRunning shows a reset-guild in progress: how many players so far,
// who started it and when; note, when not "", comes first.
func resetRunning(l *lang, r game.GuildReset, note string) reply {
	text := "⏳ " + l.P("rg_running", int(r.Count), map[string]any{"Count": r.Count}) + "\n" +
		l.T("rg_started_by", map[string]any{"User": mention(r.Actor), "When": timestamp(r.Started.Unix(), "R")})
	if note != "" {
		text = note + "\n" + text
	}
	return closedEmbed(infoEmbed(l.T("rg_title", nil), text, colourInfo))
}

// background runs f, (a part of) the body of a background goroutine, and
// returns f's error, or its panic as an error, logged: a goroutine is a
// boundary of its own, where a panic would end the process.
func background(log *slog.Logger, what string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in %s: %v", what, p)
			log.Error("commands: "+err.Error(), "stack", string(debug.Stack()))
		}
	}()
	return f()
}
