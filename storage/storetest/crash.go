package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

const crashEnv = "STORETEST_CRASH_TARGET"

// KillBetweenBuyAndDraw proves that a process killed (SIGKILL) between
// buying and drawing loses nothing and charges nothing twice. The test named
// testName calls it; it re-runs that test in a child process which opens the
// store at target with openAt, buys a ticket through storage.Apply (creating
// the player with 1,000 cents), says so and waits to be killed. The parent
// then reopens the store and checks that the ticket is still open and not
// drawn, the stake was debited once, the player remembers the operation
// (the same click changes nothing), a new Buy resumes the ticket and the
// Reveal works.
func KillBetweenBuyAndDraw(t *testing.T, testName, target string, openAt func(target string, opts storage.Options) (storage.Store, error)) {
	opts := storage.Options{Defaults: defaults}
	id := storage.PlayerID{Guild: 5, User: 6}
	ctx := context.Background()
	now := NewClock().Now()
	buyStep := storage.Step{ID: id, Op: "the-click", Create: true, Start: start, Seeds: Seeds(5), Now: now, Do: buy(now)}
	if tg := os.Getenv(crashEnv); tg != "" {
		st, err := openAt(tg, opts)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		a, err := storage.Apply(ctx, st, buyStep)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Printf("bought %d\n", a.Result.Ticket)
		for {
			// Wait for SIGKILL, holding the store open (a sleep, not an
			// empty select, which the runtime would end as a deadlock
			// when nothing else runs).
			time.Sleep(time.Hour)
		}
	}

	cmd := exec.Command(os.Args[0], "-test.run", "^"+testName+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+target)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatal("the child exited without buying")
			}
			if strings.HasPrefix(l, "bought ") {
				if l != "bought 1" {
					t.Fatalf("child: %q, want ticket 1", l)
				}
				break wait
			}
			if strings.HasPrefix(l, "error:") {
				t.Fatalf("child: %s", l)
			}
		case <-timeout:
			_ = cmd.Process.Kill()
			t.Fatal("the child did not buy within 60s")
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	go func() {
		for range lines {
		}
	}()

	st, err := openAt(target, opts)
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer st.Close()
	v, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	p := v.Player
	if p.Ticket == nil || !p.Ticket.Open() || p.Ticket.Drawn || p.Ticket.ID != 1 {
		t.Fatalf("after SIGKILL the ticket is %+v, want ticket 1 open and not drawn", p.Ticket)
	}
	if p.Balance != start-game.Stake || p.Stats.Plays != 1 {
		t.Fatalf("after SIGKILL: balance %d, plays %d; want %d, 1", p.Balance, p.Stats.Plays, start-game.Stake)
	}
	again, err := storage.Apply(ctx, st, buyStep)
	if err != nil || !again.Repeated || again.Result.Ticket != 1 || again.Player.Balance != start-game.Stake {
		t.Fatalf("the same click after restart: %+v, %v; want it recognised", again, err)
	}
	buyStep.Op = "another-click"
	b, err := storage.Apply(ctx, st, buyStep)
	if err != nil || !b.Result.Resumed || b.Result.Ticket != 1 || b.Player.Balance != start-game.Stake {
		t.Fatalf("Buy after restart: %+v, %v; want ticket 1 resumed, nothing charged", b.Result, err)
	}
	r, err := storage.Apply(ctx, st, storage.Step{ID: id, Op: "reveal", Now: now, Do: reveal(game.SeededDrawer{}, 1, game.AllRows, now)})
	if err != nil || !r.Result.Drawn || r.Player.Ticket.Open() {
		t.Fatalf("Reveal after restart: %+v, %v", r.Result, err)
	}
	if err := r.Player.Check(); err != nil {
		t.Fatal(err)
	}
}
