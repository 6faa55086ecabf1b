package commands

import (
	"errors"
	"fmt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// userError is a mistake a user can make: the id of its message and the
// message's data. Returning one means nothing was changed. cause, when not
// nil, is what renderError logs (a damaged record, an unexpected refusal).
type userError struct {
	id    string
	data  map[string]any
	cause error
}

func (e *userError) Error() string {
	if e.cause != nil {
		return "user error: " + e.id + ": " + e.cause.Error()
	}
	return "user error: " + e.id
}

func userErr(id string, data map[string]any) error { return &userError{id: id, data: data} }

// storeError is an internal failure of the store call op.
type storeError struct {
	op  string
	err error
}

func (e *storeError) Error() string { return fmt.Sprintf("store %s: %v", e.op, e.err) }
func (e *storeError) Unwrap() error { return e.err }

// internal wraps an unexpected store error so that it is logged and counted;
// a player's damaged record is an answer instead, never tried again.
func internal(op string, err error) error {
	if d := damaged(err); d != nil {
		return &userError{id: "err_damaged", data: map[string]any{"User": mention(d.ID.User)}, cause: err}
	}
	return &storeError{op: op, err: err}
}

// damaged returns the damaged record err (or its user error) is about.
func damaged(err error) *storage.DamagedError {
	var ue *userError
	if errors.As(err, &ue) {
		err = ue.cause
	}
	var d *storage.DamagedError
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// ruleErrors are the refusals of package game: a step they refuse is
// refused whenever it is tried again (the rules are pure), so it is an
// answer, never a failure to retry. game.ErrLeaseHeld is not one: another
// process holds a lease that ends.
var ruleErrors = []error{
	game.ErrInvalid, game.ErrInvalidOutcome, game.ErrKeysHeld, game.ErrNotVerifiable,
	game.ErrInsufficientFunds, game.ErrChestDue, game.ErrNoChest, game.ErrUnknownTicket,
	game.ErrDailyCooldown, game.ErrDailyDisabled, game.ErrLimitReached, game.ErrPaused,
	game.ErrTooSoon, game.ErrNotPaused, game.ErrClientSeed, game.ErrTicketOpen,
	game.ErrSeedSecret, game.ErrSeedForgotten, game.ErrNoReset, game.ErrResetRunning,
}

// refusal returns err as a user error if it is a refusal of package game.
func refusal(err error) error {
	for _, r := range ruleErrors {
		if errors.Is(err, r) {
			return &userError{id: "err_refused", cause: err}
		}
	}
	return nil
}

// errorOutcome classifies err for the Observer.
func errorOutcome(err error) string {
	var ue *userError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ue):
		return "user_error"
	}
	return "internal_error"
}
