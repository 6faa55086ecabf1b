package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// maxPublicExport bounds a public export (50 lines and reveals: a few tens of KB).
const maxPublicExport = 4 << 20

// isPublicExport reports whether the JSON file at path is a public export
// rather than a dump, from its first known top-level key; a file that is
// neither is left to the dump's reader.
func isPublicExport(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false, nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false, nil
		}
		switch t {
		case "v":
			return true, nil
		case "version", "players", "guilds":
			return false, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false, nil
		}
	}
	return false, nil
}

// verifyPublicFile is verifyExport for the public export at path, with
// game.CheckRevealedLinks.
func verifyPublicFile(ctx context.Context, path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPublicExport+1))
	if err != nil {
		return fmt.Errorf("verify: %s: %w", path, err)
	}
	if len(data) > maxPublicExport {
		return fmt.Errorf("verify: %s: a public export of more than %d bytes", path, maxPublicExport)
	}
	x, err := schema.DecodePublicExport(path, data)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	var r exportReport
	r.verifyPlayer(storage.PlayerID{Guild: x.Guild, User: x.User}, game.AfterReveals(x.Reveals), false, x.Reveals, x.History)
	if err := r.write(stdout, path, "player was", "the export lacks what checking them needs", " (a public export holds no player state: the keys held now and the tickets bought are not checked)"); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}
