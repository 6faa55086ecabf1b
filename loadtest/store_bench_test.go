package loadtest

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// keyDrawer draws real plays (game.Play) but keeps only those that give a
// key, so that every third play makes a chest due: it lets a benchmark
// reach OpenChest often. Draws stay truthful outcomes of the engine.
type keyDrawer struct{ src game.Source }

func (d keyDrawer) Play(keysHeld int) (game.Outcome, error) {
	for {
		o, err := game.Play(d.src, keysHeld)
		if err != nil {
			return o, fmt.Errorf("draw play: %w", err)
		}
		if o.Key {
			return o, nil
		}
	}
}

func (d keyDrawer) Chest() (game.Chest, error) { return game.OpenChest(d.src), nil }

// openStepStore opens store kind ("bolt" or "redis") with opts.
func openStepStore(b *testing.B, kind string, opts storage.Options) storage.Store {
	b.Helper()
	switch kind {
	case "bolt":
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "clefs.db"), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	default:
		opt, err := redis.ParseURL(redistest.URL(b))
		if err != nil {
			b.Fatal(err)
		}
		c := redis.NewClient(opt)
		b.Cleanup(func() { c.Close() })
		return redisstore.New(c, opts)
	}
}

// richGuild gives the guild's new players a large starting balance.
func richGuild(b *testing.B, s storage.Store, guild uint64) {
	b.Helper()
	ctx := context.Background()
	st, err := s.Settings(ctx, guild)
	if err != nil {
		b.Fatal(err)
	}
	st.StartingBalance = 10_000_000_000
	if err := s.SetSettings(ctx, 1, guild, st, "bench"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStoreStep measures each storage step on both stores, one call at
// a time (ns/op is the step's latency: on bolt, a commit with its fsync; on
// Redis, a loopback round trip and the script). Steps that need a state
// (a ticket to reveal, a chest due) get it untimed.
func BenchmarkStoreStep(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"bolt", "redis"} {
		b.Run(kind, func(b *testing.B) {
			s := openStepStore(b, kind, storage.Options{Drawer: keyDrawer{src: game.NewSecureSource()}})
			id := storage.PlayerID{Guild: 1 << 60, User: 1<<60 + 1}
			richGuild(b, s, id.Guild)
			if _, err := s.Player(ctx, id); err != nil {
				b.Fatal(err)
			}
			// settle plays until no ticket is open and no chest is due.
			settle := func(b *testing.B) {
				p, err := s.Player(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				if p.Ticket != nil && p.Ticket.Open() {
					if p, _, err = s.Reveal(ctx, id, p.Ticket.ID, storage.AllRows); err != nil {
						b.Fatal(err)
					}
				}
				if p.ChestPending {
					if _, _, _, err := s.OpenChest(ctx, id, p.ChestSeq+1); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run("Player", func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if _, err := s.Player(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Settings", func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if _, err := s.Settings(ctx, id.Guild); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Buy", func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					settle(b)
					b.StartTimer()
					if _, _, _, err := s.Buy(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("RevealAll", func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					settle(b)
					_, t, _, err := s.Buy(ctx, id)
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, _, err := s.Reveal(ctx, id, t.ID, storage.AllRows); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("OpenChest", func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					settle(b)
					var p storage.Player
					for !p.ChestPending {
						_, t, _, err := s.Buy(ctx, id)
						if err != nil {
							b.Fatal(err)
						}
						if p, _, err = s.Reveal(ctx, id, t.ID, storage.AllRows); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					if _, _, _, err := s.OpenChest(ctx, id, p.ChestSeq+1); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkStoreStepParallel measures Buy followed by Reveal of all rows
// from 64 goroutines, each its own player: the shared commits (bolt's
// Batch) and pipelined connections (Redis) at work. ns/op is per pair.
func BenchmarkStoreStepParallel(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"bolt", "redis"} {
		b.Run(kind, func(b *testing.B) {
			s := openStepStore(b, kind, storage.Options{})
			const guild = 1 << 60
			richGuild(b, s, guild)
			var next atomic.Uint64
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				id := storage.PlayerID{Guild: guild, User: guild + 1 + next.Add(1)}
				for pb.Next() {
					p, t, _, err := s.Buy(ctx, id)
					if err != nil {
						b.Error(err)
						return
					}
					if p, _, err = s.Reveal(ctx, id, t.ID, storage.AllRows); err != nil {
						b.Error(err)
						return
					}
					if p.ChestPending {
						if _, _, _, err := s.OpenChest(ctx, id, p.ChestSeq+1); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
		})
	}
}
