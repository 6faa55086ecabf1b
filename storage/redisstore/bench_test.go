package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// BenchmarkLeaderboard100k reads the leaderboard of a guild of 100,000
// players (the index filled with pipelined ZADDs) and reports the p50 and
// p99 latency of one call (target: p99 ≤ 5 ms).
//
//	go test ./storage/redisstore -run '^$' -bench Leaderboard100k -benchtime 2000x
func BenchmarkLeaderboard100k(b *testing.B) {
	st, _, admin := newStore(b, redistest.URL(b), nil)
	ctx := context.Background()
	const players, guild = 100_000, 42
	for start := 0; start < players; start += 10_000 {
		if _, err := admin.Pipelined(ctx, func(p redis.Pipeliner) error {
			for u := start + 1; u <= start+10_000; u++ {
				p.ZAdd(ctx, fmt.Sprintf("lb:{%d}", guild), redis.Z{Score: -float64(u % 5000 * 50), Member: fmt.Sprintf("%020d", u)})
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		user := uint64(i%players + 1)
		t0 := time.Now()
		board, err := st.Leaderboard(ctx, guild, 10, user)
		lat = append(lat, time.Since(t0))
		if err != nil || len(board.Top) != 10 || board.You == nil || board.Players != players {
			b.Fatalf("Leaderboard = %+v, %v", board, err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// redisCPU returns the Redis server's CPU time so far (INFO CPU, system
// and user, main thread and children).
func redisCPU(tb testing.TB, admin *redis.Client) time.Duration {
	tb.Helper()
	info, err := admin.Info(context.Background(), "cpu").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var total float64
	for line := range strings.Lines(info) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			total += f
		}
	}
	return time.Duration(total * float64(time.Second))
}

// BenchmarkPlayCycle plays cycles (Apply Buy, then Apply Reveal of all
// rows, chests opened outside the measure) and reports, per cycle, the
// round trips (a go-redis hook counts them; target ≤ 2.0) and the Redis
// server's CPU, beside the floor: the CPU of as many trivial EVALSHA calls
// (return 1), measured in the same run (target ≤ 2× the floor).
//
//	go test ./storage/redisstore -run '^$' -bench PlayCycle -benchtime 20000x
func BenchmarkPlayCycle(b *testing.B) {
	st, rt, admin := newStore(b, redistest.URL(b), nil)
	ctx := context.Background()
	id := storage.PlayerID{Guild: 1, User: 2}
	create(b, st, id, game.MaxBalance/2)
	trivial := redis.NewScript("return 1")
	if err := trivial.Load(ctx, admin).Err(); err != nil {
		b.Fatal(err)
	}
	cycle := func(i int) {
		a := mustApply(b, st, buy(id, "b"+strconv.Itoa(i)))
		r := mustApply(b, st, reveal(id, "r"+strconv.Itoa(i), a.Result.Ticket))
		if r.Player.ChestDue {
			chestRT := rt.n.Load()
			mustApply(b, st, storage.Step{ID: id, Op: "c" + strconv.Itoa(i), Now: now, Move: game.OpenChest{Seq: r.Player.ChestSeq + 1}})
			rt.n.Add(-(rt.n.Load() - chestRT))
		}
	}
	for i := range 200 { // warm up: connections, scripts, a full Ops list
		cycle(-1 - i)
	}
	// Cycles and the floor in alternating chunks, so that both see the
	// same machine (two shared cores: its speed drifts).
	b.ResetTimer()
	var cpuCycles, cpuFloor, wall time.Duration
	rt0 := rt.n.Load()
	for start := 0; start < b.N; start += 500 {
		end := min(start+500, b.N)
		c0, t0 := redisCPU(b, admin), time.Now()
		for i := start; i < end; i++ {
			cycle(i)
		}
		wall += time.Since(t0)
		c1 := redisCPU(b, admin)
		for range 2 * (end - start) {
			if err := trivial.EvalSha(ctx, admin, []string{"k"}).Err(); err != nil {
				b.Fatal(err)
			}
		}
		cpuCycles, cpuFloor = cpuCycles+c1-c0, cpuFloor+redisCPU(b, admin)-c1
	}
	rt1 := rt.n.Load()
	b.StopTimer()
	cpu := float64(cpuCycles.Microseconds()) / float64(b.N)
	floor := float64(cpuFloor.Microseconds()) / float64(b.N)
	b.ReportMetric(float64(rt1-rt0)/float64(b.N), "RT/cycle")
	b.ReportMetric(cpu, "redis-µs/cycle")
	b.ReportMetric(floor, "floor-µs/cycle")
	b.ReportMetric(cpu/floor, "×floor")
	b.ReportMetric(float64(wall.Microseconds())/float64(b.N), "wall-µs/cycle")
	v := mustLoad(b, st, id)
	b.Logf("record: %d versions", v.Version)
}

// BenchmarkPlayerMemory plays 100 players of one guild 60 cycles each
// (chests opened; operation IDs of a snowflake's length), and, in "bounds", a grant and a seed rotation per
// cycle too, so that every list is at its bound; it reports the Redis
// memory per player (MEMORY USAGE of every key, the guild's shared ones
// included) and the players a GB holds (docs/scaling.md).
//
//	go test ./storage/redisstore -run '^$' -bench PlayerMemory -benchtime 1x
func BenchmarkPlayerMemory(b *testing.B) {
	for _, bounds := range []bool{false, true} {
		b.Run(map[bool]string{false: "60-cycles", true: "bounds"}[bounds], func(b *testing.B) {
			st, _, admin := newStore(b, redistest.URL(b), nil)
			ctx := context.Background()
			const players = 100
			for u := range uint64(players) {
				id := storage.PlayerID{Guild: 812345678901234567, User: 712345678901234567 + u}
				create(b, st, id, 1_000_000)
				rng := rand.NewChaCha8([32]byte{byte(u), 2})
				for n := range 60 {
					a := mustApply(b, st, buy(id, fmt.Sprintf("1%018d", n)))
					a = mustApply(b, st, reveal(id, fmt.Sprintf("2%018d", n), a.Result.Ticket))
					if a.Player.ChestDue {
						mustApply(b, st, storage.Step{ID: id, Op: fmt.Sprintf("3%018d", n), Now: now, Move: game.OpenChest{Seq: a.Player.ChestSeq + 1}})
					}
					if bounds {
						mustApply(b, st, grant(id, fmt.Sprintf("4%018d", n), 1))
						s, err := game.NewSeed(rng)
						if err != nil {
							b.Fatal(err)
						}
						mustApply(b, st, storage.Step{ID: id, Op: fmt.Sprintf("5%018d", n), Now: now, Move: game.Rotate{Fresh: s}})
					}
				}
			}
			var total int64
			for it := admin.Scan(ctx, 0, "*", 1000).Iterator(); it.Next(ctx); {
				n, err := admin.MemoryUsage(ctx, it.Val(), 0).Result()
				if err != nil {
					b.Fatal(err)
				}
				total += n
			}
			b.ReportMetric(float64(total)/players, "bytes/player")
			b.ReportMetric(1e9/(float64(total)/players), "players/GB")
		})
	}
}
