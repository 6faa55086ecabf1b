package commands

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Responder answers one interaction. Package bot implements it twice: over
// REST with a discordgo session for the gateway, and over the HTTP reply
// for the interactions endpoint (bot/http.go; edits and follow-ups after
// it still go over REST).
type Responder interface {
	// Respond sends the initial response (the callback). It is called at most once.
	Respond(ctx context.Context, i *discordgo.Interaction, r *discordgo.InteractionResponse) error
	// EditOriginal edits the original response (after a deferred response).
	EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error
	// FollowUp sends a follow-up message.
	FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error
}

// Observer receives the events that metrics count. Every method must be cheap
// and safe for concurrent use. A nil Observer in Config means none.
type Observer interface {
	// Interaction is called once per handled interaction. command is the
	// command or button kind ("play", "reveal", "chest", "admin grant"…), outcome is
	// "ok", "user_error" or "internal_error".
	Interaction(command, outcome string, d time.Duration)
	// Play is called when a ticket is drawn.
	Play(tier game.Tier, key bool, stake, prize int64)
	// Chest is called when a chest is opened.
	Chest(lot game.Lot, prize int64)
	// Purchase is called when a ticket is bought (stake debited).
	Purchase(stake int64)
	// StoreError is called when a store call fails with an internal error.
	StoreError(op string)
	// DamagedRecord is called when a player's record that does not decode
	// is met (storage.DamagedError): refused to a step, or left out of a
	// guild's view.
	DamagedRecord()
}

// Default timings; see Config.
const (
	DefaultDeferAfter   = 2 * time.Second
	DefaultTimeout      = 10 * time.Second
	DefaultConfirmTTL   = 5 * time.Minute
	defaultHiddenEmoji  = "❔"
	interactionDeadline = 3 * time.Second
)

// Config configures the handlers. The zero value is usable.
type Config struct {
	// Emoji per symbol (index game.Symbol); empty entries take the defaults.
	// A custom emoji is written "<:name:id>".
	Emoji [game.NumSymbols]string
	// Hidden is the emoji of a hidden cell; empty takes the default.
	Hidden string
	// ApplicationEmojis has the transports upload the symbols' pictures
	// as the application's own emojis (see App.ApplicationEmojis); the
	// cards then show them wherever Emoji and Hidden set no override.
	ApplicationEmojis bool
	// Activity tells that the application's Activity is served (package
	// activity): ticket cards then get a "Scratch by hand" button, and
	// EntryPoint the entry-point command that launches it.
	Activity bool
	// Now gives the time of the game's steps and of the confirmations;
	// nil means time.Now.
	Now func() time.Time
	// Drawer draws tickets and chests; nil means game.SeededDrawer{}, the
	// verifiable draws. Tests inject one to force outcomes.
	Drawer game.Drawer
	// Seeds gives a new player's server seed; nil means crypto/rand.Reader.
	Seeds io.Reader
	// Observer receives metrics events; nil means none.
	Observer Observer
	// Logger logs internal errors, moderator actions (info) and, at debug
	// level, every interaction; nil means slog.Default(). A transport may
	// pass its own per interaction (WithLogger).
	Logger *slog.Logger
	// DeferAfter is how long a handler may run before the interaction is
	// answered with a deferred response (then edited when the handler ends);
	// 0 (or anything not under Discord's 3 s) means DefaultDeferAfter.
	DeferAfter time.Duration
	// Timeout bounds one handler (its store calls), and each later try of
	// a step that ended with an internal error (see Handle); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Wait waits d before a late step's next try, or until ctx ends (then
	// it returns ctx's error); nil means a timer. Tests inject one that
	// moves their clock (Now) instead.
	Wait func(ctx context.Context, d time.Duration) error
	// ConfirmTTL is how long the reset-guild confirmation button stays
	// valid; 0 means DefaultConfirmTTL.
	ConfirmTTL time.Duration
	// PublicURL is the bot's public address (config PUBLIC_URL: https,
	// no trailing slash), where it serves the verification page at /fair;
	// when set, /fairness and finished cards link to it. "" means none.
	PublicURL string
	// Announce posts m in channel with the bot's token (POST
	// /channels/{channel}/messages): when the guild makes plays public, a
	// ticket finished in the Activity is announced there as its /play card
	// would show it. nil means no announcements.
	Announce func(ctx context.Context, channel uint64, m *discordgo.MessageSend) error
}

// App holds the handlers. It is safe for concurrent use.
type App struct {
	cfg       Config
	store     storage.Store
	cat       *catalog
	log       *slog.Logger
	obs       Observer
	commands  map[string]*command
	defs      []*discordgo.ApplicationCommand
	players   playerLocks
	drawer    game.Drawer
	seeds     io.Reader
	jobs      jobs    // the background jobs' runner (jobs.go)
	late      lateSet // the late steps going on (late.go)
	*renderer         // the cards (render.go, emojis.go)
}

// handlerFunc handles one command or button. It returns the reply to send,
// or an error: a *userError is shown to the user, anything else is logged and
// answered with an apology. It must not call the Responder.
type handlerFunc func(ctx context.Context, rq *request) (reply, error)

// command is one slash command: its definition and its handler, declared
// side by side in the command's file.
type command struct {
	def *discordgo.ApplicationCommand
	h   handlerFunc
	// public tells the deferred response's visibility (when the handler is
	// slow): false means ephemeral.
	public bool
}

// reply is what a handler answers: a new message (type 4), an update of
// the message the button was on (type 7), or the Activity's launch (type
// 12, no data).
type reply struct {
	update bool
	launch bool
	data   *discordgo.InteractionResponseData
}

// request is one interaction being handled, with what the dispatch parsed.
type request struct {
	i        *discordgo.Interaction
	l        *lang
	guild    uint64
	user     uint64
	perms    int64
	kind     string // the command or button kind, for logs and metrics
	customID string // the button's custom ID as received, for the logs
	button   customID
	data     *discordgo.ApplicationCommandInteractionData
	r        Responder // for a background job's edits later (jobs.go), never in the handler
}

// New returns the handlers over store. It panics only on a programming error
// found at startup (a duplicate command, a broken embedded message file).
func New(cfg Config, store storage.Store) *App {
	a := &App{cfg: cfg, store: store, obs: cfg.Observer, log: cfg.Logger}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.cfg.Now == nil {
		a.cfg.Now = time.Now
	}
	a.drawer, a.seeds = cfg.Drawer, cfg.Seeds
	if a.drawer == nil {
		a.drawer = game.SeededDrawer{}
	}
	if a.seeds == nil {
		a.seeds = rand.Reader
	}
	if a.cfg.DeferAfter <= 0 || a.cfg.DeferAfter >= interactionDeadline {
		a.cfg.DeferAfter = DefaultDeferAfter
	}
	if a.cfg.Timeout <= 0 {
		a.cfg.Timeout = DefaultTimeout
	}
	if a.cfg.ConfirmTTL <= 0 {
		a.cfg.ConfirmTTL = DefaultConfirmTTL
	}
	a.renderer = newRenderer(cfg)
	cat, err := newCatalog()
	if err != nil {
		panic(err)
	}
	a.cat = cat

	a.commands = map[string]*command{}
	for _, c := range []*command{
		a.playCommand(), a.balanceCommand(), a.rulesCommand(), a.leaderboardCommand(),
		a.dailyCommand(), a.historyCommand(), a.fairnessCommand(), a.limitsCommand(), a.pauseCommand(),
		a.adminCommand(),
	} {
		if a.commands[c.def.Name] != nil {
			panic("commands: duplicate command " + c.def.Name)
		}
		a.commands[c.def.Name] = c
		a.defs = append(a.defs, c.def)
	}
	return a
}

// buttonHandler returns the handler of a kind of button.
func (a *App) buttonHandler(k buttonKind) handlerFunc {
	switch k {
	case kindRow:
		return a.handleRow
	case kindAuto:
		return a.handleAuto
	case kindAgain:
		return a.handleAgain
	case kindChest:
		return a.handleChest
	case kindResetConfirm:
		return a.handleResetConfirm
	case kindResetCancel:
		return a.handleResetCancel
	case kindPauseConfirm:
		return a.handlePauseConfirm
	case kindPauseCancel:
		return a.handlePauseCancel
	case kindActivity:
		return a.handleLaunch
	}
	return nil
}

// Definitions returns the application commands to register by bulk
// overwrite: English names and descriptions with French localizations,
// guild-only, /admin limited to Manage Server by default.
func (a *App) Definitions() []*discordgo.ApplicationCommand {
	return a.defs
}

// Handle processes one interaction and answers it through r. It never
// panics, and it answers within Discord's 3-second limit: when the handler
// has not finished after Config.DeferAfter it sends a deferred response and
// edits it when the handler ends. User errors get an ephemeral reply in the
// user's language; internal errors are logged and get a short apology.
//
// The handler runs on the caller's goroutine (call Handle in a goroutine of
// its own per interaction), so Handle returns when the handler does. Its
// context is a child of ctx that ends after Config.Timeout. If the handler is
// still running when that context ends (a store ignoring its deadline), the
// interaction is answered with the apology at once.
//
// A step still running at its deadline, or ending with a store's error,
// may have been written or not: the apology then says the bot will update
// it, and the step goes on (late.go): the handler's late result, or a later
// try of the same request under the same operation ID, in the background
// until the interaction's token ends or ctx does, replaces the apology with
// what was actually done.
func (a *App) Handle(ctx context.Context, r Responder, i *discordgo.Interaction) {
	if i == nil {
		return
	}
	locale := i.Locale
	if locale == "" && i.GuildLocale != nil { // Discord always sends locale; another client may not
		locale = *i.GuildLocale
	}
	ans := &answer{
		ctx:   ctx,
		log:   a.logger(ctx),
		r:     r,
		rq:    &request{i: i, kind: "unknown", l: a.cat.forLocale(locale), r: r},
		start: a.cfg.Now(),
	}
	ans.expires = tokenExpiry(i.ID, ans.start)
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("commands: panic in Handle", "interaction", i.ID, "kind", ans.rq.kind,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			a.apologise(ans, fmt.Errorf("panic: %v", p), false)
		}
	}()
	switch i.Type {
	case discordgo.InteractionPing:
		ans.state = answered
		a.send(ctx, r, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
		return
	case discordgo.InteractionApplicationCommandAutocomplete:
		ans.state = answered
		a.send(ctx, r, i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
		})
		return
	}

	h, err := a.route(ans.rq)
	if err != nil {
		a.finish(ans, result{err: err})
		return
	}
	goOn := false
	defer func() {
		if !goOn { // a continuation reserved but not started (a panic): release it
			ans.mu.Lock()
			a.dropLate(ans)
			ans.mu.Unlock()
		}
	}()

	// While the handler runs, two callbacks may answer for it: the deferral
	// at DeferAfter, and the apology when its context ends (Timeout, or ctx
	// ending) before it has returned. The answer's state, under its mutex,
	// decides who sends what.
	hctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	deferral := time.AfterFunc(a.cfg.DeferAfter, func() { a.deferAnswer(ans) })
	stopApology := context.AfterFunc(hctx, func() {
		a.apologise(ans, fmt.Errorf("handler still running when its context ended: %w", hctx.Err()), ctx.Err() == nil)
	})
	var res result
	unlock, err := a.players.lock(hctx, playerKey{ans.rq.guild, ans.rq.user})
	if err != nil {
		res = result{err: internal("wait_player", err)}
	} else {
		// Held until the answer is sent: this player's answers leave in the
		// store's order.
		defer unlock()
		res = a.call(hctx, h, ans.rq)
	}
	deferral.Stop()
	stopApology()
	if goOn = a.finish(ans, res); goOn {
		a.continueLate(ctx, ans, h)
	}
}

// answer is the state of one interaction's answer: nobody has answered yet,
// the deferral was sent, or the final response was. Whoever sends holds mu,
// so a deferral is acknowledged before the edit that follows it.
type answer struct {
	ctx   context.Context // the caller's, for sending
	log   *slog.Logger    // the caller's (WithLogger), else Config.Logger
	r     Responder
	rq    *request
	start time.Time // Config.Now at the start, for the Observer

	expires time.Time // when the interaction's token ends (tokenExpiry)

	mu    sync.Mutex
	state answerState
	// late: the apology promised an update; the continuation of the
	// interaction is reserved (App.late) until dropLate.
	late bool
	// afterDeferral: the final response followed a deferral.
	afterDeferral bool
	// lastErr is the error of the try that asked for a continuation.
	lastErr error
}

type answerState int

const (
	pending answerState = iota
	deferred
	answered
)

type result struct {
	rep reply
	err error
}

// finish sends the handler's result, then reports it to the Observer. If
// the apology went first, the result replaces it when it answers (late.go)
// or is dropped. It reports whether the step must go on in the background
// (continueLate): the apology promised an update and the result is none.
func (a *App) finish(ans *answer, res result) (goOn bool) {
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.state == answered {
		if !ans.late {
			return false
		}
		if goOn = a.lateResult(ans, res, 1); goOn {
			ans.lastErr = res.err
		} else {
			a.dropLate(ans)
		}
		return goOn
	}
	if res.err != nil {
		goOn = a.mayGoOn(ans, res.err, ans.ctx.Err() == nil)
		ans.lastErr = res.err
		res.rep = a.renderError(ans.log, ans.rq, res.err, goOn)
	}
	a.sendFinal(ans, res.rep)
	a.observe(ans, res.err)
	return goOn
}

// mayGoOn reports whether the step whose try ended with err (nil: still
// running) goes on in the background, and reserves its continuation if so
// (ans.late); live is false when Handle's context has ended. ans.mu must
// be held.
func (a *App) mayGoOn(ans *answer, err error, live bool) bool {
	if live && (err == nil || retryable(err)) && a.late.reserve(ans.rq.i.ID) {
		ans.late = true
	}
	return ans.late
}

// deferAnswer sends the deferred response if nobody has answered yet.
func (a *App) deferAnswer(ans *answer) {
	defer a.recoverAnswer(ans)
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.state != pending {
		return
	}
	ans.state = deferred
	a.sendDeferral(ans.ctx, ans.r, ans.rq)
}

// apologise answers with the apology for err if nobody has answered yet.
// running tells that the handler is still running and Handle's context
// has not ended: its result may still come, and the apology says so.
func (a *App) apologise(ans *answer, err error, running bool) {
	defer a.recoverAnswer(ans)
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.state == answered {
		return
	}
	late := running && a.mayGoOn(ans, nil, true)
	a.sendFinal(ans, a.renderError(ans.log, ans.rq, err, late))
	a.observe(ans, err)
}

// sendFinal sends the final reply: the initial response, or what follows
// the deferral. ans.mu must be held.
func (a *App) sendFinal(ans *answer, rep reply) {
	was := ans.state
	ans.state = answered // first: a panic while sending must not send twice
	ans.afterDeferral = was == deferred
	if was == deferred {
		a.sendAfterDeferral(ans.ctx, ans.r, ans.rq, rep)
		return
	}
	typ := discordgo.InteractionResponseChannelMessageWithSource
	switch {
	case rep.launch:
		typ = InteractionResponseLaunchActivity
	case rep.update:
		typ = discordgo.InteractionResponseUpdateMessage
	}
	a.send(ans.ctx, ans.r, ans.rq.i, &discordgo.InteractionResponse{Type: typ, Data: rep.data})
}

// recoverAnswer logs a panic while answering (in the Responder, say): it
// must not escape a timer's goroutine, nor Handle's recovery.
func (a *App) recoverAnswer(ans *answer) {
	if p := recover(); p != nil {
		a.log.Error("commands: panic while answering", "interaction", ans.rq.i.ID,
			"kind", ans.rq.kind, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
}

// observe reports the interaction's outcome to the Observer and logs it at
// debug level: the one place that knows both for every interaction
// answered (a ping or an autocompletion is neither counted nor logged).
func (a *App) observe(ans *answer, err error) {
	outcome, d := errorOutcome(err), a.cfg.Now().Sub(ans.start)
	if a.obs != nil {
		a.obs.Interaction(ans.rq.kind, outcome, d)
	}
	logInteraction(ans.ctx, ans.log, ans.rq, outcome, d)
}

// call runs a handler, turning a panic into an internal error.
func (a *App) call(ctx context.Context, h handlerFunc, rq *request) (res result) {
	defer func() {
		if p := recover(); p != nil {
			res = result{err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	rep, err := h(ctx, rq)
	if err == nil && rep.data == nil && !rep.launch {
		err = errors.New("handler returned no reply")
	}
	return result{rep: rep, err: err}
}

// route finds the handler of the interaction and fills rq. It refuses what
// does not come from a guild member.
func (a *App) route(rq *request) (handlerFunc, error) {
	i := rq.i
	var h handlerFunc
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		var d discordgo.ApplicationCommandInteractionData
		switch v := i.Data.(type) {
		case discordgo.ApplicationCommandInteractionData:
			d = v
		case *discordgo.ApplicationCommandInteractionData:
			if v == nil {
				return nil, userErr("err_unknown_command", nil)
			}
			d = *v
		default:
			return nil, userErr("err_unknown_command", nil)
		}
		c := a.commands[d.Name]
		if d.CommandType == PrimaryEntryPoint { // whatever the operator named it
			c = &command{h: a.handleLaunch}
			d.Name = "launch" // the metrics' label
		}
		if c == nil {
			return nil, userErr("err_unknown_command", nil)
		}
		rq.kind, rq.data, h = d.Name, &d, c.h
		// Subcommands label the metrics too, from a fixed list, so that a
		// forged name cannot grow the label set.
		if isSub := map[string]func(string) bool{"admin": isAdminSub, "fairness": isFairnessSub, "limits": isLimitsSub}[d.Name]; isSub != nil {
			rq.kind = d.Name + " unknown"
			if len(d.Options) == 1 && d.Options[0] != nil && isSub(d.Options[0].Name) {
				rq.kind = d.Name + " " + d.Options[0].Name
			}
		}
	case discordgo.InteractionMessageComponent:
		// A button acts only on the card it sits on: its custom ID must
		// parse and be one of the message's buttons, so that a forged ID
		// (a reset-guild "cancel" clicked on a ticket card…) changes
		// nothing; and it must come from a button, every custom ID of the
		// bot's being a button's (a select menu carrying one is forged).
		var from discordgo.ComponentType
		rq.customID, from = componentCustomID(i)
		rq.kind = "button unknown"
		c, ok := parseCustomID(rq.customID)
		if !ok || from != discordgo.ButtonComponent || !messageHasButton(i.Message, rq.customID) {
			return nil, userErr("err_stale_button", nil)
		}
		if h = a.buttonHandler(c.kind); h == nil {
			return nil, userErr("err_stale_button", nil)
		}
		rq.kind, rq.button = c.kind.metric(), c
	default:
		return nil, userErr("err_unknown_command", nil)
	}
	if i.GuildID == "" || i.Member == nil || i.Member.User == nil {
		return nil, userErr("err_guild_only", nil)
	}
	var ok bool
	if rq.guild, ok = parseSnowflake(i.GuildID); !ok {
		return nil, userErr("err_guild_only", nil)
	}
	if rq.user, ok = parseSnowflake(i.Member.User.ID); !ok {
		return nil, userErr("err_guild_only", nil)
	}
	rq.perms = i.Member.Permissions
	return h, nil
}

// player is the storage ID of the interaction's user.
func (rq *request) player() storage.PlayerID {
	return storage.PlayerID{Guild: rq.guild, User: rq.user}
}

// commandPublic reports whether the deferred response of rq may be public.
func (a *App) commandPublic(rq *request) bool {
	if rq.data == nil {
		return false
	}
	c := a.commands[rq.data.Name]
	return c != nil && c.public
}

// sendDeferral answers a slow interaction with a deferred response: type 6
// (the message is edited later) for a button, type 5 ("thinking…") for a
// command.
func (a *App) sendDeferral(ctx context.Context, r Responder, rq *request) {
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if rq.i.Type == discordgo.InteractionApplicationCommand {
		resp.Type = discordgo.InteractionResponseDeferredChannelMessageWithSource
		resp.Data = &discordgo.InteractionResponseData{}
		if !a.commandPublic(rq) {
			resp.Data.Flags = discordgo.MessageFlagsEphemeral
		}
	}
	a.send(ctx, r, rq.i, resp)
}

// sendAfterDeferral delivers the reply of a deferred interaction: an edit of
// the original message, or, for a new message after a button's deferral,
// a follow-up.
func (a *App) sendAfterDeferral(ctx context.Context, r Responder, rq *request, rep reply) {
	rep = rep.afterFirst(rq.l)
	d := rep.data
	fit(d)
	if rq.i.Type == discordgo.InteractionMessageComponent && !rep.update {
		err := r.FollowUp(ctx, rq.i, &discordgo.WebhookParams{
			Content: d.Content, Embeds: d.Embeds, Components: d.Components,
			Flags: d.Flags, AllowedMentions: d.AllowedMentions, Files: d.Files,
		})
		if err != nil {
			a.log.Warn("commands: follow-up failed", "interaction", rq.i.ID, "kind", rq.kind, "err", err)
		}
		return
	}
	if err := a.editOriginal(ctx, r, rq, d); err != nil {
		a.log.Warn("commands: edit after deferral failed", "interaction", rq.i.ID, "kind", rq.kind, "err", err)
	}
}

// editOriginal replaces the original response's text, embeds and
// components with d's (its flags cannot change), and attaches d's files.
func (a *App) editOriginal(ctx context.Context, r Responder, rq *request, d *discordgo.InteractionResponseData) error {
	fit(d)
	content, embeds, comps := d.Content, d.Embeds, d.Components
	if embeds == nil {
		embeds = []*discordgo.MessageEmbed{}
	}
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
	return r.EditOriginal(ctx, rq.i, &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &comps, AllowedMentions: d.AllowedMentions, Files: d.Files,
	})
}

func (a *App) send(ctx context.Context, r Responder, i *discordgo.Interaction, resp *discordgo.InteractionResponse) {
	fit(resp.Data)
	if err := r.Respond(ctx, i, resp); err != nil {
		a.log.Warn("commands: respond failed", "interaction", i.ID, "type", int(resp.Type), "err", err)
	}
}

// renderError turns a handler's error into the reply (logError first): a
// user error becomes an ephemeral message in the user's language; anything
// else a short apology, which says the message will be updated when late
// (the step goes on in the background).
func (a *App) renderError(log *slog.Logger, rq *request, err error, late bool) reply {
	a.logError(log, rq, err, late)
	var ue *userError
	if errors.As(err, &ue) {
		return ephemeral("❌ " + rq.l.T(ue.id, ue.data))
	}
	id := apology(rq.kind)
	if late {
		id = lateApology(rq.kind)
	}
	return ephemeral("⚠️ " + rq.l.T(id, nil))
}

// logError logs and counts a step's error: a user error's cause (a damaged
// record, a refusal by the rules no handler expected) as a warning,
// anything else as an internal error with its context.
func (a *App) logError(log *slog.Logger, rq *request, err error, late bool) {
	var ue *userError
	if errors.As(err, &ue) {
		if d := damaged(ue.cause); d != nil {
			a.damagedRecord(log, rq, d)
		} else if ue.cause != nil {
			log.Warn("commands: step refused by the rules",
				"guild", rq.guild, "user", rq.user, "command", rq.kind, "custom_id", rq.customID,
				"interaction", rq.i.ID, "err", ue.cause)
		}
		return
	}
	var se *storeError
	op := ""
	if errors.As(err, &se) {
		op = se.op
		if a.obs != nil {
			a.obs.StoreError(se.op)
		}
	}
	log.Error("commands: internal error",
		"guild", rq.guild, "user", rq.user, "command", rq.kind, "custom_id", rq.customID,
		"interaction", rq.i.ID, "op", op, "err", err, "late", late)
}

// damagedRecord logs and counts a player's damaged record met by rq: one
// warning naming it, and the key and what is wrong.
func (a *App) damagedRecord(log *slog.Logger, rq *request, d *storage.DamagedError) {
	log.Warn("commands: damaged record", "guild", d.ID.Guild, "user", d.ID.User, "command", rq.kind,
		"interaction", rq.i.ID, "err", d.Err, "repair", "/admin reset (docs/operating.md, \"A damaged record\")")
	if a.obs != nil {
		a.obs.DamagedRecord()
	}
}

// apology is the message of an internal error. A player's step is safe to
// try again whatever happened (a ticket is resumed, a chest or a daily
// bonus paid once, a reveal drawn once), and so are settings and a
// reset-guild confirmation; a moderator's grant is not (a new command is a
// new operation), so the moderator is sent to the player's history
// (/admin player) first: it is written with the change, while the guild's
// audit log may lag behind it (on Redis Cluster it lives in another slot).
func apology(kind string) string {
	switch kind {
	case "admin grant", "admin set-balance", "admin reset":
		return "err_internal_admin"
	}
	return "err_internal"
}

// noMentions allows no pings: the bot names players without notifying them.
var noMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}

// ephemeral is a reply only its user sees, with plain text.
func ephemeral(text string) reply {
	return reply{data: &discordgo.InteractionResponseData{
		Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}
}
