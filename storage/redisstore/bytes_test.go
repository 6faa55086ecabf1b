package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// sentBytes counts the bytes of the commands a client sends, as RESP
// encodes them (what the Redis server reads from the network).
type sentBytes struct{ n atomic.Int64 }

func respLen(cmd redis.Cmder) int64 {
	args := cmd.Args()
	n := int64(len("*" + strconv.Itoa(len(args)) + "\r\n"))
	for _, a := range args {
		s := fmt.Sprint(a)
		n += int64(len("$"+strconv.Itoa(len(s))+"\r\n") + len(s) + 2)
	}
	return n
}

func (s *sentBytes) DialHook(next redis.DialHook) redis.DialHook { return next }
func (s *sentBytes) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		s.n.Add(respLen(cmd))
		return next(ctx, cmd)
	}
}
func (s *sentBytes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			s.n.Add(respLen(c))
		}
		return next(ctx, cmds)
	}
}

// TestBytesPerCycleFlat checks that what a play cycle sends to Redis does
// not grow with what is kept beside the player: two players with the same
// seeds play the same cycles, the second with its history, reveals and
// remembered operations filled to their bounds, and both send the same
// bytes. It reports the bytes of a cycle (the target: at most
// 2,000, the chest included one cycle in nine).
func TestBytesPerCycleFlat(t *testing.T) {
	sb := &sentBytes{}
	st, _, admin := newStore(t, redistest.URL(t), nil)
	st.Client().AddHook(sb)
	ctx := context.Background()
	// Snowflake-sized IDs, as Discord's; create gives both the same seeds.
	g := 812345678901234560 + redistest.UniqueGuild(t)%10
	light := storage.PlayerID{Guild: g, User: 812345678901234567}
	heavy := storage.PlayerID{Guild: g, User: 812345678901234568}
	cycle := func(id storage.PlayerID, n int) int64 {
		before := sb.n.Load()
		b := mustApply(t, st, buy(id, fmt.Sprintf("1%018d", n)))
		a := mustApply(t, st, reveal(id, fmt.Sprintf("2%018d", n), b.Result.Ticket))
		if a.Player.ChestDue {
			seq := a.Player.ChestSeq + 1
			mustApply(t, st, storage.Step{ID: id, Op: fmt.Sprintf("3%018d", n), Now: now,
				Move: game.OpenChest{Seq: seq}})
		}
		return sb.n.Load() - before
	}
	for _, id := range []storage.PlayerID{light, heavy} {
		create(t, st, id, 100_000)
		for i := range 3 {
			cycle(id, i)
		}
	}
	// Fill the heavy player's lists to their bounds (the store trims them
	// at its next write): lines it already has, repeated.
	key := func(prefix string) string { return fmt.Sprintf("%s:{%d}:%d", prefix, heavy.Guild, heavy.User) }
	line, err := admin.LIndex(ctx, key("h"), 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := range game.MaxTicketLines {
		admin.LPush(ctx, key("h"), line)
		if i > 0 { // create wrote one
			admin.LPush(ctx, key("o"), `{"at":1,"k":"grant","a":1,"b":1,"n":0}`)
		}
		admin.RPush(ctx, key("r"), `{"no":0,"s":"`+strings.Repeat("ab", 32)+`","t1":1,"t2":0,"c1":1,"c2":0,"ra":1}`)
	}
	var light9, heavy9 int64
	for i := 3; i < 12; i++ {
		light9 += cycle(light, i)
		heavy9 += cycle(heavy, i)
	}
	if n, _ := admin.LLen(ctx, key("h")).Result(); n != game.MaxTicketLines {
		t.Fatalf("%d ticket lines kept, want %d", n, game.MaxTicketLines)
	}
	if n, _ := admin.LLen(ctx, key("o")).Result(); n != game.MaxOtherLines {
		t.Fatalf("%d other lines kept, want %d", n, game.MaxOtherLines)
	}
	t.Logf("bytes sent per play cycle (nine cycles, their chests included): %d; with history and reveals at their bounds: %d",
		light9/9, heavy9/9)
	if light9 != heavy9 {
		t.Errorf("nine cycles send %d bytes with history and reveals at their bounds, %d without: they grow with them", heavy9, light9)
	}
}
