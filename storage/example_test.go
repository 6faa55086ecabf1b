package storage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// A play through Store.Run: each click is a move under one operation ID,
// applied at most once.
func ExampleStep() {
	dir, _ := os.MkdirTemp("", "clefs")
	defer os.RemoveAll(dir)
	st, err := boltstore.Open(filepath.Join(dir, "clefs.db"), storage.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ctx := context.Background()
	now := storage.Timestamp(time.Date(2026, 3, 14, 15, 9, 26, 535_897_932, time.UTC))
	click := func(op string, do game.Move) (storage.Applied, error) {
		return st.Run(ctx, storage.Step{
			ID: storage.PlayerID{Guild: 1, User: 2}, Op: op,
			Create: true, Start: 60, Seeds: storetest.Seeds(1), Now: now, Move: do,
		})
	}
	a, _ := click("interaction-1", game.Buy{})
	fmt.Println("bought ticket", a.Result.Ticket, "balance", a.Player.Balance, "created", a.Created)
	a, _ = click("interaction-1", game.Buy{}) // the same interaction, delivered twice
	fmt.Println("repeated", a.Repeated, "balance", a.Player.Balance)
	a, _ = click("interaction-2", game.Reveal{Ticket: 1, Rows: game.AllRows})
	fmt.Println("drawn", a.Result.Drawn, a.Player.Ticket.Outcome.Tier, "balance", a.Player.Balance, "sound", a.Player.Check() == nil)
	a, err = click("interaction-3", game.Buy{})
	fmt.Println("another ticket:", a.Result.Ticket, err)
	// Output:
	// bought ticket 1 balance 10 created true
	// repeated true balance 10
	// drawn true barrel balance 60 sound true
	// another ticket: 2 <nil>
}

func ExampleTimestamp() {
	t := time.Date(2026, 3, 14, 16, 9, 26, 535_897_932, time.FixedZone("CET", 3600))
	fmt.Println(storage.Timestamp(t))
	// Output:
	// 2026-03-14 15:09:26.535 +0000 UTC
}
