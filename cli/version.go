package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// runVersion prints which build this is on one line (buildinfo.Info.String).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr, "Usage: clefs version\n\nPrints the release (the latest version in CHANGELOG.md), the VCS revision\n(-dirty when the tree was modified) and commit time, and the Go version\nthat built the binary. go build stamps the revision from the git clone;\ngo run does not.\n")
	if err := parseFlags(fs, "version", args, 0); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "clefs", buildinfo.Read())
	return nil
}
