package storetest

import (
	"runtime"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// testMemoryFlat plays one player's cycles (buy, reveal all, the chest when
// due) through the store and checks that the heap, after a collection,
// does not grow with the number of writes: a store keeps nothing per write
// beyond its bounded caches. A store that kept every write (the embedded
// store's cache did, about 45 KB a play) grows by more than 13 MB here.
func testMemoryFlat(t *testing.T, open OpenFunc) {
	if testing.Short() {
		t.Skip("plays thousands of cycles")
	}
	e := newEnv(t, open, defaults)
	id := pid(70)
	e.must(id, "grant", game.Grant{Amount: game.MaxGrant})
	d := RandomDrawer(70)
	cycle := func() {
		if a := e.play(id, d); a.Player.ChestDue {
			e.must(id, "chest", openChest(d, a.Player.ChestSeq+1))
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	const warm, more = 100, 300
	for range warm {
		cycle()
	}
	before := heap()
	for range more {
		cycle()
	}
	after := heap()
	// 1.2× the heap after the warm-up, and 4 MB of slack for what the
	// runtime and the test itself allocate meanwhile.
	if limit := before + before/5 + 4<<20; after > limit {
		t.Fatalf("heap grew from %d to %d bytes over %d more play cycles (%d bytes a cycle): the store keeps something per write",
			before, after, more, (after-before)/more)
	}
	t.Logf("heap %d bytes after %d cycles, %d after %d", before, warm, after, warm+more)
}
