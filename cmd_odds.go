package main

import (
	"context"
	"errors"
	"io"
)

func runOdds(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("odds: not implemented yet")
}
