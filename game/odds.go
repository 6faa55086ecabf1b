package game

import (
	"fmt"
	"math/big"
	"strings"
)

// Lang selects the number style of the formatting helpers.
type Lang uint8

// The two languages of the bot.
const (
	English Lang = iota // 2,000,000.000
	French              // 2 000 000,000 (as the regulation writes it)
)

// TierOdds is the exact chance of one result of the main game.
type TierOdds struct {
	Tier   Tier
	Prize  int64    // cents
	Weight int64    // out of MainTotal
	P      *big.Rat // probability per play
	OneIn  *big.Rat // 1/P; nil when P is 0
}

// OneInString formats "1 chance in N" to three decimals, rounded half up as
// the regulation does ("arrondi arithmétique au millième près").
func (t TierOdds) OneInString(lang Lang) string { return FormatRat(t.OneIn, 3, lang) }

// KeyOdds is the chance of collecting a key for a given number of keys held.
type KeyOdds struct {
	KeysHeld  int
	Weight    int64    // values of Pool meaning "loss with a key"
	P         *big.Rat // per play
	OneIn     *big.Rat // 1/P
	GivenLoss *big.Rat // P divided by the chance of losing
	Share     *big.Rat // long-run fraction of plays made holding KeysHeld keys
}

// LotOdds is the exact chance of one lot of the treasure chest.
type LotOdds struct {
	Lot    Lot
	Prize  int64    // cents
	Weight int64    // out of ChestTotal
	P      *big.Rat // probability per chest
	OneIn  *big.Rat // 1/P
}

// OneInString formats "1 chance in N" to three decimals, rounded half up.
func (l LotOdds) OneInString(lang Lang) string { return FormatRat(l.OneIn, 3, lang) }

// Odds holds every figure of the rules, computed exactly from the tables;
// amounts are in cents.
type Odds struct {
	Tiers              [NumTiers]TierOdds // indexed by Tier; Tiers[TierLoss] is the losing play
	Win                *big.Rat           // chance that a play wins, all tiers together
	WinOneIn           *big.Rat           // 1/Win (the regulation: "about 1 in 3.93")
	Keys               [MaxKeys]KeyOdds   // indexed by keys held
	Lots               [NumLots]LotOdds   // indexed by Lot
	ExpectedMainPrize  *big.Rat           // cents won in the main game per play (24.1)
	ExpectedChestPrize *big.Rat           // cents per chest opened (107.1)
	PlaysPerChest      *big.Rat           // expected plays between chests (9)
	ExpectedPrize      *big.Rat           // cents per play, main game and chest (36)
	RTP                *big.Rat           // return to player: ExpectedPrize / Stake (18/25)
}

// WinOneInString formats the overall "1 chance in N" to two decimals, as the
// regulation does ("3.93" / "3,93").
func (o Odds) WinOneInString(lang Lang) string { return FormatRat(o.WinOneIn, 2, lang) }

// RTPString formats the return to player as a percentage with prec decimals
// ("72.00%" / "72,00 %").
func (o Odds) RTPString(prec int, lang Lang) string { return FormatPercent(o.RTP, prec, lang) }

func inv(r *big.Rat) *big.Rat {
	if r.Sign() == 0 {
		return nil
	}
	return new(big.Rat).Inv(r)
}

// ComputeOdds computes every figure of the rules from the tables with exact
// rationals. Each call returns fresh values that the caller may keep.
func ComputeOdds() Odds {
	o := Odds{Win: new(big.Rat), ExpectedMainPrize: new(big.Rat), PlaysPerChest: new(big.Rat), ExpectedChestPrize: new(big.Rat)}
	for t := Tier(0); t < NumTiers; t++ {
		p := big.NewRat(tierTable[t].weight, MainTotal)
		o.Tiers[t] = TierOdds{Tier: t, Prize: tierTable[t].prize, Weight: tierTable[t].weight, P: p, OneIn: inv(p)}
		if t.Winning() {
			o.Win.Add(o.Win, p)
			o.ExpectedMainPrize.Add(o.ExpectedMainPrize, new(big.Rat).Mul(p, big.NewRat(tierTable[t].prize, 1)))
		}
	}
	o.WinOneIn = inv(o.Win)

	// A player holding k keys collects one with chance p_k per play, so the
	// keys held form a cycle 0 → 1 → 2 → chest whose stays are geometric with
	// means 1/p_k: a chest every Σ 1/p_k plays, and a share (1/p_k)/Σ of the
	// plays made holding k keys.
	lossP := o.Tiers[TierLoss].P
	for k := 0; k < MaxKeys; k++ {
		p := big.NewRat(keyTable[k], Pool)
		o.Keys[k] = KeyOdds{KeysHeld: k, Weight: keyTable[k], P: p, OneIn: inv(p),
			GivenLoss: new(big.Rat).Quo(p, lossP)}
		o.PlaysPerChest.Add(o.PlaysPerChest, o.Keys[k].OneIn)
	}
	for k := range o.Keys {
		o.Keys[k].Share = new(big.Rat).Quo(o.Keys[k].OneIn, o.PlaysPerChest)
	}

	for l := Lot(0); l < NumLots; l++ {
		p := big.NewRat(lotTable[l].weight, ChestTotal)
		o.Lots[l] = LotOdds{Lot: l, Prize: lotTable[l].prize, Weight: lotTable[l].weight, P: p, OneIn: inv(p)}
		o.ExpectedChestPrize.Add(o.ExpectedChestPrize, new(big.Rat).Mul(p, big.NewRat(lotTable[l].prize, 1)))
	}

	o.ExpectedPrize = new(big.Rat).Quo(o.ExpectedChestPrize, o.PlaysPerChest)
	o.ExpectedPrize.Add(o.ExpectedPrize, o.ExpectedMainPrize)
	o.RTP = new(big.Rat).Quo(o.ExpectedPrize, big.NewRat(Stake, 1))
	return o
}

// FormatRat writes r with prec decimals, rounded half away from zero (the
// regulation's "arrondi arithmétique"), thousands grouped in lang's style:
// "2,000,000.000", "2 000 000,000". A nil r gives "∞".
func FormatRat(r *big.Rat, prec int, lang Lang) string {
	if r == nil {
		return "∞"
	}
	return groupDigits(r.FloatString(prec), lang)
}

// FormatCents writes an amount of cents with two decimals and grouped
// thousands: 500000 gives "5,000.00" in English and "5 000,00" in French.
func FormatCents(cents int64, lang Lang) string {
	sign, u := "", uint64(cents)
	if cents < 0 {
		sign, u = "-", -u // in uint64, exact even for math.MinInt64
	}
	return groupDigits(fmt.Sprintf("%s%d.%02d", sign, u/100, u%100), lang)
}

// FormatPercent writes r (a fraction) as a percentage with prec decimals:
// 18/25 gives "72.00%" in English and "72,00 %" in French.
func FormatPercent(r *big.Rat, prec int, lang Lang) string {
	if r == nil {
		return "∞"
	}
	s := FormatRat(new(big.Rat).Mul(r, big.NewRat(100, 1)), prec, lang)
	if lang == French {
		return s + " %"
	}
	return s + "%"
}

// groupDigits rewrites a plain decimal string ("-1234.5") in the style of lang.
func groupDigits(s string, lang Lang) string {
	thousands, mark := ",", "."
	if lang == French {
		thousands, mark = " ", ","
	}
	s, neg := strings.CutPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteString("-")
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(thousands)
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString(mark)
		b.WriteString(frac)
	}
	return b.String()
}
