package e2e_test

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// maxClickFiles bounds the project's files on the stack of one click
// (issue 35): a row revealed through the gateway, on Redis, the player
// cached, from the gateway's handler to the Redis script and back to the
// REST answer.
const maxClickFiles = 10

// TestClickPath records the project's files with a frame on the stack of
// one click, at the two moments the click leaves the process: when its
// step's script reaches Redis, and when its answer reaches Discord. A
// proxy in front of each (Redis, the fake Discord's REST API) takes every
// goroutine's stack at that moment (runtime.Stack), while the click waits
// for the proxy; the click's goroutine is the one in package commands.
// The test fails when the click crosses more than maxClickFiles files of
// the project, or when a package calls back up into a package above it
// on the way to the store (the Responder, a port handed down to commands,
// is how the answer leaves: it is no call back up). docs/architecture.md
// draws the path it logs.
func TestClickPath(t *testing.T) {
	rurl, err := url.Parse(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	var drawStack, redisStack, restStack stackTrap
	redisAddr := newSlowLink(t, rurl.Host, &redisStack).addr() // a proxy that shows the trap what the bot sends
	rurl.Host = redisAddr

	var fake atomic.Pointer[url.URL]       // the fake Discord's, once it runs
	api := restProxy(t, &fake, &restStack) // closed after the bot: it answers through it to the end
	h := newHarness(t, map[string]string{"REDIS_URL": rurl.String()})
	u, err := url.Parse(h.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	fake.Store(u)
	h.cfg.APIBase = api
	h.draw.set(loss(false))
	h.serve(trapDrawer{h.draw, &drawStack})

	r := h.slash(fakediscord.Slash{User: alice, Name: "play"})
	h.click(r.Message, "v1:auto:"+alice, alice)
	r = h.slash(fakediscord.Slash{User: alice, Name: "play"}) // the player is cached now
	drawStack.arm(func([]byte) bool { return true })
	redisStack.arm(func(b []byte) bool { return bytes.Contains(bytes.ToUpper(b), []byte("EVALSHA")) })
	restStack.arm(func(b []byte) bool { return bytes.HasSuffix(b, []byte("/callback")) })
	h.click(r.Message, "v1:row:"+alice+":2:0", alice) // the click measured: it draws ticket 2

	root, err := filepath.Abs("..") // the module's directory: tests run in their package's
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string][]frame{
		"to the draw": clickFrames(t, drawStack.taken(t), root, "trapDrawer"),
		"to Redis":    clickFrames(t, redisStack.taken(t), root, "redis/go-redis"),
		"to Discord":  clickFrames(t, restStack.taken(t), root, "net/http."),
	}
	var files []string
	for _, name := range []string{"to the draw", "to Redis", "to Discord"} {
		var b strings.Builder
		for _, f := range paths[name] {
			b.WriteString("  " + f.file + "  " + f.fn[strings.LastIndexByte(f.fn, '/')+1:] + "\n")
			if !slices.Contains(files, f.file) {
				files = append(files, f.file)
			}
		}
		t.Logf("%s (outermost first):\n%s", name, b.String())
	}
	t.Logf("%d files: %s", len(files), strings.Join(files, ", "))
	if len(files) > maxClickFiles {
		t.Errorf("one click crosses %d files of the project, at most %d", len(files), maxClickFiles)
	}
	// Down the layers only on the way to the draw and the store: a
	// package never calls one above it.
	for _, p := range [][]frame{paths["to the draw"], paths["to Redis"]} {
		for i := 1; i < len(p); i++ {
			if layer(p[i].pkg) < layer(p[i-1].pkg) {
				t.Errorf("%s (%s) calls back up into %s (%s)", p[i-1].fn, p[i-1].file, p[i].fn, p[i].file)
			}
		}
	}
}

// trapDrawer draws as the script does, showing trap each ticket drawn.
type trapDrawer struct {
	*script
	trap *stackTrap
}

func (d trapDrawer) Ticket(s game.Seed, c string, n uint64, keys int) (game.Outcome, error) {
	d.trap.check(nil)
	return d.script.Ticket(s, c, n, keys)
}

// stackTrap takes every goroutine's stack the first time, once armed, that
// a request matches.
type stackTrap struct {
	mu    sync.Mutex
	match func([]byte) bool
	stack []byte
	done  chan struct{}
}

func (s *stackTrap) arm(match func([]byte) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.match, s.done = match, make(chan struct{})
}

// Write shows the trap b (what the bot sends through its slowLink).
func (s *stackTrap) Write(b []byte) (int, error) {
	s.check(b)
	return len(b), nil
}

// check takes the stacks if b matches and none were taken yet.
func (s *stackTrap) check(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.match == nil || s.stack != nil || !s.match(b) {
		return
	}
	buf := make([]byte, 1<<22)
	s.stack = buf[:runtime.Stack(buf, true)]
	close(s.done)
}

func (s *stackTrap) taken(t *testing.T) []byte {
	t.Helper()
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		t.Fatal("trap not armed")
	}
	<-done
	return s.stack
}

// restProxy forwards HTTP requests to *target, showing trap each path;
// it returns its URL.
func restProxy(t *testing.T, target *atomic.Pointer[url.URL], trap *stackTrap) string {
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trap.check([]byte(r.URL.Path))
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// frame is one of the project's frames on the click's stack.
type frame struct {
	fn, file, pkg string
}

// clickFrames returns the project's frames (not tests', not the fake
// Discord's) of the goroutine of the dump that runs package commands and
// is in the library lib (go-redis, net/http), outermost first.
func clickFrames(t *testing.T, dump []byte, root, lib string) []frame {
	t.Helper()
	var found [][]frame
	for g := range strings.SplitSeq(string(dump), "\n\n") {
		if !strings.Contains(g, "/clefs/commands.") || !strings.Contains(g, lib) {
			continue
		}
		var fs []frame
		lines := strings.Split(g, "\n")
		for i := 1; i+1 < len(lines); i += 2 {
			fn, loc := lines[i], strings.TrimSpace(lines[i+1])
			file, _, _ := strings.Cut(loc, ":")
			// Built with -trimpath (.ci/run), a file is named by its
			// module path; otherwise by its absolute path.
			rel, ok := strings.CutPrefix(file, "github.com/lesclefsdutresor/clefs/")
			if !ok {
				var err error
				if rel, err = filepath.Rel(root, file); err != nil || strings.HasPrefix(rel, "..") {
					continue
				}
			}
			if strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "internal/fakediscord") {
				continue
			}
			fn, _, _ = strings.Cut(fn, "(0x")
			fs = append(fs, frame{fn: strings.TrimSuffix(fn, "("), file: filepath.ToSlash(rel), pkg: filepath.ToSlash(filepath.Dir(rel))})
		}
		slices.Reverse(fs)
		found = append(found, fs)
	}
	if len(found) != 1 || len(found[0]) == 0 {
		t.Fatalf("%d goroutines in package commands and %s, want the click's alone", len(found), lib)
	}
	return found[0]
}

// layer orders the project's packages from the outside in: a call goes
// from a layer to the same or a deeper one.
func layer(pkg string) int {
	switch {
	case pkg == "." || pkg == "cli":
		return 0
	case pkg == "bot":
		return 1
	case pkg == "commands" || pkg == "activity":
		return 2
	case strings.HasPrefix(pkg, "storage/") && pkg != "storage/schema":
		return 3
	case pkg == "storage" || pkg == "storage/schema":
		return 4
	case pkg == "game":
		return 5
	}
	return 6
}
