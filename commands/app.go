package commands

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/backoff"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Responder answers one interaction (package bot implements it for the
// gateway and for the HTTP endpoint).
type Responder interface {
	// Respond sends the initial response (the callback), at most once.
	Respond(ctx context.Context, i *discordgo.Interaction, r *discordgo.InteractionResponse) error
	EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error
	FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error
}

// Observer receives the events that metrics count; its methods must be
// cheap and safe for concurrent use.
type Observer interface {
	// Interaction is called once per handled interaction of kind command
	// ("play", "admin grant"…): outcome "ok", "user_error" or "internal_error".
	Interaction(command, outcome string, d time.Duration)
	Play(tier game.Tier, key bool, stake, prize int64) // a ticket drawn
	Chest(lot game.Lot, prize int64)                   // a chest opened
	Purchase(stake int64)                              // a ticket bought
	StoreError(op string)                              // a store call's internal error
	DamagedRecord()                                    // a record that does not decode (storage.DamagedError)
}

// Default timings; see Config.
const (
	DefaultDeferAfter   = 2 * time.Second
	DefaultTimeout      = 10 * time.Second
	DefaultConfirmTTL   = 5 * time.Minute
	defaultHiddenEmoji  = "❔"
	interactionDeadline = 3 * time.Second
)

// Config configures the handlers. The zero value is usable: a zero field
// takes its default.
type Config struct {
	// Emoji per symbol (index game.Symbol) and of a hidden cell, custom
	// ones written "<:name:id>"; "" takes the default.
	Emoji  [game.NumSymbols]string
	Hidden string
	// ApplicationEmojis has the transports upload the symbols' pictures as
	// the application's emojis, shown where Emoji and Hidden set none.
	ApplicationEmojis bool
	// Activity tells that the Activity is served: cards get "Scratch by
	// hand", and EntryPoint the command that launches it.
	Activity bool
	Now      func() time.Time // the steps' and confirmations' time; nil: time.Now
	Drawer   game.Drawer      // nil: game.SeededDrawer{}, the verifiable draws
	Seeds    io.Reader        // new players' server seeds; nil: crypto/rand.Reader
	Observer Observer         // nil: none
	// Logger logs internal errors, moderator actions and, at debug level,
	// every interaction; nil: slog.Default(). See also WithLogger.
	Logger *slog.Logger
	// DeferAfter is how long a handler may run before a deferred response
	// (edited when it ends); anything not under Discord's 3 s is the default.
	DeferAfter time.Duration
	Timeout    time.Duration // bounds each try of a handler (its store calls)
	// Wait waits d before a late step's next try, or until ctx ends (its
	// error); nil: a timer.
	Wait       func(ctx context.Context, d time.Duration) error
	ConfirmTTL time.Duration // how long a confirmation button stays valid
	// PublicURL is the bot's public address (https, no trailing slash),
	// serving /fair, to which /fairness and finished cards link; "": none.
	PublicURL string
	// Announce posts m in channel with the bot's token: a ticket finished
	// in the Activity, when the guild's plays are public; nil: none.
	Announce func(ctx context.Context, channel uint64, m *discordgo.MessageSend) error
}

// App holds the handlers. It is safe for concurrent use.
type App struct {
	cfg    Config
	cat    *catalog
	routes router
	jobs   *jobs
	desk   *desk
	*delivery
	*renderer
}

// handlerFunc handles one command or button: it returns the reply, or an
// error (renderError), and never calls the Responder.
type handlerFunc func(ctx context.Context, rq *request) (reply, error)

// command is one slash command: its definition and its handler.
type command struct {
	def    *discordgo.ApplicationCommand
	h      handlerFunc
	public bool // a slow handler's deferred response is public, else ephemeral
}

// reply is what a handler answers: a new message, an update of the
// message the button was on, or the Activity's launch (no data).
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
	def      *discordgo.ApplicationCommand // the command's definition
	r        Responder                     // the answer's (delivery.go), and a background job's edits later (jobs.go), never in the handler
	public   bool                          // a slow command's deferred response is public (route.public)
	ans      *answer                       // the answer being delivered (delivery.go), never in the handler
}

// New returns the handlers over store. It panics only on a programming error
// found at startup (a duplicate command, a broken embedded message file).
func New(cfg Config, store storage.Store) *App {
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	cfg.Drawer = cmp.Or[game.Drawer](cfg.Drawer, game.SeededDrawer{})
	cfg.Seeds = cmp.Or[io.Reader](cfg.Seeds, rand.Reader)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Wait == nil {
		cfg.Wait = backoff.Sleep
	}
	if cfg.DeferAfter <= 0 || cfg.DeferAfter >= interactionDeadline {
		cfg.DeferAfter = DefaultDeferAfter
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ConfirmTTL <= 0 {
		cfg.ConfirmTTL = DefaultConfirmTTL
	}
	a := &App{cfg: cfg}
	var err error
	if a.cat, err = newCatalog(); err != nil {
		panic(err)
	}
	obs := &observation{obs: cfg.Observer, log: cfg.Logger}
	st := &steps{observation: obs, store: store, seeds: cfg.Seeds, drawer: cfg.Drawer, clock: cfg.Now}
	a.renderer = &renderer{override: glyphs{sym: cfg.Emoji, hidden: cfg.Hidden}}
	if cfg.PublicURL != "" {
		a.renderer.fairURL = cfg.PublicURL + "/fair"
	}
	a.renderer.activity.Store(cfg.Activity)
	a.emojis.Store(newGlyphs(a.override, nil))
	a.delivery = &delivery{
		observation: obs,
		now:         cfg.Now, deferAfter: cfg.DeferAfter, timeout: cfg.Timeout, waitFn: cfg.Wait,
		late: lateSet{ids: map[string]struct{}{}, jitter: backoff.Random()},
	}
	a.jobs = &jobs{steps: st, timeout: cfg.Timeout, wake: make(chan struct{}, 1)}
	pl := &plays{steps: st, renderer: a.renderer}
	acc := &account{steps: st, renderer: a.renderer}
	cr := &care{steps: st, renderer: a.renderer, confirmTTL: cfg.ConfirmTTL}
	fair := &fairness{steps: st, renderer: a.renderer}
	adm := &admin{steps: st, renderer: a.renderer, jobs: a.jobs, confirmTTL: cfg.ConfirmTTL, deferAfter: cfg.DeferAfter}
	a.desk = &desk{steps: st, renderer: a.renderer, plays: pl, account: acc, cat: a.cat, players: &a.players, timeout: cfg.Timeout, post: cfg.Announce, mutes: map[uint64]time.Time{}}

	r := &a.routes
	r.wrap = func(h handlerFunc) handlerFunc { return a.timed(a.delivered(recovered(h))) }
	r.commands, r.buttons = map[string]route{}, map[buttonKind]route{}
	// The commands without options are defined here (but /rules, whose
	// answer cmd_rules.go builds once), the others beside the handlers
	// that read their options.
	for _, c := range []*command{
		{def: slash("play", "jouer", "Buy a ticket (0.50 credits) and reveal the grid",
			"Acheter un ticket (0,50 crédit) et découvrir la grille"), h: pl.handlePlay},
		{def: slash("balance", "solde", "Your credits, keys and statistics",
			"Vos crédits, vos clefs et vos statistiques"), h: acc.handleBalance},
		rulesCommand(a.renderer, a.cat),
		{def: slash("leaderboard", "classement", "The server's richest players",
			"Les joueurs les plus riches du serveur"), h: acc.handleLeaderboard, public: true},
		{def: slash("daily", "bonus", "Claim your daily bonus credits",
			"Réclamer votre bonus quotidien de crédits"), h: acc.handleDaily},
		{def: slash("history", "historique", "Your last plays and credits",
			"Vos dernières parties et opérations"), h: acc.handleHistory},
		fair.fairnessCommand(), cr.limitsCommand(), cr.pauseCommand(), adm.adminCommand(),
	} {
		r.command(c)
	}
	r.routeButtons(map[buttonKind]handlerFunc{
		kindRow: pl.handleReveal, kindAuto: pl.handleReveal, kindAgain: pl.handleAgain, kindChest: pl.handleChest,
		kindResetConfirm: adm.handleResetConfirm, kindResetCancel: cancelled("rg_title", "rg_cancelled"),
		kindPauseConfirm: cr.handlePauseConfirm, kindPauseCancel: cancelled("pause_title", "pause_cancelled"),
		kindActivity: launch(&a.renderer.activity),
	})
	r.launch = r.wrap(launch(&a.renderer.activity))
	return a
}

// Definitions returns the application commands to register: English with
// French localizations, guild-only, /admin for Manage Server by default.
func (a *App) Definitions() []*discordgo.ApplicationCommand {
	return a.routes.defs
}

// Handle answers one interaction through r within Discord's 3 seconds
// (deferring after Config.DeferAfter), on the caller's goroutine: call it
// in a goroutine per interaction. A step whose outcome is unknown goes on
// in the background until ctx ends (late.go). A handler's panic is an
// internal error; a panic of r reaches the caller.
func (a *App) Handle(ctx context.Context, r Responder, i *discordgo.Interaction) {
	if i == nil {
		return
	}
	locale := i.Locale
	if locale == "" && i.GuildLocale != nil { // Discord always sends locale; another client may not
		locale = *i.GuildLocale
	}
	ans := &answer{ctx: ctx, log: a.logger(ctx), start: a.cfg.Now(), tries: 1}
	ans.rq = &request{i: i, kind: "unknown", l: a.cat.forLocale(locale), r: r, ans: ans}
	ans.expires = tokenExpiry(i.ID, ans.start)
	switch i.Type {
	case discordgo.InteractionPing:
		ans.send(&discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
		return
	case discordgo.InteractionApplicationCommandAutocomplete:
		ans.send(&discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
		})
		return
	}
	h, err := a.routes.route(ans.rq)
	if err != nil {
		a.settle(ans, reply{}, err)
		return
	}
	a.serve(ctx, ans, h)
}

// Wait returns once the steps that Handle left going on in the background
// have ended; each ends with its Handle's context. Call it before the
// store closes.
func (a *App) Wait() { a.late.wg.Wait() }

func (rq *request) player() storage.PlayerID {
	return storage.PlayerID{Guild: rq.guild, User: rq.user}
}

// apology is the message of an internal error. A player's step is safe to
// try again; a moderator's grant is not (a new command is a new
// operation): the moderator is sent to /admin player first.
func apology(kind string) string {
	switch kind {
	case "admin grant", "admin set-balance", "admin reset":
		return "err_internal_admin"
	}
	return "err_internal"
}

// noMentions allows no pings: the bot names players without notifying them.
var noMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}

// ephemeral is a reply only its user sees.
func ephemeral(text string) reply {
	return reply{data: &discordgo.InteractionResponseData{
		Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}
}

func ephemeralEmbed(e ...*discordgo.MessageEmbed) reply {
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: e, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}
}

// cancelled answers a confirmation's "Cancel": the message titled title
// says text, without its buttons.
func cancelled(title, text string) handlerFunc {
	return func(_ context.Context, rq *request) (reply, error) {
		return closedEmbed(infoEmbed(rq.l.T(title, nil), rq.l.T(text, nil), colourLoss)), nil
	}
}

// closedEmbed replaces the message the button was on with e, and no buttons.
func closedEmbed(e *discordgo.MessageEmbed) reply {
	return reply{update: true, data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}, AllowedMentions: noMentions,
	}}
}

// steps is what every feature's handlers share: the store, the steps they
// run on it, the game's time and the reports of what they did.
type steps struct {
	*observation
	store  storage.Store
	seeds  io.Reader        // Config.Seeds
	drawer game.Drawer      // Config.Drawer
	clock  func() time.Time // Config.Now
}

func (a *steps) now() time.Time { return storage.Timestamp(a.clock()) }

// run runs s with the configured seeds and time, logging a moderator's
// move the store wrote; callers map its errors with stepErr.
func (a *steps) run(ctx context.Context, s storage.Step) (storage.Applied, error) {
	s.Seeds, s.Now = a.seeds, a.now()
	ap, err := a.store.Run(ctx, s)
	if err == nil && !ap.Repeated && ap.Audit != nil {
		logAudit(ctx, a.logger(ctx), ap.Audit)
	}
	return ap, err
}

// runGuild runs the guild's move m under op, logging as run does.
func (a *steps) runGuild(ctx context.Context, guild uint64, op string, m game.GuildMove) (storage.GuildApplied, error) {
	ap, err := a.store.RunGuild(ctx, storage.GuildStep{Guild: guild, Op: op, Move: m, Now: a.now()})
	if err == nil && ap.Audit != nil {
		logAudit(ctx, a.logger(ctx), ap.Audit)
	}
	return ap, err
}

// settings returns the guild's settings (the store's defaults if unset).
func (a *steps) settings(ctx context.Context, guild uint64) (game.Settings, error) {
	g, err := a.store.Guild(ctx, guild)
	if err != nil {
		return game.Settings{}, internal("guild", err)
	}
	return g.Settings, nil
}

// history returns id's last n history entries and the player, read in
// that order (a ticket drawn between has no line yet); ok as load's.
func (a *steps) history(ctx context.Context, id storage.PlayerID, n int) (p game.Player, ok bool, hs []game.Entry, err error) {
	if hs, err = a.store.History(ctx, id, n); err != nil {
		return p, false, nil, internal("history", err)
	}
	p, ok, err = a.load(ctx, id)
	return p, ok, hs, err
}

// load returns the player's state; ok is false for a player who never
// played (then p is the zero value).
func (a *steps) load(ctx context.Context, id storage.PlayerID) (p game.Player, ok bool, err error) {
	v, err := a.store.Load(ctx, id)
	if err != nil {
		return game.Player{}, false, internal("load", err)
	}
	return v.Player, v.Exists(), nil
}

// on maps a step's error that is err (errors.Is) to the user error to.
type on struct{ err, to error }

// stepErr maps a step's error: the first of ons that matches; an error
// already mapped as is; a compare-and-set that kept losing as "try again";
// a refusal by the rules as an answer; anything else as internal to op.
func stepErr(op string, err error, ons ...on) error {
	if err == nil {
		return nil
	}
	for _, o := range ons {
		if errors.Is(err, o.err) {
			return o.to
		}
	}
	var ue *userError
	var se *storeError
	switch {
	case errors.As(err, &ue), errors.As(err, &se):
		return err
	case errors.Is(err, storage.ErrConflict):
		return userErr("err_conflict", nil)
	}
	if r := refusal(err); r != nil {
		return r
	}
	return internal(op, err)
}

// moderator names rq's user as the moderator of a move on target, with
// reason for the guild's log.
func (rq *request) moderator(target uint64, reason string) game.Moderator {
	return game.Moderator{Guild: rq.guild, Actor: rq.user, Target: target, Reason: reason}
}
