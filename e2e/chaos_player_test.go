package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The buttons a chaos player presses, by the prefix of their custom ID
// (commands/customid.go), and the markers of the card's rows
// (commands/render.go).
const (
	autoPrefix  = "v1:auto:"
	chestPrefix = "v1:chest:"
	againPrefix = "v1:again:"

	markHidden = "▶️"
	markShown  = "▫️"
	markWin    = "⭐"
)

// A chaos player's patience.
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
	done   bool   // a card showed its result (every row)
	grid   string // the grid of the first card that showed the result
	winRow int    // the row starred on that card; -1: none
	other  string // a different result shown later for the same ticket
}

// action is one thing a player meant to do (/play, a click) and the
// interactions it took, from the first send to the answer that showed
// the card.
type action struct {
	took time.Duration
	ids  []string // the interactions sent
}

// chaosPlayer is one player of the chaos test, driven by one goroutine at
// a time.
type chaosPlayer struct {
	srv                  *fakediscord.Server
	st                   storage.Store // the bot's store, for the history
	id                   storage.PlayerID
	guild, channel, user string

	card       *discordgo.Message // the last card shown, with its buttons
	tickets    map[uint64]*shownTicket
	hist       historyLog
	sinceRead  int
	actions    []action
	inRecovery bool

	sent, failed, notDelivered int64
	lostDispatch               int64 // sends whose gateway write failed
	cycles, chests             int64
}

func newChaosPlayer(srv *fakediscord.Server, st storage.Store, k int) *chaosPlayer {
	user := strconv.Itoa(200000000000000000 + k)
	return &chaosPlayer{srv: srv, st: st, id: storage.PlayerID{Guild: id(guild), User: id(user)},
		guild: guild, channel: strconv.Itoa(900000000000100000 + k), user: user,
		tickets: map[uint64]*shownTicket{}}
}

// play runs play cycles until the deadline: /play, Auto on the card, the
// chest when due.
func (p *chaosPlayer) play(ctx context.Context, deadline time.Time) {
	kind, custom := "play", ""
	for time.Now().Before(deadline) && ctx.Err() == nil {
		msg, ok := p.act(ctx, kind, custom, deadline)
		kind, custom = "play", ""
		if ok {
			kind, custom = next(msg)
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
		msg, ok := p.act(ctx, "play", "", deadline)
		for ok {
			k, c := next(msg)
			if c == "" {
				break
			}
			msg, ok = p.act(ctx, k, c, deadline)
		}
		if ok && enabled(msg, againPrefix) != "" && enabled(msg, chestPrefix) == "" {
			break // a finished ticket (or an opened chest) and nothing due
		}
	}
	p.readHistory(ctx)
}

// next returns the button to press after an answer: Auto on a hidden
// card, the chest when due; "" for /play.
func next(msg *discordgo.Message) (kind, customID string) {
	if c := enabled(msg, autoPrefix); c != "" {
		return "auto", c
	}
	if c := enabled(msg, chestPrefix); c != "" {
		return "chest", c
	}
	return "play", ""
}

// act does one action: sends the interaction, and again after a failure
// (the same button on the same card, or /play), at most chaosTries times
// or until the deadline for a send that could not be delivered. It
// returns the card shown, and false if the action did not succeed.
func (p *chaosPlayer) act(ctx context.Context, kind, customID string, deadline time.Time) (*discordgo.Message, bool) {
	start := time.Now()
	var a action
	card := p.card
	for tries := 0; tries < chaosTries && ctx.Err() == nil; {
		msg, at, id, err := p.send(ctx, kind, customID, card)
		if id != "" {
			a.ids = append(a.ids, id)
			tries++
		}
		if err == nil {
			a.took = at.Sub(start)
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
	if kind == "play" {
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
			if kind != "play" {
				return nil, start, id, fmt.Errorf("%s: %w", kind, errStale)
			}
			return nil, start, id, fmt.Errorf("%s answered something else than a card", kind)
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
		if kind == "chest" && enabled(m, againPrefix) != "" {
			p.chests++
		}
		return
	}
	t, known := p.tickets[n]
	if !known {
		t = &shownTicket{winRow: -1}
		p.tickets[n] = t
	}
	if !done {
		return
	}
	grid, win := cardGrid(m)
	switch {
	case !t.done:
		t.done, t.grid, t.winRow = true, grid, win
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
		p.hist.unread = err
		return
	}
	p.hist.merge(lines)
}

// enabled returns the custom ID of the first enabled button of m whose ID
// starts with prefix, or "".
func enabled(m *discordgo.Message, prefix string) string {
	if m == nil {
		return ""
	}
	for _, b := range fakediscord.Buttons(m) {
		if !b.Disabled && strings.HasPrefix(b.CustomID, prefix) {
			return b.CustomID
		}
	}
	return ""
}

// anyButton returns the custom ID of the first button of m, enabled or
// not, whose ID starts with prefix, or "".
func anyButton(m *discordgo.Message, prefix string) string {
	for _, b := range fakediscord.Buttons(m) {
		if strings.HasPrefix(b.CustomID, prefix) {
			return b.CustomID
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
	n, err := strconv.ParseUint(id[strings.LastIndex(id, ":")+1:], 10, 64)
	if err != nil {
		return 0, false, false
	}
	return n, enabled(m, autoPrefix) == "", true
}

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
	// unread is the error of a read that failed.
	unread error
}

// merge adds the lines of a read (newest first) that follow the log.
func (h *historyLog) merge(newestFirst []game.Entry) {
	s := slices.Clone(newestFirst)
	slices.Reverse(s)
	// The store keeps tickets and other lines in two lists: older lines
	// of the longer-reaching one have lost their neighbours.
	from, _ := game.CompleteFrom(s)
	s = s[from:]
	// The longest prefix of s that ends the log.
	for k := min(len(s), len(h.lines)); k >= 0; k-- {
		if !slices.EqualFunc(h.lines[len(h.lines)-k:], s[:k], func(a, b game.Entry) bool { return lineString(a) == lineString(b) }) {
			continue
		}
		if k == 0 && len(h.lines) > 0 && h.gap == "" {
			h.gap = fmt.Sprintf("a read of %d lines shares none with the %d read before (last %s)", len(s), len(h.lines), lineString(h.lines[len(h.lines)-1]))
		}
		h.lines = append(h.lines, s[k:]...)
		return
	}
}

// lineString identifies a history line.
func lineString(e game.Entry) string {
	return fmt.Sprintf("%s@%d ticket %d chest %d amount %d balance %d keys %d key %t grid %v",
		e.Kind, e.At.UnixNano(), e.TicketID, e.Chest, e.Amount, e.Balance, e.KeysBefore, e.Key, e.Grid)
}

// audit checks the player's books, tickets, keys and results: pl is the
// player as the store holds it after the recovery, start the starting
// balance, hist its whole history (oldest first) and onCard the tickets
// whose result a card in the player's channel shows. It returns the
// breaches, each starting with its kind: "credit" (a credit created or
// lost), "ticket" (a ticket drawn twice, lost, or shown with two
// results), "key" (a key lost or doubled, a chest opened twice or never
// due) or "unreachable" (a ticket whose result the player can never
// reach).
func (p *chaosPlayer) audit(pl game.Player, start int64, hist []game.Entry, onCard map[uint64]bool) []string {
	var out []string
	add := func(kind, format string, args ...any) { out = append(out, kind+": "+fmt.Sprintf(format, args...)) }
	if p.hist.gap != "" {
		add("ticket", "history lines lost: %s", p.hist.gap)
	}

	// Credits: the player's own invariants, then the history's chain.
	st := pl.Stats
	if err := pl.Check(); err != nil {
		add("credit", "%v", err)
	}
	if pl.StartingBalance != start || pl.Balance != start-st.StakedCents+st.WonCents {
		add("credit", "balance %d ≠ start %d − staked %d + won %d (starting balance %d)",
			pl.Balance, start, st.StakedCents, st.WonCents, pl.StartingBalance)
	}
	var (
		bal        = start
		keys, got  int
		due        bool
		chests     int64
		lastTicket uint64
		drawn      = map[uint64]game.Entry{}
	)
	for k, e := range hist {
		if e.Balance != bal+e.Amount {
			add("credit", "history line %d (%s %d): balance %d ≠ %d before + amount %d",
				k+1, e.Kind, e.TicketID+uint64(e.Chest), e.Balance, bal, e.Amount)
		}
		bal = e.Balance
		switch e.Kind {
		case game.KindPlay:
			n := e.TicketID
			switch _, twice := drawn[n]; {
			case twice:
				add("ticket", "ticket %d drawn twice (history line %d)", n, k+1)
			case n != lastTicket+1:
				add("ticket", "ticket %d drawn after ticket %d: the tickets between were bought and never drawn, or drawn out of turn", n, lastTicket)
			}
			drawn[n] = e
			lastTicket = max(lastTicket, n)
			if due {
				add("key", "ticket %d drawn while a chest was due", n)
			}
			if e.Fair && e.KeysBefore != keys {
				add("key", "ticket %d drawn with %d keys before it, but %d were held after the line before", n, e.KeysBefore, keys)
				keys = e.KeysBefore
			}
			if e.Key {
				got++
				if keys++; keys == game.MaxKeys {
					keys, due = 0, true
				}
			}
		case game.KindChest:
			if !due {
				add("key", "chest %d opened without three keys (history line %d)", e.Chest, k+1)
			}
			if e.Fair && e.Chest != chests+1 {
				add("key", "chest %d opened after chest %d", e.Chest, chests)
			}
			chests++
			due = false
		default:
			add("credit", "history line %d: a %s, which no chaos player does", k+1, e.Kind)
		}
	}
	undrawn := pl.Ticket != nil && !pl.Ticket.Drawn
	want := bal
	if undrawn {
		want -= game.Stake // bought, no line yet
	}
	if pl.Balance != want {
		add("credit", "balance %d ≠ %d, the history's", pl.Balance, want)
	}
	if pl.Keys != keys || pl.ChestDue != due {
		add("key", "%d keys held (chest due %t), but the history leaves %d (chest due %t)", pl.Keys, pl.ChestDue, keys, due)
	}
	if pl.ChestSeq != chests || st.Chests != chests {
		add("key", "chests opened: %d by the count, %d by the sequence, %d in the history", st.Chests, pl.ChestSeq, chests)
	}
	if st.Keys != int64(got) {
		add("key", "%d keys collected by the count, %d in the history", st.Keys, got)
	}

	// Tickets: bought = drawn + open, each drawn once.
	bought := pl.TicketSeq
	open := uint64(0)
	if undrawn {
		open = 1
	}
	if uint64(st.Plays) != bought {
		add("ticket", "%d plays counted for %d tickets bought", st.Plays, bought)
	}
	if uint64(len(drawn))+open != bought {
		add("ticket", "%d tickets bought ≠ %d drawn + %d open", bought, len(drawn), open)
	}

	// Results: each ticket bought or shown, shown to the player or in the
	// history, none left open.
	for n, t := range p.tickets {
		if n > bought {
			add("ticket", "a card showed ticket %d, but the store counts %d bought", n, bought)
		} else if t.other != "" {
			add("ticket", "ticket %d shown with two results: %s", n, t.other)
		}
	}
	for n := uint64(1); n <= bought; n++ {
		t := p.tickets[n]
		e, inHistory := drawn[n]
		if pl.Ticket != nil && pl.Ticket.ID == n && pl.Ticket.Open() {
			add("unreachable", "ticket %d left open after the recovery", n)
			continue
		}
		if t != nil && t.done && inHistory && e.Fair && t.winRow != gridWinRow(e.Grid) {
			add("ticket", "ticket %d shown with its winning row %d, recorded with %d (-1: none)", n, t.winRow, gridWinRow(e.Grid))
		}
		if !(t != nil && t.done) && !onCard[n] && !inHistory {
			add("unreachable", "ticket %d: its result was never shown and is not in the history", n)
		}
	}
	return out
}
