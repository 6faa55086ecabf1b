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

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Interaction kinds, as reported: a command's name and subcommand
// ("fairness seed"), a button's ("auto"), "activity " and an Activity
// route ("activity reveal").
const (
	KindPlay           = "play"            // /play: buys a ticket, shows the hidden grid
	KindAuto           = "auto"            // the Auto button: reveals every row
	KindChest          = "chest"           // the chest's button, when one is shown
	KindActivityReveal = "activity reveal" // a row revealed in the Activity
	KindAll            = "all"             // every kind together
)

// Prefixes of the custom IDs of the buttons (commands/customid.go).
const (
	autoPrefix  = "v1:auto:"
	chestPrefix = "v1:chest:"
)

// A move is one step of a player's round: a slash command, or a click on
// the button whose custom ID starts with button, on the message last shown.
type move struct {
	kind   string
	slash  fakediscord.Slash // its Name, Sub and Options
	button string
	target bool // the command's user option is the guild's target user
	mod    bool // a moderator's move
}

func cmd(name, sub string, opts ...fakediscord.Opt) move {
	return move{kind: strings.TrimSpace(name + " " + sub), slash: fakediscord.Slash{Name: name, Sub: sub, Options: opts}}
}

func click(kind, prefix string) move { return move{kind: kind, button: prefix} }

func admin(sub string, target bool, opts ...fakediscord.Opt) move {
	m := cmd("admin", sub, opts...)
	m.mod, m.target = true, target
	return m
}

// Mix is a player's round: every command and button of the bot, the
// moderator's only for the one moderator of each guild, who acts on a
// member who does not play (the audit checks the players' books). Three
// tickets are played: revealed a row then Auto, bought again from the
// finished card and launched in the Activity (Scratch by hand) then Auto,
// and /play then Auto; a chest shown is opened at once. /pause and /admin
// reset-guild are cancelled, /limits are set far above what a run stakes.
var Mix = []move{
	cmd("play", ""), click("row", "v1:row:"), click(KindAuto, autoPrefix),
	click("again", "v1:again:"), click("scratch", "v1:act:"), click(KindAuto, autoPrefix),
	cmd("balance", ""), cmd("rules", ""), cmd("leaderboard", ""), cmd("daily", ""), cmd("history", ""),
	cmd("play", ""), click(KindAuto, autoPrefix),
	cmd("fairness", "show"), cmd("fairness", "seed", fakediscord.Opt{Name: "value", Value: "loadtest"}),
	cmd("fairness", "rotate"), cmd("fairness", "verify", fakediscord.Opt{Name: "ticket", Value: 1}),
	cmd("fairness", "export"),
	cmd("limits", "show"), cmd("limits", "set", fakediscord.Opt{Name: "stake-week", Value: "10000000"}),
	cmd("pause", "", fakediscord.Opt{Name: "length", Value: "24h"}), click("pause cancel", "v1:pzx:"),
	admin("settings", false), admin("audit", false), admin("player", true),
	admin("grant", true, fakediscord.Opt{Name: "amount", Value: "5"}),
	admin("set-balance", true, fakediscord.Opt{Name: "amount", Value: "100"}),
	admin("reset", true), admin("lift-pause", true, fakediscord.Opt{Name: "reason", Value: "loadtest"}),
	admin("reset-guild", false), {kind: "reset-guild cancel", button: "v1:rgx:", mod: true},
}

// playCycle is the round of the soak and of a "-plays" phase: /play, Auto
// (and the chest when shown), whose Redis costs the floor is compared with.
var playCycle = []move{cmd("play", ""), click(KindAuto, autoPrefix)}

// answer is the bot's answer to one interaction.
type answer struct {
	msg *discordgo.Message // the message it shows, with its buttons; nil for a launch
	at  time.Time          // when it reached Discord
}

// player is one simulated member. It is driven by one goroutine at a time.
type player struct {
	id                   storage.PlayerID
	guild, user, channel string
	target               string // a member of the guild who does not play, for /admin
	mod                  bool   // the guild's moderator
	mix                  []move // nil: Mix

	msg    *discordgo.Message // the message last shown
	pos    int                // the next move of the round
	chest  string             // the custom ID of the chest shown, to open next
	replay bool               // /play showed a chest instead of a card: play again after it
	rounds int64              // rounds completed in the phase

	// The Activity: the session, the last state, the tickets bought in
	// the round, the daily bonus asked, and the pace (activity.go).
	session string
	state   commands.ActState
	bought  int
	daily   bool
	paced   int       // game requests sent
	last    time.Time // the last one

	ops                           int64 // operation IDs used
	calls, cycles, chests, errors int64
}

// nextOp returns a new operation ID of the player: 16 to 40 of
// [A-Za-z0-9_-], as the store and the Activity take them.
func (p *player) nextOp() string {
	p.ops++
	return "loadtest-" + p.user + "-" + strconv.FormatInt(p.ops, 10)
}

// next returns the player's next move and, for a click, its button's
// custom ID: the chest when one is shown, /play again when it showed a
// chest, else the round's next move. Again without its button is /play;
// Auto on a finished card (the row revealed was the last: a ticket resumed
// from the Activity) and Scratch by hand without its button (the Activity
// off) are skipped.
func (p *player) next() (move, string) {
	mix := p.mix
	if mix == nil {
		mix = Mix
	}
	if p.chest != "" {
		return click(KindChest, chestPrefix), p.chest
	}
	if p.replay {
		p.replay = false
		return mix[0], ""
	}
	for {
		mv := mix[p.pos]
		if p.pos = (p.pos + 1) % len(mix); p.pos == 0 {
			p.rounds++
		}
		if mv.mod && !p.mod {
			continue
		}
		if mv.button == "" {
			return mv, ""
		}
		if id := button(p.msg, mv.button); id != "" {
			return mv, id
		}
		switch {
		case mv.kind == "again":
			return mix[0], ""
		case mv.kind == "scratch", mv.kind == KindAuto && button(p.msg, "v1:again:") != "":
			continue
		}
		return mv, "" // step fails: the button is missing
	}
}

// step sends the player's next interaction through b, scheduled at sched,
// and records its latency from sched in rec (nil: not recorded).
func (p *player) step(ctx context.Context, b *botRun, sched time.Time, rec *recording) error {
	mv, customID := p.next()
	var a answer
	var err error
	switch {
	case mv.button == "":
		sl := mv.slash
		sl.Guild, sl.Channel, sl.User = p.guild, p.channel, p.user
		if mv.mod {
			sl.Perms = fakediscord.PermsMember | discordgo.PermissionManageGuild
		}
		if mv.target {
			sl.Options = append([]fakediscord.Opt{{Name: "user", Value: p.target}}, sl.Options...)
		}
		a, err = b.send(ctx, sl, fakediscord.Click{})
	case customID == "" || p.msg == nil:
		err = fmt.Errorf("no %s button on %s", mv.kind, describe(p.msg))
	default:
		a, err = b.send(ctx, fakediscord.Slash{}, fakediscord.Click{Message: p.msg.ID, CustomID: customID, User: p.user})
	}
	if err != nil {
		p.errors++
		return fmt.Errorf("player %s, %s: %w", p.user, mv.kind, err)
	}
	p.calls++
	rec.add(mv.kind, a.at.Sub(sched))
	if a.msg != nil { // a launch of the Activity leaves the card
		p.msg = a.msg
	}
	p.chest = button(a.msg, chestPrefix)
	switch mv.kind {
	case KindPlay, "again":
		p.replay = p.chest != "" && button(a.msg, autoPrefix) == ""
	case KindAuto, "row":
		if button(a.msg, autoPrefix) == "" { // finished
			p.cycles++
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
	for _, b := range fakediscord.Buttons(m) {
		if !b.Disabled && strings.HasPrefix(b.CustomID, prefix) {
			return b.CustomID
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
		s += " | " + e.Title + " " + e.Description
	}
	return fmt.Sprintf("%.200q", s)
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

func (l *errLog) count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// sum adds f over the players; cyclesOf, chestsOf and errorsOf are its fs.
func sum(players []*player, f func(*player) int64) (n int64) {
	for _, p := range players {
		n += f(p)
	}
	return n
}

func callsOf(p *player) int64  { return p.calls }
func cyclesOf(p *player) int64 { return p.cycles }
func chestsOf(p *player) int64 { return p.chests }
func errorsOf(p *player) int64 { return p.errors }

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

// drive plays the players' steps for d: at rate > 0 in an open loop,
// otherwise each player in its own goroutine, one step after another, and
// when recording at least one whole round each; a player stops early after
// 20 errors in a row.
func drive(ctx context.Context, players []*player, d time.Duration, rate float64, rec *recording, errs *errLog, play func(*player, time.Time, *recording) error) {
	if rate > 0 {
		openLoop(ctx, players, d, rate, rec, errs, play)
		return
	}
	var stop atomic.Bool
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Go(func() {
			for inARow := 0; ctx.Err() == nil && (!stop.Load() || rec != nil && p.rounds == 0); {
				err := play(p, time.Now(), rec)
				if err == nil {
					inARow = 0
					continue
				}
				errs.add(err)
				if inARow++; inARow == 20 {
					errs.add(fmt.Errorf("player %s: stopped after 20 errors in a row", p.user))
					return
				}
			}
		})
	}
	wg.Wait()
}

// openLoop sends interactions at rate per second, evenly spaced, for d,
// each by a player free at that moment, whatever the latency of those in
// flight. Every latency is measured from the interaction's scheduled time,
// so that a send delayed (no player free, the sender late) counts against
// the bot, not for it (no coordinated omission); the delay from the
// schedule to the actual send is recorded apart too.
func openLoop(ctx context.Context, players []*player, d time.Duration, rate float64, rec *recording, errs *errLog, play func(*player, time.Time, *recording) error) {
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
		var p *player
		select {
		case <-time.After(time.Until(sched)):
			p = <-idle
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			rec.add(sendDelay, time.Since(sched))
			if err := play(p, sched, rec); err != nil {
				errs.add(err)
			}
			idle <- p
		})
	}
}
