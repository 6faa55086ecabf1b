package commands

import (
	"errors"
	"fmt"
)

// userError is a mistake a user can make (not enough credits, someone else's
// button, a bad option…). It carries the id of its message and the message's
// data; the central dispatch renders it as an ephemeral reply in the user's
// language. Returning one means nothing was changed.
type userError struct {
	id   string
	data map[string]any
}

func (e *userError) Error() string { return "user error: " + e.id }

// userErr returns a user error showing message id with data.
func userErr(id string, data map[string]any) error { return &userError{id: id, data: data} }

// storeError is an internal failure of a store call. op names the call for
// the Observer and the logs.
type storeError struct {
	op  string
	err error
}

func (e *storeError) Error() string { return fmt.Sprintf("store %s: %v", e.op, e.err) }
func (e *storeError) Unwrap() error { return e.err }

// internal wraps an unexpected store error so that it is logged and counted.
func internal(op string, err error) error { return &storeError{op: op, err: err} }

// errorOutcome classifies err for the Observer: "ok", "user_error" or
// "internal_error".
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
