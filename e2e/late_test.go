package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// TestLateGrantOnStalledRedis reproduces issue 22's late grant: Redis
// stalls its writes for 12 s, longer than the handler's 10 s deadline, so
// the store call of a moderator's /admin grant fails with the deadline
// while Redis applies the write once it answers. The moderator is first
// told that the answer will come (naming /admin player, the player's
// history), then the same message shows the grant as made; it
// is made once (25.00 → 26.00, not 27.00).
//
// Redis is a private server (CLIENT PAUSE stops every client of a server);
// its reads and writes wait for the context's deadline (read_timeout 30s,
// no client retries), as the stall did.
func TestLateGrantOnStalledRedis(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"gateway", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			addr, _ := redistest.StartServer(t)
			env := map[string]string{"REDIS_URL": "redis://" + addr + "/0?read_timeout=30s&max_retries=0", "LOG_LEVEL": "info"}
			if transport == "http" {
				env = httpEnv(env)
			}
			lateGrant(t, addr, env)
		})
	}
}

func lateGrant(t *testing.T, addr string, env map[string]string) {
	h := newHarness(t, env)
	h.start()
	r := h.slash(modSlash("set-balance", "", opt("user", bob), opt("amount", "25")))
	if !strings.Contains(text(r.Message), "25.00") {
		t.Fatalf("set-balance: %q", text(r.Message))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	admin := redis.NewClient(&redis.Options{Addr: addr})
	defer admin.Close()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "12000", "WRITE").Err(); err != nil {
		t.Fatalf("CLIENT PAUSE: %v", err)
	}
	p, err := h.srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: chan1, User: mod, Name: "admin", Sub: "grant", Perms: fakediscord.PermsModerator,
		Options: []fakediscord.Opt{{Name: "user", Value: bob}, {Name: "amount", Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Latency >= 3*time.Second {
		t.Errorf("callback after %v", first.Latency)
	}
	apology := text(first.Message)
	if !strings.Contains(apology, "/admin player") || strings.Contains(apology, "audit") ||
		!strings.Contains(apology, "update this message") {
		t.Errorf("first answer %q: want the late apology naming /admin player", apology)
	}

	// The same message then tells what was done.
	var last fakediscord.Response
	for {
		s, ok := p.Snapshot()
		if ok && s.Message != nil && strings.Contains(text(s.Message), "received 1.00") {
			last = s
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the apology was never replaced: %q", text(s.Message))
		case <-time.After(50 * time.Millisecond):
		}
	}
	if got := text(last.Message); !strings.Contains(got, "26.00") || !last.Ephemeral || len(last.FollowUps) != 0 {
		t.Errorf("final answer %q (ephemeral %v, %d follow-ups): want the grant and 26.00", got, last.Ephemeral, len(last.FollowUps))
	}

	// /admin player shows the one grant, with the store's own balance.
	r = h.slash(modSlash("player", "", opt("user", bob)))
	if got := text(r.Message); !strings.Contains(got, "26.00") {
		t.Errorf("/admin player: %q, want 26.00", got)
	}
	h.stop()
	h.noFailures()
	if b := h.player(bob); b.Balance != 2600 {
		t.Fatalf("bob's balance %d, want 2600: one grant of 1.00 after 25.00", b.Balance)
	}
	logs := h.logs.String()
	if testing.Verbose() {
		t.Log(logs)
	}
	if !strings.Contains(logs, "late result delivered") || strings.Contains(logs, "late step given up") {
		t.Errorf("want one late result delivered, no give-up:\n%s", logs)
	}
}
