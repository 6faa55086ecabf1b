package e2e_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// TestFairnessExport plays three tickets, reveals their seed, and downloads
// the player's public export that /fairness export attaches, as the player
// would from Discord: the file the real discordgo client sent (multipart on
// the gateway's REST callback, in the HTTP endpoint's reply) is the
// player's export, and clefs verify -export finds every draw and link in it
// right.
func TestFairnessExport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"gateway", map[string]string{}},
		{"http", httpEnv(map[string]string{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.env["DATA_PATH"] = filepath.Join(t.TempDir(), "clefs.db")
			h := newHarness(t, tc.env)
			h.fair = true
			h.start()
			card := h.slash(fakediscord.Slash{User: alice, Name: "play"}).Message
			for i := range 3 {
				if i > 0 {
					card = h.click(card, "v1:again:"+alice, alice).Message
				}
				card = h.click(card, "v1:auto:"+alice, alice).Message
				if hasButton(card, "v1:chest:") {
					card = h.click(card, "v1:chest:"+alice, alice).Message
				}
			}
			h.slash(fakediscord.Slash{User: alice, Name: "fairness", Sub: "rotate"})

			r := h.slash(fakediscord.Slash{User: alice, Name: "fairness", Sub: "export"})
			m := r.Message
			if !r.Ephemeral || len(m.Attachments) != 1 {
				t.Fatalf("/fairness export: ephemeral %v, attachments %+v, text %q", r.Ephemeral, m.Attachments, text(m))
			}
			a := m.Attachments[0]
			name := "clefs-equite-" + alice + ".json"
			if a.Filename != name || a.ContentType != "application/json" || a.Size == 0 || !strings.Contains(m.Content, name) {
				t.Errorf("attachment %+v, content %q: want %s as JSON, named in the text", a, m.Content, name)
			}
			status, body := httpGet(t, a.URL) // as a Discord client does from the CDN
			data := []byte(body)
			if status != 200 {
				t.Fatalf("GET %s: %d", a.URL, status)
			}
			if kept, ok := h.srv.Attachment(a.ID); !ok || !bytes.Equal(kept, data) || len(data) != a.Size {
				t.Fatalf("the fake's bytes (%d, %v) differ from those served (%d), size %d", len(kept), ok, len(data), a.Size)
			}
			h.noFailures()

			x, err := schema.DecodePublicExport(name, data)
			if err != nil {
				t.Fatalf("the attachment is not a public export: %v\n%s", err, data)
			}
			if x.Guild != id(guild) || x.User != id(alice) || len(x.Reveals) != 1 {
				t.Fatalf("export of guild %d user %d with %d reveals, want alice's in %s with 1", x.Guild, x.User, len(x.Reveals), guild)
			}
			plays := 0
			for _, e := range x.History {
				if e.Kind == game.KindPlay {
					plays++
				}
			}
			if plays != 3 {
				t.Fatalf("%d tickets in the export, want 3", plays)
			}
			links := game.CheckRevealedLinks(x.Reveals, x.History)
			checked := int64(0)
			for _, n := range links.Checked {
				checked += n
			}
			if len(links.Breaks) > 0 || checked == 0 {
				t.Fatalf("links: %d checked, breaks %v", checked, links.Breaks)
			}

			// As the player would: the file saved, then clefs verify -export.
			path := filepath.Join(t.TempDir(), a.Filename)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err = cli.Main(context.Background(), []string{"verify", "-export", path}, &out, &out)
			if err != nil || !strings.Contains(out.String(), "(3 tickets and ") || !strings.Contains(out.String(), "checked, 0 unchecked, 0 broken (") ||
				strings.Contains(out.String(), "BROKEN") || strings.Contains(out.String(), "MISMATCH") {
				t.Fatalf("clefs verify -export: %v\n%s", err, out.String())
			}
		})
	}
}
