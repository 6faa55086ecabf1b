package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is wrapped by every decoding error: a record or a dump that
// is not of the schema (an unknown version, an unknown field, a value out
// of bounds, broken JSON).
var ErrInvalid = errors.New("schema: invalid record")

// FieldError is a decoding error that names the record and the field at
// fault. It wraps ErrInvalid.
type FieldError struct {
	Record string // the record, as the caller named it: "p:{1:2}", "player 1/2 of the dump"
	Field  string // the field's path in the record, "t.o.g"; "" for the record as a whole
	Err    error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.Record, e.Err)
	}
	return fmt.Sprintf("%s: field %s: %v", e.Record, e.Field, e.Err)
}

// Unwrap returns ErrInvalid and the cause.
func (e *FieldError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// fieldErr returns a *FieldError of record for field.
func fieldErr(record, field string, format string, args ...any) error {
	return &FieldError{Record: record, Field: field, Err: fmt.Errorf(format, args...)}
}

// decode parses b into v, refusing unknown fields, trailing data and a
// JSON type that does not fit; the error names record and, where JSON
// tells it, the field.
func decode(record string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FieldError{Record: record, Field: te.Field, Err: fmt.Errorf("a JSON %s does not fit", te.Value)}
		}
		return &FieldError{Record: record, Err: err}
	}
	if dec.More() {
		return &FieldError{Record: record, Err: errors.New("data after the record")}
	}
	return nil
}

// ms is a time in the schema: milliseconds since the Unix epoch, 0 for the
// zero time.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// maxMillis bounds a stored time: the year 9999, as far as RFC 3339 goes.
const maxMillis = 253402300799999

// timeOf reads a stored time; field names it in the error.
func timeOf(record, field string, v int64) (time.Time, error) {
	switch {
	case v == 0:
		return time.Time{}, nil
	case v < 0 || v > maxMillis:
		return time.Time{}, fieldErr(record, field, "time %d ms out of 0..%d", v, int64(maxMillis))
	}
	return time.UnixMilli(v).UTC(), nil
}

// maxDuration bounds a stored duration: a year, in milliseconds (the
// game's own bounds are checked by game).
const maxDuration = 366 * 24 * time.Hour

// durationOf reads a stored duration in milliseconds.
func durationOf(record, field string, v int64) (time.Duration, error) {
	if v < 0 || v > maxDuration.Milliseconds() {
		return 0, fieldErr(record, field, "duration %d ms out of 0..%d", v, maxDuration.Milliseconds())
	}
	return time.Duration(v) * time.Millisecond, nil
}

// timeReader reads several stored times, each named by its field, and
// keeps the first error (at returns the zero time after it).
type timeReader struct {
	record string
	err    error
}

func (r *timeReader) at(field string, v int64) time.Time {
	if r.err != nil {
		return time.Time{}
	}
	t, err := timeOf(r.record, field, v)
	r.err = err
	return t
}
