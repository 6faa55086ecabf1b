package storage_test

import (
	"fmt"

	"github.com/lesclefsdutresor/clefs/storage"
)

func ExampleCheckInvariant() {
	p := storage.Player{
		ID:              storage.PlayerID{Guild: 1, User: 2},
		StartingBalance: 1000,
		Balance:         1000 - 2*50 + 100,
		Stats:           storage.Stats{Plays: 2, StakedCents: 100, WonCents: 100},
	}
	fmt.Println(storage.CheckInvariant(p))
	p.Balance += 5 // credits out of nowhere
	fmt.Println(storage.CheckInvariant(p))
	// Output:
	// <nil>
	// player 1/2: balance 1005 ≠ start 1000 + granted 0 + won 100 + daily 0 − staked 100 = 1000
}
