package commands

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// admin is the handlers of /admin and of its confirmations.
type admin struct {
	*steps
	*renderer
	jobs       *jobs
	confirmTTL time.Duration // Config.ConfirmTTL
	deferAfter time.Duration // Config.DeferAfter
}

const (
	maxReason    = 200
	maxAmountLen = 20
	// maxAmountCents bounds any amount typed by a moderator (10^10
	// credits); the store applies its own, narrower limits.
	maxAmountCents = 1_000_000_000_000
	auditSize      = 10 // the lines of /admin audit
	modPerms       = discordgo.PermissionManageGuild | discordgo.PermissionAdministrator
)

func (a *admin) adminCommand() *command {
	user := func() *discordgo.ApplicationCommandOption {
		return option(discordgo.ApplicationCommandOptionUser, "user", "joueur", "The player", "Le joueur", true)
	}
	reason := func(required bool) *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionString, "reason", "raison",
			"Why (recorded in the audit log)", "Pourquoi (consigné dans le journal)", required)
		o.MaxLength = maxReason
		return o
	}
	integer := func(name, frName, desc, frDesc string, lo, hi int) *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionInteger, name, frName, desc, frDesc, false)
		o.MinValue, o.MaxValue = new(float64(lo)), float64(hi)
		return o
	}
	credits := func(name, frName, desc, frDesc string) *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionString, name, frName, desc, frDesc, false)
		o.MaxLength = maxAmountLen
		return o
	}
	amount := func(desc, frDesc string) *discordgo.ApplicationCommandOption {
		o := credits("amount", "montant", desc, frDesc)
		o.Required, o.MinLength = true, new(1)
		return o
	}
	channel := option(discordgo.ApplicationCommandOptionChannel, "channel", "salon",
		"The only channel where plays are allowed", "Le seul salon où l'on peut jouer", false)
	channel.ChannelTypes = []discordgo.ChannelType{discordgo.ChannelTypeGuildText}

	def := slash("admin", "admin",
		"Moderators: manage the game's credits and settings",
		"Modération : gérer les crédits et les réglages du jeu",
		subcommand("grant", "crediter", "Add (or remove, with a minus sign) credits to a player",
			"Ajouter (ou retirer, avec un signe moins) des crédits à un joueur",
			user(), amount("Credits, e.g. 12.50 or -5", "Crédits, par ex. 12,50 ou -5"), reason(false)),
		subcommand("set-balance", "fixer-solde", "Set a player's balance", "Fixer le solde d'un joueur",
			user(), amount("New balance in credits, e.g. 20.00", "Nouveau solde en crédits, par ex. 20,00"), reason(false)),
		subcommand("reset", "reinitialiser", "Reset a player (credits, keys, statistics)",
			"Réinitialiser un joueur (crédits, clefs, statistiques)", user(), reason(false)),
		subcommand("reset-guild", "reinitialiser-serveur", "Reset every player of the server (asks to confirm)",
			"Réinitialiser tous les joueurs du serveur (avec confirmation)", reason(false)),
		subcommand("settings", "reglages", "Show or change the game's settings",
			"Afficher ou modifier les réglages du jeu",
			credits("starting-balance", "solde-initial", "Credits of a new player", "Crédits d'un nouveau joueur"),
			credits("daily-amount", "bonus-quotidien", "Daily bonus in credits (0 disables it)",
				"Bonus quotidien en crédits (0 le désactive)"),
			option(discordgo.ApplicationCommandOptionBoolean, "public-plays", "parties-publiques",
				"Plays visible to the channel (else only to the player)",
				"Parties visibles du salon (sinon du seul joueur)", false),
			channel,
			option(discordgo.ApplicationCommandOptionBoolean, "any-channel", "tous-salons",
				"Allow plays in every channel", "Autoriser les parties dans tous les salons", false),
			credits("max-stake-day", "mise-max-jour", "Most a player may stake per day here, in credits (0: no cap)",
				"Mise maximale d'un joueur par jour ici, en crédits (0 : aucune)"),
			integer("min-interval", "intervalle-min", "Least seconds between two plays of a player (0 to 3600)",
				"Secondes minimales entre deux parties d'un joueur (0 à 3600)", 0, int(game.MaxMinInterval/time.Second)),
			integer("reality-plays", "point-parties", "Reality check after this many plays of a session (0: off)",
				"Point sur la session après ce nombre de parties (0 : jamais)", 0, game.MaxRealityPlay),
			integer("reality-minutes", "point-minutes", "Reality check after this many minutes of a session (0: off, else 5 to 1440)",
				"Point sur la session après ce nombre de minutes (0 : jamais, sinon 5 à 1440)", 0, int(game.MaxReminder/time.Minute)),
			reason(false)),
		subcommand("audit", "journal", "The last moderator actions", "Les dernières actions de modération"),
		subcommand("player", "joueur", "A player's account, limits, pause and latest actions",
			"Le compte d'un joueur, ses limites, sa pause et ses dernières actions", user()),
		subcommand("lift-pause", "lever-pause", "End a player's pause early (a reason is required)",
			"Mettre fin plus tôt à la pause d'un joueur (raison obligatoire)", user(), reason(true)),
	)
	def.DefaultMemberPermissions = new(int64(discordgo.PermissionManageGuild))
	return &command{def: def, h: a.handleAdmin}
}

// handleAdmin checks the member's permissions again, since a server may
// override the command's default, and runs the subcommand.
func (a *admin) handleAdmin(ctx context.Context, rq *request) (reply, error) {
	if rq.perms&modPerms == 0 {
		return reply{}, userErr("err_not_moderator", nil)
	}
	sub, o, err := rq.subcommand()
	if err != nil {
		return reply{}, err
	}
	reason, err := o.reason()
	if err != nil {
		return reply{}, err
	}
	switch sub {
	case "grant":
		return a.adminGrant(ctx, rq, o, reason, false)
	case "set-balance":
		return a.adminGrant(ctx, rq, o, reason, true)
	case "reset":
		return a.adminReset(ctx, rq, o, reason)
	case "reset-guild":
		return a.adminResetGuild(rq, reason)
	case "settings":
		return a.adminSettings(ctx, rq, o, reason)
	case "audit":
		return a.adminAudit(ctx, rq)
	case "player":
		return a.adminPlayer(ctx, rq, o)
	case "lift-pause":
		return a.adminLiftPause(ctx, rq, o, reason)
	}
	return reply{}, userErr("err_unknown_command", nil)
}

// adminGrant adds credits to a player, or sets the balance, creating a
// member who never played: a grant may come before the first play.
func (a *admin) adminGrant(ctx context.Context, rq *request, o opts, reason string, set bool) (reply, error) {
	target, err := o.player("user")
	if err != nil {
		return reply{}, err
	}
	s, ok := o.str("amount")
	if !ok { // missing, or not a string (another client's payload)
		return reply{}, userErr("err_amount_option", nil)
	}
	cents, err := parseCredits(s, !set)
	if err != nil {
		return reply{}, err
	}
	op, msg, amount := "grant", "admin_granted", cents
	switch {
	case set:
		op, msg = "set_balance", "admin_set"
	case cents < 0:
		msg, amount = "admin_debited", -cents // "lost 5.00", not "received -5.00"
	}
	settings, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	ap, err := a.run(ctx, storage.Step{
		ID: storage.PlayerID{Guild: rq.guild, User: target}, Op: rq.i.ID, Create: true, Start: settings.StartingBalance,
		Move: game.Grant{Amount: cents, Set: set, By: rq.moderator(target, reason)},
	})
	if err := stepErr(op, err, on{game.ErrInvalid, userErr("err_amount_refused", nil)}); err != nil {
		return reply{}, err
	}
	l := rq.l
	return adminDone(l.T(msg, map[string]any{
		"Amount": l.Credits(amount), "User": mention(target), "Balance": l.Credits(ap.Result.Balance),
	}), reason, l), nil
}

// adminReset resets a player to the guild's starting balance, creating
// nobody. A record that does not decode is rewritten (game.Repair),
// and the reply says what could not be kept of it.
func (a *admin) adminReset(ctx context.Context, rq *request, o opts, reason string) (reply, error) {
	target, err := o.player("user")
	if err != nil {
		return reply{}, err
	}
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	ap, err := a.run(ctx, storage.Step{
		ID: storage.PlayerID{Guild: rq.guild, User: target}, Op: rq.i.ID, Start: set.StartingBalance, Repair: true,
		Move: game.Reset{Start: set.StartingBalance, By: rq.moderator(target, reason)},
	})
	if err := stepErr("reset_player", err,
		on{storage.ErrNoPlayer, userErr("err_never_played", map[string]any{"User": mention(target)})},
		on{game.ErrInvalid, userErr("err_amount_refused", nil)}); err != nil {
		return reply{}, err
	}
	l := rq.l
	text := l.T("admin_reset", map[string]any{"User": mention(target), "Balance": l.Credits(ap.Result.Balance)})
	switch k := ap.Repaired; {
	case k != nil && k.Seed == (game.Seed{}): // Repair keeps the seeds only when they could be read
		text += "\n" + l.T("admin_repaired_seed_lost", nil)
	case k != nil:
		text += "\n" + l.T("admin_repaired", nil)
	}
	return adminDone(text, reason, l), nil
}

// adminResetGuild asks for confirmation; the reason rides in the embed.
func (a *admin) adminResetGuild(rq *request, reason string) (reply, error) {
	l := rq.l
	confirm := customID{kind: kindResetConfirm, user: rq.user, ts: a.clock().Unix()}
	e := infoEmbed(l.T("rg_title", nil), l.T("rg_ask", map[string]any{"Minutes": int(a.confirmTTL.Minutes())}), 0xE03131)
	return askConfirm(l, withReason(l, e, reason), l.T("btn_rg_confirm", nil), confirm, kindResetCancel), nil
}

// expired reports whether a confirmation asked at unix time ts is past
// ttl at now, or dated more than a minute after now.
func expired(ts int64, now time.Time, ttl time.Duration) bool {
	return ts > now.Unix()+60 || now.Unix()-ts > int64(ttl.Seconds())
}

const resetBatch = 100 // players reset between two records of the progress

// handleResetConfirm starts the reset of every player of the guild
// (confirmationOp), which the job runner (jobs.go) runs in the background,
// and answers with its progress, or another reset's running in the guild.
func (a *admin) handleResetConfirm(ctx context.Context, rq *request) (reply, error) {
	if rq.perms&modPerms == 0 {
		return reply{}, userErr("err_not_moderator", nil)
	}
	if expired(rq.button.ts, a.clock(), a.confirmTTL) {
		return reply{}, userErr("err_confirm_expired", nil)
	}
	op := confirmationOp("rg:", rq.i)
	started, err := a.runGuild(ctx, rq.guild, op, game.BeginReset{Actor: rq.user, Reason: confirmReason(rq.i)})
	r := started.Guild.Reset
	switch {
	case errors.Is(err, game.ErrResetRunning) && r != nil:
		return resetRunning(rq.l, *r, "⚠️ "+rq.l.T("rg_busy", nil)), nil
	case err != nil:
		return reply{}, stepErr("reset_guild", err)
	}
	if rep, ok := resetEnded(rq.l, r, op); ok {
		return rep, nil
	}
	a.jobs.signal()
	if end := a.awaitReset(ctx, rq.guild, op); end != nil { // a small guild is done in a moment
		if rep, ok := resetEnded(rq.l, end, op); ok {
			return rep, nil
		}
		r = end
	}
	if rq.r != nil { // the runner's next round shows the progress
		a.jobs.addWatch(watch{rq: rq, op: op, until: tokenExpiry(rq.i.ID, a.clock()).Add(-lateMargin)})
	}
	return resetRunning(rq.l, *r, ""), nil
}

// awaitReset waits, while this process runs jobs, a little less than the
// deferral's delay for the reset op to end; nil without a runner.
func (a *admin) awaitReset(ctx context.Context, guild uint64, op string) *game.GuildReset {
	if !a.jobs.runnerOn.Load() {
		return nil
	}
	var last *game.GuildReset
	deadline := time.Now().Add(a.deferAfter * 3 / 4) // real time, as the deferral's timer: not Config.Now
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return last
		case <-time.After(20 * time.Millisecond):
		}
		g, err := a.store.Guild(ctx, guild)
		if err != nil {
			return last
		}
		last = g.Reset
		if last == nil || last.Op != op || last.Finished() {
			return last
		}
	}
	return last
}

// resetEnded replaces the confirmation of reset op with its end, if r (the
// guild's reset) says it has ended: finished, or followed by another.
func resetEnded(l *lang, r *game.GuildReset, op string) (reply, bool) {
	text := l.T("rg_already", nil)
	switch {
	case r != nil && r.Op == op && r.Finished():
		text = l.P("rg_done", int(r.Count), map[string]any{"Count": r.Count})
	case r != nil && r.Op == op:
		return reply{}, false
	}
	return closedEmbed(infoEmbed(l.T("rg_title", nil), "✅ "+text, colourInfo)), true
}

// confirmationOp is the operation ID of a confirmation: prefix and the
// confirmation message's ID, so that pressing it twice applies it once.
func confirmationOp(prefix string, i *discordgo.Interaction) string {
	if i.Message != nil && i.Message.ID != "" {
		return prefix + i.Message.ID
	}
	return prefix + i.ID
}

// confirmReason reads the reason back from the confirmation message.
func confirmReason(i *discordgo.Interaction) string {
	if i.Message == nil || len(i.Message.Embeds) == 0 || i.Message.Embeds[0] == nil ||
		len(i.Message.Embeds[0].Fields) == 0 || i.Message.Embeds[0].Fields[0] == nil {
		return ""
	}
	return clip(i.Message.Embeds[0].Fields[0].Value, maxReason)
}

// adminSettings shows the settings, changed first by the options given.
func (a *admin) adminSettings(ctx context.Context, rq *request, o opts, reason string) (reply, error) {
	sp, err := settingsPatchOf(o)
	if err != nil {
		return reply{}, err
	}
	var set game.Settings
	changed := !sp.Empty()
	if !changed {
		if set, err = a.settings(ctx, rq.guild); err != nil {
			return reply{}, err
		}
	} else {
		ap, err := a.runGuild(ctx, rq.guild, rq.i.ID, game.ChangeSettings{Patch: sp, Actor: rq.user, Reason: reason})
		if err := stepErr("update_guild", err, on{game.ErrInvalid, userErr("err_amount_refused", nil)}); err != nil {
			return reply{}, err
		}
		set = ap.Guild.Settings
	}
	l := rq.l
	where := l.T("settings_anywhere", nil)
	if set.Channel != 0 {
		where = channelMention(set.Channel)
	}
	vis := l.T("settings_ephemeral", nil)
	if set.PublicPlays {
		vis = l.T("settings_public", nil)
	}
	daily := l.T("settings_daily_off", nil)
	if set.DailyAmount > 0 {
		daily = l.Credits(set.DailyAmount)
	}
	title := l.T("settings_title", nil)
	if changed {
		title = "✅ " + l.T("settings_saved", nil)
	}
	e := infoEmbed(title, "", colourInfo,
		&discordgo.MessageEmbedField{Name: l.T("settings_starting", nil), Value: l.Credits(set.StartingBalance), Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("settings_daily", nil), Value: daily, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("settings_visibility", nil), Value: vis, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("settings_channel", nil), Value: where, Inline: true},
		&discordgo.MessageEmbedField{Name: l.T("settings_house", nil), Value: houseText(l, set.House)},
	)
	return ephemeralEmbed(e), nil
}

func (a *admin) adminAudit(ctx context.Context, rq *request) (reply, error) {
	es, err := a.store.Audit(ctx, rq.guild, auditSize)
	if err != nil {
		return reply{}, internal("audit", err)
	}
	g, err := a.store.Guild(ctx, rq.guild)
	if err != nil {
		return reply{}, internal("audit", err)
	}
	l := rq.l
	var b strings.Builder
	if r := g.Reset; r != nil && !r.Finished() { // a reset in progress: its line comes first
		b.WriteString("⏳ " + l.P("audit_rg_running", int(r.Count), map[string]any{
			"Count": r.Count, "User": mention(r.Actor), "When": timestamp(r.Started.Unix(), "R"),
		}) + "\n")
	}
	if len(es) == 0 {
		b.WriteString(l.T("audit_empty", nil))
	}
	for _, e := range es {
		b.WriteString(auditLine(l, e, true) + "\n")
	}
	return ephemeralEmbed(infoEmbed(l.T("audit_title", nil), b.String(), colourInfo)), nil
}

// auditLine writes one moderator action: when, who, what, the target
// (withTarget), the amount of a grant and the reason.
func auditLine(l *lang, e game.AuditEntry, withTarget bool) string {
	var b strings.Builder
	b.WriteString(timestamp(e.At.Unix(), "R") + " · " + mention(e.Actor) + " · **" + auditAction(l, e.Action) + "**")
	if withTarget && e.Target != 0 {
		b.WriteString(" → " + mention(e.Target))
	}
	switch e.Action {
	case game.ActionGrant, game.ActionSetBalance, game.ActionReset:
		b.WriteString(" · " + l.Credits(e.Amount))
	case game.ActionResetGuild:
		b.WriteString(" · " + l.P("audit_players", e.Amount, map[string]any{"Count": e.Amount}))
	}
	reason := clip(strings.ReplaceAll(e.Reason, "\n", " "), maxReason+1)
	var note string // what the bot wrote beside the moderator's reason
	switch e.Action {
	case game.ActionSettings:
		note, reason, _ = strings.Cut(reason, game.SettingsReasonSep)
		note = settingsChangesIn(l, note)
	case game.ActionLiftPause:
		if m := pausedUntilRe.FindStringSubmatch(reason); m != nil {
			if t, err := time.Parse(time.RFC3339, m[2]); err == nil {
				reason, note = m[1], l.T("audit_paused_until", map[string]any{"When": timestamp(t.Unix(), "f")})
			}
		}
	}
	if note != "" {
		b.WriteString(" · " + note)
	}
	if reason != "" {
		b.WriteString(" · “" + reason + "”")
	}
	return b.String()
}

// pausedUntilRe reads a lift-pause entry's reason: the moderator's, then
// the end of the pause lifted, as game.LiftPause writes it.
var pausedUntilRe = regexp.MustCompile(`^(.*) \(paused until (\S+)\)$`)

// settingNames are the names settingsChanges writes (in English, as the
// log keeps them) with their messages, and settingValues its words.
var settingNames = map[string]string{
	"starting balance": "audit_set_starting", "daily amount": "audit_set_daily", "plays": "audit_set_plays",
	"channel": "audit_set_channel", "max stake per day": "audit_set_stake", "min interval": "audit_set_interval",
	"reality check plays": "audit_set_reality_plays", "reality check every": "audit_set_reality_every",
}

var settingValues = map[string]string{
	"off": "audit_value_off", "any": "settings_anywhere", "public": "settings_public",
	"private": "settings_ephemeral", "none": "limit_none",
}

// settingsChangesIn renders what settingsChanges wrote in the reader's
// language: "daily amount 5.00 → 2.00; channel <#1> → any" becomes
// "bonus quotidien : 5,00 → 2,00 ; salon : <#1> → tous les salons". A part
// it cannot read (cut short, or from another version) is kept as it is.
func settingsChangesIn(l *lang, s string) string {
	parts := strings.Split(s, "; ")
	for i, part := range parts {
		left, to, ok := strings.Cut(part, " → ")
		sp := strings.LastIndexByte(left, ' ')
		if !ok || sp < 0 || settingNames[left[:sp]] == "" {
			continue
		}
		parts[i] = l.T("audit_change", map[string]any{
			"Name": l.T(settingNames[left[:sp]], nil), "From": settingValueIn(l, left[sp+1:]), "To": settingValueIn(l, to),
		})
	}
	return strings.Join(parts, l.T("audit_change_sep", nil))
}

// settingValueIn renders a value settingsChanges wrote: a word, or an
// amount ("1,234.50"); anything else as it is.
func settingValueIn(l *lang, v string) string {
	if id := settingValues[v]; id != "" {
		return l.T(id, nil)
	}
	if s := strings.ReplaceAll(v, ",", ""); len(s) > 3 && s[len(s)-3] == '.' {
		if cents, err := game.ParseCredits(s, game.CreditSyntax{Max: math.MaxInt64}); err == nil {
			return l.Amount(cents)
		}
	}
	return v
}

// auditAction names a moderator action in the reader's language (its
// message is "audit_" and its code); an action this version does not know
// keeps its code.
func auditAction(l *lang, action string) string {
	switch action {
	case game.ActionGrant, game.ActionSetBalance, game.ActionReset, game.ActionResetGuild, game.ActionSettings, game.ActionLiftPause:
		return l.T("audit_"+strings.ReplaceAll(action, "-", "_"), nil)
	}
	return "`" + action + "`"
}

// adminDone is the ephemeral confirmation of a moderator's change.
func adminDone(text, reason string, l *lang) reply {
	return ephemeralEmbed(withReason(l, infoEmbed("✅ "+l.T("admin_done", nil), text, colourInfo), reason))
}

func withReason(l *lang, e *discordgo.MessageEmbed, reason string) *discordgo.MessageEmbed {
	if reason != "" {
		e.Fields = []*discordgo.MessageEmbedField{{Name: l.T("field_reason", nil), Value: reason}}
	}
	return e
}

// askConfirm is the private question e with its buttons: confirm, labelled
// label, and its copy of kind cancel.
func askConfirm(l *lang, e *discordgo.MessageEmbed, label string, confirm customID, cancel buttonKind) reply {
	no := confirm
	no.kind = cancel
	r := ephemeralEmbed(e)
	r.data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: label, Style: discordgo.DangerButton, CustomID: confirm.format()},
		discordgo.Button{Label: l.T("btn_cancel", nil), Style: discordgo.SecondaryButton, CustomID: no.format()},
	}}}
	return r
}
