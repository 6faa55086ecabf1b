package boltstore_test

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

func Example() {
	dir, _ := os.MkdirTemp("", "clefs")
	defer os.RemoveAll(dir)
	st, err := boltstore.Open(filepath.Join(dir, "clefs.db"), storage.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	now := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	draw := &storetest.Drawer{PlayFunc: func(int) game.Outcome { return storetest.Win(game.TierCandle) }}
	step := func(op string, do game.Move) storage.Step {
		return storage.Step{ID: id, Op: op, Create: true, Start: 1000, Seeds: storetest.Seeds(1), Now: now, Move: do}
	}

	a, _ := st.Run(ctx, step("click-1", game.Buy{}))
	fmt.Println("ticket", a.Result.Ticket, "created", a.Created, "balance", a.Player.Balance)
	a, _ = st.Run(ctx, step("click-1", game.Buy{}))
	fmt.Println("the same click again: repeated", a.Repeated, "balance", a.Player.Balance)
	a, _ = st.Run(ctx, step("click-2", game.Reveal{Ticket: 1, Rows: game.AllRows, Drawer: draw})) // the first click draws
	fmt.Println(a.Player.Ticket.Outcome.Tier, "balance", a.Player.Balance, "sound", a.Player.Check() == nil)
	v, _ := st.Load(ctx, id)
	fmt.Println("version", v.Version)
	// Output:
	// ticket 1 created true balance 950
	// the same click again: repeated true balance 950
	// candle balance 1050 sound true
	// version 2
}
