package storetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The sizes of Kill: the processes killed, the writers of each, the plays
// of each player (so that its history is kept whole: fewer ticket lines
// than game.MaxTicketLines, fewer others than game.MaxOtherLines), the
// grants a process may have acknowledged before it is killed (so that,
// however fast the store, the audit log keeps every line: fewer than
// storage.AuditLimit in all), and how long after that it may live.
const (
	killRounds  = 12
	killWriters = 4
	killPlays   = 24
	killGrant   = 100
	killAcks    = 40
	killWindow  = 5 * time.Millisecond
	killEnv     = "STORETEST_KILL" // "guild target", in the child
)

// Kill proves that a process killed (SIGKILL) at any point of a write
// leaves the players, the leaderboard and the audit log in agreement. The
// test calling it is run again in child processes (the test binary, with
// -test.run naming the test), which open the store at the target
// newTarget gives (a file, a Redis URL) with openAt and, from killWriters
// goroutines, run steps (Store.Run) on players of the guild
// newTarget gives: moderators' grants with their audit entries, tickets
// bought and revealed, chests opened. Each child is killed at a random
// moment (after a random number of grants acknowledged, and a few
// milliseconds more), killRounds times; the next one takes up the same
// players (their open tickets resume, their chests are opened). After each
// kill the test opens the store and checks, before any other write and
// again after the grants sent again, for every player of the guild, that its
// leaderboard row is its balance, that its books balance (game.Player.Check)
// and its history lines add up to its balance, that the grants in its
// history are the audit log's grants to it, in number and in amount, and
// that each grant acknowledged before the kill is there, once: sent again
// with its operation ID, it changes nothing. newTarget is called in the
// parent only; the guild must be the test's own.
func Kill(t *testing.T, newTarget func(t *testing.T) (target string, guild uint64), openAt func(target string, opts storage.Options) (storage.Store, error)) {
	opts := storage.Options{Defaults: defaults}
	if spec := os.Getenv(killEnv); spec != "" {
		killChild(spec, openAt, opts)
	}
	target, g := newTarget(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := range killRounds {
		sent, acked := runKilled(t, fmt.Sprintf("%d %s", g, target), 1+r.IntN(killAcks), time.Duration(r.Int64N(int64(killWindow))))
		st, err := openAt(target, opts)
		if err != nil {
			t.Fatalf("round %d: open after SIGKILL: %v", round, err)
		}
		if err := errors.Join(boardAgrees(ctx, st, g), killBooks(ctx, st, g)); err != nil {
			_ = st.Close()
			t.Fatalf("round %d, after SIGKILL:\n%v", round, err)
		}
		// The moderator clicks again: each player's last grant, acknowledged
		// or not, sent again with its operation.
		for u, op := range sent {
			a, err := st.Run(ctx, killGrantStep(g, u, op, time.Now()))
			if err != nil {
				t.Fatalf("round %d: grant %s sent again: %v", round, op, err)
			}
			if acked[op] && !a.Repeated {
				t.Fatalf("round %d: grant %s, acknowledged before the kill, applied again: it was lost", round, op)
			}
		}
		err = errors.Join(boardAgrees(ctx, st, g), killBooks(ctx, st, g))
		_ = st.Close()
		if err != nil {
			t.Fatalf("round %d, after the grants sent again:\n%v", round, err)
		}
		t.Logf("round %d: killed after %d grants acknowledged", round, len(acked))
	}
}

// runKilled runs the test again in a child process with spec, kills it
// (SIGKILL) delay after it has acknowledged acks grants, and returns each
// player's last grant sent and the grants acknowledged.
func runKilled(t *testing.T, spec string, acks int, delay time.Duration) (sent map[uint64]string, acked map[string]bool) {
	t.Helper()
	var pattern []string
	for _, part := range strings.Split(t.Name(), "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	cmd := exec.Command(os.Args[0], "-test.run", strings.Join(pattern, "/"), "-test.count=1")
	cmd.Env = append(os.Environ(), killEnv+"="+spec)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sent, acked = map[uint64]string{}, map[string]bool{}
	var (
		mu      sync.Mutex
		failure string
	)
	ready, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var u uint64
			var op string
			mu.Lock()
			switch l := sc.Text(); {
			case strings.HasPrefix(l, "error: "):
				failure = l
			case fmtScan(l, "send %d %s", &u, &op):
				sent[u] = op
			case fmtScan(l, "ack %d %s", &u, &op):
				if acked[op] = true; len(acked) == acks {
					close(ready)
				}
			}
			mu.Unlock()
		}
	}()
	select {
	case <-ready:
		time.Sleep(delay)
	case <-done:
	case <-time.After(time.Minute):
		t.Error("the child wrote nothing within a minute")
	}
	_ = cmd.Process.Kill() // SIGKILL
	_ = cmd.Wait()
	<-done
	if failure != "" {
		t.Fatalf("child: %s", failure)
	}
	if t.Failed() || len(acked) == 0 {
		t.Fatal("the child was killed before any grant was acknowledged")
	}
	return sent, acked
}

func fmtScan(l, format string, args ...any) bool {
	n, err := fmt.Sscanf(l, format, args...)
	return err == nil && n == len(args)
}

// killGrantStep is the moderator's grant of killGrant cents to user under
// op, with its audit entry, whose reason is op.
func killGrantStep(g, user uint64, op string, now time.Time) storage.Step {
	now = storage.Timestamp(now)
	return storage.Step{ID: storage.PlayerID{Guild: g, User: user}, Op: op, Create: true, Start: start, Seeds: Seeds(user), Now: now,
		Move: game.Grant{Amount: killGrant, By: game.Moderator{Guild: g, Actor: mod, Target: user, Reason: op}}}
}

// killChild is the child of Kill: it applies steps until it is killed.
func killChild(spec string, openAt func(string, storage.Options) (storage.Store, error), opts storage.Options) {
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	fail := func(err error) {
		say("error: %v", err)
		os.Exit(3)
	}
	guild, target, _ := strings.Cut(spec, " ")
	var g uint64
	if _, err := fmt.Sscan(guild, &g); err != nil {
		fail(err)
	}
	st, err := openAt(target, opts)
	if err != nil {
		fail(err)
	}
	for w := range killWriters {
		go func() { fail(killWriter(st, g, w, say)) }()
	}
	for {
		time.Sleep(time.Hour) // until SIGKILL
	}
}

// killWriter plays the players of writer w in turn, killPlays each: a
// grant every other round, a ticket bought and revealed, the chest opened
// when due. It returns only on an error.
func killWriter(st storage.Store, g uint64, w int, say func(string, ...any)) error {
	ctx := context.Background()
	run := os.Getpid()
	d := RandomDrawer(uint64(run*killWriters + w))
	for n := uint64(1); ; n++ {
		user := uint64(w+1)*1000 + n
		id := storage.PlayerID{Guild: g, User: user}
		v, err := st.Load(ctx, id)
		if err != nil {
			return err
		}
		for i, plays := 0, v.Player.Stats.Plays; plays < killPlays; i++ {
			op := fmt.Sprintf("%d-%d-%d", run, user, i)
			now := storage.Timestamp(time.Now())
			if i%2 == 0 {
				say("send %d %s", user, op+"g")
				if _, err := st.Run(ctx, killGrantStep(g, user, op+"g", now)); err != nil {
					return fmt.Errorf("grant %s: %w", op, err)
				}
				say("ack %d %s", user, op+"g")
			}
			step := func(kind string, do game.Move) (storage.Applied, error) {
				return st.Run(ctx, storage.Step{ID: id, Op: op + kind, Create: true, Start: start, Seeds: Seeds(user), Now: now, Move: do})
			}
			a, err := step("b", game.Buy{})
			if errors.Is(err, game.ErrChestDue) {
				if _, err := step("c", openChest(d, a.Player.ChestSeq+1)); err != nil {
					return fmt.Errorf("chest %s: %w", op, err)
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("buy %s: %w", op, err)
			}
			if a, err = step("r", reveal(d, a.Result.Ticket, game.AllRows)); err != nil {
				return fmt.Errorf("reveal %s: %w", op, err)
			}
			plays = a.Player.Stats.Plays
		}
	}
}

// boardAgrees returns an error unless guild's leaderboard has exactly one
// row per player, its balance.
func boardAgrees(ctx context.Context, st storage.Store, guild uint64) error {
	balances := map[uint64]int64{}
	if err := st.Players(ctx, guild, func(u uint64) error {
		v, err := st.Load(ctx, storage.PlayerID{Guild: guild, User: u})
		balances[u] = v.Player.Balance
		return err
	}); err != nil {
		return err
	}
	b, err := st.Leaderboard(ctx, guild, len(balances)+1, 0)
	if err != nil {
		return err
	}
	var errs []error
	if b.Players != len(balances) || len(b.Top) != len(balances) {
		errs = append(errs, fmt.Errorf("guild %d: %d players, %d on the leaderboard (%d rows)", guild, len(balances), b.Players, len(b.Top)))
	}
	for _, row := range b.Top {
		if bal, ok := balances[row.User]; !ok || bal != row.Balance {
			errs = append(errs, fmt.Errorf("guild %d: leaderboard row %+v, balance %d (player: %v)", guild, row, bal, ok))
		}
	}
	return errors.Join(errs...)
}

// killBooks returns an error describing every player of guild whose books
// do not balance, whose history does not add up to its balance, or whose
// grants are not the audit log's, and every audit line that is not a
// player's grant or is there twice.
func killBooks(ctx context.Context, st storage.Store, guild uint64) error {
	log, err := st.Audit(ctx, guild, storage.AuditLimit)
	if err != nil {
		return err
	}
	if len(log) == storage.AuditLimit {
		return fmt.Errorf("guild %d: %d audit lines, the most kept: the test wrote too many to check them all", guild, len(log))
	}
	type grants struct {
		n   int
		sum int64
	}
	audited := map[uint64]grants{}
	reasons := map[string]bool{}
	var errs []error
	for _, a := range log {
		if a.Action != "grant" || reasons[a.Reason] {
			errs = append(errs, fmt.Errorf("audit line %+v: not a grant, or twice", a))
		}
		reasons[a.Reason] = true
		gr := audited[a.Target]
		audited[a.Target] = grants{gr.n + 1, gr.sum + a.Amount}
	}
	err = st.Players(ctx, guild, func(u uint64) error {
		id := storage.PlayerID{Guild: guild, User: u}
		v, err := st.Load(ctx, id)
		if err != nil {
			return err
		}
		h, err := st.History(ctx, id, storage.HistoryLimit)
		if err != nil {
			return err
		}
		p := v.Player
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("player %d: "+format, append([]any{u}, args...)...))
		}
		if err := p.Check(); err != nil {
			bad("%v", err)
		}
		sum, tickets := p.StartingBalance, 0
		var inHistory grants
		for _, l := range h {
			sum += l.Amount
			switch l.Kind {
			case game.KindPlay:
				tickets++
			case game.KindGrant:
				inHistory = grants{inHistory.n + 1, inHistory.sum + l.Amount}
			}
		}
		if tickets >= game.MaxTicketLines || len(h)-tickets >= game.MaxOtherLines {
			bad("%d history lines: more than the test can check whole", len(h))
		}
		if p.Ticket != nil && !p.Ticket.Drawn {
			sum -= game.Stake // bought, not drawn: no line yet
		}
		if sum != p.Balance {
			bad("balance %d, but its start and history lines add up to %d", p.Balance, sum)
		}
		if a := audited[u]; a != inHistory || a.sum != p.Stats.GrantedCents {
			bad("granted %d cents in %d history lines (%d in all), the audit log says %d in %d lines", inHistory.sum, inHistory.n, p.Stats.GrantedCents, a.sum, a.n)
		}
		delete(audited, u)
		return nil
	})
	for u, a := range audited {
		errs = append(errs, fmt.Errorf("%d audit lines grant %d cents to user %d, who is no player", a.n, a.sum, u))
	}
	return errors.Join(append(errs, err)...)
}
