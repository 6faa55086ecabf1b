package main

import (
	"context"
	"errors"
	"io"
)

func runBot(ctx context.Context, stderr io.Writer) error {
	return errors.New("bot: not implemented yet")
}
