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

	"github.com/lesclefsdutresor/clefs/storage"
)

const crashEnv = "STORETEST_CRASH_TARGET"

// KillBetweenBuyAndDraw proves that a process killed (SIGKILL) between
// buying and drawing loses nothing and charges nothing twice. The test named
// testName calls it; it re-runs that test in a child process which opens the
// store at target with openAt, buys a ticket, says so and waits to be killed.
// The parent then reopens the store and checks the ticket is still open, the
// stake was debited once, a new Buy resumes it and the Reveal works.
func KillBetweenBuyAndDraw(t *testing.T, testName, target string, openAt func(target string, opts storage.Options) (storage.Store, error)) {
	opts := storage.Options{Defaults: storage.Settings{StartingBalance: 1000}, Drawer: RandomDrawer(4)}
	id := storage.PlayerID{Guild: 5, User: 6}
	ctx := context.Background()
	if tg := os.Getenv(crashEnv); tg != "" {
		st, err := openAt(tg, opts)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		_, tk, _, err := st.Buy(ctx, id)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Printf("bought %d\n", tk.ID)
		select {} // wait for SIGKILL, holding the store open
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
	p, err := st.Player(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Ticket == nil || !p.Ticket.Open() || p.Ticket.Drawn || p.Ticket.ID != 1 {
		t.Fatalf("after SIGKILL the ticket is %+v, want ticket 1 open and not drawn", p.Ticket)
	}
	if p.Balance != 950 || p.Stats.Plays != 1 {
		t.Fatalf("after SIGKILL: balance %d, plays %d; want 950, 1", p.Balance, p.Stats.Plays)
	}
	p2, tk, resumed, err := st.Buy(ctx, id)
	if err != nil || !resumed || tk.ID != 1 || p2.Balance != 950 {
		t.Fatalf("Buy after restart: ticket %+v, resumed %v, balance %d, %v; want ticket 1 resumed, nothing charged", tk, resumed, p2.Balance, err)
	}
	p3, tk, err := st.Reveal(ctx, id, tk.ID, storage.AllRows)
	if err != nil || !tk.Drawn || tk.Open() {
		t.Fatalf("Reveal after restart: %+v, %v", tk, err)
	}
	if err := storage.CheckInvariant(p3); err != nil {
		t.Fatal(err)
	}
}
