package commands

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
)

// damage overwrites the stored records of users with what does not decode,
// the store closed (as a stray write or a hand edit would leave them), and
// opens it again.
func (e *env) damage(users ...uint64) {
	e.t.Helper()
	if err := e.store.Close(); err != nil {
		e.t.Fatal(err)
	}
	db, err := bolt.Open(e.store.path, 0o600, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, u := range users {
			k := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, testGuild), u)
			if err := tx.Bucket([]byte("players")).Put(k, []byte(`{"v":3,"p":"garbage"}`)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.store.reopen(e.t)
	e.open()
}

// TestDamagedRecord: a player's record that does not decode takes down
// nothing but itself. The leaderboard leaves it out and counts it; the
// player, and a moderator acting on them, are told at once, in their
// language, that it is damaged and /admin reset repairs it (never the
// late path, never "outside the allowed range"); /admin reset rewrites it,
// saying what was lost, and the player plays again; so does a reset of the
// whole guild.
func TestDamagedRecord(t *testing.T) {
	e := newEnv(t)
	for range 2 {
		e.playTicket(alice, "en-US")
	}
	e.slash(bob, "en-US", "play")
	ticket := e.player(alice).TicketSeq // drawn: its history line is kept beside the record
	e.damage(alice)

	board := e.slash(bob, "en-US", "leaderboard")
	if board.ephemeral() || !strings.Contains(board.text(), "<@1000000000000000002>") || strings.Contains(board.text(), "<@1000000000000000001>") {
		t.Fatalf("leaderboard with alice damaged:\n%s", board.text())
	}
	if e.obs.damaged != 1 {
		t.Fatalf("%d damaged records counted, want 1", e.obs.damaged)
	}
	e.slash(alice, "en-US", "play").expectUserError("<@1000000000000000001> on this server is damaged")
	e.slash(alice, "fr", "balance").expectUserError("<@1000000000000000001> sur ce serveur est endommagé")
	e.admin(moderator, modPermsSet, "set-balance", opt{"user", optUser, "1000000000000000001"},
		opt{"amount", optString, "10"}).expectUserError("/admin reset")
	var ae *ActError
	if _, err := e.act(alice, ActKindBuy, "buy-damaged-000001", 0, 0, 0); !errors.As(err, &ae) || ae.Code != "damaged" {
		t.Fatalf("Activity buy with alice damaged: %v", err)
	}
	e.noLateNoStoreError()
	if e.obs.damaged != 5 || e.obs.interactions["play user_error"] != 1 {
		t.Fatalf("damaged %d, interactions %v", e.obs.damaged, e.obs.interactions)
	}

	h := e.admin(moderator, modPermsSet, "reset", opt{"user", optUser, "1000000000000000001"}, opt{"reason", optString, "damaged"})
	if !strings.Contains(h.text(), "was damaged") || !strings.Contains(h.text(), "current server seed") {
		t.Fatalf("reset of a damaged record:\n%s", h.text())
	}
	p := e.player(alice)
	if p.Balance != startCents || p.TicketSeq != ticket || p.Check() != nil {
		t.Fatalf("alice repaired: %+v, want %d credits after ticket %d", p, startCents, ticket)
	}
	if h := e.slash(alice, "en-US", "play"); h.ephemeral() || e.player(alice).Ticket.ID != ticket+1 {
		t.Fatalf("alice's play after the repair:\n%s", h.text())
	}
	if h := e.slash(bob, "en-US", "leaderboard"); !strings.Contains(h.text(), "<@1000000000000000001> — "+game.FormatCents(startCents-game.Stake, game.English)) {
		t.Fatalf("leaderboard after the repair:\n%s", h.text())
	}

	// A reset of the whole guild goes through a damaged record, rewriting it.
	e.damage(bob)
	ask := e.admin(moderator, modPermsSet, "reset-guild", opt{"reason", optString, "new season"})
	e.handle(e.clickPayload(moderator, modPermsSet, "en-US", ask.message(), ask.mustButton("v1:rg:").CustomID))
	e.finishJobs()
	for _, u := range []uint64{alice, bob} {
		if p := e.player(u); p.Stats.Plays != 0 || p.Balance != startCents {
			t.Fatalf("player %d after reset-guild: %+v", u, p)
		}
	}
}
