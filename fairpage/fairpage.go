// Package fairpage is the verification page: one static HTML file, plain
// JavaScript and WebCrypto, that recomputes tickets and chests from their
// seeds as docs/FAIRNESS.md specifies, with no network request. The bot
// serves it at /fair; it also works opened from disk.
package fairpage

import (
	_ "embed"
	"net/http"
)

//go:embed fair.html
var page []byte

// HTML returns the page.
func HTML() []byte { return page }

// Handler serves the page.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
}
