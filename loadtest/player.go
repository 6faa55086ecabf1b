package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Interaction kinds, as reported.
const (
	KindPlay  = "play"  // the slash command /play: buys a ticket, shows the hidden grid
	KindAuto  = "auto"  // the Auto button: draws and reveals all
	KindChest = "chest" // the chest's button, when a chest is due
	KindAll   = "all"   // every kind together
)

var kinds = []string{KindPlay, KindAuto, KindChest}

// Prefixes of the custom IDs of the buttons a player presses (see
// commands/customid.go).
const (
	autoPrefix  = "v1:auto:"
	chestPrefix = "v1:chest:"
)

// client is Discord's side of one transport: it sends a player's
// interactions to the bot and returns what the bot answered.
type client interface {
	// slash runs /play as player p.
	slash(ctx context.Context, p *player) (answer, error)
	// click presses the button customID on the message last shown to p.
	click(ctx context.Context, p *player, customID string) (answer, error)
	// refused lists what the fake Discord refused of the bot's calls.
	refused() []string
	// close stops the bot and the fake Discord.
	close() error
	// botCPU reads the bot process's CPU time when the bot runs as its
	// own process; nil when it runs in this one.
	botCPU() func() (time.Duration, error)
}

// answer is the bot's answer to one interaction.
type answer struct {
	// msg is the message the answer shows, with its buttons.
	msg *discordgo.Message
	// at is when the answer reached Discord (the callback or the HTTP reply).
	at time.Time
}

// player is one simulated user. It is driven by one goroutine at a time.
type player struct {
	id                   storage.PlayerID
	guild, user, channel string
	msg                  *discordgo.Message // the message last shown
	next, nextKind       string             // the button to press next; "" means /play

	calls, cycles, chests, errors int64
	direct                        int64 // cycles of the store's ceiling, for their operation IDs
}

// nextOp returns the operation ID of the player's next direct cycle,
// unique to it. Only the player's own goroutine calls it.
func (p *player) nextOp() string {
	p.direct++
	return "loadtest-direct-" + strconv.FormatInt(p.direct, 10)
}

// step sends the player's next interaction (/play, Auto, or the chest
// when due) through c, scheduled at sched, and records its latency from
// sched in rec (nil: not recorded). A play cycle is complete when Auto is
// answered; a chest shown then is opened by the next step.
func (p *player) step(ctx context.Context, c client, sched time.Time, rec *recording) error {
	kind, customID := KindPlay, ""
	if p.next != "" {
		kind, customID = p.nextKind, p.next
	}
	p.next, p.nextKind = "", ""
	var (
		a   answer
		err error
	)
	if kind == KindPlay {
		a, err = c.slash(ctx, p)
	} else {
		a, err = c.click(ctx, p, customID)
	}
	if err != nil {
		p.errors++
		return fmt.Errorf("player %s, %s: %w", p.user, kind, err)
	}
	p.calls++
	rec.add(kind, a.at.Sub(sched))
	p.msg = a.msg
	auto, chest := button(a.msg, autoPrefix), button(a.msg, chestPrefix)
	switch kind {
	case KindPlay:
		switch {
		case auto != "":
			p.next, p.nextKind = auto, KindAuto
		case chest != "": // a chest due is shown before any new ticket
			p.next, p.nextKind = chest, KindChest
		default:
			p.errors++
			return fmt.Errorf("player %s: /play showed neither Auto nor a chest: %s", p.user, describe(a.msg))
		}
	case KindAuto:
		p.cycles++
		if chest != "" {
			p.next, p.nextKind = chest, KindChest
		}
	case KindChest:
		p.chests++
	}
	return nil
}

// button returns the custom ID of the first enabled button of m whose ID
// starts with prefix, or "".
func button(m *discordgo.Message, prefix string) string {
	if m == nil {
		return ""
	}
	for _, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, rc := range row.Components {
			if b, ok := rc.(*discordgo.Button); ok && !b.Disabled && strings.HasPrefix(b.CustomID, prefix) {
				return b.CustomID
			}
		}
	}
	return ""
}

// describe summarises a message for an error.
func describe(m *discordgo.Message) string {
	if m == nil {
		return "no message"
	}
	s := m.Content
	for _, e := range m.Embeds {
		if e != nil {
			s += " | " + e.Title + " " + e.Description
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// errLog keeps the first errors of a run and counts them all.
type errLog struct {
	mu    sync.Mutex
	first []string
	n     int64
}

func (l *errLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if len(l.first) < 10 {
		l.first = append(l.first, err.Error())
	}
}

// count returns the number of errors so far.
func (l *errLog) count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// counts sums the players' counters.
func counts(players []*player) (calls, cycles, chests, errs int64) {
	for _, p := range players {
		calls += p.calls
		cycles += p.cycles
		chests += p.chests
		errs += p.errors
	}
	return calls, cycles, chests, errs
}

// loop runs f(k) in n goroutines, k = 0..n-1, each again and again
// until d has passed, ctx is done or f returns false.
func loop(ctx context.Context, n int, d time.Duration, f func(k int) bool) {
	var stop atomic.Bool
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			for !stop.Load() && ctx.Err() == nil && f(k) {
			}
		})
	}
	wg.Wait()
}

// closedLoop runs every player in its own goroutine, one interaction after
// another, for d; a player stops early after 20 errors in a row.
func closedLoop(ctx context.Context, c client, players []*player, d time.Duration, rec *recording, errs *errLog) {
	inARow := make([]int, len(players))
	loop(ctx, len(players), d, func(k int) bool {
		p := players[k]
		err := p.step(ctx, c, time.Now(), rec)
		if err == nil {
			inARow[k] = 0
			return true
		}
		errs.add(err)
		if inARow[k]++; inARow[k] == 20 {
			errs.add(fmt.Errorf("player %s: stopped after %d errors in a row", p.user, inARow[k]))
			return false
		}
		return true
	})
}

// openLoop sends interactions at rate per second, evenly spaced, for d,
// each by a player free at that moment, whatever the latency of those in
// flight. Every latency is measured from the interaction's scheduled time,
// so that a send delayed (no player free, the sender late) counts against
// the bot, not for it (no coordinated omission); the delay from the
// schedule to the actual send is recorded apart too.
func openLoop(ctx context.Context, c client, players []*player, d time.Duration, rate float64, rec *recording, errs *errLog) {
	idle := make(chan *player, len(players))
	for _, p := range players {
		idle <- p
	}
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	var wg sync.WaitGroup
	defer wg.Wait()
	for k := 0; ; k++ {
		sched := start.Add(time.Duration(k) * interval)
		if sched.Sub(start) >= d {
			return
		}
		if wait := time.Until(sched); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
		}
		var p *player
		select {
		case p = <-idle:
		case <-ctx.Done():
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec.addSendDelay(time.Since(sched))
			if err := p.step(ctx, c, sched, rec); err != nil {
				errs.add(err)
			}
			idle <- p
		}()
	}
}
