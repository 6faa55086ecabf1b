package game

import (
	"math/big"
	"testing"
)

// The figures of the regulation (article 3.1.3 and 3.2), as it writes them.
var regulationTiers = []struct {
	tier  Tier
	prize string // euros, French style
	oneIn string
}{
	{TierGem, "5 000,00", "2 000 000,000"},
	{TierPipe, "100,00", "751 879,699"},
	{TierBomb, "10,00", "400,000"},
	{TierSabre, "5,00", "86,207"},
	{TierCandle, "1,00", "14,211"},
	{TierBarrel, "0,50", "5,882"},
}

var regulationLots = []struct {
	lot   Lot
	prize string
	oneIn string
}{
	{LotThreeGold, "10 000,00", "250 000,000"},
	{LotGold, "5,00", "16,667"},
	{LotSilver, "1,00", "1,916"},
	{LotBronze, "0,50", "2,392"},
}

func TestOddsMatchRegulation(t *testing.T) {
	o := ComputeOdds()
	for _, tc := range regulationTiers {
		got := o.Tiers[tc.tier]
		if s := got.OneInString(French); s != tc.oneIn {
			t.Errorf("%v: 1 in %s, regulation says %s", tc.tier, s, tc.oneIn)
		}
		if s := FormatCents(got.Prize, French); s != tc.prize {
			t.Errorf("%v: prize %s, regulation says %s", tc.tier, s, tc.prize)
		}
	}
	for _, tc := range regulationLots {
		got := o.Lots[tc.lot]
		if s := got.OneInString(French); s != tc.oneIn {
			t.Errorf("%v: 1 in %s, regulation says %s", tc.lot, s, tc.oneIn)
		}
		if s := FormatCents(got.Prize, French); s != tc.prize {
			t.Errorf("%v: prize %s, regulation says %s", tc.lot, s, tc.prize)
		}
	}
	if s := o.WinOneInString(French); s != "3,93" {
		t.Errorf("overall: 1 in %s, regulation says about 3,93", s)
	}
	for k, want := range []int64{2, 3, 4} {
		if got := o.Keys[k].OneIn; got.Cmp(big.NewRat(want, 1)) != 0 {
			t.Errorf("key with %d held: 1 in %v, regulation says %d", k, got, want)
		}
	}
}

func TestOddsDesignFigures(t *testing.T) {
	o := ComputeOdds()
	tests := []struct {
		name string
		got  *big.Rat
		want *big.Rat
	}{
		{"expected main prize (cents per play)", o.ExpectedMainPrize, big.NewRat(241, 10)},
		{"expected chest prize (cents per chest)", o.ExpectedChestPrize, big.NewRat(1071, 10)},
		{"plays per chest", o.PlaysPerChest, big.NewRat(9, 1)},
		{"expected prize (cents per play)", o.ExpectedPrize, big.NewRat(36, 1)},
		{"return to player", o.RTP, big.NewRat(72, 100)},
		{"win chance", o.Win, big.NewRat(25_446_883, 100_000_000)},
		{"share of plays holding 0 keys", o.Keys[0].Share, big.NewRat(2, 9)},
		{"share of plays holding 1 key", o.Keys[1].Share, big.NewRat(3, 9)},
		{"share of plays holding 2 keys", o.Keys[2].Share, big.NewRat(4, 9)},
		{"key given a loss, 0 held", o.Keys[0].GivenLoss, big.NewRat(50_000_000, 74_553_117)},
	}
	for _, tc := range tests {
		if tc.got.Cmp(tc.want) != 0 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got.RatString(), tc.want.RatString())
		}
	}
	if s := o.RTPString(2, English); s != "72.00%" {
		t.Errorf("RTPString = %q", s)
	}
}

func TestTablesConsistent(t *testing.T) {
	var sum int64
	for tier := Tier(0); tier < NumTiers; tier++ {
		sum += tier.Weight()
		if tier.Winning() != (tier.Prize() > 0) {
			t.Errorf("%v: winning %v but prize %d", tier, tier.Winning(), tier.Prize())
		}
	}
	if sum != MainTotal {
		t.Errorf("tier weights sum to %d, want %d", sum, MainTotal)
	}
	sum = 0
	for l := Lot(0); l < NumLots; l++ {
		sum += l.Weight()
		if l.Prize() <= 0 {
			t.Errorf("%v: prize %d, a chest always wins", l, l.Prize())
		}
	}
	if sum != ChestTotal {
		t.Errorf("lot weights sum to %d, want %d", sum, ChestTotal)
	}
	loss := 12 * TierLoss.Weight()
	oneIn := [MaxKeys]int64{2, 3, 4} // "1 chance in 2, 3, 4", as the regulation writes it
	for k := 0; k < MaxKeys; k++ {
		if w := KeyWeight(k); w <= 0 || w > loss {
			t.Errorf("key weight %d for %d held outside (0, %d]", w, k, loss)
		}
		// The per-play reading: 1 chance in N over the whole pool.
		if KeyWeight(k)*oneIn[k] != Pool {
			t.Errorf("keys held %d: weight %d is not Pool/%d", k, KeyWeight(k), oneIn[k])
		}
	}
	for _, k := range []int{-1, MaxKeys} {
		if KeyWeight(k) != 0 {
			t.Errorf("keys held %d: want zero for out of range", k)
		}
	}
	if Tier(99).Prize() != 0 || Lot(99).Prize() != 0 || Tier(99).Weight() != 0 || Lot(99).Weight() != 0 {
		t.Error("invalid tier or lot must have no prize and no weight")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		r    *big.Rat
		prec int
		en   string
		fr   string
	}{
		{big.NewRat(2_000_000, 1), 3, "2,000,000.000", "2 000 000,000"},
		{big.NewRat(100_000_000, 133), 3, "751,879.699", "751 879,699"},
		{big.NewRat(1, 2000), 3, "0.001", "0,001"}, // half rounds up
		{big.NewRat(-1234567, 1), 0, "-1,234,567", "-1 234 567"},
		{big.NewRat(999, 1), 1, "999.0", "999,0"},
		{big.NewRat(1000, 1), 0, "1,000", "1 000"},
		{nil, 3, "∞", "∞"},
	}
	for _, tc := range tests {
		if got := FormatRat(tc.r, tc.prec, English); got != tc.en {
			t.Errorf("FormatRat(%v, %d, English) = %q, want %q", tc.r, tc.prec, got, tc.en)
		}
		if got := FormatRat(tc.r, tc.prec, French); got != tc.fr {
			t.Errorf("FormatRat(%v, %d, French) = %q, want %q", tc.r, tc.prec, got, tc.fr)
		}
	}
	cents := []struct {
		c      int64
		en, fr string
	}{
		{500_000, "5,000.00", "5 000,00"},
		{50, "0.50", "0,50"},
		{-1, "-0.01", "-0,01"},
		{0, "0.00", "0,00"},
	}
	for _, tc := range cents {
		if got := FormatCents(tc.c, English); got != tc.en {
			t.Errorf("FormatCents(%d, English) = %q, want %q", tc.c, got, tc.en)
		}
		if got := FormatCents(tc.c, French); got != tc.fr {
			t.Errorf("FormatCents(%d, French) = %q, want %q", tc.c, got, tc.fr)
		}
	}
	if got := FormatPercent(big.NewRat(18, 25), 1, French); got != "72,0 %" {
		t.Errorf("FormatPercent French = %q", got)
	}
}

func TestComputeOddsFresh(t *testing.T) {
	a := ComputeOdds()
	a.RTP.SetInt64(0)
	a.Tiers[TierGem].P.SetInt64(1)
	b := ComputeOdds()
	if b.RTP.Cmp(big.NewRat(18, 25)) != 0 || b.Tiers[TierGem].P.Cmp(big.NewRat(50, MainTotal)) != 0 {
		t.Fatal("ComputeOdds shares values between calls")
	}
}
