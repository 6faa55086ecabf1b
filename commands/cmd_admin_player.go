package commands

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

const playerViewLines = 5 // the history lines and moderator actions /admin player shows

// adminPlayer shows one player to a moderator, as the player has seen
// them (game.Player.Seen, SeenHistory), and of the seeds the commitment
// only. It creates nothing.
func (a *admin) adminPlayer(ctx context.Context, rq *request, o opts) (reply, error) {
	target, err := o.player("user")
	if err != nil {
		return reply{}, err
	}
	id := storage.PlayerID{Guild: rq.guild, User: target}
	stored, ok, hs, err := a.history(ctx, id, playerViewLines+1)
	if err != nil {
		return reply{}, err
	}
	l := rq.l
	if !ok {
		return reply{}, userErr("err_no_player", map[string]any{"User": mention(target)})
	}
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	sv := stored.Seen(hs) // the best win, which needs the whole history, is not shown
	p := sv.Player
	audit, err := a.store.Audit(ctx, rq.guild, storage.AuditLimit)
	if err != nil {
		return reply{}, internal("audit", err)
	}
	now := a.now()
	// A moderator reads about the player, never as the player: these lines
	// have their own messages, in the third person.
	ticket := l.T("player_no_ticket", nil)
	if t := p.Ticket; t != nil && t.Open() {
		ticket = l.T("player_open_ticket", map[string]any{"Ticket": t.ID, "Bought": timestamp(t.BoughtAt.Unix(), "R")})
		if sv.Revealing != 0 {
			ticket += "\n" + l.T("player_revealing", nil)
		}
	}
	stats := statsText(l, p.Stats, l.T("player_granted", map[string]any{"Amount": l.Signed(p.Stats.GrantedCents), "Daily": l.Credits(p.Stats.DailyCents)}))
	var limits []string
	for k, lim := range p.LimitsAt(now) {
		if lim.Amount == 0 && !lim.Pending() {
			continue
		}
		line := l.T("player_limit", map[string]any{"Limit": l.T("limit_"+game.LimitKind(k).String(), nil), "Amount": limitAmount(l, lim.Amount)})
		if lim.Pending() {
			line += " (" + l.T("limits_pending", map[string]any{"Amount": limitAmount(l, lim.Next), "When": timestamp(lim.At.Unix(), "f")}) + ")"
		}
		limits = append(limits, line)
	}
	if len(limits) == 0 {
		limits = append(limits, l.T("player_no_limits", nil))
	}
	spend := p.SpendAt(now)
	limits = append(limits, l.T("player_spend", map[string]any{
		"Day": l.Credits(spend.StakedDay), "Week": l.Credits(spend.StakedWeek),
		"NetDay": l.Signed(spend.WonDay - spend.StakedDay), "NetWeek": l.Signed(spend.WonWeek - spend.StakedWeek),
	}))
	pause := l.T("player_not_paused", nil)
	if p.Paused(now) {
		pause = l.T("player_paused", map[string]any{"Until": timestamp(p.Care.PausedUntil.Unix(), "F")})
	}
	var mod strings.Builder
	n := 0
	for _, e := range audit { // newest first
		if e.Target != target || n == playerViewLines {
			continue
		}
		n++
		mod.WriteString(auditLine(l, e, false) + "\n")
	}
	if n == 0 {
		mod.WriteString(l.T("audit_empty", nil))
	}
	name := map[string]any{"Name": cmp.Or(o.displayName("user"), l.T("player_someone", nil))}
	e := infoEmbed(l.T("player_title", nil), mention(target), colourInfo,
		&discordgo.MessageEmbedField{Name: l.T("field_balance", nil), Value: "**" + l.Credits(p.Balance) + "**", Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_chest", nil), Value: keysText(l, p, "player_chest_due"), Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("player_ticket", nil), Value: ticket, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("field_stats", nil), Value: stats},
		&discordgo.MessageEmbedField{Name: l.T("player_limits_title", name), Value: strings.Join(limits, "\n")},
		&discordgo.MessageEmbedField{Name: l.T("field_pause", nil), Value: pause, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("player_seed", nil), Value: l.T("player_seed_value", map[string]any{
			"No": p.SeedNo, "Commitment": code(p.Commitment().Short()),
		}), Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("player_history_title", name), Value: a.historyText(l, stored.SeenHistory(hs), playerViewLines, "player_history_empty")},
		&discordgo.MessageEmbedField{Name: l.T("audit_title", nil), Value: mod.String()},
	)
	e.Footer = &discordgo.MessageEmbedFooter{Text: l.T("player_footer", map[string]any{"House": houseText(l, set.House)})}
	return ephemeralEmbed(e), nil
}

// adminLiftPause ends a player's pause; the reason is required.
func (a *admin) adminLiftPause(ctx context.Context, rq *request, o opts, reason string) (reply, error) {
	target, err := o.player("user")
	if err != nil {
		return reply{}, err
	}
	if reason == "" {
		return reply{}, userErr("err_reason_required", nil)
	}
	_, err = a.run(ctx, storage.Step{
		ID: storage.PlayerID{Guild: rq.guild, User: target}, Op: rq.i.ID,
		Move: game.LiftPause{By: rq.moderator(target, reason)},
	})
	if err := stepErr("lift_pause", err,
		on{storage.ErrNoPlayer, userErr("err_no_player", map[string]any{"User": mention(target)})},
		on{game.ErrNotPaused, userErr("err_not_paused", map[string]any{"User": mention(target)})}); err != nil {
		return reply{}, err
	}
	l := rq.l
	return adminDone(l.T("admin_lifted", map[string]any{"User": mention(target)}), reason, l), nil
}

func houseText(l *lang, h game.House) string {
	stakeCap := l.T("limit_none", nil)
	if h.MaxStakeDay > 0 {
		stakeCap = l.Credits(h.MaxStakeDay)
	}
	interval := l.T("interval_none", nil) // "aucun": French agrees it with "intervalle"
	if h.MinInterval > 0 {
		interval = l.T("seconds", map[string]any{"Seconds": int(h.MinInterval / time.Second)})
	}
	return l.T("house_text", map[string]any{"Cap": stakeCap, "Interval": interval, "Reality": houseReality(l, h)})
}

// displayName is the name Discord shows for the user of option name, with
// Markdown escaped; "" when unresolved. An embed's field names do not
// render mentions.
func (o opts) displayName(name string) string {
	id, _, _ := lookup[string](o, name, discordgo.ApplicationCommandOptionUser)
	if o.resolved == nil || id == "" {
		return ""
	}
	var s string
	if u := o.resolved.Users[id]; u != nil {
		s = u.DisplayName()
	}
	if m := o.resolved.Members[id]; m != nil && m.Nick != "" {
		s = m.Nick
	}
	return markdownEscaper.Replace(s)
}

// markdownEscaper escapes the characters Discord reads as Markdown.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`, ">", `\>`, "#", `\#`)
