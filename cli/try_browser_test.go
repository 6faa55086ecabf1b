package cli

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lesclefsdutresor/clefs/internal/browsertest"
)

// syncBuffer is output read while it is written: a session's, the bot's logs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the session has printed want after its first from.
func (b *syncBuffer) waitFor(t *testing.T, from, want string) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, after, ok := strings.Cut(b.String(), from); ok && strings.Contains(after, want) {
			return after
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session never printed %q after %q:\n%s", want, from, b.String())
		}
	}
}

var pageRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+/client/client\.html\?people=[\d,]+&instance=([\w-]+)&user=(\d+)`)

// TestTryActivityInBrowser plays `clefs try`'s Activity as a newcomer
// does: start try, open the address of its banner in a browser, buy a
// ticket and reveal a row with the mouse; the prompt's /balance is the
// page's; the second address, in another tab, is a second player at the
// same table.
func TestTryActivityInBrowser(t *testing.T) {
	t.Parallel()
	in, typed := io.Pipe()
	prev := tryStdin
	tryStdin = in
	defer func() { tryStdin = prev }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- Main(ctx, []string{"try", "-seed", "1"}, &out, &stderr) }()
	banner := out.waitFor(t, "", "]> ")
	pages := pageRE.FindAllStringSubmatch(banner, -1)
	if len(pages) != 2 || pages[0][1] != pages[1][1] || pages[0][2] != tryPlayer || pages[1][2] != trySecond {
		t.Fatalf("the banner gives no two addresses of one instance, for %s and %s:\n%s", tryPlayer, trySecond, banner)
	}

	bctx := browsertest.New(t, "clefs try's Activity", "en-US,en", 2*time.Minute)
	// app waits until the Activity shows a state and has no step in flight,
	// then reads it.
	app := func(ctx context.Context, read string) string {
		t.Helper()
		const idle = `(a => !!a && a.dataset.busy === '0' && !!a.querySelector('.actions'))(top.frames[0]?.document.getElementById('app'))`
		// A click's step starts at most an animation frame later: wait two.
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => { const check = () => `+idle+
			` ? done((d => `+read+`)(top.frames[0].document)) : setTimeout(check, 10);
			const f = top.frames[0] ?? top; f.requestAnimationFrame(() => f.requestAnimationFrame(check)) })`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("the Activity never showed a state (%s): %v\n%s", read, err, out.String())
		}
		return v
	}
	click := func(act string) {
		t.Helper()
		r, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`(b => [b.x + b.width / 2, b.y + b.height / 2])(top.frames[0].document.querySelector('[data-act="`+act+`"]').getBoundingClientRect())`))
		if err == nil {
			err = chromedp.Do(bctx, chromedp.MouseClickXY(r[0], r[1]))
		}
		if err != nil {
			t.Fatalf("click %s: %v", act, err)
		}
	}
	const balance, cells = `d.querySelector('.balance b').textContent`, `[...d.querySelectorAll('.cell')].map(c => c.dataset.s ?? '').join(',')`

	// A desktop browser's window (headless Chromium's own is 780×437).
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(pages[0][0])); err != nil {
		t.Fatal(err)
	}
	if b := app(bctx, balance); b != "20.00 credits" {
		t.Fatalf("the player's page shows a balance of %q", b)
	}
	click("buy")
	if tk := app(bctx, `d.getElementById('app').dataset.ticket`); tk != "1" {
		t.Fatalf("a ticket bought: the page shows ticket %q", tk)
	}
	click("next")
	got := strings.Split(app(bctx, cells), ",")
	if len(got) != 9 || slices.Contains(got[:3], "") || slices.ContainsFunc(got[3:], func(c string) bool { return c != "" }) {
		t.Fatalf("row 1 revealed: the page shows the cells %q", got)
	}
	shown := app(bctx, balance)

	// The page's player is the prompt's: the same balance, the same ticket.
	typed.Write([]byte("/balance\n"))
	if b := out.waitFor(t, "> /balance\n", "]> "); !strings.Contains(b, "Balance: "+shown) || !strings.Contains(b, "Ticket #1 is being revealed") {
		t.Errorf("/balance at the prompt, after a ticket in the page that shows %s:\n%s", shown, b)
	}

	// The second player, in another tab, at the same table.
	tab, closeTab := chromedp.NewContext(bctx)
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.Navigate(pages[1][0])); err != nil {
		t.Fatal(err)
	}
	if b, tk := app(tab, balance), app(tab, `d.getElementById('app').dataset.ticket ?? ''`); b != "20.00 credits" || tk != "" {
		t.Errorf("the second player's page shows %q, ticket %q", b, tk)
	}
	if errs := app(tab, `top.fake.errors.join('; ')`); errs != "" {
		t.Errorf("the fake client met errors: %s", errs)
	}

	typed.Write([]byte("quit\n"))
	if err := <-done; err != nil {
		t.Fatalf("try: %v\n%s", err, stderr.String())
	}
}
