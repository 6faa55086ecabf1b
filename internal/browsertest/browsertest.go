// Package browsertest starts headless Chromium for the browser tests (the
// verification page's, the Activity's): a fresh profile, nothing fetched
// from outside, closed with the test. Without Chromium a test skips, and
// fails under CI=true, where the browser tests must run.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// New starts headless Chromium with acceptLang as its languages (e.g.
// "fr-FR,fr") and returns a context of a tab that ends with the test, or
// after timeout. what names the page under test in the skip message.
func New(t *testing.T, what, acceptLang string, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path(t, what)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("accept-lang", acceptLang),
		// Nothing from outside: the machine's network is closed, and a
		// browser test loads only its loopback pages.
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// path finds the browser, or skips (fails under CI=true).
func path(t *testing.T, what string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("chromium is not installed, and CI=true: the browser test of %s must run (apt-get install -y chromium)", what)
	}
	t.Skipf("chromium not found: install it (Debian: apt-get install -y chromium) to test %s in a browser", what)
	return ""
}
