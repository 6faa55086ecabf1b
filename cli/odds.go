package cli

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"text/tabwriter"

	"github.com/lesclefsdutresor/clefs/game"
)

// runOdds prints the exact odds and the return to player, computed from the
// game's tables with exact rationals.
func runOdds(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("odds", stderr, "Usage: clefs odds [-lang en|fr]\n\nPrints every chance of the game, its expected prizes and its return to\nplayer, computed exactly from the game's tables.\n")
	lang := fs.String("lang", "en", "number style: en (2,000,000.000) or fr (2 000 000,000, as the regulation)")
	if err := parseFlags(fs, "odds", args, 0); err != nil {
		return err
	}
	gl, ok := map[string]game.Lang{"en": game.English, "fr": game.French}[*lang]
	if !ok {
		return usageError{fmt.Sprintf("odds: -lang: want en or fr, got %q", *lang)}
	}
	if err := writeOdds(stdout, game.ComputeOdds(), gl); err != nil {
		return fmt.Errorf("odds: %w", err)
	}
	return nil
}

// writeOdds renders the odds as plain-text tables.
func writeOdds(w io.Writer, o game.Odds, lang game.Lang) error {
	num := func(r *big.Rat, prec int) string { return game.FormatRat(r, prec, lang) }
	int64s := func(n int64) string { return game.FormatRat(big.NewRat(n, 1), 0, lang) }
	cents := func(c int64) string { return game.FormatCents(c, lang) }

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "Les Clefs du Trésor: exact odds from the game's tables (stake %s)\n\n", cents(game.Stake))
	fmt.Fprintf(w, "Main game: one draw among %s values (%s × 12); weights out of %s\n",
		int64s(game.Pool), int64s(game.MainTotal), int64s(game.MainTotal))
	fmt.Fprintln(tw, "result\tprize\tweight\tprobability\t1 chance in\t")
	for t := game.TierGem; t < game.NumTiers; t++ {
		x := o.Tiers[t]
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s\t%s\t\n", t, cents(x.Prize), int64s(x.Weight), x.P.RatString(), x.OneInString(lang))
	}
	loss := o.Tiers[game.TierLoss]
	fmt.Fprintf(tw, "all winning tiers\t\t%s\t%s\t%s\t\n", int64s(game.MainTotal-loss.Weight), o.Win.RatString(), num(o.WinOneIn, 3))
	fmt.Fprintf(tw, "losing play\t\t%s\t%s\t%s\t\n", int64s(loss.Weight), loss.P.RatString(), num(loss.OneIn, 3))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "All tiers together: about 1 chance in %s.\n\n", o.WinOneInString(lang))

	reading := game.KeyReadingEN
	if lang == game.French {
		reading = game.KeyReadingFR
	}
	fmt.Fprintln(w, "Keys: "+reading)
	fmt.Fprintln(tw, "keys held\tkey weight\tper play\t1 chance in\tgiven a losing play\tshare of plays\t")
	for _, k := range o.Keys {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s (%s)\t%s\t\n", k.KeysHeld, int64s(k.Weight), k.P.RatString(), num(k.OneIn, 3),
			k.GivenLoss.RatString(), num(k.GivenLoss, 5), k.Share.RatString())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "The third key opens the chest: one chest every %s plays on average.\n\n", num(o.PlaysPerChest, 3))

	fmt.Fprintf(w, "Treasure chest: weights out of %s\n", int64s(game.ChestTotal))
	fmt.Fprintln(tw, "lot\tprize\tweight\tprobability\t1 chance in\t")
	for _, l := range o.Lots {
		n, metal := l.Lot.Coins()
		fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\t%s\t\n", n, metal, cents(l.Prize), int64s(l.Weight), l.P.RatString(), l.OneInString(lang))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)

	fmt.Fprintln(tw, "expected main-game prize per play\t"+num(o.ExpectedMainPrize, 3)+" cents\t"+o.ExpectedMainPrize.RatString()+"\t")
	fmt.Fprintln(tw, "expected chest prize per chest\t"+num(o.ExpectedChestPrize, 3)+" cents\t"+o.ExpectedChestPrize.RatString()+"\t")
	fmt.Fprintln(tw, "plays per chest\t"+num(o.PlaysPerChest, 3)+"\t"+o.PlaysPerChest.RatString()+"\t")
	fmt.Fprintln(tw, "expected prize per play\t"+num(o.ExpectedPrize, 3)+" cents\t"+o.ExpectedPrize.RatString()+"\t")
	fmt.Fprintln(tw, "return to player\t"+o.RTPString(3, lang)+"\t"+o.RTP.RatString()+"\t")
	return tw.Flush()
}
