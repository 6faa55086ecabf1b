package main

import (
	"context"
	"errors"
	"io"
)

func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("loadtest: not implemented yet")
}
