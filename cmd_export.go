package main

import (
	"context"
	"errors"
	"io"
)

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("export: not implemented yet")
}
