package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's utime and stime: 100
// on every Linux architecture Go runs on.
const clockTicks = 100

// botProc is the bot as its own process: the binary Config.BotBinary, run
// with the environment a deployment would give it, pointed at the run's
// fake Discord and store.
type botProc struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc // sends SIGTERM
	dir    string
	out    *tailBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's, once done is closed
}

// startProcess runs bin in a new empty folder (so that no .env is read) with
// only env as its environment (so that nothing of the caller's, such as
// REDIS_URL, reaches it). Its output goes to out (nil: nowhere) and its
// last lines are kept for errors.
func startProcess(bin string, env map[string]string, out io.Writer) (*botProc, error) {
	dir, err := os.MkdirTemp("", "clefs-loadtest-bot-")
	if err != nil {
		return nil, fmt.Errorf("loadtest: the bot's folder: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.Dir, cmd.WaitDelay = dir, 30*time.Second
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	tail := &tailBuffer{max: 4096}
	w := io.Writer(tail)
	if out != nil {
		w = io.MultiWriter(tail, out)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loadtest: start the bot %s: %w", bin, err)
	}
	p := &botProc{cmd: cmd, cancel: cancel, dir: dir, out: tail, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited returns an error saying how the bot stopped, with its last lines.
func (p *botProc) exited() error {
	return fmt.Errorf("loadtest: the bot process stopped (%v); its last output:\n%s", p.err, p.out.String())
}

// await waits for ready to return, failing early if the bot exits, and
// at the latest after 60 s.
func (p *botProc) await(ctx context.Context, what string, ready func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- ready(ctx) }()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("loadtest: waiting for the bot process (%s): %w; its output:\n%s", what, err, p.out.String())
		}
		return nil
	case <-p.done:
		return p.exited()
	}
}

// cpu returns the process's CPU time so far, user + system, from
// /proc/PID/stat (in clock ticks of 10 ms).
func (p *botProc) cpu() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("loadtest: the bot's CPU: %w", err)
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime + stime (fields 14 and 15) of a /proc/PID/stat
// line. The command name (field 2) may hold spaces: fields are counted
// after its closing parenthesis.
func parseStatCPU(stat []byte) (time.Duration, error) {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("loadtest: /proc/PID/stat: no command name")
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3
	if len(f) < 13 {
		return 0, fmt.Errorf("loadtest: /proc/PID/stat: %d fields", len(f)+2)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: /proc/PID/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// stop asks the bot to stop (SIGTERM, as a deployment does) and waits
// for it; exec kills it if it has not exited 30 s later (Cmd.WaitDelay).
// A clean exit returns nil.
func (p *botProc) stop() error {
	defer os.RemoveAll(p.dir)
	select {
	case <-p.done:
	default:
		p.cancel()
		if <-p.done; errors.Is(p.err, context.Canceled) { // exited cleanly after SIGTERM
			return nil
		}
	}
	return p.exited()
}

// freeLoopbackAddr returns a loopback address whose port was free a moment
// ago, for the bot's HTTP endpoint.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("loadtest: find a free port: %w", err)
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// waitListening waits until addr accepts connections.
func waitListening(ctx context.Context, addr string) error {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("connect to %s: %w", addr, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
