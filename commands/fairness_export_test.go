package commands

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// exportFile returns the name and the content of the one file of h.
func exportFile(t *testing.T, h *handled) (string, []byte) {
	t.Helper()
	if h.r.Data == nil || len(h.r.Data.Files) != 1 {
		t.Fatalf("want one file, reply:\n%s", h.text())
	}
	f := h.r.Data.Files[0]
	b, err := io.ReadAll(f.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if f.ContentType != "application/json" {
		t.Errorf("content type %q", f.ContentType)
	}
	return f.Name, b
}

// TestFairnessExport: /fairness export sends the player's public export as
// a file, ephemeral, with how to check it; never a secret seed; nothing
// for a player who never played.
func TestFairnessExport(t *testing.T) {
	for _, tc := range []struct{ locale, none, how string }{
		{"en-US", "no fairness data yet", "To check every ticket: `clefs verify -export clefs-equite-"},
		{"fr", "pas encore de données d'équité", "Pour vérifier chaque ticket : `clefs verify -export clefs-equite-"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newFairEnv(t)
			e.fairness(alice, tc.locale, "export").expectUserError(tc.none)
			if e.exists(alice) {
				t.Fatal("/fairness export created the player")
			}
			for range 4 {
				e.playTicket(alice, tc.locale)
			}
			e.fairness(alice, tc.locale, "rotate")
			for range 3 {
				e.playTicket(alice, tc.locale)
			}
			p := e.player(alice)
			h := e.fairness(alice, tc.locale, "export")
			if !h.ephemeral() || !strings.Contains(h.text(), tc.how) || strings.Contains(h.text(), "https://") {
				t.Fatalf("export reply:\n%s", h.text())
			}
			name, b := exportFile(t, h)
			if want := "clefs-equite-" + strconv.FormatUint(alice, 10) + ".json"; name != want {
				t.Errorf("file %q, want %q", name, want)
			}
			x, err := schema.DecodePublicExport(name, b)
			if err != nil {
				t.Fatal(err)
			}
			if x.Guild != testGuild || x.User != alice || len(x.Reveals) != 1 || len(x.History) < 7 {
				t.Fatalf("export of %d/%d: %d lines, %d reveals", x.Guild, x.User, len(x.History), len(x.Reveals))
			}
			if x.History[0].TicketID != 1 || x.History[len(x.History)-1].Balance != p.Balance {
				t.Errorf("lines not oldest first: ticket %d first, balance %d last", x.History[0].TicketID, x.History[len(x.History)-1].Balance)
			}
			for _, s := range []game.Seed{p.Seed, p.NextSeed} {
				if strings.Contains(string(b), s.Hex()) {
					t.Fatal("the export shows a secret seed")
				}
			}
		})
	}
}

// TestFairnessPublicURL: with a PublicURL, the export, /fairness verify
// and a finished card point to its /fair page; an open card does not.
func TestFairnessPublicURL(t *testing.T) {
	e := newFairEnv(t)
	cfg := e.cfg
	cfg.PublicURL = "https://clefs.example.org"
	e.app = New(cfg, e.store)
	const page = "https://clefs.example.org/fair"

	card := e.slash(alice, "fr", "play")
	if f := card.r.Data.Embeds[0].Footer.Text; strings.Contains(f, "/fair") {
		t.Errorf("an open card's footer links to the page: %q", f)
	}
	done := e.handle(e.clickPayload(alice, memberPerms, "fr", card.message(), card.mustButton("v1:auto:").CustomID))
	if f := done.r.Data.Embeds[0].Footer.Text; !strings.HasSuffix(f, " · vérifier : clefs.example.org/fair") {
		t.Errorf("a finished card's footer: %q", f)
	}
	if b, ok := done.button("v1:chest:"); ok {
		e.handle(e.clickPayload(alice, memberPerms, "fr", done.message(), b.CustomID))
	}
	e.fairness(alice, "en-US", "rotate")
	v := e.fairness(alice, "en-US", "verify", opt{"ticket", optInt, 1})
	if !strings.Contains(v.r.Data.Embeds[0].Description, "]("+page+")") {
		t.Errorf("verify does not link to the page:\n%s", v.text())
	}
	x := e.fairness(alice, "en-US", "export")
	if !strings.Contains(x.text(), "open "+page+" and choose this file") {
		t.Errorf("export does not point to the page:\n%s", x.text())
	}
	exportFile(t, x)
}

// TestFairnessExportDeferred: an export answered after a deferral still
// carries its file, in the edit of the original response.
func TestFairnessExportDeferred(t *testing.T) {
	e := newFairEnv(t)
	e.playTicket(alice, "en-US")
	cfg := e.cfg
	cfg.DeferAfter = 20 * time.Millisecond
	st := gatedStore{Store: e.store, gate: make(chan struct{})}
	a := New(cfg, st)
	rec := &recorder{onRespond: func() { close(st.gate) }}
	a.Handle(context.Background(), rec, e.slashPayload(alice, memberPerms, "en-US", "fairness", "export"))
	if len(rec.responses) != 1 || rec.responses[0].Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("responses %+v, want one deferred response", rec.responses)
	}
	if len(rec.edits) != 1 || len(rec.edits[0].Files) != 1 || !strings.HasPrefix(rec.edits[0].Files[0].Name, "clefs-equite-") {
		t.Fatalf("edits %+v, want the file", rec.edits)
	}
	b, err := io.ReadAll(rec.edits[0].Files[0].Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.DecodePublicExport("edit", b); err != nil {
		t.Error(err)
	}
}
