package e2e_test

import (
	"strconv"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestShardsShareRedis runs two bot processes, shards 0 and 1 of 2, on one
// Redis: Discord routes each guild to its shard, both answer, and only
// the process of shard 0 registers the commands.
func TestShardsShareRedis(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{
		"REDIS_URL": redistest.URL(t), "DISCORD_GUILD_ID": "", "SHARD_IDS": "0", "SHARD_COUNT": "2",
	})
	h.start()
	cfg1 := h.cfg
	cfg1.ShardIDs = []int{1}
	h.spawn(cfg1)
	twoShardsAnswer(t, h)
}

// TestTwoShardsInOneProcess runs shards 0 and 1 of 2 in one process (no
// SHARD_IDS: all of them): two gateway connections, each guild's
// interactions on its own shard, both answered, one registration.
func TestTwoShardsInOneProcess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"SHARD_COUNT": "2", "DISCORD_GUILD_ID": ""})
	h.start()
	twoShardsAnswer(t, h)
}

// twoShardsAnswer checks a bot of two shards: shards 0/2 and 1/2
// identified, one registration (by the process of shard 0), and a guild of
// each shard answered — (id >> 22) % 2 picks the shard: 2<<22 is on shard
// 0, 3<<22 on shard 1.
func twoShardsAnswer(t *testing.T, h *harness) {
	t.Helper()
	ids := h.srv.Identifies()
	if len(ids) != 2 || ids[0].Shard != [2]int{0, 2} || ids[1].Shard != [2]int{1, 2} {
		t.Errorf("identifies = %+v, want shards 0/2 and 1/2", ids)
	}
	if n := h.srv.Registrations(); n != 1 {
		t.Errorf("%d command registrations, want 1 (by shard 0's process)", n)
	}
	for _, g := range []uint64{2 << 22, 3 << 22} {
		r := h.slash(fakediscord.Slash{Guild: strconv.FormatUint(g, 10), User: alice, Name: "play"})
		if shownBalance(t, r.Message) != 2000-50 {
			t.Errorf("guild %d: balance shown %d", g, shownBalance(t, r.Message))
		}
	}
	h.noFailures()
}
