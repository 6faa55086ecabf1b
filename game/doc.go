// Package game holds the rules of « Les Clefs du Trésor »: the prize tables,
// the draw of a play and of the treasure chest, the grid shown to the player,
// the exact odds and a simulator that checks them. It is pure: no I/O, no
// global state, no Discord or storage code; randomness is injected as a
// Source.
//
// The rules' numbers live in tables.go: six winning tiers and the losing play
// as weights out of MainTotal (10^8), the key chances (KeyWeight, read per
// play, stated for players in KeyReadingEN and KeyReadingFR) and the four
// chest lots out of ChestTotal. One uniform value of [0, Pool) (Pool = 12 ×
// MainTotal) decides a play: the winning tiers take 12 × weight values each,
// "loss with a key" takes KeyWeight(k), the rest is "loss without a key".
// Integers are drawn without modulo bias (Lemire's multiply-and-reject).
//
// Play draws a play once and builds a grid that tells its truth; revealing it
// row by row is the caller's business. Draw gives the result without the
// grid and NewGrid builds the grid for a result; Validate checks an outcome
// read back from storage. OpenChest draws the chest. ComputeOdds gives every
// figure of the regulation as exact rationals, with FormatRat, FormatCents and
// FormatPercent to print them in English or French style. Simulate plays
// billions of plays on every core and compares them with the exact odds.
//
// Usage:
//
//	src := game.NewSecureSource() // once; safe for concurrent use
//	o, err := game.Play(src, keysHeld)
//	if err != nil {
//		return err // keysHeld out of range: nothing was drawn
//	}
//	fmt.Println(o.Tier, o.Prize, o.Key, o.Grid) // e.g. "barrel 50 false CRRRRRCSB"
//	if o.Key && keysHeld+1 == game.MaxKeys {
//		chest := game.OpenChest(src) // the third key opens the chest at once
//		fmt.Println(chest.Lot, game.FormatCents(chest.Prize, game.French))
//	}
//
//	odds := game.ComputeOdds()
//	fmt.Println(odds.Tiers[game.TierGem].OneInString(game.French)) // 2 000 000,000
//	fmt.Println(odds.RTPString(2, game.English))                 // 72.00%
package game
