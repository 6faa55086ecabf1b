// Command cardshot draws docs/card.png, the picture of a finished card in
// the README: the real handlers play tickets on a temporary store until one
// wins while a key is held, and the card they answer (embed and buttons) is
// drawn as Discord's dark theme shows it, with the bot's own pictures of
// the symbols (package art) and the Go fonts.
//
//	go run ./internal/cardshot            # writes docs/card.png
//	go run ./internal/cardshot -o x.png
//
// The same -seed gives the same picture.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/lesclefsdutresor/clefs/art"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cardshot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("cardshot", flag.ContinueOnError)
	out := fs.String("o", "docs/card.png", "the PNG to write")
	seed := fs.Uint64("seed", 4, "draw the player's seeds from this number (4: a win of 5.00 with a key held)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cardshot-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	card, err := finishedCard(context.Background(), dir, *seed)
	if err != nil {
		return fmt.Errorf("play a card: %w", err)
	}
	img, err := drawCard(card)
	if err != nil {
		return fmt.Errorf("draw the card: %w", err)
	}
	b, err := art.Encode(img)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return fmt.Errorf("write the card: %w", err)
	}
	fmt.Printf("wrote %s (%d bytes, %dx%d)\n", *out, len(b), img.Bounds().Dx(), img.Bounds().Dy())
	return nil
}
