package commands

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// desk runs the Activity's steps: the buttons' own (plays, account).
type desk struct {
	*steps
	*renderer
	plays   *plays
	account *account
	cat     *catalog
	players *playerLocks
	timeout time.Duration                                                             // Config.Timeout
	post    func(ctx context.Context, channel uint64, m *discordgo.MessageSend) error // Config.Announce
	mu      sync.Mutex
	mutes   map[uint64]time.Time // by channel: the announcements pause until then (muted)
}

// The kinds of Act.
const (
	ActKindState  = "state"  // read the state, change nothing
	ActKindBuy    = "buy"    // buy a ticket, or resume the open one
	ActKindReveal = "reveal" // reveal Row of Ticket (ActAuto: every row)
	ActKindChest  = "chest"  // open chest number Chest
	ActKindDaily  = "daily"  // claim the daily bonus
)

// ActAuto is Act.Row for Auto: every row at once.
const ActAuto = -1

// Act is one step of a player in the Activity.
type Act struct {
	Kind    string // ActKindState, ActKindBuy…
	Guild   uint64
	Channel uint64 // the Activity's channel: the allowed channel is checked against it
	User    uint64
	Locale  string // Discord's locale of the user ("fr", "en-US"…)
	// Op is the page's operation ID: 16 to 40 of [A-Za-z0-9_-], fresh per
	// action and the same on a retry; the store's is "a:" + Op. Not used
	// by ActKindState.
	Op     string
	Ticket uint64 // ActKindReveal
	Row    int    // ActKindReveal: 0..2, or ActAuto
	Chest  int64  // ActKindChest
}

// ActState is the player's state as the Activity's page is sent it: the
// player as they have seen it (game.Player.Seen), and only the revealed
// rows of their ticket. Amounts are cents.
type ActState struct {
	User     string            `json:"user"`
	Locale   string            `json:"locale"` // "fr" or "en"
	Balance  int64             `json:"balance"`
	Stake    int64             `json:"stake"`
	Keys     int               `json:"keys"`
	MaxKeys  int               `json:"max_keys"`
	ChestDue int64             `json:"chest_due"` // the due chest's number; 0: none
	Ticket   *ActTicket        `json:"ticket"`    // nil: no ticket yet
	Chest    *ActChest         `json:"chest,omitempty"`
	Daily    ActDaily          `json:"daily"`
	Texts    map[string]string `json:"texts,omitempty"` // "result": a finished ticket's, "chest": the chest's
	// Shown: the guild makes plays public and the player is not paused
	// (nor self-excluded), so others at the Activity's table see the ticket.
	Shown bool `json:"-"`
}

// ActTicket is a ticket in an ActState. Rows holds the symbols
// (game.Symbol) of the revealed rows only, nil for a hidden one; Prize and
// Key are the result once every row is shown (0 and false while Open).
type ActTicket struct {
	ID    uint64     `json:"id"`
	Open  bool       `json:"open"`
	Rows  [3]*[3]int `json:"rows"`
	Prize int64      `json:"prize"`
	Key   bool       `json:"key"`
}

// ActChest is the chest an ActKindChest step opened (or showed again).
type ActChest struct {
	ID    int64  `json:"id"`
	Lot   string `json:"lot"` // game.Lot's name: "three_gold"…
	Prize int64  `json:"prize"`
}

// ActDaily is the daily bonus: its amount, and whether /daily would pay now.
type ActDaily struct {
	Amount int64 `json:"amount"`
	Ready  bool  `json:"ready"`
}

// ActError is a step refused, which changed nothing: Code is the message's
// ID less its "err_" ("funds", "paused"…), Message says it in the player's
// language, and State is the state as it is, when it could be read.
type ActError struct {
	Code    string    `json:"error"`
	Message string    `json:"message"`
	State   *ActState `json:"state,omitempty"`
}

func (e *ActError) Error() string { return "commands: activity step refused: " + e.Code }

// ErrActInput is Act's error for a request the page could not have sent:
// an unknown kind, a bad operation ID or row, no guild or user.
var ErrActInput = errors.New("commands: bad activity request")

var opPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,40}$`)

// Act runs one step of the Activity for act.User in act.Guild and returns
// the state after it. Package activity proves who plays, where; Act trusts
// what it is given. A retried request (the same Op) changes nothing and
// gets the same answer. Errors: ErrActInput (wrapped); *ActError for a
// refusal; anything else is internal (logged, counted), and the step may
// or may not have been written: trying it again with the same Op is safe.
func (a *App) Act(ctx context.Context, act Act) (ActState, error) { return a.desk.serve(ctx, act) }

func (a *desk) serve(ctx context.Context, act Act) (ActState, error) {
	switch {
	case act.Kind != ActKindState && act.Kind != ActKindBuy && act.Kind != ActKindReveal && act.Kind != ActKindChest && act.Kind != ActKindDaily:
		return ActState{}, fmt.Errorf("%w: unknown kind", ErrActInput)
	case act.Kind != ActKindState && !opPattern.MatchString(act.Op):
		return ActState{}, fmt.Errorf("%w: op is not 16 to 40 of [A-Za-z0-9_-]", ErrActInput)
	case act.Kind == ActKindReveal && (act.Row < ActAuto || act.Row > 2):
		return ActState{}, fmt.Errorf("%w: row %d", ErrActInput, act.Row)
	case act.Guild == 0 || act.User == 0:
		return ActState{}, fmt.Errorf("%w: no guild or user", ErrActInput)
	}
	op := ""
	if act.Kind != ActKindState {
		op = "a:" + act.Op
	}
	rq := &request{
		i: &discordgo.Interaction{ID: op, GuildID: strconv.FormatUint(act.Guild, 10), ChannelID: strconv.FormatUint(act.Channel, 10),
			Member: &discordgo.Member{User: &discordgo.User{ID: strconv.FormatUint(act.User, 10)}}},
		l: a.cat.forLocale(discordgo.Locale(act.Locale)), guild: act.Guild, user: act.User, kind: "activity " + act.Kind,
	}
	log, start := a.logger(ctx), a.clock()
	st, err := a.actLocked(ctx, rq, act)
	a.interaction(ctx, log, rq, err, a.clock().Sub(start))
	if err == nil {
		return st, nil
	}
	a.logError(log, rq, err, false)
	var ue *userError
	if !errors.As(err, &ue) {
		return ActState{}, err
	}
	ae := &ActError{Code: strings.TrimPrefix(ue.id, "err_"), Message: plain(rq.l, rq.l.T(ue.id, ue.data))}
	if st.User != "" {
		ae.State = &st
	}
	return ActState{}, ae
}

// actLocked runs act under the player's lock, within Config.Timeout, as
// the delivery chain runs a button's handler (timed, delivered, recovered).
func (a *desk) actLocked(ctx context.Context, rq *request, act Act) (ActState, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	unlock, err := a.players.lock(ctx, playerKey{rq.guild, rq.user})
	if err != nil {
		return ActState{}, err
	}
	defer unlock()
	return recovered(func(ctx context.Context, rq *request) (ActState, error) { return a.act(ctx, rq, act) })(ctx, rq)
}

// act runs act's step and returns the state after it; after a user error,
// the state as it is, when it can be read.
func (a *desk) act(ctx context.Context, rq *request, act Act) (ActState, error) {
	var (
		set   game.Settings
		ap    storage.Applied
		chest *game.Chest
		err   error
	)
	if act.Kind == ActKindBuy {
		set, err = a.plays.playSettings(ctx, rq) // a play is bound to the allowed channel
	} else {
		set, err = a.settings(ctx, rq.guild)
	}
	switch {
	case err != nil:
	case act.Kind == ActKindBuy:
		ap, err = a.plays.buyStep(ctx, rq, set, game.Buy{})
	case act.Kind == ActKindReveal:
		if ap, err = a.plays.revealStep(ctx, rq, act.Ticket, act.rows()); err == nil && ap.Finished {
			a.announce(ctx, rq, set, act.Channel, ap.Player)
		}
	case act.Kind == ActKindChest:
		if ap, err = a.plays.chestStep(ctx, rq, act.Chest); err == nil {
			chest = &ap.Result.Chest
		}
	case act.Kind == ActKindDaily:
		ap, err = a.account.dailyStep(ctx, rq, set)
	}
	if ap.Repeated && !sameAct(act, ap) { // before the step's own refusal of a repeat
		err = userErr("err_op_reused", nil)
	}
	var ue *userError
	switch {
	case err == nil && act.Kind == ActKindState, errors.As(err, &ue):
		st, serr := a.actState(ctx, rq, set, nil, nil) // the zero state if it cannot be read
		if err == nil {
			err = serr
		}
		return st, err
	case err != nil:
		return ActState{}, err
	}
	return a.actState(ctx, rq, set, &ap.Player, chest)
}

// sameAct reports whether act can be the step that first used its
// operation ID, which answered ap (a player remembers an operation's result,
// not what was asked): a buy charged the stake or resumed the ticket; a
// reveal answered its ticket, whose rows asked are shown now; a chest's
// answer holds a chest, and the chest asked is opened now; a daily bonus's
// holds no ticket and no chest.
func sameAct(act Act, ap storage.Applied) bool {
	r, t := ap.Result, ap.Player.Ticket
	bought, chest := r.Resumed || (r.Amount < 0 && !r.Drawn), r.Opened || r.Chest != (game.Chest{})
	switch act.Kind {
	case ActKindBuy:
		return bought
	case ActKindReveal:
		return !bought && r.Ticket == act.Ticket && (t == nil || t.ID != act.Ticket || t.Revealed&act.rows() == act.rows())
	case ActKindChest:
		return chest && act.Chest <= ap.Player.ChestSeq
	}
	return r.Ticket == 0 && !chest
}

func (act Act) rows() game.RowMask {
	if act.Row == ActAuto {
		return game.AllRows
	}
	return game.RowMask(1) << act.Row
}

// actState is the state of rq's player p (nil: read from the store,
// without creating anyone) under the guild's settings set, with chest, the
// chest this step opened.
func (a *desk) actState(ctx context.Context, rq *request, set game.Settings, p *game.Player, chest *game.Chest) (ActState, error) {
	if p == nil {
		v, ok, err := a.load(ctx, rq.player())
		if err != nil {
			return ActState{}, err
		}
		if !ok {
			v.Balance = set.StartingBalance
		}
		p = &v
	}
	now, l := a.now(), rq.l
	seen := p.Seen(nil).Player
	st := ActState{
		User: strconv.FormatUint(rq.user, 10), Locale: "en",
		Balance: seen.Balance, Stake: game.Stake, Keys: seen.Keys, MaxKeys: game.MaxKeys,
		Daily: ActDaily{Amount: set.DailyAmount, Ready: set.DailyAmount > 0 && !p.Paused(now) && p.DailyReady(set.DailyCooldown, now)},
		Shown: set.PublicPlays && !p.Paused(now), Texts: map[string]string{}, // omitted while empty
	}
	if l.fr {
		st.Locale = "fr"
	}
	if seq, ok := p.NextChest(); ok && seen.ChestDue {
		st.ChestDue, st.Keys = seq, game.MaxKeys // the three keys that make it due, as the card shows them
	}
	if t := p.Ticket; t != nil {
		st.Ticket = &ActTicket{ID: t.ID, Open: t.Open()}
		for r := range 3 {
			if t.Drawn && t.Revealed&(1<<r) != 0 {
				g := t.Outcome.Grid
				st.Ticket.Rows[r] = &[3]int{int(g[3*r]), int(g[3*r+1]), int(g[3*r+2])}
			}
		}
		if !t.Open() && t.Drawn {
			st.Ticket.Prize, st.Ticket.Key = t.Outcome.Prize, t.Outcome.Key
			// "open the chest" only while it is due
			st.Texts["result"] = plain(l, a.resultText(l, t.Outcome, t.Chest && seen.ChestDue))
		}
	}
	if chest != nil {
		st.Chest = &ActChest{ID: p.ChestSeq, Lot: chest.Lot.String(), Prize: chest.Prize}
		st.Texts["chest"] = plain(l, chestLine(l, *chest))
	}
	return st, nil
}

// announce posts the ticket p just finished in channel, as its /play card
// shows it, naming the player (nobody pinged), when the guild makes plays
// public. It does not wait. Where the bot may not post (403), the
// channel's announcements pause for an hour, with one warning.
func (a *desk) announce(ctx context.Context, rq *request, set game.Settings, channel uint64, p game.Player) {
	if a.post == nil || channel == 0 || p.Ticket == nil || !set.PublicPlays || a.muted(channel, false) {
		return
	}
	d := a.ticketCard(rq.l, &ticketView{user: rq.user, p: p, t: *p.Ticket})
	fit(d)
	m := &discordgo.MessageSend{Content: rq.l.T("activity_announce", map[string]any{"User": mention(rq.user)}),
		Embeds: d.Embeds, Components: d.Components, AllowedMentions: noMentions}
	log := a.logger(ctx).With("guild", rq.guild, "channel", channel)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.timeout)
	go func() {
		defer cancel()
		_ = background(log, "an announcement", func() error {
			err := a.post(ctx, channel, m)
			var re *discordgo.RESTError
			if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusForbidden {
				if !a.muted(channel, true) {
					log.Warn("commands: the bot may not post the Activity's tickets in this channel: grant it View Channel, Send Messages and Embed Links there; its announcements pause for an hour", "err", err)
				}
			} else if err != nil {
				log.Warn("commands: announcing an Activity ticket failed", "user", rq.user, "ticket", p.Ticket.ID, "err", err)
			}
			return nil
		})
	}()
}

// muted tells whether channel's announcements pause; with mute, it pauses
// them for an hour from now.
func (a *desk) muted(channel uint64, mute bool) bool {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	was := now.Before(a.mutes[channel])
	if mute {
		a.mutes[channel] = now.Add(time.Hour)
	}
	return was
}

// discordMarkup matches what a Discord message shows and a page would not:
// bold, timestamps, channel and user mentions, custom emojis.
var discordMarkup = regexp.MustCompile(`\*\*|<t:(-?\d+):[a-zA-Z]>|<#\d+>|<@!?(\d+)>|<a?:\w+:\d+> ?`)

// plain is a message of the bot's in l without Discord's markup, for the
// Activity's page (which draws its own pictures). A channel becomes "the
// game's channel": the bot keeps no guild state, so it knows no name.
func plain(l *lang, s string) string {
	return discordMarkup.ReplaceAllStringFunc(s, func(m string) string {
		sub := discordMarkup.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			n, _ := strconv.ParseInt(sub[1], 10, 64)
			return time.Unix(n, 0).UTC().Format("2006-01-02 15:04 UTC")
		case strings.HasPrefix(m, "<#"):
			return l.T("activity_channel", nil)
		case sub[2] != "":
			return "@" + sub[2]
		}
		return ""
	})
}
