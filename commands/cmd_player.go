package commands

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// account is the handlers of a player's own commands: /balance,
// /leaderboard, /daily and /history.
type account struct {
	*steps
	*renderer
}

const (
	historySize = 10 // the entries /history shows
	leaderSize  = 10 // the ranks /leaderboard shows
)

// handleBalance shows the player's state as the player has seen it
// (game.Player.Seen). It creates nothing: someone who never played sees
// the guild's starting balance.
func (a *account) handleBalance(ctx context.Context, rq *request) (reply, error) {
	p, ok, err := a.load(ctx, rq.player())
	if err != nil {
		return reply{}, err
	}
	sv, err := a.seen(ctx, rq.player(), p)
	if err != nil {
		return reply{}, err
	}
	p = sv.Player
	l := rq.l
	stats := statsText(l, p.Stats, l.T("stat_best", map[string]any{"Amount": l.Credits(p.Stats.BestWinCents)}))
	if !ok {
		set, err := a.settings(ctx, rq.guild)
		if err != nil {
			return reply{}, err
		}
		p.Balance, stats = set.StartingBalance, l.T("stat_none", nil)
	}
	var desc string
	if p.Paused(a.now()) {
		desc = l.T("pause_until", map[string]any{"Until": timestamp(p.Care.PausedUntil.Unix(), "F")})
	}
	if r := revealingLine(l, sv); r != "" {
		desc = strings.TrimSpace(r + "\n" + desc)
	}
	e := infoEmbed(l.T("balance_title", nil), desc, colourOpen,
		&discordgo.MessageEmbedField{Name: l.T("field_balance", nil), Value: "**" + l.Credits(p.Balance) + "**", Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_chest", nil), Value: keysText(l, p, "balance_chest_due"), Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_stats", nil), Value: stats},
	)
	return ephemeralEmbed(e), nil
}

// statsText lists a player's statistics, with extra before the chests.
func statsText(l *lang, s game.Stats, extra string) string {
	return strings.Join([]string{
		l.P("stat_plays", s.Plays, map[string]any{"Count": s.Plays}),
		l.P("stat_wins", s.Wins, map[string]any{"Count": s.Wins}),
		l.T("stat_staked", map[string]any{"Amount": l.Credits(s.StakedCents)}),
		l.T("stat_won", map[string]any{"Amount": l.Credits(s.WonCents)}),
		extra,
		l.P("stat_chests", s.Chests, map[string]any{"Count": s.Chests}),
	}, "\n")
}

// keysText is the player's keys, or the message due when the chest is.
func keysText(l *lang, p game.Player, due string) string {
	if p.ChestDue {
		return padlocks(game.MaxKeys) + " " + l.T(due, nil)
	}
	return l.keysLine(p.Keys)
}

// seen returns p, the player id, as the player has seen them, reading the
// history only while a prize not shown yet may be the best win stored.
func (a *account) seen(ctx context.Context, id storage.PlayerID, p game.Player) (game.Seen, error) {
	t := p.Revealing()
	if t == nil || !t.Outcome.Tier.Winning() || t.PrizeShown() || t.Outcome.Prize < p.Stats.BestWinCents {
		return p.Seen(nil), nil
	}
	hs, err := a.store.History(ctx, id, storage.HistoryLimit)
	if err != nil {
		return game.Seen{}, internal("history", err)
	}
	return p.Seen(hs), nil
}

// revealingLine tells that a ticket is being revealed, whose result a view
// does not show yet; "" when none is.
func revealingLine(l *lang, sv game.Seen) string {
	if sv.Revealing == 0 {
		return ""
	}
	return l.T("seen_revealing", map[string]any{"Ticket": sv.Revealing})
}

// handleLeaderboard shows the guild's richest players and, when the caller
// is not among them, the caller's own rank. The index ranks by the stored
// balances; the amounts shown, and their order, are the ones each player
// has seen (game.Player.Seen), so that the board tells no ticket's result
// before its card. A record that does not decode is left out.
func (a *account) handleLeaderboard(ctx context.Context, rq *request) (reply, error) {
	b, err := a.store.Leaderboard(ctx, rq.guild, leaderSize, rq.user)
	if err != nil {
		return reply{}, internal("leaderboard", err)
	}
	l := rq.l
	var mine game.Seen
	// seenBalance sets r's balance as its player has seen it; false when
	// its record is damaged.
	seenBalance := func(r *storage.LeaderboardEntry) (bool, error) {
		p, ok, err := a.load(ctx, storage.PlayerID{Guild: rq.guild, User: r.User})
		if d := damaged(err); d != nil {
			a.damagedRecord(a.logger(ctx), rq, d)
			return false, nil
		}
		if err != nil || !ok { // gone since the index was read: its entry as it is
			return err == nil, err
		}
		sv := p.Seen(nil) // the balance only: no history needed
		if r.User == rq.user {
			mine = sv
		}
		r.Balance = sv.Player.Balance
		return true, nil
	}
	rows := len(b.Top) // past them, the caller's own row is shown apart
	var ranks []int
	top := b.Top[:0]
	for _, r := range b.Top {
		switch ok, err := seenBalance(&r); {
		case err != nil:
			return reply{}, err
		case ok:
			ranks, top = append(ranks, r.Rank), append(top, r)
		}
	}
	b.Top = top
	storage.SortLeaderboard(b.Top)
	for i := range b.Top {
		b.Top[i].Rank = ranks[i]
	}
	if y := b.You; y != nil && y.Rank > rows {
		switch ok, err := seenBalance(y); {
		case err != nil:
			return reply{}, err
		case !ok:
			b.You = nil
		}
	}
	var sb strings.Builder
	if r := revealingLine(l, mine); r != "" {
		sb.WriteString(r + "\n\n")
	}
	if len(b.Top) == 0 {
		sb.WriteString(l.T("leader_empty", nil))
	}
	medals := [3]string{"🥇", "🥈", "🥉"}
	for i, r := range b.Top {
		if i < len(medals) {
			sb.WriteString(medals[i])
		} else {
			sb.WriteString("**" + strconv.Itoa(r.Rank) + ".**")
		}
		sb.WriteString(" " + mention(r.User) + " — " + l.Credits(r.Balance) + "\n")
	}
	if y := b.You; y != nil && y.Rank > rows {
		sb.WriteString("…\n" + l.T("leader_you", map[string]any{
			"Rank": strconv.Itoa(y.Rank), "Balance": l.Credits(y.Balance),
		}) + "\n")
	}
	e := infoEmbed(l.T("leader_title", nil), sb.String(), colourWin)
	if b.Players > 0 {
		e.Footer = &discordgo.MessageEmbedFooter{Text: l.P("leader_players", b.Players, map[string]any{"Count": b.Players})}
	}
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, AllowedMentions: noMentions,
	}}, nil
}

func (a *account) handleDaily(ctx context.Context, rq *request) (reply, error) {
	l := rq.l
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	ap, err := a.dailyStep(ctx, rq, set)
	if err != nil {
		return reply{}, err
	}
	balance := ap.Player.Seen(nil).Player.Balance // without a prize not shown yet
	desc := l.T("daily_ok", map[string]any{"Amount": l.Credits(ap.Result.Amount), "Balance": l.Credits(balance)})
	return ephemeralEmbed(infoEmbed(l.T("daily_title", nil), "🎁 "+desc, colourInfo)), nil
}

// dailyStep claims the guild's daily bonus, creating the player at the
// first claim. The command and the Activity both claim through it.
func (a *account) dailyStep(ctx context.Context, rq *request, set game.Settings) (storage.Applied, error) {
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Create: true, Start: set.StartingBalance,
		Move: game.ClaimDaily{Amount: set.DailyAmount, Cooldown: set.DailyCooldown},
	})
	if cerr, ok := careErr(rq.l, err); ok {
		return ap, cerr
	}
	var cool *game.CooldownError
	switch {
	case errors.As(err, &cool):
		return ap, userErr("err_daily_wait", map[string]any{"When": timestamp(cool.Next.Unix(), "R")})
	case errors.Is(err, game.ErrDailyDisabled):
		return ap, userErr("err_daily_off", nil)
	case errors.Is(err, game.ErrInvalid) && set.DailyAmount > 0 && !game.CanCredit(ap.Player.Balance, set.DailyAmount):
		return ap, userErr("err_balance_full", nil)
	case err != nil:
		return ap, stepErr("claim_daily", err)
	}
	return ap, nil
}

// handleHistory shows the player's last history lines, newest first, as
// the player has seen them (game.Player.SeenHistory). It creates nothing.
func (a *account) handleHistory(ctx context.Context, rq *request) (reply, error) {
	p, _, hs, err := a.history(ctx, rq.player(), historySize+1)
	if err != nil {
		return reply{}, err
	}
	l := rq.l
	desc := a.historyText(l, p.SeenHistory(hs), historySize, "history_empty")
	if r := revealingLine(l, p.Seen(nil)); r != "" {
		desc = r + "\n\n" + desc
	}
	return ephemeralEmbed(infoEmbed(l.T("history_title", nil), desc, colourOpen)), nil
}

// historyText lists the first n of hs, a line each with its time; message
// empty if none.
func (rd *renderer) historyText(l *lang, hs []game.Entry, n int, empty string) string {
	hs = hs[:min(len(hs), n)]
	if len(hs) == 0 {
		return l.T(empty, nil)
	}
	var b strings.Builder
	for _, h := range hs {
		b.WriteString(timestamp(h.At.Unix(), "R") + " · " + rd.historyLine(l, h) + "\n")
	}
	return b.String()
}

func (rd *renderer) historyLine(l *lang, h game.Entry) string {
	data := map[string]any{"Amount": l.Signed(h.Amount), "Balance": l.Credits(h.Balance), "Ticket": h.TicketID}
	switch h.Kind {
	case game.KindPlay:
		var s string
		if h.Tier.Winning() {
			sym := rd.symbol(h.Tier.Symbol())
			data["Symbols"] = sym + sym + sym
			data["Prize"] = l.Credits(h.Amount + game.Stake) // a play's Amount is net of its stake
			s = l.T("hist_win", data)
		} else {
			s = l.T("hist_loss", data)
		}
		if h.Key {
			s += " " + rd.glyphs().sym[game.Key]
		}
		return s
	case game.KindChest:
		if h.Lot < game.NumLots {
			data["Lot"] = l.T("lot_"+h.Lot.String(), nil)
		}
	}
	return l.T(cmp.Or(historyMessages[h.Kind], "hist_other"), data)
}

// historyMessages are the messages of the history lines but a play's.
var historyMessages = map[game.Kind]string{
	game.KindChest: "hist_chest", game.KindDaily: "hist_daily", game.KindGrant: "hist_grant", game.KindSet: "hist_grant",
	game.KindReset: "hist_reset", game.KindPause: "hist_pause", game.KindLift: "hist_lift",
}
