package storetest

import (
	"errors"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
)

// testCountPlayers: CountPlayers counts the players ExportPlayers gives,
// no more: not a guild with settings only, nor a player a refused step
// never created.
func testCountPlayers(t *testing.T, open OpenFunc) {
	e := dumperEnv(t, open)
	d := e.st.(storage.Dumper)
	if n, err := d.CountPlayers(e.ctx); err != nil || n != 0 {
		t.Fatalf("CountPlayers of an empty store: %d, %v; want 0", n, err)
	}
	ids := populate(t, e)
	missing := storage.PlayerID{Guild: guild, User: 99}
	wantErr(t, "a grant to no player without Create", errOf(e.st.Run(e.ctx, storage.Step{ID: missing, Op: e.op(), Now: e.clock.Now(), Move: grant(1)})), storage.ErrNoPlayer)
	exported := 0
	if err := d.ExportPlayers(e.ctx, func(storage.DecodedPlayer) error { exported++; return nil }); err != nil {
		t.Fatal(err)
	}
	n, err := d.CountPlayers(e.ctx)
	if err != nil || n != len(ids) || n != exported {
		t.Fatalf("CountPlayers: %d, %v; want the %d players populated and exported (%d)", n, err, len(ids), exported)
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CountPlayers(e.ctx); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("CountPlayers after Close: %v, want storage.ErrClosed", err)
	}
}
