package commands

import (
	"context"
	"errors"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// plays are the handlers of /play and of its card's buttons: reveal rows
// (the first click draws), buy the next ticket, open the chest.
type plays struct {
	*steps
	*renderer
}

// handlePlay buys a ticket, or resumes the open one, or shows the due
// chest, publicly if the guild's settings say so.
func (a *plays) handlePlay(ctx context.Context, rq *request) (reply, error) {
	set, err := a.playSettings(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	data, err := a.buyCard(ctx, rq, set, game.Buy{}, true)
	if err != nil {
		return reply{}, err
	}
	if !set.PublicPlays {
		data.Flags |= discordgo.MessageFlagsEphemeral
	}
	return reply{data: data}, nil
}

// playSettings reads the settings and refuses a play outside their channel.
func (a *plays) playSettings(ctx context.Context, rq *request) (game.Settings, error) {
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return set, err
	}
	if set.Channel != 0 {
		ch, ok := parseSnowflake(rq.i.ChannelID)
		if !ok || ch != set.Channel {
			return set, userErr("err_channel", map[string]any{"Channel": channelMention(set.Channel)})
		}
	}
	return set, nil
}

// buyCard buys a ticket (buyStep) and renders it, or the due chest.
func (a *plays) buyCard(ctx context.Context, rq *request, set game.Settings, buy game.Buy, showResumed bool) (*discordgo.InteractionResponseData, error) {
	ap, err := a.buyStep(ctx, rq, set, buy)
	switch {
	case err == errChestDue:
		return a.chestCard(rq.l, rq.user, ap.Player, nil), nil
	case err != nil:
		return nil, err
	}
	p, r := ap.Player, ap.Result
	return a.ticketCard(rq.l, &ticketView{user: rq.user, p: p, t: *p.Ticket, resumed: r.Resumed && showResumed, reality: r.Reality}), nil
}

// errChestDue is buyStep's answer when the chest is due (the callers show it).
var errChestDue = &userError{id: "err_chest_due"}

// buyStep runs buy under the guild's house rules, creating the player at
// the first play. On success the Applied's player holds its ticket, and the
// balance as the first answer showed it. Buttons and Activity buy here.
func (a *plays) buyStep(ctx context.Context, rq *request, set game.Settings, buy game.Buy) (storage.Applied, error) {
	buy.House = set.House
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Create: true, Start: set.StartingBalance, Move: buy,
	})
	p := ap.Player
	_, ticketLeft := p.NextTicket()
	if cerr, ok := careErr(rq.l, err); ok {
		return ap, cerr
	}
	switch {
	case errors.Is(err, game.ErrStaleCard):
		return ap, userErr("err_ticket_over", nil)
	case errors.Is(err, game.ErrChestDue):
		if !p.ChestDue { // opened meanwhile by another click
			return ap, userErr("err_retry", nil)
		}
		return ap, errChestDue
	case errors.Is(err, game.ErrInsufficientFunds): // /daily only when it would pay now
		id, now := "err_funds", a.now()
		if set.DailyAmount > 0 && !p.Paused(now) && p.DailyReady(set.DailyCooldown, now) {
			id = "err_funds_daily"
		}
		return ap, userErr(id, map[string]any{
			"Balance": rq.l.Credits(p.Balance), "Stake": rq.l.Credits(game.Stake),
		})
	case errors.Is(err, game.ErrInvalid) && game.BalanceFull(p.Balance): // prizes that could not be credited
		return ap, userErr("err_balance_full", nil)
	case errors.Is(err, game.ErrInvalid) && !ticketLeft:
		return ap, userErr("no_ticket_left", nil)
	case err != nil:
		return ap, stepErr("buy", err)
	}
	r := ap.Result
	if a.obs != nil && !r.Resumed && !ap.Repeated {
		a.obs.Purchase(game.Stake)
	}
	if t := p.Ticket; t == nil || t.ID != r.Ticket { // a repeat of a buy since played over
		return ap, userErr("err_ticket_over", nil)
	}
	ap.Player.Balance = r.Balance // as the first answer showed it
	return ap, nil
}

// handleReveal reveals a row button's row, or every row (auto).
func (a *plays) handleReveal(ctx context.Context, rq *request) (reply, error) {
	rows := game.AllRows
	if rq.button.kind == kindRow {
		rows = game.RowMask(1) << rq.button.row
	}
	ap, err := a.revealStep(ctx, rq, rq.button.ticket, rows)
	if err != nil {
		return reply{}, err
	}
	p := ap.Player
	return reply{update: true, data: a.ticketCard(rq.l, &ticketView{user: rq.user, p: p, t: *p.Ticket})}, nil
}

// revealStep shows rows of ticket; on success, as buyStep's.
func (a *plays) revealStep(ctx context.Context, rq *request, ticket uint64, rows game.RowMask) (storage.Applied, error) {
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Move: game.Reveal{Ticket: ticket, Rows: rows, Drawer: a.drawer},
	})
	if err := stepErr("reveal", err,
		on{storage.ErrNoPlayer, userErr("err_stale_button", nil)},
		on{game.ErrUnknownTicket, userErr("err_ticket_over", nil)}); err != nil {
		return ap, err
	}
	p, r := ap.Player, ap.Result
	t := p.Ticket
	if t == nil || t.ID != r.Ticket { // a repeat of a reveal since played over
		return ap, userErr("err_ticket_over", nil)
	}
	if a.obs != nil && r.Drawn && !ap.Repeated {
		o := t.Outcome
		a.obs.Play(o.Tier, o.Key, game.Stake, o.Prize)
	}
	ap.Player.Balance = r.Balance
	return ap, nil
}

// handleAgain buys the next ticket from a finished card, if the card's
// ticket is still the player's last one (game.Buy.After).
func (a *plays) handleAgain(ctx context.Context, rq *request) (reply, error) {
	set, err := a.playSettings(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	data, err := a.buyCard(ctx, rq, set, game.Buy{Again: true, After: rq.button.ticket}, false)
	if err != nil {
		return reply{}, err
	}
	// Public plays keep the finished card in the channel (a win stays
	// visible); private ones replace it, not to pile up hidden messages.
	return reply{update: !set.PublicPlays, data: data}, nil
}

func (a *plays) handleChest(ctx context.Context, rq *request) (reply, error) {
	ap, err := a.chestStep(ctx, rq, rq.button.seq)
	if err != nil {
		return reply{}, err
	}
	c := ap.Result.Chest
	return reply{update: true, data: a.chestCard(rq.l, rq.user, ap.Player, &c)}, nil
}

// chestStep opens chest number seq; on success, as buyStep's.
func (a *plays) chestStep(ctx context.Context, rq *request, seq int64) (storage.Applied, error) {
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Move: game.OpenChest{Seq: seq, Drawer: a.drawer},
	})
	if _, left := ap.Player.NextChest(); errors.Is(err, game.ErrInvalid) && !left {
		return ap, userErr("no_chest_left", nil)
	}
	if err := stepErr("open_chest", err,
		on{storage.ErrNoPlayer, userErr("err_stale_button", nil)},
		on{game.ErrNoChest, userErr("err_chest_over", nil)}); err != nil {
		return ap, err
	}
	r := ap.Result
	if a.obs != nil && r.Opened && !ap.Repeated {
		a.obs.Chest(r.Chest.Lot, r.Chest.Prize)
	}
	ap.Player.Balance = r.Balance
	return ap, nil
}

func channelMention(ch uint64) string {
	return "<#" + strconv.FormatUint(ch, 10) + ">"
}
