package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Delivery wraps every handler once, so that a handler only computes a
// reply: timed(delivered(recovered(h))), which docs/architecture.md ("One
// click, file by file") describes and a late step's tries (late.go) run
// too. delivered sends under the player's lock, so that a player's answers
// leave in the store's order. Panics are recovered once per goroutine: by
// recovered, by guard in the timers' and the continuation's, and by the
// transport on the caller's.

// recovered turns a panic of next, a handler or an Activity's step
// (desk.actLocked), into an internal error.
func recovered[T any](next func(context.Context, *request) (T, error)) func(context.Context, *request) (T, error) {
	return func(ctx context.Context, rq *request) (v T, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		return next(ctx, rq)
	}
}

// delivery answers the interactions (Config's timings).
type delivery struct {
	*observation
	now        func() time.Time
	deferAfter time.Duration
	timeout    time.Duration
	waitFn     func(ctx context.Context, d time.Duration) error
	players    playerLocks
	late       lateSet // the late steps going on (late.go)
}

// answer is the state of one interaction's answer. Whoever sends holds mu,
// so a deferral is acknowledged before the edit that follows it.
type answer struct {
	ctx     context.Context // the caller's, for sending
	log     *slog.Logger    // the caller's (WithLogger), else Config.Logger
	rq      *request
	start   time.Time // Config.Now at the start, for the Observer
	expires time.Time // when the interaction's token ends (tokenExpiry)

	mu            sync.Mutex
	state         answerState
	afterDeferral bool  // the final response followed a deferral
	lastErr       error // the error of the try that asked for a continuation
	late          bool  // the apology promised an update; the continuation is reserved until dropLate
	// tries (1 for the first) and goOn (the last try asks for a
	// continuation) belong to the goroutine that runs the tries.
	tries int
	goOn  bool
}

type answerState int

const (
	pending answerState = iota
	deferred
	answered
)

// serve runs h as the first try of ans's step, then the continuation if
// its answer promised one.
func (d *delivery) serve(ctx context.Context, ans *answer, h handlerFunc) {
	started := false
	defer func() {
		if !started { // a continuation reserved but not started (a panic): release it
			d.dropLate(ans)
		}
	}()
	_, _ = h(ctx, ans.rq) // the chain answers
	if started = ans.goOn; started {
		d.continueLate(ctx, ans, h)
	}
}

// timed bounds a try by Config.Timeout; on the first try it also answers
// for a slow handler (deferral, apology).
func (d *delivery) timed(next handlerFunc) handlerFunc {
	return func(ctx context.Context, rq *request) (reply, error) {
		tctx, cancel := context.WithTimeout(ctx, d.timeout)
		defer cancel()
		if ans := rq.ans; ans.tries == 1 {
			deferral := time.AfterFunc(d.deferAfter, func() { d.deferAnswer(ans) })
			defer deferral.Stop()
			stop := context.AfterFunc(tctx, func() {
				d.apologise(ans, fmt.Errorf("handler still running when its context ended: %w", tctx.Err()), ctx.Err() == nil)
			})
			defer stop()
		}
		return next(tctx, rq)
	}
}

// delivered runs the rest of the try and settles it under the player's lock.
func (d *delivery) delivered(next handlerFunc) handlerFunc {
	return func(ctx context.Context, rq *request) (rep reply, err error) {
		unlock, err := d.players.lock(ctx, playerKey{rq.guild, rq.user})
		if err == nil {
			defer unlock()
			if rep, err = next(ctx, rq); err == nil && rep.data == nil && !rep.launch {
				err = errors.New("handler returned no reply")
			}
		}
		d.settle(rq.ans, rep, err)
		return rep, err
	}
}

// settle sends and reports the result of a try of ans's step: the answer,
// or after an apology that promised an update the late result; after a
// plain apology, nothing. It sets ans.goOn.
func (d *delivery) settle(ans *answer, rep reply, err error) {
	ans.mu.Lock()
	defer ans.mu.Unlock()
	switch {
	case ans.state == answered && !ans.late:
		ans.goOn = false
	case ans.state == answered:
		ans.goOn = d.lateResult(ans, rep, err)
	default:
		if err != nil {
			ans.goOn = d.mayGoOn(ans, err, ans.ctx.Err() == nil)
			rep = d.renderError(ans.log, ans.rq, err, ans.goOn)
		}
		ans.final(rep)
		d.interaction(ans.ctx, ans.log, ans.rq, err, d.now().Sub(ans.start))
	}
	if ans.goOn {
		ans.lastErr = err
	}
}

// mayGoOn reports whether the step whose try ended with err (nil: still
// running) goes on in the background, reserving it if so; ans.mu is held.
func (d *delivery) mayGoOn(ans *answer, err error, live bool) bool {
	if live && (err == nil || retryable(err)) && d.late.reserve(ans.rq.i.ID) {
		ans.late = true
	}
	return ans.late
}

// deferAnswer sends the deferred response if nobody has answered yet.
func (d *delivery) deferAnswer(ans *answer) {
	defer d.guard(ans)
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.state != pending {
		return
	}
	ans.state = deferred // a button's message is edited later; a command shows "thinking…"
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if ans.rq.i.Type == discordgo.InteractionApplicationCommand {
		resp.Type = discordgo.InteractionResponseDeferredChannelMessageWithSource
		resp.Data = &discordgo.InteractionResponseData{}
		if !ans.rq.public {
			resp.Data.Flags = discordgo.MessageFlagsEphemeral
		}
	}
	ans.send(resp)
}

// apologise answers with the apology for err if nobody has answered yet;
// running, it says the message will be updated.
func (d *delivery) apologise(ans *answer, err error, running bool) {
	defer d.guard(ans)
	ans.mu.Lock()
	defer ans.mu.Unlock()
	if ans.state == answered {
		return
	}
	late := running && d.mayGoOn(ans, nil, true)
	ans.final(d.renderError(ans.log, ans.rq, err, late))
	d.interaction(ans.ctx, ans.log, ans.rq, err, d.now().Sub(ans.start))
}

// guard recovers and logs a panic while answering in delivery's goroutines.
func (d *delivery) guard(ans *answer) {
	if p := recover(); p != nil {
		d.log.Error("commands: panic while answering", "interaction", ans.rq.i.ID,
			"kind", ans.rq.kind, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
}

// final sends the final reply: the initial response, or what follows the
// deferral. ans.mu must be held.
func (ans *answer) final(rep reply) {
	was := ans.state
	ans.state = answered // first: a panic while sending must not send twice
	ans.afterDeferral = was == deferred
	if was == deferred {
		ans.followDeferral(rep)
		return
	}
	typ := discordgo.InteractionResponseChannelMessageWithSource
	switch {
	case rep.launch:
		typ = InteractionResponseLaunchActivity
	case rep.update:
		typ = discordgo.InteractionResponseUpdateMessage
	}
	ans.send(&discordgo.InteractionResponse{Type: typ, Data: rep.data})
}

// followDeferral delivers the reply of a deferred interaction: an edit of
// the original message, or a follow-up for a button's new message.
func (ans *answer) followDeferral(rep reply) {
	rq := ans.rq
	rep = rep.afterFirst(rq.l)
	d := rep.data
	fit(d)
	if rq.i.Type == discordgo.InteractionMessageComponent && !rep.update {
		err := rq.r.FollowUp(ans.ctx, rq.i, &discordgo.WebhookParams{
			Content: d.Content, Embeds: d.Embeds, Components: d.Components,
			Flags: d.Flags, AllowedMentions: d.AllowedMentions, Files: d.Files,
		})
		if err != nil {
			ans.log.Warn("commands: follow-up failed", "interaction", rq.i.ID, "kind", rq.kind, "err", err)
		}
		return
	}
	if err := rq.r.EditOriginal(ans.ctx, rq.i, webhookEdit(d)); err != nil {
		ans.log.Warn("commands: edit after deferral failed", "interaction", rq.i.ID, "kind", rq.kind, "err", err)
	}
}

// webhookEdit replaces a message's text, embeds and components with d's
// (its flags cannot change), and attaches d's files.
func webhookEdit(d *discordgo.InteractionResponseData) *discordgo.WebhookEdit {
	fit(d)
	content, embeds, comps := d.Content, d.Embeds, d.Components
	if embeds == nil {
		embeds = []*discordgo.MessageEmbed{}
	}
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
	return &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &comps, AllowedMentions: d.AllowedMentions, Files: d.Files,
	}
}

func (ans *answer) send(resp *discordgo.InteractionResponse) {
	fit(resp.Data)
	if err := ans.rq.r.Respond(ans.ctx, ans.rq.i, resp); err != nil {
		ans.log.Warn("commands: respond failed", "interaction", ans.rq.i.ID, "type", int(resp.Type), "err", err)
	}
}

// observation logs and counts errors and damaged records.
type observation struct {
	obs Observer // nil: none
	log *slog.Logger
}

func (o *observation) logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return o.log
}

// renderError logs err and turns it into the reply: a user error's
// message, or an apology that says, when late, the message will be updated.
func (o *observation) renderError(log *slog.Logger, rq *request, err error, late bool) reply {
	o.logError(log, rq, err, late)
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

// logError logs and counts a step's error: a user error's cause as a
// warning, anything else as an internal error.
func (o *observation) logError(log *slog.Logger, rq *request, err error, late bool) {
	var ue *userError
	if errors.As(err, &ue) {
		if d := damaged(ue.cause); d != nil {
			o.damagedRecord(log, rq, d)
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
		if o.obs != nil {
			o.obs.StoreError(se.op)
		}
	}
	log.Error("commands: internal error",
		"guild", rq.guild, "user", rq.user, "command", rq.kind, "custom_id", rq.customID,
		"interaction", rq.i.ID, "op", op, "err", err, "late", late)
}

func (o *observation) damagedRecord(log *slog.Logger, rq *request, d *storage.DamagedError) {
	log.Warn("commands: damaged record", "guild", d.ID.Guild, "user", d.ID.User, "command", rq.kind,
		"interaction", rq.i.ID, "err", d.Err, "repair", "/admin reset (docs/operating.md, \"A damaged record\")")
	if o.obs != nil {
		o.obs.DamagedRecord()
	}
}
