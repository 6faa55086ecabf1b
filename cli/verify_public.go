package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// maxPublicExport bounds the size of a public export verify reads: 50
// lines and 50 reveals take a few tens of kilobytes.
const maxPublicExport = 4 << 20

// isPublicExport reports whether the JSON file at path is a public export
// (schema.PublicExport, clefs export -public, /fairness export) rather
// than a dump: it reads the top-level keys until the first it knows, "v"
// for a public export, "version", "players" or "guilds" for a dump, so a
// dump is not read whole here. A file that is neither is left to the
// dump's reader, whose errors say what a dump is.
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

// verifyPublicFile is verifyPublic on the public export at path.
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
	if err := verifyPublic(ctx, path, data, stdout); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// verifyPublic checks the public export data (named name in messages):
// every draw made under a revealed seed is recomputed and compared with
// the line that recorded it, and the links between lines and seeds are
// checked (game.CheckRevealedLinks: the links to the player's own state,
// which a public export does not hold, are neither checked nor counted). It prints
// the breaks and a summary, and fails (errMismatch) on any break.
func verifyPublic(ctx context.Context, name string, data []byte, stdout io.Writer) error {
	x, err := schema.DecodePublicExport(name, data)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rs, hist := x.Reveals, x.History
	p := game.AfterReveals(rs)
	var d game.SeededDrawer
	var out []string
	var matched, tickets, chests, secret, forgotten, old int64
	who := fmt.Sprintf("guild %d user %d", x.Guild, x.User)
	for _, e := range hist {
		if e.Kind != game.KindPlay && e.Kind != game.KindChest {
			continue
		}
		v, err := p.Verify(d, rs, e)
		switch {
		case errors.Is(err, game.ErrSeedSecret):
			secret++
			continue
		case errors.Is(err, game.ErrSeedForgotten):
			forgotten++
			continue
		case errors.Is(err, game.ErrNotVerifiable):
			old++
			continue
		case err != nil:
			out = append(out, fmt.Sprintf("MISMATCH %s: %s %d: %v", who, e.Kind, e.TicketID, err))
			continue
		}
		if v.Match {
			matched++
		}
		if e.Kind == game.KindPlay {
			tickets++
			if !v.Match {
				out = append(out, fmt.Sprintf("MISMATCH %s ticket %d (seed %d): shown %s %v key %v, recomputed %s %v key %v",
					who, e.TicketID, v.Seed.No, e.Grid, e.Tier, e.Key, v.Outcome.Grid, v.Outcome.Tier, v.Outcome.Key))
			}
			continue
		}
		chests++
		if !v.Match {
			out = append(out, fmt.Sprintf("MISMATCH %s chest %d (seed %d): shown %v, recomputed %v", who, e.Chest, v.Seed.No, e.Lot, v.Chest.Lot))
		}
	}
	mismatches := len(out)

	l := game.CheckRevealedLinks(rs, hist)
	breaks := l.Breaks
	for _, b := range breaks {
		out = append(out, fmt.Sprintf("BROKEN %s %s", who, b))
	}

	w := bufio.NewWriter(stdout)
	for _, m := range out {
		fmt.Fprintln(w, m)
	}
	unchecked := forgotten + old
	fmt.Fprintf(w, "%-12s %s checked, %s unchecked, %d broken (%s tickets and %s chests of %s recomputed from their revealed seeds)\n",
		"draws:", groupInt(matched), groupInt(unchecked), mismatches, groupInt(tickets), groupInt(chests), who)
	broken := make([]int, game.NumLinks)
	for _, b := range breaks {
		broken[b.Link]++
	}
	for link := range game.NumLinks {
		unchecked += l.Unchecked[link]
		fmt.Fprintf(w, "%-12s %s checked, %s unchecked, %d broken\n", link.String()+":",
			groupInt(l.Checked[link]), groupInt(l.Unchecked[link]), broken[link])
	}
	if secret+forgotten+old > 0 {
		fmt.Fprintf(w, "draws not checked: %s drawn under a seed not revealed yet (shown after /fairness rotate), %s whose seed the export no longer holds, %s recorded before verification data\n",
			groupInt(secret), groupInt(forgotten), groupInt(old))
	}
	nBroken := mismatches + len(breaks)
	switch {
	case nBroken > 0:
		fmt.Fprintf(w, "BROKEN: %d links broken, %s unchecked\n", nBroken, groupInt(unchecked))
	case unchecked > 0:
		fmt.Fprintf(w, "no link broken, but %s unchecked\n", groupInt(unchecked))
	default:
		fmt.Fprintln(w, "all match (a public export holds no player state: the keys held now and the tickets bought are not checked)")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if nBroken > 0 {
		return fmt.Errorf("%w: %d draws and %d links of %s are not what the player was shown", errMismatch, mismatches, len(breaks), name)
	}
	return nil
}
