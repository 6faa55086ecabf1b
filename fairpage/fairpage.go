// Package fairpage is the verification page: one static HTML file, plain
// JavaScript and WebCrypto, that recomputes tickets and chests from their
// seeds as docs/FAIRNESS.md specifies, with no network request. The bot
// serves it at /fair; it also works opened from disk. It speaks French or
// English after the browser (an FR / EN switch redraws it), and draws
// tickets with package art's pictures, held in it as data: images
// (TestArt checks them; -update writes them).
//
// The page exposes its draw to scripts as window.clefs (ticket, chest,
// commitment, checkExport, ticketFromStream), which the browser test in this
// package drives with headless Chromium against package game.
package fairpage

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"time"
)

//go:embed fair.html
var page []byte

// csp lets the page run its own inline script and style and nothing else:
// no request of any kind (connect-src, img-src but data:, frames, forms).
const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// HTML returns the page.
func HTML() []byte { return page }

// Handler serves the page to GET and HEAD, with a Content-Security-Policy
// that forbids any request, an ETag (conditional requests answer 304) and
// an hour of caching. Other methods get 405.
func Handler() http.Handler {
	// The ETag is strong, a hash of the page's bytes, so that a new
	// build's page is never taken for the old one.
	sum := sha256.Sum256(page)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("ETag", etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(page))
	})
}
