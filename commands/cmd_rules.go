package commands

import (
	"context"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

// rulesCommand is /rules: the figures of game.ComputeOdds, rendered once
// per language.
func rulesCommand(rd *renderer, cat *catalog) *command {
	odds := game.ComputeOdds()
	en := rd.rulesEmbeds(cat.en, odds, game.English)
	fr := rd.rulesEmbeds(cat.fr, odds, game.French)
	return &command{
		def: slash("rules", "regles",
			"The rules, the prizes and the exact odds",
			"Les règles, les lots et les chances exactes"),
		h: func(_ context.Context, rq *request) (reply, error) {
			embeds := en
			if rq.l.fr {
				embeds = fr
			}
			return ephemeralEmbed(embeds...), nil
		},
	}
}

func (rd *renderer) rulesEmbeds(l *lang, o game.Odds, gl game.Lang) []*discordgo.MessageEmbed {
	main := l.T("rules_main_intro", map[string]any{"Stake": l.Credits(game.Stake)}) + "\n\n"
	for t := game.TierGem; t < game.NumTiers; t++ {
		to := o.Tiers[t]
		s := rd.symbol(t.Symbol())
		main += l.T("rules_tier_line", map[string]any{
			"Symbols": s + s + s,
			"Prize":   l.Credits(to.Prize),
			"OneIn":   to.OneInString(gl),
		}) + "\n"
	}
	main += "\n" + l.T("rules_win_all", map[string]any{"OneIn": o.WinOneInString(gl)})

	keys := l.T("rules_keys_intro", nil) + "\n\n"
	for k := 0; k < game.MaxKeys; k++ {
		keys += padlocks(k) + " " + l.P("rules_key_line", k, map[string]any{
			"Count": k, "OneIn": game.FormatRat(o.Keys[k].OneIn, 0, gl),
		}) + "\n"
	}
	keys += "\n" + l.T("rules_keys_reading", map[string]any{"RTP": o.RTPString(0, gl)})

	chest := l.T("rules_chest_intro", nil) + "\n\n"
	for lot := game.LotThreeGold; lot < game.NumLots; lot++ {
		lo := o.Lots[lot]
		chest += l.T("rules_lot_line", map[string]any{
			"Emoji": lotEmoji[lot],
			"Lot":   l.T("lot_"+lot.String(), nil),
			"Prize": l.Credits(lo.Prize),
			"OneIn": lo.OneInString(gl),
		}) + "\n"
	}

	rtp := l.T("rules_rtp", map[string]any{
		"RTP":       o.RTPString(2, gl),
		"Main":      game.FormatRat(o.ExpectedMainPrize, 1, gl),
		"Chest":     game.FormatRat(o.ExpectedChestPrize, 1, gl),
		"PerChest":  game.FormatRat(o.PlaysPerChest, 0, gl),
		"Stake":     l.Credits(game.Stake),
		"PerPlay":   game.FormatRat(o.ExpectedPrize, 1, gl),
		"StakeCent": game.Stake,
	})
	return []*discordgo.MessageEmbed{
		infoEmbed(l.T("rules_title_main", nil), main, colourOpen),
		infoEmbed(l.T("rules_title_keys", nil), keys, colourChest),
		infoEmbed(l.T("rules_title_chest", nil), chest, colourWin),
		infoEmbed(l.T("rules_title_rtp", nil), rtp, colourInfo),
		infoEmbed(l.T("rules_title_care", nil), l.T("rules_care", nil), colourInfo),
	}
}
