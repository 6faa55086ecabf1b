package boltstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

func Example() {
	dir, _ := os.MkdirTemp("", "clefs")
	defer os.RemoveAll(dir)
	st, err := boltstore.Open(filepath.Join(dir, "clefs.db"), storage.Options{
		Defaults: storage.Settings{StartingBalance: 1000},
		Drawer:   &storetest.Drawer{PlayFunc: func(int) game.Outcome { return storetest.Win(game.TierCandle, 100) }},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}

	p, t, resumed, _ := st.Buy(ctx, id)
	fmt.Println("ticket", t.ID, "resumed", resumed, "balance", p.Balance)
	p, t, _ = st.Reveal(ctx, id, t.ID, 0b001) // the first click draws
	fmt.Println(t.Outcome.Tier, t.Outcome.Prize, "open", t.Open(), "balance", p.Balance)
	p, t, _ = st.Reveal(ctx, id, t.ID, storage.AllRows)
	fmt.Println("open", t.Open(), "balance", p.Balance, "invariant", storage.CheckInvariant(p))
	// Output:
	// ticket 1 resumed false balance 950
	// candle 100 open true balance 1050
	// open false balance 1050 invariant <nil>
}
