package main

import (
	"context"
	"errors"
	"io"
)

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("import: not implemented yet")
}
