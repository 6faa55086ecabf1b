package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// benchStore opens a store for a benchmark, with its round-trip counter
// and its Redis client (nil for bolt).
type benchStore struct {
	name string
	open func(b *testing.B) (storage.Store, *RoundTripCounter, redis.Scripter)
}

var benchStores = []benchStore{
	{"bolt", func(b *testing.B) (storage.Store, *RoundTripCounter, redis.Scripter) {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "clefs.db"), storage.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s, nil, nil
	}},
	{"redis", func(b *testing.B) (storage.Store, *RoundTripCounter, redis.Scripter) {
		opt, err := redis.ParseURL(redistest.URL(b))
		if err != nil {
			b.Fatal(err)
		}
		c := redis.NewClient(opt)
		b.Cleanup(func() { c.Close() })
		rt := &RoundTripCounter{}
		c.AddHook(rt)
		return redisstore.New(c, storage.Options{}), rt, c
	}},
}

// benchPlayers sets up n players of a run over s with the real handlers.
func benchPlayers(b *testing.B, s storage.Store, n int) []*player {
	b.Helper()
	cfg := Config{Store: s, Players: n, Guilds: 4}
	setDefaults(&cfg)
	ps, err := setup(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	h := commands.New(commands.Config{}, TimedStore{Store: s})
	for _, p := range ps {
		p.h, p.errs = h, &errLog{}
	}
	return ps
}

// report adds per-cycle and per-interaction figures to a benchmark.
func report(b *testing.B, cycles, interactions, storeNs, totalNs, rts int64) {
	if cycles == 0 || interactions == 0 {
		return
	}
	b.ReportMetric(float64(interactions)/float64(cycles), "interactions/cycle")
	b.ReportMetric(float64(totalNs-storeNs)/float64(interactions), "overhead-ns/interaction")
	b.ReportMetric(float64(storeNs)/float64(interactions), "store-ns/interaction")
	if rts > 0 {
		b.ReportMetric(float64(rts)/float64(cycles), "roundtrips/cycle")
	}
}

// BenchmarkCycle plays cycles (/play, Auto, the chest when due) through the
// handlers, one player at a time; ns/op and allocs/op are per cycle.
func BenchmarkCycle(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			s, rt, _ := bs.open(b)
			p := benchPlayers(b, s, 1)[0]
			p.recd = newRecording()
			var rt0 int64
			if rt != nil {
				rt0 = rt.Load()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := p.cycle(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			_, all := p.recd.report()
			store := int64(all.Store.Mean) * int64(all.Store.N)
			total := int64(all.Total.Mean) * int64(all.Total.N)
			var rts int64
			if rt != nil {
				rts = rt.Load() - rt0
			}
			report(b, p.cycles, int64(all.Total.N), store, total, rts)
		})
	}
}

// BenchmarkCycleParallel plays cycles through the handlers from 64
// goroutines (on GOMAXPROCS CPUs), each its own player.
func BenchmarkCycleParallel(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			s, rt, _ := bs.open(b)
			const workers = 64
			ps := benchPlayers(b, s, workers)
			var next atomic.Int64
			var rt0 int64
			if rt != nil {
				rt0 = rt.Load()
			}
			b.SetParallelism(max(1, workers/max(1, runtime.GOMAXPROCS(0))))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				p := ps[int(next.Add(1)-1)%len(ps)]
				for pb.Next() {
					if _, err := p.cycle(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			var cycles int64
			for _, p := range ps {
				cycles += p.cycles
			}
			if rt != nil && cycles > 0 {
				b.ReportMetric(float64(rt.Load()-rt0)/float64(cycles), "roundtrips/cycle")
			}
		})
	}
}

// BenchmarkDirectCycle plays cycles on the store directly (Buy, Reveal all,
// the chest when due), without the handlers: the store's share of a cycle.
func BenchmarkDirectCycle(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			s, _, _ := bs.open(b)
			ctx := context.Background()
			ps := benchPlayers(b, s, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, _, err := DirectCycle(ctx, s, ps[0].id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDirectCycleParallel is BenchmarkDirectCycle from 64 goroutines.
func BenchmarkDirectCycleParallel(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			s, _, _ := bs.open(b)
			ctx := context.Background()
			ps := benchPlayers(b, s, 64)
			var next atomic.Int64
			b.SetParallelism(max(1, 64/max(1, runtime.GOMAXPROCS(0))))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				id := ps[int(next.Add(1)-1)%len(ps)].id
				for pb.Next() {
					if _, _, err := DirectCycle(ctx, s, id); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkTrivialScriptParallel measures Redis round trips (EVALSHA of
// "return 1") from 64 goroutines: the round-trip ceiling.
func BenchmarkTrivialScriptParallel(b *testing.B) {
	_, _, c := benchStores[1].open(b)
	rt := TrivialScript(c)
	ctx := context.Background()
	b.SetParallelism(max(1, 64/max(1, runtime.GOMAXPROCS(0))))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := rt(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPayload builds the two payloads of a cycle: the load generator's
// own cost per cycle (unmarshalling them is the handlers' path, measured
// with it).
func BenchmarkPayload(b *testing.B) {
	p := payloads{guild: "1300000000000000001", channel: "1300000000000000002", user: "1300000000000000003", locale: "en-US", command: "play"}
	msg := message(nil, 1, p.channel, []byte(`{"embeds":[{"title":"Les Clefs du Trésor","description":"❔❔❔\n❔❔❔\n❔❔❔"}],"components":[{"type":1,"components":[{"type":2,"label":"Auto","style":1,"custom_id":"v1:auto:1300000000000000003:1"}]}]}`))
	b.ReportAllocs()
	for range b.N {
		_ = p.slash()
		_ = p.click("v1:auto:1300000000000000003:1", msg)
	}
}

// BenchmarkDecode decodes the two interactions of a cycle from their
// gateway frames: "bot" as the bot does (its patched discordgo reads the
// frame in one pass, then wire.DecodeInteraction decodes the data),
// "discordgo" as discordgo v0.29 does unpatched (json.Decoder reads the
// frame, json.Unmarshal decodes the data into discordgo.InteractionCreate).
func BenchmarkDecode(b *testing.B) {
	s, _, _ := benchStores[0].open(b)
	p := benchPlayers(b, s, 1)[0]
	if err := p.interact(KindPlay, p.pay.slash()); err != nil {
		b.Fatal(err)
	}
	auto, ok := findButton(p.rec.components(), buttonAuto)
	if !ok {
		b.Fatal("no Auto button")
	}
	slash := appendFrame(nil, 1, p.pay.slash())
	click := appendFrame(nil, 2, p.pay.click(auto, p.msg))
	for _, c := range []struct {
		name  string
		frame []byte
	}{{"slash", slash}, {"click", click}} {
		b.Run(c.name+"/bot", func(b *testing.B) {
			b.SetBytes(int64(len(c.frame)))
			b.ReportAllocs()
			for range b.N {
				if _, err := decodeFrame(c.frame); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/discordgo", func(b *testing.B) {
			b.SetBytes(int64(len(c.frame)))
			b.ReportAllocs()
			for range b.N {
				var e *discordgo.Event
				if err := json.NewDecoder(bytes.NewBuffer(c.frame)).Decode(&e); err != nil {
					b.Fatal(err)
				}
				var i discordgo.InteractionCreate
				if err := json.Unmarshal(e.RawData, &i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
