package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/lesclefsdutresor/clefs/storage"
)

// runImport reads a dump written by export (from -i FILE, a file argument
// or stdin) and adds it to the store, all or nothing: a malformed record or
// a player or guild already present changes nothing and is named.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	in := fs.String("i", "", "read from this file (default: the argument, or stdin)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: clefs import [-redis URL | -data FILE] [-i FILE | FILE]\n\nAdds the players and guilds of a dump written by export, all or nothing.\nThe target should be empty; stop the bot first.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, "import", args); err != nil {
		return err
	}
	src := *in
	switch {
	case fs.NArg() > 1:
		return usageError{fmt.Sprintf("import: unexpected argument %q", fs.Arg(1))}
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
	d, err := storage.ReadDump(r)
	if err != nil {
		return fmt.Errorf("import: %s: %w", name, err)
	}
	if _, err := d.Decode(); err != nil { // before opening: a bad file touches no store
		return fmt.Errorf("import: %s: %w", name, err)
	}
	st, dm, err := sf.open(ctx, false)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer st.Close()
	if err := dm.Import(ctx, d); err != nil {
		return fmt.Errorf("import: %s: %w; nothing was imported", name, err)
	}
	fmt.Fprintf(stdout, "imported %d players and %d guilds\n", len(d.Players), len(d.Guilds))
	return nil
}
