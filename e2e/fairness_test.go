package e2e_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

var hex64 = regexp.MustCompile(`[0-9a-f]{64}`)

// TestFairness plays as a player who checks the bot: the commitment shown
// before the draws, the seed revealed after them hashing to it, every
// ticket recomputed to the grid its card showed, and the public export of
// /fairness export found right (checkPublicExport), on both transports and
// in both languages, with the production draws.
func TestFairness(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    map[string]string
		locale discordgo.Locale
		checks string
	}{
		{"gateway-en", map[string]string{}, "en-US", "checks out"},
		{"http-fr", httpEnv(map[string]string{}), discordgo.French, "est conforme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["DATA_PATH"] = filepath.Join(t.TempDir(), "clefs.db")
			h := newHarness(t, tc.env)
			h.fair = true
			h.start()
			fairness := func(sub string, opts ...fakediscord.Opt) *discordgo.Message {
				r := h.slash(fakediscord.Slash{User: alice, Locale: tc.locale, Name: "fairness", Sub: sub, Options: opts})
				if !r.Ephemeral {
					t.Errorf("/fairness %s is not ephemeral", sub)
				}
				return r.Message
			}
			var seen []string // every text the player saw

			// The commitment, before the first ticket is drawn: on the card
			// and, whole, in /fairness.
			r := h.slash(fakediscord.Slash{User: alice, Locale: tc.locale, Name: "play"})
			card := r.Message
			show := text(fairness("show"))
			commitment := hex64.FindString(show)
			if commitment == "" || !strings.Contains(card.Embeds[0].Footer.Text, commitment[:8]) {
				t.Fatalf("commitment %q not on the card's footer %q", commitment, card.Embeds[0].Footer.Text)
			}
			seen = append(seen, show, text(card))
			var grids [][]string // the grids the cards showed, by ticket
			for i := range 4 {
				if i > 0 {
					card = h.click(card, "v1:again:"+alice, alice).Message
				}
				card = h.click(card, "v1:auto:"+alice, alice).Message
				grids = append(grids, gridRows(card))
				seen = append(seen, text(card))
				if hasButton(card, "v1:chest:") {
					card = h.click(card, "v1:chest:"+alice, alice).Message
				}
			}
			secret := text(fairness("verify", fakediscord.Opt{Name: "ticket", Value: 2}))
			if !strings.HasPrefix(secret, "❌") || !strings.Contains(secret, "/") {
				t.Fatalf("verify under the secret seed: %q", secret)
			}

			// The reveal: the seed hashes to the commitment shown before.
			rot := text(fairness("rotate"))
			seen = append(seen, rot)
			var revealed string
			for _, s := range hex64.FindAllString(rot, -1) {
				if sum := sha256.Sum256(mustHex(t, s)); hex.EncodeToString(sum[:]) == commitment {
					revealed = s
				}
			}
			if revealed == "" {
				t.Fatalf("no seed in the rotation's reply hashes to the commitment %s:\n%s", commitment, rot)
			}
			for i, want := range grids {
				v := fairness("verify", fakediscord.Opt{Name: "ticket", Value: i + 1})
				if !strings.Contains(text(v), tc.checks) || !strings.Contains(text(v), revealed) {
					t.Fatalf("verify %d:\n%s", i+1, text(v))
				}
				got := strings.Split(v.Embeds[0].Fields[1].Value, "\n")[:3]
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("ticket %d: recomputed grid\n%s\nthe card showed\n%s", i+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}

			// A client seed of the player's own: refused when too long in
			// bytes (Discord counts characters: it lets these 40 through),
			// and then the new seeds' commitment, never the seed.
			bad := text(fairness("seed", fakediscord.Opt{Name: "value", Value: strings.Repeat("é", 40)}))
			if !strings.HasPrefix(bad, "❌") {
				t.Fatalf("an 80-byte client seed: %q", bad)
			}
			set := text(fairness("seed", fakediscord.Opt{Name: "value", Value: "Trésor 🗝"}))
			if !strings.Contains(set, "Trésor 🗝") {
				t.Fatalf("client seed not shown:\n%s", set)
			}
			seen = append(seen, set)
			checkPublicExport(t, h, 4, 2)
			h.stop()
			p, rs := h.player(alice), h.reveals(alice)
			if p.ClientSeed != "Trésor 🗝" || p.SeedNo != 3 || len(rs) != 2 || rs[0].Seed.Hex() != revealed {
				t.Fatalf("stored seeds: client %q, seed %d, %d revealed", p.ClientSeed, p.SeedNo, len(rs))
			}
			for _, s := range seen {
				if strings.Contains(s, p.Seed.Hex()[:16]) || strings.Contains(s, p.NextSeed.Hex()[:16]) {
					t.Fatalf("a secret seed was shown:\n%s", s)
				}
			}
			// The seed that draws now is the one whose commitment /fairness
			// showed as the next before the client seed was chosen.
			if !strings.Contains(rot, rs[1].Commitment().String()) {
				t.Fatalf("the rotation's reply does not show the next commitment %s:\n%s", rs[1].Commitment(), rot)
			}

			// Offline: the operator's export, checked by clefs verify.
			dump := filepath.Join(t.TempDir(), "players.json")
			var out strings.Builder
			if err := cli.Main(context.Background(), []string{"export", "-data", tc.env["DATA_PATH"], "-o", dump}, &out, &out); err != nil {
				t.Fatalf("export: %v\n%s", err, out.String())
			}
			out.Reset()
			if err := cli.Main(context.Background(), []string{"verify", "-export", dump}, &out, &out); err != nil || !regexp.MustCompile(`\(4 tickets and \d+ chests? of 1 player recomputed`).MatchString(out.String()) || !strings.Contains(out.String(), " 0 unchecked, 0 broken") || !strings.Contains(out.String(), "all match") {
				t.Fatalf("clefs verify -export: %v\n%s", err, out.String())
			}
		})
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
