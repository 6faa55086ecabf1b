package game

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CreditSyntax says which spellings of an amount ParseCredits accepts beyond
// the plain ones ("20", "20.5", "20.00"), and the largest amount.
type CreditSyntax struct {
	// Signed accepts one leading '+' or '-'; a '-' makes the amount negative.
	Signed bool
	// Comma accepts ',' as the decimal separator as well as '.'.
	Comma bool
	// Max is the largest amount accepted, in cents and in absolute value.
	Max int64
}

// Errors of ParseCredits, which wraps them with the input quoted; test them
// with errors.Is. Their words are written for a person who typed the amount.
var (
	// ErrCreditSyntax: not digits with an optional separator and decimals.
	ErrCreditSyntax = errors.New("not an amount of credits (e.g. 20.00)")
	// ErrCreditDecimals: more than two decimals.
	ErrCreditDecimals = errors.New("at most two decimals")
	// ErrCreditRange: above CreditSyntax.Max.
	ErrCreditRange = errors.New("too large")
)

// ParseCredits parses an amount of credits written with ASCII digits and at
// most two decimals into cents, as syn allows; spaces, exponents, thousands
// separators, NaN and Inf are ErrCreditSyntax (a caller that accepts spaces
// around the amount trims them first), the others ErrCredit… as they say.
func ParseCredits(s string, syn CreditSyntax) (int64, error) {
	body, neg := s, false
	if syn.Signed && body != "" && (body[0] == '-' || body[0] == '+') {
		body, neg = body[1:], body[0] == '-'
	}
	seps := "."
	if syn.Comma {
		seps = ".,"
	}
	whole, frac, hasSep := body, "", false
	if i := strings.IndexAny(body, seps); i >= 0 {
		whole, frac, hasSep = body[:i], body[i+1:], true
	}
	if !digits(whole) || (hasSep && !digits(frac)) {
		return 0, fmt.Errorf("%q is %w", s, ErrCreditSyntax)
	}
	if len(frac) > 2 {
		return 0, fmt.Errorf("%q: %w", s, ErrCreditDecimals)
	}
	whole = strings.TrimLeft(whole, "0")
	// 18 digits fit in an int64; the bound on Max/100 keeps ×100 from overflowing.
	w, err := strconv.ParseInt("0"+whole, 10, 64)
	if len(whole) > 18 || err != nil || w > syn.Max/100 {
		return 0, fmt.Errorf("%q: %w", s, ErrCreditRange)
	}
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64) // the cents: two ASCII digits
	cents := w*100 + f
	if cents > syn.Max {
		return 0, fmt.Errorf("%q: %w", s, ErrCreditRange)
	}
	if neg {
		cents = -cents
	}
	return cents, nil
}

func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
