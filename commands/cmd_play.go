package commands

import (
	"context"
	"errors"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// /play buys a ticket and shows its hidden grid; its buttons reveal rows
// (the first click draws), buy the next ticket or open the chest.

func (a *App) playCommand() *command {
	return &command{
		def: slash("play", "jouer",
			"Buy a ticket (0.50 credits) and reveal the grid",
			"Acheter un ticket (0,50 crédit) et découvrir la grille"),
		h: a.handlePlay,
	}
}

// handlePlay buys a ticket, or resumes the open one, or shows the due chest.
// The reply is public or ephemeral per the guild's settings.
func (a *App) handlePlay(ctx context.Context, rq *request) (reply, error) {
	set, err := a.playSettings(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	data, err := a.buyCard(ctx, rq, true)
	if err != nil {
		return reply{}, err
	}
	if !set.PublicPlays {
		data.Flags |= discordgo.MessageFlagsEphemeral
	}
	return reply{data: data}, nil
}

// playSettings reads the guild's settings and refuses a play outside the
// allowed channel. (To spare a store round trip per play, the composition
// root may hand New a store whose settings are cached: storage/settingscache.)
func (a *App) playSettings(ctx context.Context, rq *request) (storage.Settings, error) {
	set, err := a.store.Settings(ctx, rq.guild)
	if err != nil {
		return set, internal("settings", err)
	}
	if set.Channel != 0 {
		ch, ok := parseSnowflake(rq.i.ChannelID)
		if !ok || ch != set.Channel {
			return set, userErr("err_channel", map[string]any{"Channel": channelMention(set.Channel)})
		}
	}
	return set, nil
}

// buyCard buys a ticket and renders it; a due chest is shown instead, and an
// open ticket is resumed without charge (noted on the card when showResumed).
func (a *App) buyCard(ctx context.Context, rq *request, showResumed bool) (*discordgo.InteractionResponseData, error) {
	id := rq.player()
	p, t, resumed, err := a.store.Buy(ctx, id)
	switch {
	case errors.Is(err, storage.ErrChestDue):
		p, err := a.store.Player(ctx, id)
		if err != nil {
			return nil, internal("player", err)
		}
		if !p.ChestPending { // opened meanwhile by another click
			return nil, userErr("err_retry", nil)
		}
		return a.chestCard(rq.l, rq.user, p, nil), nil
	case errors.Is(err, storage.ErrInsufficientFunds):
		if p.ID != id { // a store that does not return the state with the error
			if p, err = a.store.Player(ctx, id); err != nil {
				return nil, internal("player", err)
			}
		}
		return nil, userErr("err_funds", map[string]any{
			"Balance": rq.l.Credits(p.Balance), "Stake": rq.l.Credits(game.Stake),
		})
	case err != nil:
		return nil, internal("buy", err)
	}
	if !resumed && a.obs != nil {
		a.obs.Purchase(game.Stake)
	}
	return a.ticketCard(rq.l, &ticketView{user: rq.user, p: p, t: t, resumed: resumed && showResumed}), nil
}

// owner checks that the button's owner is the one pressing it.
func (rq *request) owner() error {
	if u := rq.button.user; u != rq.user {
		return userErr("err_not_yours", map[string]any{"Owner": mention(u)})
	}
	return nil
}

// handleRow reveals one row (drawing the ticket at the first click).
func (a *App) handleRow(ctx context.Context, rq *request) (reply, error) {
	if err := rq.owner(); err != nil {
		return reply{}, err
	}
	return a.reveal(ctx, rq, storage.RowMask(1)<<rq.button.row)
}

// handleAuto reveals every row.
func (a *App) handleAuto(ctx context.Context, rq *request) (reply, error) {
	if err := rq.owner(); err != nil {
		return reply{}, err
	}
	return a.reveal(ctx, rq, storage.AllRows)
}

// reveal shows rows of the button's ticket and updates the card in place.
// The store draws once; a double click or a retry re-renders the same card.
func (a *App) reveal(ctx context.Context, rq *request, rows storage.RowMask) (reply, error) {
	p, t, err := a.store.Reveal(ctx, rq.player(), rq.button.ticket, rows)
	switch {
	case errors.Is(err, storage.ErrUnknownTicket), errors.Is(err, storage.ErrInvalid):
		return reply{}, userErr("err_ticket_over", nil)
	case err != nil:
		return reply{}, internal("reveal", err)
	}
	if a.obs != nil && t.DrawnNow {
		o := t.Outcome
		a.obs.Play(o.Tier, o.Key, game.Stake, o.Prize)
	}
	return reply{update: true, data: a.ticketCard(rq.l, &ticketView{user: rq.user, p: p, t: t})}, nil
}

// handleAgain buys the next ticket from a finished card and updates the card
// in place. It acts only if the card's ticket is still the player's last one
// (or the next one was just bought by the same click, then it is resumed),
// so an old card or a retried click never buys more than one ticket. The
// chest card's button carries the ticket that gave the third key: if that
// ticket still has hidden rows, it is resumed.
func (a *App) handleAgain(ctx context.Context, rq *request) (reply, error) {
	if err := rq.owner(); err != nil {
		return reply{}, err
	}
	prev := rq.button.ticket
	if _, err := a.playSettings(ctx, rq); err != nil {
		return reply{}, err
	}
	p, err := a.store.Player(ctx, rq.player())
	if err != nil {
		return reply{}, internal("player", err)
	}
	cur := p.Ticket
	switch {
	case p.ChestPending:
		return reply{update: true, data: a.chestCard(rq.l, rq.user, p, nil)}, nil
	case cur == nil && prev == 0,
		cur != nil && cur.ID == prev, // closed: buy the next; still open (a chest came first): resume it
		cur != nil && cur.ID == prev+1 && cur.Open():
	default:
		return reply{}, userErr("err_ticket_over", nil)
	}
	data, err := a.buyCard(ctx, rq, false)
	if err != nil {
		return reply{}, err
	}
	return reply{update: true, data: data}, nil
}

// handleChest opens the chest numbered in the button; a double click shows
// the same chest again and pays once.
func (a *App) handleChest(ctx context.Context, rq *request) (reply, error) {
	if err := rq.owner(); err != nil {
		return reply{}, err
	}
	p, c, opened, err := a.store.OpenChest(ctx, rq.player(), rq.button.seq)
	switch {
	case errors.Is(err, storage.ErrNoChest), errors.Is(err, storage.ErrInvalid):
		return reply{}, userErr("err_chest_over", nil)
	case err != nil:
		return reply{}, internal("open_chest", err)
	}
	if a.obs != nil && opened {
		a.obs.Chest(c.Lot, c.Prize)
	}
	return reply{update: true, data: a.chestCard(rq.l, rq.user, p, &c)}, nil
}

// channelMention is a channel mention.
func channelMention(ch uint64) string {
	return "<#" + strconv.FormatUint(ch, 10) + ">"
}
