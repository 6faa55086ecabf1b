package cli

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"os"

	"github.com/lesclefsdutresor/clefs/storage"
)

// runImport adds a dump written by export (-i FILE, an argument or stdin)
// to the store, all or nothing, as its usage says.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", stderr, "Usage: clefs import [-redis URL | -data FILE] [-force] [-i FILE | FILE]\n\nAdds the players and guilds of a dump written by export, all or nothing.\nStop the bot first. A store that already holds players is refused unless\n-force is given; with -force, a player or guild of the dump that the store\nalready has is refused and named, and nothing is imported. A missing\nembedded file is created, but not a missing directory.\n\n"+storeUsage+"\n\n")
	var sf storeFlags
	sf.register(fs)
	in := fs.String("i", "", "read from this `FILE` (default: the argument, or stdin)")
	force := fs.Bool("force", false, "add to a store that already holds players (a player or guild already there is still refused, and nothing is overwritten)")
	if err := parseFlags(fs, "import", args, 1); err != nil {
		return err
	}
	src := *in
	switch {
	case fs.NArg() == 1 && src != "":
		return usageError{"import: give the input either with -i or as an argument, not both"}
	case fs.NArg() == 1:
		src = fs.Arg(0)
	}
	var r io.Reader = os.Stdin
	name := "stdin"
	if src != "" && src != "-" {
		f, err := os.Open(src)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r, name = f, src
	}
	// All read before opening: a bad file touches no store.
	d, err := storage.ReadDump(r)
	if err != nil {
		return fmt.Errorf("import: %s: %w; nothing was imported", name, err)
	}
	st, dm, err := sf.open(ctx, mayCreate, stderr)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer st.Close()
	n, err := dm.CountPlayers(ctx)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if n > 0 && !*force {
		return fmt.Errorf("import: the store already holds %d players; nothing was imported (give -force to add the dump's players to them: one the store already has is refused, and nothing is overwritten)", n)
	}
	if err := importDump(ctx, dm, d, stdout); err != nil {
		return fmt.Errorf("import: %s: %w", name, err)
	}
	return nil
}

// importDump adds d to the store, all or nothing, and says what it added.
func importDump(ctx context.Context, dm storage.Dumper, d *storage.DecodedDump, stdout io.Writer) error {
	if err := dm.Import(ctx, d); err != nil {
		return fmt.Errorf("%w; nothing was imported", err)
	}
	var held big.Int
	for _, p := range d.Players {
		held.Add(&held, big.NewInt(p.Player.Balance))
	}
	fmt.Fprintf(stdout, "imported %s (%s held) and %s\n", count(len(d.Players), "player", "players"), bigCredits(&held), count(len(d.Guilds), "guild", "guilds"))
	return nil
}
