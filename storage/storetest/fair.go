package storetest

import (
	"fmt"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// newSeed returns a new server seed from e's seeds.
func newSeed(e *env) game.Seed {
	e.t.Helper()
	s, err := game.NewSeed(e.seeds)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func rotate(e *env) game.Move { return game.Rotate{Fresh: newSeed(e)} }

func setClientSeed(e *env, client string) game.Move {
	return game.Rotate{Fresh: newSeed(e), Client: new(client)}
}

// testRotateRacing: rotations racing on one player, each with its own
// operation and new seed, all land: every seed is revealed once, in a
// chain the rules accept, and none is lost.
func testRotateRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	first := e.must(id, "create", grant(1)).Player.Seed
	const n = 16
	seeds := make([]game.Seed, n)
	for i := range seeds {
		seeds[i] = newSeed(e)
	}
	race(t, n, func(i int) error {
		return errOf(e.st.Run(e.ctx, storage.Step{ID: id, Op: fmt.Sprintf("rotate-%d", i), Now: e.clock.Now(), Move: game.Rotate{Fresh: seeds[i]}}))
	})
	p := e.load(id).Player
	sound(t, "after racing rotations", p)
	seen := map[game.Seed]int{p.Seed: 1}
	seen[p.NextSeed]++
	rs := e.reveals(id)
	for _, r := range rs {
		seen[r.Seed]++
	}
	if p.SeedNo != 1+n || len(rs) != n || seen[first] != 1 || len(seen) != n+2 {
		t.Fatalf("after %d racing rotations: seed %d, %d reveals, %d distinct seeds", n, p.SeedNo, len(rs), len(seen))
	}
	if err := p.CheckReveals(rs); err != nil {
		t.Fatalf("after %d racing rotations the reveals do not chain: %v", n, err)
	}
	for _, s := range seeds {
		if seen[s] != 1 {
			t.Fatal("a rotation's seed was lost")
		}
	}
}
