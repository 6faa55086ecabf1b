package commands

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// care is the handlers of /limits and /pause (game/care.go).
type care struct {
	*steps
	*renderer
	confirmTTL time.Duration // Config.ConfirmTTL
}

// pauseChoice is a length /pause offers; the custom ID carries its index
// in pauseChoices.
type pauseChoice struct {
	value, en, fr string
	until         func(time.Time) time.Time
}

var pauseChoices = []pauseChoice{
	{"24h", "24 hours", "24 heures", func(t time.Time) time.Time { return t.Add(24 * time.Hour) }},
	{"7d", "7 days", "7 jours", func(t time.Time) time.Time { return t.AddDate(0, 0, 7) }},
	{"30d", "30 days", "30 jours", func(t time.Time) time.Time { return t.AddDate(0, 0, 30) }},
	{"6m", "6 months", "6 mois", func(t time.Time) time.Time { return t.AddDate(0, 6, 0) }},
}

// limitOptions names each limit's option, in game.LimitKind order.
var limitOptions = [game.NumLimits]struct{ name, fr, en, frDesc string }{
	{"stake-day", "mises-jour", "Most you may stake per day, in credits (0 removes it)", "Mise maximale par jour, en crédits (0 la retire)"},
	{"stake-week", "mises-semaine", "Most you may stake per week, in credits (0 removes it)", "Mise maximale par semaine, en crédits (0 la retire)"},
	{"loss-day", "pertes-jour", "Most you may lose per day (stakes minus prizes), in credits (0 removes it)", "Perte maximale par jour (mises moins gains), en crédits (0 la retire)"},
	{"loss-week", "pertes-semaine", "Most you may lose per week (stakes minus prizes), in credits (0 removes it)", "Perte maximale par semaine (mises moins gains), en crédits (0 la retire)"},
}

func (a *care) limitsCommand() *command {
	var set []*discordgo.ApplicationCommandOption
	for _, o := range limitOptions {
		opt := option(discordgo.ApplicationCommandOptionString, o.name, o.fr, o.en, o.frDesc, false)
		opt.MaxLength = maxAmountLen
		set = append(set, opt)
	}
	reminder := option(discordgo.ApplicationCommandOptionInteger, "reminder", "rappel",
		"Reality check every N minutes of play (5 to 1440; 0: the server's)",
		"Point sur votre session toutes les N minutes de jeu (5 à 1440 ; 0 : celui du serveur)", false)
	reminder.MinValue, reminder.MaxValue = new(0.0), float64(game.MaxReminder/time.Minute)
	set = append(set, reminder)
	return &command{
		def: slash("limits", "limites",
			"Play responsibly: your stake and loss limits",
			"Jouer avec modération : vos limites de mise et de perte",
			subcommand("show", "afficher", "Your limits, what they count today and this week, and when they reset",
				"Vos limites, ce qu'elles comptent aujourd'hui et cette semaine, et quand elles repartent"),
			subcommand("set", "regler", "Set your limits: lower ones apply at once, higher ones after 24 hours",
				"Régler vos limites : une baisse s'applique aussitôt, une hausse après 24 heures", set...),
		),
		h: a.handleLimits,
	}
}

func (a *care) pauseCommand() *command {
	length := option(discordgo.ApplicationCommandOptionString, "length", "duree",
		"How long: you cannot shorten it once confirmed", "Combien de temps : impossible d'écourter une fois confirmé", true)
	for _, c := range pauseChoices {
		length.Choices = append(length.Choices, &discordgo.ApplicationCommandOptionChoice{
			Name: c.en, NameLocalizations: map[discordgo.Locale]string{discordgo.French: c.fr}, Value: c.value,
		})
	}
	return &command{
		def: slash("pause", "pause",
			"Take a break: no plays and no daily bonus for a while (asks to confirm)",
			"Faire une pause : ni parties ni bonus quotidien pendant un temps (avec confirmation)", length),
		h: a.handlePause,
	}
}

func (a *care) handleLimits(ctx context.Context, rq *request) (reply, error) {
	sub, o, err := rq.subcommand()
	if err != nil {
		return reply{}, err
	}
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	switch sub {
	case "show":
		p, _, err := a.load(ctx, rq.player())
		if err != nil {
			return reply{}, err
		}
		return ephemeralEmbed(a.limitsEmbed(rq.l, p, set.House, a.now(), "")), nil
	case "set":
		return a.limitsSet(ctx, rq, o, set)
	}
	return reply{}, userErr("err_unknown_command", nil)
}

// limitsSet applies /limits set's options in one step, creating the player
// (limits set before the first play are sure).
func (a *care) limitsSet(ctx context.Context, rq *request, o opts, set game.Settings) (reply, error) {
	if err := o.checkTypes(); err != nil {
		return reply{}, err
	}
	var sets []game.LimitSet
	for k, lo := range limitOptions {
		s, ok := o.str(lo.name)
		if !ok {
			continue
		}
		amount, err := parseLimit(s)
		if err != nil {
			return reply{}, err
		}
		sets = append(sets, game.LimitSet{Kind: game.LimitKind(k), Amount: amount})
	}
	reminder := time.Duration(-1) // unchanged
	if n, present, ok := lookup[int64](o, "reminder", discordgo.ApplicationCommandOptionInteger); present {
		// The bounds are game's; these keep the duration from overflowing.
		ok = ok && n >= 0 && n <= math.MaxInt64/int64(time.Minute)
		m := time.Duration(n) * time.Minute
		if !ok || game.CheckReminder(m) != nil {
			return reply{}, userErr("err_reminder", map[string]any{
				"Min": int(game.MinReminder / time.Minute), "Max": int(game.MaxReminder / time.Minute),
			})
		}
		reminder = m
	}
	if len(sets) == 0 && reminder < 0 {
		return reply{}, userErr("err_limits_none", nil)
	}
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Create: true, Start: set.StartingBalance,
		Move: game.SetLimits{Sets: sets, Reminder: reminder},
	})
	if err := stepErr("set_limits", err,
		on{game.ErrInvalid, userErr("err_limit_amount", map[string]any{"Max": rq.l.Credits(game.MaxLimit)})}); err != nil {
		return reply{}, err
	}
	l, now := rq.l, a.now()
	var lines []string
	if !ap.Repeated { // what this step did, limit by limit
		before, after := ap.Before.LimitsAt(now), ap.Player.LimitsAt(now)
		for _, s := range sets {
			k := s.Kind
			name := l.T("limit_"+k.String(), nil)
			switch {
			case after[k].Pending() && (!before[k].Pending() || before[k].Next != after[k].Next || !before[k].At.Equal(after[k].At)):
				lines = append(lines, l.T("limits_raised", map[string]any{
					"Limit": name, "Amount": limitAmount(l, after[k].Next), "When": timestamp(after[k].At.Unix(), "f"),
				}))
			case !after[k].Pending():
				lines = append(lines, l.T("limits_now", map[string]any{"Limit": name, "Amount": limitAmount(l, after[k].Amount)}))
			}
		}
		switch { // the reminder, like the limits, gets its line
		case reminder == 0:
			lines = append(lines, l.T("limits_reminder_house_now", map[string]any{"Text": houseReality(l, set.House)}))
		case reminder > 0:
			lines = append(lines, l.T("limits_reminder_now", map[string]any{"Minutes": int(reminder / time.Minute)}))
		}
	}
	return ephemeralEmbed(a.limitsEmbed(l, ap.Player, set.House, now, strings.Join(lines, "\n"))), nil
}

// parseLimit reads a limit typed by a player: credits, or "none" and its
// synonyms (0).
func parseLimit(s string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "off", "no", "aucune", "aucun", "non":
		return 0, nil
	}
	return parseCredits(s, false)
}

func limitAmount(l *lang, amount int64) string {
	if amount == 0 {
		return l.T("limit_none", nil)
	}
	return l.Credits(amount)
}

// limitsEmbed shows the player's limits, the house's rules, the reality
// checks and the pause, as the player has seen them.
func (a *care) limitsEmbed(l *lang, p game.Player, h game.House, now time.Time, done string) *discordgo.MessageEmbed {
	sv := p.Seen(nil)
	ls, spend := p.LimitsAt(now), sv.Player.SpendAt(now)
	var fields []*discordgo.MessageEmbedField
	for k, lim := range ls {
		kind := game.LimitKind(k)
		key, used := "limits_used", spend.Used(kind)
		if kind.Loss() {
			key, used = "limits_lost", max(used, 0)
		}
		v := "**" + limitAmount(l, lim.Amount) + "**\n" + l.T(key, map[string]any{
			"Used": l.Credits(used), "Reset": timestamp(spend.Reset(kind).Unix(), "R"),
		})
		if lim.Pending() {
			v += "\n" + l.T("limits_pending", map[string]any{"Amount": limitAmount(l, lim.Next), "When": timestamp(lim.At.Unix(), "f")})
		}
		fields = append(fields, &discordgo.MessageEmbedField{Name: l.T("limit_"+kind.String(), nil), Value: v, Inline: true})
	}
	reminder := l.T("limits_reminder_house", map[string]any{"Text": houseReality(l, h)})
	if p.Care.Reminder > 0 {
		reminder = l.T("limits_reminder_own", map[string]any{"Minutes": int(p.Care.Reminder / time.Minute)})
	}
	fields = append(fields, &discordgo.MessageEmbedField{Name: l.T("limits_reminder", nil), Value: reminder})
	if h.MaxStakeDay > 0 || h.MinInterval > 0 {
		var rules []string
		if h.MaxStakeDay > 0 {
			rules = append(rules, l.T("house_stake_day", map[string]any{"Amount": l.Credits(h.MaxStakeDay)}))
		}
		if h.MinInterval > 0 {
			rules = append(rules, l.T("house_interval", map[string]any{"Seconds": int(h.MinInterval / time.Second)}))
		}
		fields = append(fields, &discordgo.MessageEmbedField{Name: l.T("limits_house", nil), Value: strings.Join(rules, "\n")})
	}
	if p.Paused(now) {
		fields = append(fields, &discordgo.MessageEmbedField{Name: l.T("field_pause", nil), Value: l.T("pause_until", map[string]any{"Until": timestamp(p.Care.PausedUntil.Unix(), "F")})})
	}
	desc := l.T("limits_intro", nil)
	if done != "" {
		desc = "✅ " + done
	}
	if r := revealingLine(l, sv); r != "" {
		desc += "\n\n" + r
	}
	e := infoEmbed(l.T("limits_title", nil), desc, colourInfo, fields...)
	e.Footer = &discordgo.MessageEmbedFooter{Text: l.T("limits_footer", nil)}
	return e
}

func houseReality(l *lang, h game.House) string {
	var parts []string
	if h.RealityEvery > 0 {
		parts = append(parts, l.T("reality_every", map[string]any{"Minutes": int(h.RealityEvery / time.Minute)}))
	}
	if h.RealityPlays > 0 {
		parts = append(parts, l.P("reality_plays", h.RealityPlays, map[string]any{"Count": h.RealityPlays}))
	}
	if len(parts) == 0 {
		return l.T("reality_off", nil)
	}
	return strings.Join(parts, l.T("or", nil))
}

// handlePause asks to confirm a pause; the buttons carry the length and
// the time asked.
func (a *care) handlePause(_ context.Context, rq *request) (reply, error) {
	o := opts{list: rq.data.Options}
	v, _ := o.str("length")
	choice := slices.IndexFunc(pauseChoices, func(c pauseChoice) bool { return c.value == v })
	if choice < 0 {
		return reply{}, userErr("err_bad_option", nil)
	}
	l, asked := rq.l, a.clock()
	confirm := customID{kind: kindPauseConfirm, user: rq.user, code: choice, ts: asked.Unix()}
	until := pauseChoices[choice].until(time.Unix(asked.Unix(), 0))
	e := infoEmbed(l.T("pause_title", nil), l.T("pause_ask", map[string]any{
		"Until": timestamp(until.Unix(), "F"), "Minutes": int(a.confirmTTL.Minutes()),
	}), colourChest)
	return askConfirm(l, e, l.T("btn_pause_confirm", nil), confirm, kindPauseCancel), nil
}

// handlePauseConfirm pauses the player (confirmationOp).
func (a *care) handlePauseConfirm(ctx context.Context, rq *request) (reply, error) {
	if expired(rq.button.ts, a.clock(), a.confirmTTL) || rq.button.code >= len(pauseChoices) {
		return reply{}, userErr("err_pause_expired", nil)
	}
	until := pauseChoices[rq.button.code].until(time.Unix(rq.button.ts, 0))
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: confirmationOp("pause:", rq.i), Create: true, Start: set.StartingBalance,
		Move: game.Pause{Until: until},
	})
	if err := stepErr("pause", err, on{game.ErrInvalid, userErr("err_pause_expired", nil)}); err != nil {
		return reply{}, err
	}
	l := rq.l
	e := infoEmbed(l.T("pause_title", nil), "✅ "+l.T("pause_done", map[string]any{
		"Until": timestamp(ap.Player.Care.PausedUntil.Unix(), "F"),
	}), colourInfo)
	return closedEmbed(e), nil
}

// careErr maps the responsible-play refusals of Buy and ClaimDaily to the
// player's message; ok is false for any other error.
func careErr(l *lang, err error) (error, bool) {
	var paused *game.PausedError
	var limit *game.LimitError
	var soon *game.TooSoonError
	switch {
	case errors.As(err, &paused):
		return userErr("err_paused", map[string]any{"Until": timestamp(paused.Until.Unix(), "F")}), true
	case errors.As(err, &limit):
		id := "err_limit"
		if limit.House {
			id = "err_limit_house"
		}
		return userErr(id, map[string]any{
			"Limit": l.T("limit_"+limit.Kind.String(), nil), "Amount": l.Credits(limit.Limit),
			"Used": l.Credits(max(limit.Used, 0)), "Reset": timestamp(limit.Reset.Unix(), "R"),
		}), true
	case errors.As(err, &soon):
		return userErr("err_too_soon", map[string]any{"When": timestamp(soon.Next.Add(time.Second-1).Unix(), "R")}), true
	}
	return nil, false
}

// realityLine is a reality check as a card shows it.
func realityLine(l *lang, r *game.Reality) string {
	d := r.Played.Round(time.Minute)
	return l.T("reality_line", map[string]any{
		"Hours": int(d / time.Hour), "Minutes": int(d % time.Hour / time.Minute),
		"Plays": l.P("reality_tickets", r.Plays, map[string]any{"Count": r.Plays}), "Net": l.Signed(r.Net),
	})
}
