package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
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

func fieldErr(record, field string, format string, args ...any) error {
	return &FieldError{Record: record, Field: field, Err: fmt.Errorf(format, args...)}
}

// gameErr is err, an error of a check of package game, as a *FieldError
// of record: the fields a *game.FieldError names in Go's words are named
// as stored, by names (a name missing there is kept), under prefix, and
// its words follow; any other error names prefix, without its dot.
func gameErr(record, prefix string, names map[string]string, err error) error {
	fe, ok := errors.AsType[*game.FieldError](err)
	if !ok {
		return &FieldError{Record: record, Field: strings.TrimSuffix(prefix, "."), Err: err}
	}
	fields := strings.Split(fe.Field, ", ")
	for i, f := range fields {
		if n, ok := names[f]; ok {
			f = n
		} else if l, ok := strings.CutPrefix(f, "Care.Limits."); ok {
			f = "cr.l." + l
		}
		fields[i] = prefix + f
	}
	return &FieldError{Record: record, Field: strings.Join(fields, ", "), Err: fe.Err}
}

// The stored names of the fields of game's structs, for gameErr.
var (
	playerFields = map[string]string{
		"Balance": "b", "StartingBalance": "b0", "Keys": "k", "ChestDue": "cd", "TicketSeq": "tn", "ChestSeq": "cn",
		"Ticket.ID": "t.n", "Ticket.Revealed": "t.r", "Ticket.Chest": "t.c", "Ticket.KeysAfter": "t.ka", "Ticket.Outcome": "t.o",
		"LastChest": "lc", "Stats.Plays": "st.n", "Stats.StakedCents": "st.s", "Stats.WonCents": "st.w", "Stats.GrantedCents": "st.g",
		"Stats.DailyCents": "st.d", "Stats.Chests": "st.c", "Stats.BestWinCents": "st.bw", "Stats.Wins": "st.wn", "Stats.Keys": "st.k",
		"Seed": "sd.s", "NextSeed": "sd.n", "ClientSeed": "sd.c", "SeedNo": "sd.no", "SeedTicket": "sd.t", "SeedChest": "sd.ch",
		"Care.Reminder": "cr.rm", "Care.Spend.Day": "cr.sp.d", "Care.Spend.Week": "cr.sp.w", "Care.Spend.StakedDay": "cr.sp.sd",
		"Care.Spend.WonDay": "cr.sp.wd", "Care.Spend.StakedWeek": "cr.sp.sw", "Care.Spend.WonWeek": "cr.sp.ww",
		"Care.Session.Plays": "cr.se.n", "Care.Session.CheckedPlays": "cr.se.cp",
	}
	revealFields = map[string]string{
		"No": "no", "Seed": "s", "ClientSeed": "c", "FirstTicket": "t1", "LastTicket": "t2", "FirstChest": "c1", "LastChest": "c2",
	}
	lineFields = map[string]string{
		"Kind": "k", "TicketID": "t", "Tier": "tr", "Key": "key", "Lot": "l", "Amount": "a", "Balance": "b",
		"KeysBefore": "kb", "Grid": "g", "Chest": "c", "Commitment": "cm", "After": "n", "Discarded": "d", "Fair": "kb, g, c",
	}
	settingsFields = map[string]string{
		"StartingBalance": "b0", "DailyAmount": "d", "DailyCooldown": "dc",
		"House.MaxStakeDay": "h.sd", "House.MinInterval": "h.mi", "House.RealityPlays": "h.rp", "House.RealityEvery": "h.re",
	}
	auditFields = map[string]string{"Guild": "guild", "Action": "x", "At": "at", "Reason": "rs"}
)

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

// decodeAs reads record b strictly (decode) into an R and returns what it
// stores, checked (R.Game).
func decodeAs[G any, R interface{ Game(string) (G, error) }](record string, b []byte) (G, error) {
	var r R
	if err := decode(record, b, &r); err != nil {
		var zero G
		return zero, err
	}
	return r.Game(record)
}

func marshal(what string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: encode %s: %w", what, err)
	}
	return b, nil
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

// maxDuration bounds a stored duration: a year, in milliseconds (the
// game's own bounds are checked by game).
const maxDuration = 366 * 24 * time.Hour

// reader reads a record's stored times, durations and snowflakes, each
// named by its field, and keeps the first error (it reads zeros after it).
type reader struct {
	record string
	err    error
}

// fail records the error of field, unless one came first.
func (r *reader) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = fieldErr(r.record, field, format, args...)
	}
}

// need reads a time the record must have: 0 is an error.
func (r *reader) need(field string, v int64) time.Time {
	if v == 0 {
		r.fail(field, "missing: the time is required")
	}
	return r.at(field, v)
}

// at reads a stored time: 0 is the zero time.
func (r *reader) at(field string, v int64) time.Time {
	if v < 0 || v > maxMillis {
		r.fail(field, "time %d ms out of 0..%d", v, int64(maxMillis))
	}
	if r.err != nil || v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func (r *reader) duration(field string, v int64) time.Duration {
	if v < 0 || v > maxDuration.Milliseconds() {
		r.fail(field, "duration %d ms out of 0..%d", v, maxDuration.Milliseconds())
	}
	if r.err != nil {
		return 0
	}
	return time.Duration(v) * time.Millisecond
}

// snowflake reads a snowflake that may be absent ("": 0).
func (r *reader) snowflake(field, s string) uint64 {
	if s == "" || r.err != nil {
		return 0
	}
	v, err := Snowflake(r.record, field, s)
	r.err = err
	return v
}
