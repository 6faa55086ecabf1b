package cli

import (
	"bytes"
	"context"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// BenchmarkVerifyExportSmall checks a dump of 2,300 players of 51 tickets
// each, about 10^5 tickets under revealed seeds: a tenth of
// BenchmarkVerifyExport, quick enough to profile and to read allocations
// per check from:
//
//	go test -run '^$' -bench VerifyExportSmall -benchmem -cpuprofile cpu.out ./cli/
func BenchmarkVerifyExportSmall(b *testing.B) { benchVerifyExport(b, 2_300) }

// benchVerifyExport times clefs verify -export on a dump of players of 51
// tickets each.
func benchVerifyExport(b *testing.B, players int) {
	path, checked := benchDump(b, players, 51)
	b.ResetTimer()
	for b.Loop() {
		var out bytes.Buffer
		if err := Main(context.Background(), []string{"verify", "-export", path}, &out, &out); err != nil {
			b.Fatal(err, out.String())
		}
		if !strings.Contains(out.String(), "("+groupInt(int64(checked))+" tickets") {
			b.Fatalf("want %d tickets checked:\n%s", checked, out.String())
		}
	}
	b.ReportMetric(float64(checked), "tickets")
	b.ReportMetric(float64(b.N)*float64(checked)/b.Elapsed().Seconds(), "tickets/s")
}

// dumpOut is where benchDump writes its dump, to time clefs verify on it
// (BENCHMARKS.md): a temporary file if not given.
var dumpOut = flag.String("verify-dump", "", "benchmarks: write the generated dump to this file")

// benchDump writes a dump of players players who each played tickets
// tickets, all but the last under a revealed seed, and returns its path
// and how many tickets verify recomputes in it.
func benchDump(b *testing.B, players, tickets int) (path string, checked int) {
	b.Helper()
	rng := rand.NewChaCha8([32]byte{9})
	dump := make([]storage.DecodedPlayer, 0, players)
	for u := range players {
		p := fairPlayer(b, storage.PlayerID{Guild: 1, User: uint64(u + 1)}, rng, tickets, tickets-1)
		for _, h := range p.History {
			if h.Kind == game.KindPlay && h.TicketID <= p.Player.SeedTicket {
				checked++
			}
		}
		dump = append(dump, p)
	}
	if *dumpOut == "" {
		return writeDump(b, dump...), checked
	}
	writeAt(b, *dumpOut, encodeDump(b, dump...))
	return *dumpOut, checked
}
