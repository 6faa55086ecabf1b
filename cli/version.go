package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// runVersion prints which build this is on one line (buildinfo.Info.String).
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: clefs version\n\nPrints the module version, the VCS revision and commit time, whether the\ntree was modified, and the Go version that built the binary.")
	}
	if err := parseFlags(fs, "version", args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("version: unexpected argument %q", fs.Arg(0))}
	}
	fmt.Fprintln(stdout, "clefs", buildinfo.Read())
	return nil
}
