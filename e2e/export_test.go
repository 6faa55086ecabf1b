package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// checkPublicExport downloads the player's public export that /fairness
// export attaches, as the player would from Discord: the file the real
// discordgo client sent (multipart on the gateway's REST callback, in the
// HTTP endpoint's reply) is alice's export, of plays tickets and reveals
// seeds revealed, and clefs verify -export finds every draw and link in it
// right.
func checkPublicExport(t *testing.T, h *harness, plays, reveals int) {
	t.Helper()
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
	if x.Guild != id(guild) || x.User != id(alice) || len(x.Reveals) != reveals {
		t.Fatalf("export of guild %d user %d with %d reveals, want alice's in %s with %d", x.Guild, x.User, len(x.Reveals), guild, reveals)
	}
	n := 0
	for _, e := range x.History {
		if e.Kind == game.KindPlay {
			n++
		}
	}
	if n != plays {
		t.Fatalf("%d tickets in the export, want %d", n, plays)
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
	if err != nil || !strings.Contains(out.String(), fmt.Sprintf("(%d tickets and ", plays)) || !strings.Contains(out.String(), "checked, 0 unchecked, 0 broken (") ||
		strings.Contains(out.String(), "BROKEN") || strings.Contains(out.String(), "MISMATCH") {
		t.Fatalf("clefs verify -export: %v\n%s", err, out.String())
	}
}
