package commands

import (
	"context"
	"fmt"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// A refusal by the rules is an answer, given at once: only store and
// network failures take the late path (late.go).

// atLimit writes user as a player at the ticket-number limit, as an import
// of such a player would. (A chest due at the chest-number limit is no
// state a store accepts: game.Player.Check backs every chest with tickets.)
func (e *env) atLimit(user uint64) {
	e.t.Helper()
	now := storage.Timestamp(e.clock.Now())
	seed, err := game.NewSeed(&e.seeds)
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := game.NewPlayer(startCents, seed, "client", now)
	if err != nil {
		e.t.Fatal(err)
	}
	p.TicketSeq = game.MaxSeq
	d := &storage.DecodedDump{Players: []storage.DecodedPlayer{{ID: storage.PlayerID{Guild: testGuild, User: user}, Player: p.WithNextSeed(game.Seed{9})}}}
	if err := e.store.Import(context.Background(), d); err != nil {
		e.t.Fatalf("player at the limit: %v", err)
	}
}

// noLateNoStoreError checks that the step took no late-retry slot and
// counted no store error.
func (e *env) noLateNoStoreError() {
	e.t.Helper()
	if n := e.app.late.size(); n != 0 {
		e.t.Errorf("%d late continuations: a refusal took the late path", n)
	}
	e.obs.mu.Lock()
	defer e.obs.mu.Unlock()
	if len(e.obs.storeErrors) != 0 {
		e.t.Errorf("store errors %v: a refusal counted as one", e.obs.storeErrors)
	}
}

func TestTicketNumberLimitIsAnAnswer(t *testing.T) {
	e := newEnv(t)
	e.atLimit(alice)
	before := e.player(alice)

	e.slash(alice, "en-US", "play").expectUserError("every ticket number")
	e.noLateNoStoreError()
	fr := e.handle(e.slashPayload(alice, memberPerms, "fr", "play", ""))
	fr.expectUserError("tous les numéros de ticket")

	// "Play again" on the player's last card is refused the same way.
	again := customID{kind: kindAgain, user: alice}.format()
	e.click(alice, cardWith(again), again).expectUserError("every ticket number")
	e.noLateNoStoreError()
	if p := e.player(alice); p.Balance != before.Balance || p.TicketSeq != game.MaxSeq || p.Ticket != nil {
		t.Errorf("player changed: balance %d, ticket %d, open %v", p.Balance, p.TicketSeq, p.Ticket)
	}
}

func TestRuleRefusalIsNeverRetried(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("%w: a state the rules refuse", game.ErrInvalid),
		fmt.Errorf("wrapped: %w", game.ErrInvalidOutcome),
		fmt.Errorf("storage: player: %w", game.ErrTicketOpen),
	} {
		got := stepErr("op", err)
		if retryable(got) || errorOutcome(got) != "user_error" {
			t.Errorf("stepErr(%v) = %v: retryable %v, outcome %s", err, got, retryable(got), errorOutcome(got))
		}
	}
	for _, err := range []error{context.DeadlineExceeded, fmt.Errorf("redis: %w", game.ErrLeaseHeld)} {
		if got := stepErr("op", err); !retryable(got) {
			t.Errorf("stepErr(%v) = %v: a store failure must stay retryable", err, got)
		}
	}
}
