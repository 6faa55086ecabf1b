package commands

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// /balance, /leaderboard, /daily and /history: the player's own state and
// the guild's ranking.

// historySize is how many entries /history shows; leaderSize the ranks of
// /leaderboard.
const (
	historySize = 10
	leaderSize  = 10
)

func (a *App) balanceCommand() *command {
	return &command{
		def: slash("balance", "solde",
			"Your credits, keys and statistics",
			"Vos crédits, vos clefs et vos statistiques"),
		h: a.handleBalance,
	}
}

func (a *App) handleBalance(ctx context.Context, rq *request) (reply, error) {
	p, err := a.store.Player(ctx, rq.player())
	if err != nil {
		return reply{}, internal("player", err)
	}
	l := rq.l
	s := p.Stats
	keysLine := l.keysLine(p.Keys)
	if p.ChestPending {
		keysLine = padlocks(game.MaxKeys) + " " + l.T("balance_chest_due", nil)
	}
	stats := strings.Join([]string{
		l.P("stat_plays", s.Plays, map[string]any{"Count": s.Plays}),
		l.P("stat_wins", s.Wins, map[string]any{"Count": s.Wins}),
		l.T("stat_staked", map[string]any{"Amount": l.Credits(s.StakedCents)}),
		l.T("stat_won", map[string]any{"Amount": l.Credits(s.WonCents)}),
		l.T("stat_best", map[string]any{"Amount": l.Credits(s.BestWinCents)}),
		l.P("stat_chests", s.Chests, map[string]any{"Count": s.Chests}),
	}, "\n")
	e := infoEmbed(l.T("balance_title", nil), "", colourOpen,
		&discordgo.MessageEmbedField{Name: l.T("field_balance", nil), Value: "**" + l.Credits(p.Balance) + "**", Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_chest", nil), Value: keysLine, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_stats", nil), Value: stats},
	)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}, nil
}

func (a *App) leaderboardCommand() *command {
	return &command{
		def: slash("leaderboard", "classement",
			"The server's richest players",
			"Les joueurs les plus riches du serveur"),
		h:      a.handleLeaderboard,
		public: true,
	}
}

func (a *App) handleLeaderboard(ctx context.Context, rq *request) (reply, error) {
	rows, err := a.store.Leaderboard(ctx, rq.guild, leaderSize)
	if err != nil {
		return reply{}, internal("leaderboard", err)
	}
	l := rq.l
	var b strings.Builder
	if len(rows) == 0 {
		b.WriteString(l.T("leader_empty", nil))
	}
	medals := [3]string{"🥇", "🥈", "🥉"}
	for i, r := range rows {
		if i < len(medals) {
			b.WriteString(medals[i])
		} else {
			b.WriteString("**" + strconv.Itoa(i+1) + ".**")
		}
		b.WriteString(" " + mention(r.User) + " — " + l.Credits(r.Balance) + "\n")
	}
	e := infoEmbed(l.T("leader_title", nil), b.String(), colourWin)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, AllowedMentions: noMentions,
	}}, nil
}

func (a *App) dailyCommand() *command {
	return &command{
		def: slash("daily", "bonus",
			"Claim your daily bonus credits",
			"Réclamer votre bonus quotidien de crédits"),
		h: a.handleDaily,
	}
}

func (a *App) handleDaily(ctx context.Context, rq *request) (reply, error) {
	l := rq.l
	p, err := a.store.ClaimDaily(ctx, rq.player())
	switch {
	case errors.Is(err, storage.ErrDailyCooldown):
		set, serr := a.store.Settings(ctx, rq.guild)
		if serr != nil {
			return reply{}, internal("settings", serr)
		}
		next := p.LastDaily.Add(set.DailyCooldown)
		return reply{}, userErr("err_daily_wait", map[string]any{"When": timestamp(next.Unix(), "R")})
	case errors.Is(err, storage.ErrInvalid):
		return reply{}, userErr("err_daily_off", nil)
	case err != nil:
		return reply{}, internal("claim_daily", err)
	}
	amount := int64(0)
	if h, herr := a.store.History(ctx, rq.player(), 1); herr == nil && len(h) == 1 && h[0].Kind == storage.KindDaily {
		amount = h[0].Amount
	}
	desc := l.T("daily_ok", map[string]any{"Amount": l.Credits(amount), "Balance": l.Credits(p.Balance)})
	if amount == 0 {
		desc = l.T("daily_ok_plain", map[string]any{"Balance": l.Credits(p.Balance)})
	}
	e := infoEmbed(l.T("daily_title", nil), "🎁 "+desc, colourInfo)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}, nil
}

func (a *App) historyCommand() *command {
	return &command{
		def: slash("history", "historique",
			"Your last plays and credits",
			"Vos dernières parties et opérations"),
		h: a.handleHistory,
	}
}

func (a *App) handleHistory(ctx context.Context, rq *request) (reply, error) {
	hs, err := a.store.History(ctx, rq.player(), historySize)
	if err != nil {
		return reply{}, internal("history", err)
	}
	l := rq.l
	var b strings.Builder
	if len(hs) == 0 {
		b.WriteString(l.T("history_empty", nil))
	}
	for _, h := range hs {
		b.WriteString(timestamp(h.At.Unix(), "R"))
		b.WriteString(" · ")
		b.WriteString(a.historyLine(l, h))
		b.WriteByte('\n')
	}
	e := infoEmbed(l.T("history_title", nil), b.String(), colourOpen)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}, nil
}

// historyLine describes one history entry.
func (a *App) historyLine(l *lang, h storage.HistoryEntry) string {
	data := map[string]any{"Amount": l.Signed(h.Amount), "Balance": l.Credits(h.Balance), "Ticket": h.TicketID}
	switch h.Kind {
	case storage.KindPlay:
		var s string
		if h.Tier.Winning() {
			sym := a.symbol(h.Tier.Symbol())
			data["Symbols"] = sym + sym + sym
			data["Prize"] = l.Credits(h.Amount + game.Stake) // a play's Amount is net of its stake
			s = l.T("hist_win", data)
		} else {
			s = l.T("hist_loss", data)
		}
		if h.Key {
			s += " " + a.emoji[game.Key]
		}
		return s
	case storage.KindChest:
		if h.Lot < game.NumLots {
			data["Lot"] = l.T("lot_"+h.Lot.String(), nil)
		}
		return l.T("hist_chest", data)
	case storage.KindDaily:
		return l.T("hist_daily", data)
	case storage.KindGrant, storage.KindSet:
		return l.T("hist_grant", data)
	case storage.KindReset:
		return l.T("hist_reset", data)
	}
	return l.T("hist_other", data)
}
