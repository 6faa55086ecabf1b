package game

// MainTotal is the pool of the regulation's main-game tables: every winning
// tier's chance is an integer count out of MainTotal (10^8 is the smallest pool
// that reproduces all six rounded "1 chance in N" figures of article 3.1.3).
const MainTotal int64 = 100_000_000

// Pool is the range of the single uniform draw that decides a play:
// MainTotal × 12, so that the key chances 1/2, 1/3 and 1/4 are integer counts
// too. A winning tier of weight w out of MainTotal takes 12·w values of the pool.
const Pool int64 = MainTotal * 12

// ChestTotal is the pool of the treasure chest's table (article 3.2): the
// smallest that reproduces the regulation's four rounded figures.
const ChestTotal int64 = 250_000

// tierTable holds, per winning tier, the prize in cents and the weight out of
// MainTotal. Index by Tier; index TierLoss holds the losing play's weight.
var tierTable = [NumTiers]struct {
	prize  int64 // cents
	weight int64 // out of MainTotal
}{
	TierLoss:   {0, 74_553_117},
	TierGem:    {500_000, 50},    // 5 000 €, 1 in 2 000 000,000
	TierPipe:   {10_000, 133},    // 100 €,   1 in 751 879,699
	TierBomb:   {1_000, 250_000}, // 10 €,    1 in 400,000
	TierSabre:  {500, 1_160_000}, // 5 €,     1 in 86,207
	TierCandle: {100, 7_036_700}, // 1 €,     1 in 14,211
	TierBarrel: {50, 17_000_000}, // 0,50 €,  1 in 5,882
}

// lotTable holds, per chest lot, the prize in cents, the weight out of
// ChestTotal and the coins the chest shows.
var lotTable = [NumLots]struct {
	prize  int64 // cents
	weight int64 // out of ChestTotal
	coins  int
	metal  string
}{
	LotThreeGold: {1_000_000, 1, 3, "gold"},   // 10 000 €, 1 in 250 000,000
	LotGold:      {500, 15_000, 1, "gold"},    // 5 €,      1 in 16,667
	LotSilver:    {100, 130_501, 1, "silver"}, // 1 €,      1 in 1,916
	LotBronze:    {50, 104_498, 1, "bronze"},  // 0,50 €,   1 in 2,392
}

// keyTable is the key reading, in one place: keyTable[k] is the number of
// values of the Pool that mean "losing play that collects a key" for a
// player holding k keys. The regulation's "1 chance in 2, 3, 4" is read per
// play (docs/game.md, "Keys"); to read it "given a losing play", change this table
// and KeyReadingEN/KeyReadingFR: everything else follows.
var keyTable = [MaxKeys]int64{
	Pool / 2,
	Pool / 3,
	Pool / 4,
}

// KeyReadingEN states, for /rules, how the key odds are read.
const KeyReadingEN = "A losing play may collect one key. The chance is counted over all plays: " +
	"1 in 2 with no key held, 1 in 3 with one key, 1 in 4 with two keys. " +
	"A winning play never collects a key."

// KeyReadingFR is KeyReadingEN in French.
const KeyReadingFR = "Une prise de jeu perdante peut collecter une clef. La chance est comptée sur " +
	"l'ensemble des prises de jeu : 1 sur 2 sans clef, 1 sur 3 avec une clef, 1 sur 4 avec deux clefs. " +
	"Une prise de jeu gagnante ne donne jamais de clef."

// Prize returns the prize of the tier in cents: 0 for TierLoss and for an
// invalid tier.
func (t Tier) Prize() int64 { return entry(tierTable[:], t).prize }

// Weight returns the tier's weight out of MainTotal (the losing play's weight
// for TierLoss), or 0 for an invalid tier.
func (t Tier) Weight() int64 { return entry(tierTable[:], t).weight }

// Prize returns the lot's prize in cents, or 0 for an invalid lot.
func (l Lot) Prize() int64 { return entry(lotTable[:], l).prize }

// Weight returns the lot's weight out of ChestTotal, or 0 for an invalid lot.
func (l Lot) Weight() int64 { return entry(lotTable[:], l).weight }

// entry returns table[v], or the zero entry for a v out of range.
func entry[E any, T ~int | ~uint8](table []E, v T) (e E) {
	if v >= 0 && int(v) < len(table) {
		e = table[v]
	}
	return e
}

// Coins returns how many coins the chest shows for this lot (3 for
// LotThreeGold, 1 otherwise) and their metal ("gold", "silver", "bronze").
func (l Lot) Coins() (n int, metal string) {
	e := entry(lotTable[:], l)
	return e.coins, e.metal
}

// KeyWeight returns keyTable[keysHeld], or 0 out of 0..MaxKeys-1.
func KeyWeight(keysHeld int) int64 { return entry(keyTable[:], keysHeld) }
