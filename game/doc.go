// Package game holds the rules of « Les Clefs du Trésor »: the prize tables,
// the draw of a play and of the treasure chest, the grid shown to the player,
// a player's state and every rule that changes it, the exact odds and a
// simulator that checks them. It is pure: no I/O, no global state, no
// Discord or storage code; randomness and time are injected.
//
// # The numbers
//
// The rules' numbers live in tables.go: six winning tiers and the losing play
// as weights out of MainTotal (10^8), the key chances (KeyWeight, read per
// play, stated for players in KeyReadingEN and KeyReadingFR) and the four
// chest lots out of ChestTotal. One uniform value of [0, Pool) (Pool = 12 ×
// MainTotal) decides a play: the winning tiers take 12 × weight values each,
// "loss with a key" takes KeyWeight(k), the rest is "loss without a key".
// Integers are drawn without modulo bias (Lemire's multiply-and-reject).
//
// A play is drawn once, with a grid that tells its truth (see Verifiable
// draws below); Validate checks an outcome read back from storage.
// ComputeOdds gives every figure of the regulation as exact rationals, with
// FormatRat, FormatCents and FormatPercent to print them in English or
// French style. Simulate plays billions of plays on every core
// and compares them with the exact odds.
//
// # A player's state
//
// Player is the whole state of one player; limits.go holds its limits
// (MaxBalance, MaxGrant, …) and its errors (ErrInsufficientFunds, …).
// Every change is a pure transition, a method that returns a Step (the new
// state, the history entries to append, the Result to show) or an error
// that changes nothing: NewPlayer, Buy, Reveal, OpenChest, ClaimDaily, Grant,
// SetBalance, Reset. Every transition checks the state it returns
// (Player.Check). A store loads a player, runs the transition through Apply
// with the operation's ID, and writes the Step back atomically (compare and
// set on a version, retried on conflict): Apply makes the operation
// idempotent, so a double click or a retried request returns the first
// result and changes nothing. Times are recorded as given: pass now as the
// store will keep it.
//
// A ticket is settled at its draw, the first reveal, but shown row by row:
// Player.Seen and Player.SeenHistory give the state and the history as the
// player has seen them, without what the rows of the ticket being revealed
// have not shown yet (Ticket.PrizeShown, Ticket.KeyShown), for every view
// of the player's own; the stored state is the truth.
//
// # A guild
//
// Guild is a guild's state: its Settings (with the House rules), the
// operations recently applied to it and the progress of its last
// reset-guild (GuildReset). Its transitions are pure too: SetSettings, and
// StartReset, ResetProgress and FinishReset for a reset-guild that may
// stop and continue later. ApplyGuild applies them under an operation ID,
// as Apply does for a player, and bounds the IDs remembered (MaxGuildOps);
// a step returns the moderator log's AuditEntry, checked by
// AuditEntry.Check wherever it is stored.
//
// # Verifiable draws
//
// Production draws go through SeededDrawer: a ticket is a function of the
// player's server seed (NewSeed), client seed, ticket number and keys held,
// through an HMAC-SHA256 stream (docs/FAIRNESS.md), so that drawing it again
// gives the same outcome and the player can verify it once the seed is
// revealed; FairDraws draws many of one seed. Tests inject their own Drawer
// to force outcomes; the simulator draws from NewSeededSource, or through
// FairDraws with SimConfig.Fair.
//
// Usage, in a store:
//
//	p, err := game.NewPlayer(start, seed, client, now) // from game.NewSeed and game.NewClientSeed(crypto/rand.Reader)
//	…
//	s, repeated, err := game.Apply(p, interactionID, func(p game.Player) (game.Step, error) {
//		return p.Reveal(game.SeededDrawer{}, ticket, game.AllRows, now)
//	})
//	if err != nil {
//		return err // errors.Is(err, game.ErrUnknownTicket)…: nothing changed
//	}
//	// write s.Player and append s.History atomically (skip when repeated),
//	// then show s.Result and s.Player.Ticket.
//
// And the odds:
//
//	odds := game.ComputeOdds()
//	fmt.Println(odds.Tiers[game.TierGem].OneInString(game.French)) // 2 000 000,000
//	fmt.Println(odds.RTPString(2, game.English))                 // 72.00%
package game
