package main

import (
	"context"
	"errors"
	"io"
)

func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("audit: not implemented yet")
}
