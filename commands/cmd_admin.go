package commands

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/storage"
)

// /admin: the moderators' subcommands. Discord shows the command only to
// members with Manage Server (default_member_permissions), and the handler
// checks the member's permissions again, since a server may override the
// default. Every change takes an optional reason, recorded in the audit log.

// Limits of the options.
const (
	maxReason    = 200
	maxAmountLen = 20
	// maxAmountCents bounds any amount typed by a moderator (10^10 credits);
	// the store applies its own, narrower limits.
	maxAmountCents = 1_000_000_000_000
	auditSize      = 10
	modPerms       = discordgo.PermissionManageGuild | discordgo.PermissionAdministrator
)

// isAdminSub reports whether name is one of /admin's subcommands; the
// metrics label an interaction with one of them only, so a forged name
// cannot grow the label set.
func isAdminSub(name string) bool {
	switch name {
	case "grant", "set-balance", "reset", "reset-guild", "settings", "audit":
		return true
	}
	return false
}

func (a *App) adminCommand() *command {
	perm := int64(discordgo.PermissionManageGuild)
	user := func() *discordgo.ApplicationCommandOption {
		return option(discordgo.ApplicationCommandOptionUser, "user", "joueur", "The player", "Le joueur", true)
	}
	amount := func(desc, frDesc string) *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionString, "amount", "montant", desc, frDesc, true)
		o.MinLength = new(int)
		*o.MinLength = 1
		o.MaxLength = maxAmountLen
		return o
	}
	reason := func() *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionString, "reason", "raison",
			"Why (recorded in the audit log)", "Pourquoi (consigné dans le journal)", false)
		o.MaxLength = maxReason
		return o
	}
	credits := func(name, frName, desc, frDesc string) *discordgo.ApplicationCommandOption {
		o := option(discordgo.ApplicationCommandOptionString, name, frName, desc, frDesc, false)
		o.MaxLength = maxAmountLen
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
			user(), amount("Credits, e.g. 12.50 or -5", "Crédits, par ex. 12,50 ou -5"), reason()),
		subcommand("set-balance", "fixer-solde", "Set a player's balance", "Fixer le solde d'un joueur",
			user(), amount("New balance in credits, e.g. 20.00", "Nouveau solde en crédits, par ex. 20,00"), reason()),
		subcommand("reset", "reinitialiser", "Reset a player (credits, keys, statistics)",
			"Réinitialiser un joueur (crédits, clefs, statistiques)", user(), reason()),
		subcommand("reset-guild", "reinitialiser-serveur", "Reset every player of the server (asks to confirm)",
			"Réinitialiser tous les joueurs du serveur (avec confirmation)", reason()),
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
			reason()),
		subcommand("audit", "journal", "The last moderator actions", "Les dernières actions de modération"),
	)
	def.DefaultMemberPermissions = &perm
	return &command{def: def, h: a.handleAdmin}
}

// handleAdmin checks the member's permissions and runs the subcommand.
func (a *App) handleAdmin(ctx context.Context, rq *request) (reply, error) {
	if rq.perms&modPerms == 0 {
		return reply{}, userErr("err_not_moderator", nil)
	}
	if len(rq.data.Options) != 1 || rq.data.Options[0] == nil ||
		rq.data.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		return reply{}, userErr("err_bad_option", nil)
	}
	sub := rq.data.Options[0]
	o := opts{list: sub.Options, resolved: rq.data.Resolved}
	reason, err := o.reason()
	if err != nil {
		return reply{}, err
	}
	switch sub.Name {
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
	}
	return reply{}, userErr("err_unknown_command", nil)
}

// adminGrant adds credits to a player, or sets the balance.
func (a *App) adminGrant(ctx context.Context, rq *request, o opts, reason string, set bool) (reply, error) {
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
	id := storage.PlayerID{Guild: rq.guild, User: target}
	var p storage.Player
	if set {
		p, err = a.store.SetBalance(ctx, rq.user, id, cents, reason)
	} else {
		p, err = a.store.Grant(ctx, rq.user, id, cents, reason)
	}
	switch {
	case errors.Is(err, storage.ErrInvalid):
		return reply{}, userErr("err_amount_refused", nil)
	case err != nil:
		op := "grant"
		if set {
			op = "set_balance"
		}
		return reply{}, internal(op, err)
	}
	l := rq.l
	msg, amount := "admin_granted", cents
	switch {
	case set:
		msg = "admin_set"
	case cents < 0:
		msg, amount = "admin_debited", -cents // "lost 5.00", not "received -5.00"
	}
	return adminDone(l.T(msg, map[string]any{
		"Amount": l.Credits(amount), "User": mention(target), "Balance": l.Credits(p.Balance),
	}), reason, l), nil
}

func (a *App) adminReset(ctx context.Context, rq *request, o opts, reason string) (reply, error) {
	target, err := o.player("user")
	if err != nil {
		return reply{}, err
	}
	p, err := a.store.ResetPlayer(ctx, rq.user, storage.PlayerID{Guild: rq.guild, User: target}, reason)
	switch {
	case errors.Is(err, storage.ErrInvalid):
		return reply{}, userErr("err_bad_option", nil)
	case err != nil:
		return reply{}, internal("reset_player", err)
	}
	l := rq.l
	return adminDone(l.T("admin_reset", map[string]any{"User": mention(target), "Balance": l.Credits(p.Balance)}), reason, l), nil
}

// adminResetGuild asks for confirmation: the buttons carry the moderator and
// the time asked, the reason rides in the embed.
func (a *App) adminResetGuild(rq *request, reason string) (reply, error) {
	l := rq.l
	confirm := customID{kind: kindResetConfirm, user: rq.user, ts: a.cfg.Now().Unix()}
	cancel := confirm
	cancel.kind = kindResetCancel
	e := infoEmbed(l.T("rg_title", nil), l.T("rg_ask", map[string]any{
		"Minutes": int(a.cfg.ConfirmTTL.Minutes()),
	}), 0xE03131)
	if reason != "" {
		e.Fields = []*discordgo.MessageEmbedField{{Name: l.T("field_reason", nil), Value: reason}}
	}
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("btn_rg_confirm", nil), Style: discordgo.DangerButton, CustomID: confirm.format()},
			discordgo.Button{Label: l.T("btn_cancel", nil), Style: discordgo.SecondaryButton, CustomID: cancel.format()},
		}}},
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: noMentions,
	}}, nil
}

// confirmCheck checks a reset-guild button: the same moderator, still a
// moderator, within the confirmation's lifetime.
func (a *App) confirmCheck(rq *request) (asked time.Time, err error) {
	if err := rq.owner(); err != nil {
		return asked, err
	}
	if rq.perms&modPerms == 0 {
		return asked, userErr("err_not_moderator", nil)
	}
	ts, now := rq.button.ts, a.cfg.Now().Unix()
	if ts > now+60 || now-ts > int64(a.cfg.ConfirmTTL.Seconds()) {
		return asked, userErr("err_confirm_expired", nil)
	}
	return time.Unix(ts, 0), nil
}

func (a *App) handleResetConfirm(ctx context.Context, rq *request) (reply, error) {
	asked, err := a.confirmCheck(rq)
	if err != nil {
		return reply{}, err
	}
	// A confirmation acts once: pressed again (a double click, a retry), it
	// shows the reset it already made. The moderator's interactions are
	// serialised (playerLocks), so the second press sees the first's entry.
	n, done, err := a.resetSince(ctx, rq, asked)
	if err != nil {
		return reply{}, internal("audit", err)
	}
	if !done {
		if n, err = a.store.ResetGuild(ctx, rq.user, rq.guild, confirmReason(rq.i)); err != nil {
			return reply{}, internal("reset_guild", err)
		}
	}
	l := rq.l
	e := infoEmbed(l.T("rg_title", nil), "✅ "+l.P("rg_done", n, map[string]any{"Count": n}), colourInfo)
	return reply{update: true, data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}, AllowedMentions: noMentions,
	}}, nil
}

// resetSince looks in the guild's audit log for a reset of the guild by this
// moderator since asked (the confirmation's time): done tells whether there
// is one, n how many players it reset.
func (a *App) resetSince(ctx context.Context, rq *request, asked time.Time) (n int, done bool, err error) {
	es, err := a.store.Audit(ctx, rq.guild, 50)
	if err != nil {
		return 0, false, err
	}
	for _, e := range es {
		if e.Action == "reset-guild" && e.Actor == rq.user && !e.At.Before(asked) {
			return int(e.Amount), true, nil
		}
	}
	return 0, false, nil
}

func (a *App) handleResetCancel(_ context.Context, rq *request) (reply, error) {
	if err := rq.owner(); err != nil {
		return reply{}, err
	}
	l := rq.l
	e := infoEmbed(l.T("rg_title", nil), l.T("rg_cancelled", nil), colourLoss)
	return reply{update: true, data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}, AllowedMentions: noMentions,
	}}, nil
}

// confirmReason reads the reason back from the confirmation message (only
// the bot writes it), bounded.
func confirmReason(i *discordgo.Interaction) string {
	if i.Message == nil || len(i.Message.Embeds) == 0 || i.Message.Embeds[0] == nil ||
		len(i.Message.Embeds[0].Fields) == 0 || i.Message.Embeds[0].Fields[0] == nil {
		return ""
	}
	return truncateRunes(i.Message.Embeds[0].Fields[0].Value, maxReason-1)
}

// adminSettings shows the settings, changing them first if options are given.
func (a *App) adminSettings(ctx context.Context, rq *request, o opts, reason string) (reply, error) {
	set, err := a.store.Settings(ctx, rq.guild)
	if err != nil {
		return reply{}, internal("settings", err)
	}
	if err := o.checkTypes(settingsOptions); err != nil {
		return reply{}, err
	}
	changed := false
	if s, ok := o.str("starting-balance"); ok {
		if set.StartingBalance, err = parseCredits(s, false); err != nil {
			return reply{}, err
		}
		changed = true
	}
	if s, ok := o.str("daily-amount"); ok {
		if set.DailyAmount, err = parseCredits(s, false); err != nil {
			return reply{}, err
		}
		changed = true
	}
	if v, ok := o.boolean("public-plays"); ok {
		set.PublicPlays, changed = v, true
	}
	if ch, present, ok := o.snowflake("channel"); present {
		if !ok || !o.textChannel(ch) {
			return reply{}, userErr("err_bad_option", nil)
		}
		set.Channel, changed = ch, true
	}
	if v, ok := o.boolean("any-channel"); ok && v {
		if _, present, _ := o.snowflake("channel"); present {
			return reply{}, userErr("err_channel_conflict", nil)
		}
		set.Channel, changed = 0, true
	}
	if changed {
		err = a.store.SetSettings(ctx, rq.user, rq.guild, set, reason)
		switch {
		case errors.Is(err, storage.ErrInvalid):
			return reply{}, userErr("err_amount_refused", nil)
		case err != nil:
			return reply{}, internal("set_settings", err)
		}
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
	)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}, nil
}

func (a *App) adminAudit(ctx context.Context, rq *request) (reply, error) {
	es, err := a.store.Audit(ctx, rq.guild, auditSize)
	if err != nil {
		return reply{}, internal("audit", err)
	}
	l := rq.l
	var b strings.Builder
	if len(es) == 0 {
		b.WriteString(l.T("audit_empty", nil))
	}
	for _, e := range es {
		b.WriteString(timestamp(e.At.Unix(), "R"))
		b.WriteString(" · ")
		b.WriteString(mention(e.Actor))
		b.WriteString(" · **")
		b.WriteString(auditAction(l, e.Action))
		b.WriteString("**")
		if e.Target != 0 {
			b.WriteString(" → ")
			b.WriteString(mention(e.Target))
		}
		if e.Action == "grant" || e.Action == "set-balance" {
			b.WriteString(" · ")
			b.WriteString(l.Credits(e.Amount))
		}
		if e.Reason != "" {
			b.WriteString(" · “")
			b.WriteString(truncateRunes(strings.ReplaceAll(e.Reason, "\n", " "), 80))
			b.WriteString("”")
		}
		b.WriteByte('\n')
	}
	em := infoEmbed(l.T("audit_title", nil), b.String(), colourInfo)
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{em}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}, nil
}

// auditAction names a moderator action in the reader's language; an action
// this version does not know keeps its code.
func auditAction(l *lang, action string) string {
	switch action {
	case "grant":
		return l.T("audit_grant", nil)
	case "set-balance":
		return l.T("audit_set_balance", nil)
	case "reset":
		return l.T("audit_reset", nil)
	case "reset-guild":
		return l.T("audit_reset_guild", nil)
	case "settings":
		return l.T("audit_settings", nil)
	}
	return "`" + action + "`"
}

// adminDone is the ephemeral confirmation of a moderator's change.
func adminDone(text, reason string, l *lang) reply {
	e := infoEmbed("✅ "+l.T("admin_done", nil), text, colourInfo)
	if reason != "" {
		e.Fields = []*discordgo.MessageEmbedField{{Name: l.T("field_reason", nil), Value: reason}}
	}
	return reply{data: &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{e}, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
	}}
}

// opts reads a subcommand's options with their types checked (discordgo's
// typed getters panic on a mismatch).
type opts struct {
	list     []*discordgo.ApplicationCommandInteractionDataOption
	resolved *discordgo.ApplicationCommandInteractionDataResolved
}

func (o opts) get(name string, typ discordgo.ApplicationCommandOptionType) (any, bool) {
	for _, x := range o.list {
		if x != nil && x.Name == name {
			if x.Type != typ {
				return nil, false
			}
			return x.Value, x.Value != nil
		}
	}
	return nil, false
}

// settingsOptions are the types of /admin settings' options.
var settingsOptions = map[string]discordgo.ApplicationCommandOptionType{
	"starting-balance": discordgo.ApplicationCommandOptionString,
	"daily-amount":     discordgo.ApplicationCommandOptionString,
	"public-plays":     discordgo.ApplicationCommandOptionBoolean,
	"channel":          discordgo.ApplicationCommandOptionChannel,
	"any-channel":      discordgo.ApplicationCommandOptionBoolean,
	"reason":           discordgo.ApplicationCommandOptionString,
}

// checkTypes refuses an option of another type than its definition's, or
// without a value: a payload Discord would not send, which would otherwise be
// read as the option being absent and silently ignored.
func (o opts) checkTypes(types map[string]discordgo.ApplicationCommandOptionType) error {
	for _, x := range o.list {
		if x == nil {
			continue
		}
		want, known := types[x.Name]
		if !known {
			continue
		}
		var valueOK bool
		switch x.Value.(type) {
		case string:
			valueOK = want != discordgo.ApplicationCommandOptionBoolean
		case bool:
			valueOK = want == discordgo.ApplicationCommandOptionBoolean
		}
		if x.Type != want || !valueOK {
			return userErr("err_bad_option", nil)
		}
	}
	return nil
}

// textChannel reports whether the channel id, as resolved by Discord, is a
// text channel (the option's ChannelTypes); unresolved ids pass.
func (o opts) textChannel(id uint64) bool {
	if o.resolved == nil {
		return true
	}
	c := o.resolved.Channels[strconv.FormatUint(id, 10)]
	return c == nil || c.Type == discordgo.ChannelTypeGuildText
}

func (o opts) str(name string) (string, bool) {
	v, ok := o.get(name, discordgo.ApplicationCommandOptionString)
	s, isStr := v.(string)
	return s, ok && isStr
}

func (o opts) boolean(name string) (bool, bool) {
	v, ok := o.get(name, discordgo.ApplicationCommandOptionBoolean)
	b, isBool := v.(bool)
	return b, ok && isBool
}

// snowflake reads a channel option: present tells whether it was given, ok
// whether it is a valid ID.
func (o opts) snowflake(name string) (id uint64, present, ok bool) {
	for _, x := range o.list {
		if x != nil && x.Name == name {
			s, isStr := x.Value.(string)
			if x.Type != discordgo.ApplicationCommandOptionChannel || !isStr {
				return 0, true, false
			}
			id, ok = parseSnowflake(s)
			return id, true, ok
		}
	}
	return 0, false, false
}

// player reads a user option; bots are refused.
func (o opts) player(name string) (uint64, error) {
	v, ok := o.get(name, discordgo.ApplicationCommandOptionUser)
	s, isStr := v.(string)
	if !ok || !isStr {
		return 0, userErr("err_bad_option", nil)
	}
	id, ok := parseSnowflake(s)
	if !ok {
		return 0, userErr("err_bad_option", nil)
	}
	if o.resolved != nil {
		if u := o.resolved.Users[s]; u != nil && u.Bot {
			return 0, userErr("err_bot_player", nil)
		}
	}
	return id, nil
}

// reason reads the optional reason, at most maxReason characters.
func (o opts) reason() (string, error) {
	for _, x := range o.list {
		if x != nil && x.Name == "reason" {
			s, ok := x.Value.(string)
			if x.Type != discordgo.ApplicationCommandOptionString || !ok || !utf8.ValidString(s) {
				return "", userErr("err_bad_option", nil)
			}
			s = strings.TrimSpace(s)
			if utf8.RuneCountInString(s) > maxReason {
				return "", userErr("err_reason_long", map[string]any{"Max": maxReason})
			}
			return s, nil
		}
	}
	return "", nil
}

// parseCredits parses an amount of credits typed by a moderator into cents:
// optional minus sign (when negative is allowed), digits, optionally a '.'
// or ',' and one or two decimals. Anything else — exponents, NaN, spaces
// inside, thousands separators, three decimals, more than 10^10 credits — is
// refused with a user error.
func parseCredits(s string, negative bool) (int64, error) {
	bad := userErr("err_bad_amount", map[string]any{"Value": truncateRunes(s, maxAmountLen)})
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if neg && !negative {
		return 0, userErr("err_negative", nil)
	}
	intPart, frac := s, ""
	if i := strings.IndexAny(s, ".,"); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
		if frac == "" {
			return 0, bad
		}
	}
	if intPart == "" || len(intPart) > 10 || len(frac) > 2 || !allDigits(intPart) || !allDigits(frac) {
		return 0, bad
	}
	units, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, bad
	}
	cents := units * 100
	if len(frac) > 0 {
		f, _ := strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			f *= 10
		}
		cents += f
	}
	if cents > maxAmountCents {
		return 0, bad
	}
	if neg {
		cents = -cents
	}
	return cents, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// truncateRunes cuts s to at most n characters, never inside a character.
func truncateRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
