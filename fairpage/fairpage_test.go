package fairpage_test

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/art"
	"github.com/lesclefsdutresor/clefs/fairpage"
	"github.com/lesclefsdutresor/clefs/game"
)

var update = flag.Bool("update", false, "rewrite the pictures in fair.html from package art")

// TestHandler checks what the bot serves at /fair: the page, a policy that
// forbids every request, conditional requests, and GET and HEAD only.
func TestHandler(t *testing.T) {
	h := fairpage.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/fair", nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, fairpage.HTML()) {
		t.Fatalf("GET: %d, %d bytes, want 200 and the page", res.StatusCode, len(body))
	}
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := res.Header.Get(name); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q…", name, got, want)
		}
	}
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req := httptest.NewRequest(http.MethodGet, "/fair", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match the ETag: %d, want 304", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/fair", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", rec.Code)
	}
}

// TestSelfContained checks that the page loads nothing: no src or href to
// another resource, no fetch, no XMLHttpRequest, no WebSocket.
func TestSelfContained(t *testing.T) {
	page := string(fairpage.HTML())
	for _, re := range []string{`\ssrc=`, `<link\b`, `\bfetch\(`, `XMLHttpRequest`, `WebSocket`, `\bimport\(`, `https?://`, `@import`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page holds %q: it must load nothing", m)
		}
	}
	for _, want := range []string{"window.clefs", "crypto.subtle", "BigInt", `lang="fr"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// artURI is symbol s's picture as the page holds it: package art's PNG in a
// data: URI (the page's policy allows images from data: only).
func artURI(t *testing.T, s game.Symbol) string {
	t.Helper()
	b, err := art.SymbolPNG(s)
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
}

// TestArt checks that the page's pictures are package art's, in symbol
// order; with -update it writes them into fair.html.
func TestArt(t *testing.T) {
	const start, end = "const ART = [\n", "\n];\n"
	page := string(fairpage.HTML())
	i := strings.Index(page, start)
	j := strings.Index(page[i+1:], end) + i + 1
	if i < 0 || j <= i {
		t.Fatalf("fair.html has no %q block", start)
	}
	var want strings.Builder
	for s := range game.Symbol(game.NumSymbols) {
		fmt.Fprintf(&want, "  '%s', // %v\n", artURI(t, s), s)
	}
	got, wantS := page[i+len(start):j+1], want.String()
	if got == wantS {
		return
	}
	if !*update {
		t.Fatal("the pictures in fair.html are not package art's: go test ./fairpage -run TestArt -update")
	}
	if err := os.WriteFile("fair.html", []byte(page[:i+len(start)]+wantS+page[j+1:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
