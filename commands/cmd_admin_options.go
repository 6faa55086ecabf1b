package commands

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

// settingsPatchOf reads /admin settings' options.
func settingsPatchOf(o opts) (game.SettingsPatch, error) {
	var sp game.SettingsPatch
	if err := o.checkTypes(); err != nil {
		return sp, err
	}
	credits := func(name string, to **int64) error {
		s, ok := o.str(name)
		if !ok {
			return nil
		}
		v, err := parseCredits(s, false)
		*to = &v
		return err
	}
	if err := errors.Join(credits("starting-balance", &sp.StartingBalance), credits("daily-amount", &sp.DailyAmount)); err != nil {
		return sp, err
	}
	if v, _, ok := lookup[bool](o, "public-plays", discordgo.ApplicationCommandOptionBoolean); ok {
		sp.PublicPlays = &v
	}
	if id, present, ok := lookup[string](o, "channel", discordgo.ApplicationCommandOptionChannel); present {
		ch, valid := parseSnowflake(id)
		if !ok || !valid || !o.textChannel(ch) {
			return sp, userErr("err_bad_option", nil)
		}
		sp.Channel = &ch
	}
	if v, _, ok := lookup[bool](o, "any-channel", discordgo.ApplicationCommandOptionBoolean); ok && v {
		if sp.Channel != nil {
			return sp, userErr("err_channel_conflict", nil)
		}
		sp.Channel = new(uint64(0))
	}
	if err := credits("max-stake-day", &sp.MaxStakeDay); err != nil {
		return sp, err
	}
	if sp.MaxStakeDay != nil && *sp.MaxStakeDay > game.MaxLimit {
		return sp, userErr("err_limit_amount", map[string]any{"Max": formatAmount(game.MaxLimit, false)})
	}
	// integer reads option name, from 0 to hi, into set.
	integer := func(name string, hi int, set func(n int)) error {
		n, present, ok := lookup[int64](o, name, discordgo.ApplicationCommandOptionInteger)
		switch {
		case !present:
			return nil
		case !ok || n < 0 || n > int64(hi):
			return userErr("err_setting_range", map[string]any{"Name": name, "Min": 0, "Max": hi})
		}
		set(int(n))
		return nil
	}
	if err := integer("min-interval", int(game.MaxMinInterval/time.Second), func(n int) { sp.MinInterval = new(time.Duration(n) * time.Second) }); err != nil {
		return sp, err
	}
	if err := integer("reality-plays", game.MaxRealityPlay, func(n int) { sp.RealityPlays = &n }); err != nil {
		return sp, err
	}
	if err := integer("reality-minutes", int(game.MaxReminder/time.Minute), func(n int) { sp.RealityEvery = new(time.Duration(n) * time.Minute) }); err != nil {
		return sp, err
	}
	if sp.RealityEvery != nil && game.CheckReminder(*sp.RealityEvery) != nil {
		return sp, userErr("err_setting_range", map[string]any{"Name": "reality-minutes", "Min": int(game.MinReminder / time.Minute), "Max": int(game.MaxReminder / time.Minute)})
	}
	return sp, nil
}

// subcommand returns the name and options of the command's one
// subcommand, or err_bad_option for a payload without exactly one.
func (rq *request) subcommand() (string, opts, error) {
	d := rq.data
	if len(d.Options) != 1 || d.Options[0] == nil || d.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		return "", opts{}, userErr("err_bad_option", nil)
	}
	sub := d.Options[0]
	o := opts{list: sub.Options, resolved: d.Resolved}
	if rq.def != nil {
		if i := slices.IndexFunc(rq.def.Options, func(x *discordgo.ApplicationCommandOption) bool { return x.Name == sub.Name }); i >= 0 {
			o.defs = rq.def.Options[i].Options
		}
	}
	return sub.Name, o, nil
}

// opts reads a subcommand's options with their types checked (discordgo's
// typed getters panic on a mismatch).
type opts struct {
	list     []*discordgo.ApplicationCommandInteractionDataOption
	resolved *discordgo.ApplicationCommandInteractionDataResolved
	defs     []*discordgo.ApplicationCommandOption // the subcommand's definition
}

// lookup returns the value of option name as OptionValue types it for typ
// (T: its Go type): present tells whether the option was given, ok whether
// with type typ.
func lookup[T any](o opts, name string, typ discordgo.ApplicationCommandOptionType) (v T, present, ok bool) {
	for _, x := range o.list {
		if x != nil && x.Name == name {
			val, ok := OptionValue(typ, x.Value)
			v, _ = val.(T)
			return v, true, ok && x.Type == typ
		}
	}
	return v, false, false
}

// OptionValue returns v, the value of an option of type typ as decoded
// from JSON, as the Go value of that type: a string for a string, user,
// channel, role or mentionable option; a bool; a float64 for a number; an
// int64 for an integer, a whole number of at most 2^53 in absolute value.
// ok is false for any other value. clefs try types its values with it.
func OptionValue(typ discordgo.ApplicationCommandOptionType, v any) (any, bool) {
	switch typ {
	case discordgo.ApplicationCommandOptionString, discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionChannel,
		discordgo.ApplicationCommandOptionRole, discordgo.ApplicationCommandOptionMentionable:
		if s, ok := v.(string); ok {
			return s, true
		}
	case discordgo.ApplicationCommandOptionBoolean:
		if b, ok := v.(bool); ok {
			return b, true
		}
	case discordgo.ApplicationCommandOptionNumber:
		if f, ok := v.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	case discordgo.ApplicationCommandOptionInteger:
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return int64(f), true
		}
	}
	return nil, false
}

// checkTypes refuses an option of another type than its definition's, or
// without a value: a payload Discord would not send, which would otherwise be
// read as the option being absent and silently ignored.
func (o opts) checkTypes() error {
	for _, x := range o.list {
		i := slices.IndexFunc(o.defs, func(d *discordgo.ApplicationCommandOption) bool { return x != nil && d.Name == x.Name })
		if i < 0 {
			continue
		}
		want := o.defs[i].Type
		// A number for an integer option: whether it is whole, the
		// option's reader says in its own words.
		kind := want
		if kind == discordgo.ApplicationCommandOptionInteger {
			kind = discordgo.ApplicationCommandOptionNumber
		}
		_, valueOK := OptionValue(kind, x.Value)
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
	s, _, ok := lookup[string](o, name, discordgo.ApplicationCommandOptionString)
	return s, ok
}

// player reads a user option; bots are refused.
func (o opts) player(name string) (uint64, error) {
	s, _, ok := lookup[string](o, name, discordgo.ApplicationCommandOptionUser)
	id, valid := parseSnowflake(s)
	if !ok || !valid {
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
	s, present, ok := lookup[string](o, "reason", discordgo.ApplicationCommandOptionString)
	if !present {
		return "", nil
	}
	if !ok || !utf8.ValidString(s) {
		return "", userErr("err_bad_option", nil)
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxReason {
		return "", userErr("err_reason_long", map[string]any{"Max": maxReason})
	}
	return s, nil
}

// moderatorCredits is how a moderator may write an amount: a sign, ',' or
// '.' before the decimals, below maxAmountCents (10^10 credits).
var moderatorCredits = game.CreditSyntax{Signed: true, Comma: true, Max: maxAmountCents - 1}

// parseCredits parses an amount of credits typed by a moderator into cents
// (moderatorCredits; '-' only when negative is allowed). A refusal is a
// user error naming what was typed.
func parseCredits(s string, negative bool) (int64, error) {
	typed := strings.TrimSpace(s)
	if !negative && strings.HasPrefix(typed, "-") {
		return 0, userErr("err_negative", nil)
	}
	cents, err := game.ParseCredits(typed, moderatorCredits)
	switch {
	case errors.Is(err, game.ErrCreditRange):
		return 0, userErr("err_amount_range", map[string]any{"Value": clip(strings.TrimLeft(typed, "+-"), maxAmountLen+1), "Max": formatAmount(moderatorCredits.Max, false)})
	case err != nil:
		return 0, userErr("err_bad_amount", map[string]any{"Value": clip(s, maxAmountLen+1)})
	}
	return cents, nil
}
