package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// runExport writes every player and guild as JSON (storage.EncodeDump) to
// stdout or to -o FILE (written whole, then renamed into place, mode 0600).
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr, "Usage: clefs export [-redis URL | -data FILE] [-o FILE [-force]]\n       clefs export -public -guild ID -user ID [-redis URL | -data FILE] [-o FILE [-force]]\n\nWrites every player and guild as JSON. The embedded store is locked while\nthe bot runs: stop it first, or export one of its snapshots (BACKUP_DIR),\n-data SNAPSHOT, while it runs. Move to Redis: export, then import -redis URL.\nWith -public, writes one player's public export instead (docs/STORAGE.md):\nthe lines and revealed seeds that clefs verify -export and the /fair page check.\nA missing embedded file is an error: export never creates one. An existing\n-o FILE is refused: -force replaces it (written whole, then renamed).\n\n"+storeUsage+"\n\n")
	var sf storeFlags
	sf.register(fs)
	out := fs.String("o", "", "write to this file instead of stdout; an existing file is refused unless -force")
	force := fs.Bool("force", false, "with -o: replace the file if it exists")
	public := fs.Bool("public", false, "write one player's public export (with -guild and -user): history and revealed seeds, no secret")
	guild := fs.Uint64("guild", 0, "with -public: the player's guild ID")
	user := fs.Uint64("user", 0, "with -public: the player's user ID")
	if err := parseFlags(fs, "export", args, 0); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case !*public && (set["guild"] || set["user"]):
		return usageError{"export: -guild and -user go with -public"}
	case *public && *guild == 0:
		return usageError{"export: -public needs -guild ID (the player's guild, a snowflake)"}
	case *public && *user == 0:
		return usageError{"export: -public needs -user ID (the player's user ID, a snowflake)"}
	case *force && *out == "":
		return usageError{"export: -force goes with -o FILE"}
	}
	if fi, err := os.Stat(*out); *out != "" && err == nil && fi.IsDir() { // before the store opens
		return fmt.Errorf("export: -o %s is a directory: give a file name, e.g. %s", *out, filepath.Join(*out, "players.json"))
	} else if *out != "" && err == nil && !*force {
		return fmt.Errorf("export: -o %s: the file exists: give -force to replace it, or another name", *out)
	}
	st, d, err := sf.open(ctx, mustExist, stderr)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer st.Close()
	write, done := func(w io.Writer) error { return storage.WriteDump(ctx, w, d) }, "exported to "+*out
	if *public {
		id := storage.PlayerID{Guild: *guild, User: *user}
		b, err := publicExport(ctx, st, id)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		write = func(w io.Writer) error { _, err := w.Write(b); return err }
		done = fmt.Sprintf("exported the public data of guild %d user %d to %s", id.Guild, id.User, *out)
	}
	if *out == "" {
		err = write(stdout)
	} else if err = writeFileAtomic(*out, *force, write); err == nil {
		fmt.Fprintln(stderr, done)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// publicExport is the public export of player id (schema.PublicExport), a
// line of JSON.
func publicExport(ctx context.Context, st storage.Store, id storage.PlayerID) ([]byte, error) {
	v, err := st.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if v.Version == 0 {
		return nil, fmt.Errorf("-guild %d -user %d: no such player in the store", id.Guild, id.User)
	}
	hist, err := st.History(ctx, id, storage.HistoryLimit)
	if err != nil {
		return nil, err
	}
	slices.Reverse(hist) // oldest first
	rs, err := st.Reveals(ctx, id)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(schema.NewPublicExport(id.Guild, id.User, hist, rs))
	return append(b, '\n'), err
}

// writeFileAtomic writes path whole or not at all, through a temporary
// file beside it, never over an existing file unless replace.
func writeFileAtomic(path string, replace bool, write func(w io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: give a file name, e.g. %s", path, filepath.Join(path, "players.json"))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, pathErr(err))
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, pathErr(err))
	}
	place := os.Link
	if replace {
		place = os.Rename
	}
	if err := place(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write %s: the file exists: give -force to replace it, or another name", path)
	} else if err != nil {
		return fmt.Errorf("write %s: %w", path, pathErr(err))
	}
	return nil
}

// pathErr strips the file's name from a file system error.
func pathErr(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
