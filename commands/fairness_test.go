package commands

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// newFairEnv is newEnv drawing with game.SeededDrawer, so that the
// tickets can be verified.
func newFairEnv(tb testing.TB) *env {
	tb.Helper()
	e := newEnv(tb)
	e.fair = true
	e.open()
	return e
}

func (e *env) fairness(user uint64, locale, sub string, opts ...opt) *handled {
	e.t.Helper()
	return e.handle(e.slashPayload(user, memberPerms, locale, "fairness", sub, opts...))
}

// playTicket plays one whole ticket as user, opening the chest it gives,
// and returns the finished card.
func (e *env) playTicket(user uint64, locale string) *handled {
	e.t.Helper()
	card := e.handle(e.slashPayload(user, memberPerms, locale, "play", ""))
	done := e.handle(e.clickPayload(user, memberPerms, locale, card.message(), card.mustButton("v1:auto:").CustomID))
	if b, ok := done.button("v1:chest:"); ok {
		e.handle(e.clickPayload(user, memberPerms, locale, done.message(), b.CustomID))
	}
	return done
}

// noSecret fails if any reply shows the current server seed, whole or in
// part.
func noSecret(t *testing.T, p game.Player, replies ...*handled) {
	t.Helper()
	secret := p.Seed.Hex()
	for i := 0; i+16 <= len(secret); i += 8 {
		for _, h := range replies {
			if strings.Contains(h.text(), secret[i:i+16]) {
				t.Fatalf("a reply shows the secret server seed:\n%s", h.text())
			}
		}
	}
}

func TestFairnessNeverPlayed(t *testing.T) {
	e := newFairEnv(t)
	h := e.fairness(alice, "en-US", "show")
	if !h.ephemeral() || !strings.Contains(h.text(), "no seeds yet") {
		t.Fatalf("show for a new player:\n%s", h.text())
	}
	e.fairness(alice, "en-US", "verify", opt{"ticket", optInt, 1}).expectUserError("You have no ticket #1")
	if e.exists(alice) {
		t.Fatal("a read of /fairness created the player")
	}
	// Choosing a client seed first creates the player, with it.
	e.fairness(alice, "en-US", "seed", opt{"value", optString, "mine"})
	if p := e.player(alice); p.ClientSeed != "mine" || p.SeedNo != 2 || p.Check() != nil {
		t.Fatalf("after /fairness seed: client %q, seed %d", p.ClientSeed, p.SeedNo)
	}
}

func TestFairness(t *testing.T) {
	for _, tc := range []struct {
		locale                              string
		secret, revealed, checks, seedLabel string
	}{
		{"en-US", "still secret", "Server seed revealed", "checks out", "seed "},
		{"fr", "encore secrète", "Graine du serveur révélée", "est conforme", "graine "},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newFairEnv(t)
			var replies []*handled
			// The commitment is on the card before anything is drawn, and
			// /fairness shows it whole.
			card := e.slash(alice, tc.locale, "play")
			p := e.player(alice)
			c := p.Commitment()
			if !strings.Contains(card.r.Data.Embeds[0].Footer.Text, tc.seedLabel+c.Short()) || p.Ticket.Drawn {
				t.Fatalf("card footer %q, want the commitment %s", card.r.Data.Embeds[0].Footer.Text, c.Short())
			}
			show := e.fairness(alice, tc.locale, "show")
			if !strings.Contains(show.text(), c.String()) || !strings.Contains(show.text(), p.ClientSeed) {
				t.Fatalf("show:\n%s", show.text())
			}
			// No rotation while the ticket is open.
			e.fairness(alice, tc.locale, "rotate").expectUserError("")
			if !reflect.DeepEqual(e.player(alice), p) {
				t.Fatal("a refused rotation changed the player")
			}
			e.handle(e.clickPayload(alice, memberPerms, tc.locale, card.message(), card.mustButton("v1:auto:").CustomID))
			for range 6 {
				replies = append(replies, e.playTicket(alice, tc.locale))
			}
			replies = append(replies, show)
			p = e.player(alice)
			noSecret(t, p, replies...)
			e.fairness(alice, tc.locale, "verify", opt{"ticket", optInt, 3}).expectUserError(tc.secret)

			rot := e.slashPayload(alice, memberPerms, tc.locale, "fairness", "rotate")
			h := e.handle(rot)
			if !strings.Contains(h.text(), tc.revealed) || !strings.Contains(h.text(), p.Seed.Hex()) || !strings.Contains(h.text(), c.String()) {
				t.Fatalf("rotate:\n%s", h.text())
			}
			q := e.player(alice)
			if q.SeedNo != 2 || q.Seed == p.Seed || !strings.Contains(h.text(), q.Commitment().String()) {
				t.Fatalf("after rotate: seed %d, reply\n%s", q.SeedNo, h.text())
			}
			// The same interaction again rotates nothing more.
			if again := e.handle(rot); again.text() != h.text() || !reflect.DeepEqual(e.player(alice), q) {
				t.Fatalf("a repeated rotate:\n%s", again.text())
			}
			noSecret(t, q, h)
			for n := uint64(1); n <= q.TicketSeq; n++ {
				v := e.fairness(alice, tc.locale, "verify", opt{"ticket", optInt, n})
				if !strings.Contains(v.text(), tc.checks) || !strings.Contains(v.text(), p.Seed.Hex()) {
					t.Fatalf("verify %d:\n%s", n, v.text())
				}
			}
			e.fairness(alice, tc.locale, "verify", opt{"ticket", optInt, 99}).expectUserError("99")
		})
	}
}

// TestFairnessKeptReveals: /fairness show names the seed revealed last,
// from the reveals the store keeps beside the player; a rotation repeated
// once its reveal has left them (game.MaxReveals rotations later) rotates
// nothing and says the seed is no longer kept.
func TestFairnessKeptReveals(t *testing.T) {
	e := newFairEnv(t)
	e.playTicket(alice, "en-US")
	if show := e.fairness(alice, "en-US", "show"); strings.Contains(show.text(), "Last seed revealed") {
		t.Fatalf("show before any rotation:\n%s", show.text())
	}
	rot := e.slashPayload(alice, memberPerms, "en-US", "fairness", "rotate")
	first := e.handle(rot)
	p := e.player(alice)
	if p.SeedNo != 2 {
		t.Fatalf("after a rotation: seed %d\n%s", p.SeedNo, first.text())
	}
	if show := e.fairness(alice, "en-US", "show"); !strings.Contains(show.text(), "Last seed revealed: #1") {
		t.Fatalf("show after a rotation:\n%s", show.text())
	}
	for range game.MaxReveals {
		e.fairness(alice, "en-US", "rotate")
	}
	last := int64(game.MaxReveals + 1)
	if show := e.fairness(alice, "en-US", "show"); !strings.Contains(show.text(), "Last seed revealed: #"+strconv.FormatInt(last, 10)) {
		t.Fatalf("show after %d rotations:\n%s", last, show.text())
	}
	rs, err := e.store.Reveals(context.Background(), storage.PlayerID{Guild: testGuild, User: alice})
	if err != nil || len(rs) != game.MaxReveals {
		t.Fatalf("%d reveals kept, want %d (%v)", len(rs), game.MaxReveals, err)
	}
	if _, ok := rs.Seed(1); ok {
		t.Fatal("seed 1 still kept")
	}
	before := e.player(alice)
	e.handle(rot).expectUserError("no longer kept")
	if !reflect.DeepEqual(e.player(alice), before) {
		t.Fatal("a repeated rotation rotated again")
	}
}

// TestFairnessVerifyShowsTheChest: the ticket that gave the third key is
// verified with the chest it opened.
func TestFairnessVerifyShowsTheChest(t *testing.T) {
	e := newFairEnv(t)
	e.setBalance(alice, 1_000_000)
	var third uint64
	for third == 0 {
		e.playTicket(alice, "en-US")
		p := e.player(alice)
		if p.ChestSeq > 0 {
			third = p.TicketSeq
		}
	}
	e.fairness(alice, "en-US", "rotate")
	v := e.fairness(alice, "en-US", "verify", opt{"ticket", optInt, third})
	if !strings.Contains(v.text(), "checks out") || !strings.Contains(v.text(), "Chest #1, made ready by its key") || !strings.Contains(v.text(), "✅ Recomputed") {
		t.Fatalf("verify of the third key's ticket:\n%s", v.text())
	}
}

// TestFairnessMismatch: a history line that does not tell what the seeds
// drew is reported, both grids shown.
func TestFairnessMismatch(t *testing.T) {
	e := newFairEnv(t)
	e.playTicket(alice, "en-US")
	e.fairness(alice, "en-US", "rotate")
	e.store.tamper = func(h []game.Entry) {
		for i := range h {
			if h[i].Kind == game.KindPlay {
				g := &h[i].Grid
				g[0], g[1], g[2] = g[2], g[0], g[1] // still the same tier, another grid
				if g[0] == g[1] {
					g[0], g[3] = g[3], g[0]
				}
			}
		}
	}
	v := e.fairness(alice, "en-US", "verify", opt{"ticket", optInt, 1})
	if !strings.Contains(v.text(), "does not match") || !strings.Contains(v.text(), "What your history recorded") {
		t.Fatalf("verify of a tampered line:\n%s", v.text())
	}
}

// TestFairnessBadInput: a bad client seed, ticket or subcommand is refused
// with a clear message, and changes nothing.
func TestFairnessBadInput(t *testing.T) {
	e := newFairEnv(t)
	e.playTicket(alice, "en-US")
	before := e.player(alice)
	for _, v := range []any{"", strings.Repeat("x", game.MaxClientSeed+1), strings.Repeat("é", 33), "a\nb", "\x00", 42} {
		h := e.fairness(alice, "en-US", "seed", opt{"value", optString, v})
		if _, isString := v.(string); isString && v != "" {
			h.expectUserError("1 to " + strconv.Itoa(game.MaxClientSeed) + " bytes")
		} else {
			h.expectUserError("")
		}
	}
	for _, v := range []any{0, -1, 1.5, "1", 1e300} {
		e.fairness(alice, "en-US", "verify", opt{"ticket", optInt, v}).expectUserError("invalid")
	}
	e.fairness(alice, "fr", "seed", opt{"value", optString, "a\tb"}).expectUserError("octets")
	e.fairness(alice, "en-US", "nope").expectUserError("")
	e.fairness(alice, "en-US", "").expectUserError("")
	if !reflect.DeepEqual(e.player(alice), before) {
		t.Fatal("refused /fairness calls changed the player")
	}
}

// TestFairnessNextCommitment: the next server seed's commitment is shown
// before the player chooses a client seed, and the seed that then draws
// is the one it committed: a client seed can never meet a server seed
// chosen after it.
func TestFairnessNextCommitment(t *testing.T) {
	for _, tc := range []struct{ locale, label string }{{"en-US", "Next server seed #2"}, {"fr", "Prochaine graine du serveur n° 2"}} {
		t.Run(tc.locale, func(t *testing.T) {
			e := newFairEnv(t)
			e.playTicket(alice, tc.locale)
			p := e.player(alice)
			if p.NextSeed == (game.Seed{}) {
				t.Fatal("a player without a next seed")
			}
			next := p.NextSeed.Commitment().String()
			show := e.fairness(alice, tc.locale, "show")
			if !strings.Contains(show.text(), tc.label) || !strings.Contains(show.text(), next) {
				t.Fatalf("show lacks the next commitment %s:\n%s", next, show.text())
			}
			h := e.fairness(alice, tc.locale, "seed", opt{"value", optString, "chosen after seeing it"})
			q := e.player(alice)
			if q.Commitment().String() != next || q.ClientSeed != "chosen after seeing it" {
				t.Fatalf("after /fairness seed: commitment %s, want the one shown before %s", q.Commitment(), next)
			}
			if !strings.Contains(h.text(), next) || !strings.Contains(h.text(), q.NextSeed.Commitment().String()) {
				t.Fatalf("the seed reply shows neither the seed now drawing nor the next:\n%s", h.text())
			}
			noSecret(t, q, show, h)
			if strings.Contains(show.text(), q.NextSeed.Hex()[:16]) || strings.Contains(h.text(), q.NextSeed.Hex()[:16]) {
				t.Fatal("a reply shows the next seed itself")
			}
		})
	}
}
