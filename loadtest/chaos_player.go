package loadtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Prefix of the custom ID of "Play again", on a finished card.
const againPrefix = "v1:again:"

// Limits of a chaos player's patience.
const (
	// chaosTries bounds the sends of one action (the first and its
	// retries) before the player falls back to /play.
	chaosTries = 8
	// chaosPause is the wait before a retry, as a person clicks again.
	chaosPause = 300 * time.Millisecond
	// chaosAnswerWait bounds the wait for an answer: the callback within
	// 3 s, or after a deferral the edit that follows.
	chaosAnswerWait = 15 * time.Second
	// chaosEditWait is how long a player looks at an answer that is not
	// the card (an apology) for the edit that replaces it.
	chaosEditWait = 2 * time.Second
	// historyEvery is how many interactions a player sends between two
	// reads of its history: each writes at most one line, and the store
	// keeps storage.HistoryLimit, so no line is missed between reads.
	historyEvery = 10
)

// shownTicket is what the player was shown of one ticket.
type shownTicket struct {
	done       bool   // a card showed its result (every row)
	inRecovery bool   // first shown during the recovery
	grid       string // the grid of the first card that showed the result
	winRow     int    // the row starred on that card; -1: none
	other      string // a different result shown later for the same ticket
}

// action is one thing a player meant to do (/play, a click) and the
// interactions it took, first send to the answer that showed the result.
type action struct {
	start, end time.Time
	ids        []string // the interactions sent
	ok         bool
}

// chaosPlayer is one player of a chaos run, driven by one goroutine at a
// time.
type chaosPlayer struct {
	*player
	srv  *fakediscord.Server
	st   storage.Store // the store itself, for its history
	errs *errLog

	card       *discordgo.Message // the last card shown, with its buttons
	tickets    map[uint64]*shownTicket
	hist       historyLog
	sinceRead  int
	actions    []action
	inRecovery bool
	final      game.Player

	sent, recoverySent, failed, notDelivered int64
	lostDispatch                             int64 // sends whose gateway write failed
	cycles, chests, reads, resumed           int64
}

func newChaosPlayer(p *player, srv *fakediscord.Server, st storage.Store, errs *errLog) *chaosPlayer {
	return &chaosPlayer{player: p, srv: srv, st: st, errs: errs, tickets: map[uint64]*shownTicket{}}
}

// play runs play cycles until the deadline: /play, Auto on the card, the
// chest when due.
func (p *chaosPlayer) play(ctx context.Context, deadline time.Time) {
	kind, custom := KindPlay, ""
	for time.Now().Before(deadline) && ctx.Err() == nil {
		msg, ok := p.act(ctx, kind, custom, deadline)
		kind, custom = KindPlay, ""
		if !ok {
			continue
		}
		if k, c := p.next(msg); c != "" {
			kind, custom = k, c
		}
	}
}

// recoverPlay ends what the player left: /play, which hands back an open
// ticket (or buys a new one, or shows the due chest), then Auto and the
// chest, until a card shows a finished ticket and no chest is due.
func (p *chaosPlayer) recoverPlay(ctx context.Context) {
	p.inRecovery = true
	deadline := time.Now().Add(time.Hour) // ctx bounds the recovery
	for range 8 {
		if ctx.Err() != nil {
			break
		}
		msg, ok := p.act(ctx, KindPlay, "", deadline)
		for ok {
			k, c := p.next(msg)
			if c == "" {
				break
			}
			msg, ok = p.act(ctx, k, c, deadline)
		}
		if ok && button(msg, againPrefix) != "" && button(msg, chestPrefix) == "" {
			break // a finished ticket (or an opened chest) and nothing due
		}
	}
	p.readHistory(ctx)
}

// next returns the button to press after an answer: Auto on a hidden
// card, the chest when due; "" for /play.
func (p *chaosPlayer) next(msg *discordgo.Message) (kind, customID string) {
	if c := button(msg, autoPrefix); c != "" {
		return KindAuto, c
	}
	if c := button(msg, chestPrefix); c != "" {
		return KindChest, c
	}
	return KindPlay, ""
}

// act does one action: sends the interaction, and again after a failure
// (the same button on the same card, or /play), at most chaosTries times
// or until the deadline for a send that could not be delivered. It
// returns the card shown, and false if the action did not succeed.
func (p *chaosPlayer) act(ctx context.Context, kind, customID string, deadline time.Time) (*discordgo.Message, bool) {
	a := action{start: time.Now()}
	card := p.card
	for tries := 0; tries < chaosTries && ctx.Err() == nil; {
		msg, at, id, err := p.send(ctx, kind, customID, card)
		if id != "" {
			a.ids = append(a.ids, id)
			tries++
		}
		if err == nil {
			a.end, a.ok = at, true
			p.actions = append(p.actions, a)
			p.card = msg
			return msg, true
		}
		if id != "" {
			p.failed++
		} else if !time.Now().Before(deadline) {
			break // not delivered, and the phase is over
		}
		if errors.Is(err, errStale) {
			break // the card moved on: back to /play
		}
		pause := chaosPause
		if id == "" {
			pause = chaosPause / 3 // not delivered: the user sees it at once
		}
		if !sleepOrDone(ctx, pause) {
			break
		}
	}
	return nil, false
}

// errStale: the answer to a click was not a card (the ticket is over, the
// chest opened), or the card no longer has the button.
var errStale = errors.New("the card has moved on")

// send sends one interaction and waits for the answer that shows a card.
// It returns the interaction's ID ("" if it was not delivered) and when
// the card became visible to the player.
func (p *chaosPlayer) send(ctx context.Context, kind, customID string, card *discordgo.Message) (*discordgo.Message, time.Time, string, error) {
	start := time.Now()
	var (
		pd  *fakediscord.Pending
		err error
	)
	if kind == KindPlay {
		pd, err = p.srv.Slash(ctx, fakediscord.Slash{Guild: p.guild, Channel: p.channel, User: p.user, Name: "play"})
	} else {
		if card == nil {
			return nil, start, "", errStale
		}
		pd, err = p.srv.Click(ctx, fakediscord.Click{Message: card.ID, CustomID: customID, User: p.user})
		if errors.Is(err, fakediscord.ErrNoSuchButton) {
			// The card changed meanwhile (a late answer): what it shows now.
			if m, ok := p.srv.Message(card.ID); ok && p.shows(m) {
				p.record(m, kind)
				return m, time.Now(), "", nil
			}
			return nil, start, "", errStale
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, fakediscord.ErrNoGateway):
			p.notDelivered++
		case ctx.Err() == nil && !errors.Is(err, fakediscord.ErrClosed) && !errors.Is(err, fakediscord.ErrUnknownMessage):
			// The write to the gateway failed (a drop at that instant):
			// the fake forgets the interaction, though the event stays in
			// the session's backlog and reaches the bot on RESUME.
			p.notDelivered++
			p.lostDispatch++
		}
		return nil, start, "", err
	}
	p.sent++
	if p.inRecovery {
		p.recoverySent++
	}
	if p.sinceRead++; p.sinceRead >= historyEvery {
		p.readHistory(ctx)
	}
	id := pd.ID()
	wctx, cancel := context.WithTimeout(ctx, chaosAnswerWait)
	defer cancel()
	r, err := pd.Wait(wctx)
	if err != nil {
		return nil, start, id, fmt.Errorf("%s: %w", kind, err)
	}
	at := time.Now()
	if r.Type == discordgo.InteractionResponseChannelMessageWithSource || r.Type == discordgo.InteractionResponseUpdateMessage {
		at = start.Add(r.Latency)
	}
	if !p.shows(r.Message) {
		// An apology or an error: the bot may replace it with the result.
		for edits, end := r.Edits, time.Now().Add(chaosEditWait); time.Now().Before(end); {
			if !sleepOrDone(ctx, 50*time.Millisecond) {
				break
			}
			if s, ok := pd.Snapshot(); ok && s.Edits > edits {
				edits = s.Edits
				if p.shows(s.Message) {
					r, at = s, time.Now()
					break
				}
			}
		}
		if !p.shows(r.Message) {
			if kind != KindPlay {
				return nil, start, id, fmt.Errorf("%s: %w: %s", kind, errStale, describe(r.Message))
			}
			return nil, start, id, fmt.Errorf("%s answered %s", kind, describe(r.Message))
		}
	}
	p.record(r.Message, kind)
	return r.Message, at, id, nil
}

// shows reports whether m is one of the player's cards: a ticket, or a
// chest, closed or opened.
func (p *chaosPlayer) shows(m *discordgo.Message) bool {
	if m == nil {
		return false
	}
	for _, prefix := range []string{autoPrefix, againPrefix, chestPrefix} {
		if id := anyButton(m, prefix); strings.HasPrefix(id, prefix+p.user+":") {
			return true
		}
	}
	return false
}

// record notes what the card m shows, the answer to kind.
func (p *chaosPlayer) record(m *discordgo.Message, kind string) {
	n, done, ok := cardTicket(m)
	if !ok {
		if kind == KindChest && button(m, againPrefix) != "" {
			p.chests++
		}
		return
	}
	t, known := p.tickets[n]
	if !known {
		t = &shownTicket{winRow: -1}
		p.tickets[n] = t
	} else if kind == KindPlay && !t.done {
		p.resumed++ // /play handed back a ticket already shown
	}
	if !done {
		return
	}
	grid, win := cardGrid(m)
	switch {
	case !t.done:
		t.done, t.grid, t.winRow, t.inRecovery = true, grid, win, p.inRecovery
		if !p.inRecovery {
			p.cycles++
		}
	case t.grid != grid && t.other == "":
		t.other = fmt.Sprintf("first %q, then %q", t.grid, grid)
	}
}

// readHistory reads the player's history from the store and adds its new
// lines to the log.
func (p *chaosPlayer) readHistory(ctx context.Context) {
	p.sinceRead = 0
	lines, err := p.st.History(ctx, p.id, storage.HistoryLimit)
	if err != nil {
		p.errs.add(fmt.Errorf("player %s: read the history: %w", p.user, err))
		p.hist.unread = true
		return
	}
	p.reads++
	p.hist.merge(lines)
}

// anyButton returns the custom ID of the first button of m, enabled or
// not, whose ID starts with prefix, or "".
func anyButton(m *discordgo.Message, prefix string) string {
	if m == nil {
		return ""
	}
	for _, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, rc := range row.Components {
			if b, ok := rc.(*discordgo.Button); ok && strings.HasPrefix(b.CustomID, prefix) {
				return b.CustomID
			}
		}
	}
	return ""
}

// cardTicket returns the ticket a card shows (from its Auto button,
// "v1:auto:<user>:<ticket>") and whether every row is shown (the button
// disabled).
func cardTicket(m *discordgo.Message) (ticket uint64, done, ok bool) {
	id := anyButton(m, autoPrefix)
	if id == "" {
		return 0, false, false
	}
	parts := strings.Split(id, ":")
	n, err := strconv.ParseUint(parts[len(parts)-1], 10, 64)
	if err != nil {
		return 0, false, false
	}
	return n, button(m, autoPrefix) == "", true
}

// Row markers of the card's grid (commands/render.go).
const (
	markHidden = "▶️"
	markShown  = "▫️"
	markWin    = "⭐"
)

// cardGrid returns the grid's three lines of a card and the row starred
// as winning (-1: none).
func cardGrid(m *discordgo.Message) (grid string, winRow int) {
	winRow = -1
	if len(m.Embeds) == 0 || m.Embeds[0] == nil {
		return "", winRow
	}
	var rows []string
	for _, line := range strings.Split(m.Embeds[0].Description, "\n") {
		switch {
		case strings.HasPrefix(line, markWin):
			winRow = len(rows)
			fallthrough
		case strings.HasPrefix(line, markShown), strings.HasPrefix(line, markHidden):
			rows = append(rows, line)
		}
	}
	return strings.Join(rows, "\n"), winRow
}

// gridWinRow is the row of g with three identical symbols other than the
// key (the winning row), or -1.
func gridWinRow(g game.Grid) int {
	for r := range 3 {
		if s := g[3*r]; s != game.Key && s == g[3*r+1] && s == g[3*r+2] {
			return r
		}
	}
	return -1
}

// sleepOrDone waits d; false if ctx ended first.
func sleepOrDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// historyLog is a player's whole history, oldest first, pieced together
// from reads of its last storage.HistoryLimit lines (from the line on which
// they are complete, game.CompleteFrom).
type historyLog struct {
	lines []game.Entry
	// gap is set when a read shares no line with the log although the
	// log is not empty: lines were written and trimmed between two reads,
	// or lines the store had are gone.
	gap string
	// unread is set when a read failed.
	unread bool
}

// merge adds the lines of a read (newest first) that follow the log.
func (h *historyLog) merge(newestFirst []game.Entry) {
	s := make([]game.Entry, len(newestFirst))
	for k, e := range newestFirst {
		s[len(s)-1-k] = e
	}
	// The store keeps tickets and other lines in two lists: older lines
	// of the longer-reaching one have lost their neighbours.
	from, _ := game.CompleteFrom(s)
	s = s[from:]
	// The longest prefix of s that ends the log.
	for k := min(len(s), len(h.lines)); k >= 0; k-- {
		if !sameLines(h.lines[len(h.lines)-k:], s[:k]) {
			continue
		}
		if k == 0 && len(h.lines) > 0 && h.gap == "" {
			h.gap = fmt.Sprintf("a read of %d lines shares none with the %d read before (last %s)", len(s), len(h.lines), lineString(h.lines[len(h.lines)-1]))
		}
		h.lines = append(h.lines, s[k:]...)
		return
	}
}

func sameLines(a, b []game.Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if lineString(a[k]) != lineString(b[k]) {
			return false
		}
	}
	return true
}

// lineString identifies a history line.
func lineString(e game.Entry) string {
	return fmt.Sprintf("%s@%d ticket %d chest %d amount %d balance %d keys %d key %t grid %v",
		e.Kind, e.At.UnixNano(), e.TicketID, e.Chest, e.Amount, e.Balance, e.KeysBefore, e.Key, e.Grid)
}
