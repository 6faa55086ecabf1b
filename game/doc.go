// Package game holds the rules of « Les Clefs du Trésor »: the prize tables,
// the draws of a ticket and of the treasure chest, the grid shown, a
// player's and a guild's state and every rule that changes them, the exact
// odds and a simulator that checks them. It is pure: no I/O, no global
// state, no Discord or storage code; randomness and time are injected.
//
// The numbers live in tables.go: six winning tiers and the loss as weights
// out of MainTotal, the key chances (KeyWeight) and the chest lots out of
// ChestTotal. ComputeOdds gives every figure as exact rationals; Simulate
// plays billions of tickets and compares them with it.
//
// A change of a player is a Move (Buy, Reveal, OpenChest, …) that Apply
// applies, purely, returning a Step or an error that changes nothing; every
// step passes Player.Check. A guild's change is a GuildMove that ApplyGuild
// applies the same way. How a store runs them: docs/architecture.md, "One
// click, file by file".
//
// Production draws go through SeededDrawer: a ticket is a function of the
// player's server seed, client seed, ticket number and keys held
// (docs/FAIRNESS.md), so that the player can recompute it once the seed is
// revealed (Player.Verify, CheckLinks).
//
// ExampleApply shows a store's use, ExampleComputeOdds the odds.
package game
