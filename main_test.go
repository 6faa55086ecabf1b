package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// TestVersionIsTheChangelogs: clefs version prints the latest release
// CHANGELOG.md names, read here from the file with a parse of its own.
func TestVersionIsTheChangelogs(t *testing.T) {
	b, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != changelog {
		t.Fatal("the embedded changelog is not CHANGELOG.md")
	}
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("CHANGELOG.md names no release")
	}
	want := string(m[1])
	buildinfo.Changelog = changelog // as main does
	var out bytes.Buffer
	if err := cli.Main(context.Background(), []string{"version"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "clefs "+want+", revision ") {
		t.Errorf("clefs version printed %q, want the release %s of CHANGELOG.md", out.String(), want)
	}
}
