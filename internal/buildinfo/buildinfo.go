// Package buildinfo tells which build of clefs is running: the release
// (the latest version CHANGELOG.md names), the VCS revision and commit
// time, whether the tree had uncommitted changes, the module version and
// the Go version. It serves the version subcommand, and suits a start-up
// log line or a /version endpoint:
//
//	log.Info("starting", "build", buildinfo.Read())
package buildinfo

import (
	"bufio"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
)

// Changelog is the text of the repository's CHANGELOG.md, which Read takes
// the release from (ReleaseOf). Package main embeds the file (go:embed
// cannot reach a parent directory, and the file sits at the root) and sets
// Changelog first thing, before anything reads the build.
var Changelog string

// ReleaseOf returns the version of the latest release that changelog, in
// the Keep a Changelog format, names: the first second-level heading
// "## [0.3.0] - 2026-12-02" (the brackets and the date may be left out)
// that is not "Unreleased". It returns "" when there is none.
func ReleaseOf(changelog string) string {
	sc := bufio.NewScanner(strings.NewReader(changelog))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "## ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		name = strings.Trim(name, "[]")
		if name == "" || strings.EqualFold(name, "unreleased") {
			continue
		}
		return name
	}
	return ""
}

// Revision is a VCS revision set at link time, for builds that carry no VCS
// stamp (the Docker image is built from a context without .git, with
// -buildvcs=false):
//
//	go build -ldflags "-X github.com/lesclefsdutresor/clefs/internal/buildinfo.Revision=$(git rev-parse HEAD)"
//
// Read uses it only when the binary has no vcs.revision of its own.
var Revision string

// Info describes a build. Empty strings are unknown.
type Info struct {
	// Release is the version of the latest release CHANGELOG.md names
	// (ReleaseOf(Changelog)), e.g. "0.3.0".
	Release string `json:"release"`
	// Version is the main module's version: a tag, a pseudo-version
	// (v0.0.0-20260102150405-abcdef123456, "+dirty" when modified), or
	// "(devel)" when Go could not tell.
	Version string `json:"version"`
	// Revision is the commit (vcs.revision), else the Revision variable.
	Revision string `json:"revision"`
	// Time is the commit's time (vcs.time), RFC 3339 in UTC.
	Time string `json:"time"`
	// Dirty says the tree had uncommitted changes (vcs.modified). It is
	// false when that is unknown.
	Dirty bool `json:"dirty"`
	// GoVersion is the toolchain that built the binary, e.g. "go1.26.8".
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's build information. It never fails:
// what the binary does not record is left empty.
func Read() Info {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	info := fromBuildInfo(bi, Revision)
	info.Release = ReleaseOf(Changelog)
	return info
}

// fromBuildInfo extracts an Info from bi (nil when unavailable), with
// revision as the fallback for a missing vcs.revision.
func fromBuildInfo(bi *debug.BuildInfo, revision string) Info {
	info := Info{GoVersion: runtime.Version()}
	if bi != nil {
		info.Version = bi.Main.Version
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Dirty = s.Value == "true"
			}
		}
	}
	if info.Revision == "" {
		info.Revision = revision
	}
	return info
}

// Name is what the build is called wherever one name is shown (clefs
// version, GET /version, clefs_build_info): the release, else the module
// version (a pseudo-version, "(devel)"), "" when neither is known. The
// revision is told beside it.
func (i Info) Name() string {
	if i.Release != "" {
		return i.Release
	}
	return i.Version
}

// String describes the build on one line, e.g.
// "0.3.0, revision 5effcde…-dirty, 2026-05-01T12:00:00Z, go1.26.8": the
// release (else the module version), the revision with "-dirty" when the
// tree was modified, the commit time, the Go version. A build without a
// revision says why: go run, -buildvcs=false and a git worktree (whose
// .git is a file, which Go does not look into) leave it out.
func (i Info) String() string {
	parts := make([]string, 0, 4)
	if n := i.Name(); n != "" {
		parts = append(parts, n)
	} else {
		parts = append(parts, "unknown version")
	}
	switch {
	case i.Revision != "" && i.Dirty:
		parts = append(parts, "revision "+i.Revision+"-dirty")
	case i.Revision != "":
		parts = append(parts, "revision "+i.Revision)
	default:
		parts = append(parts, "revision unknown (go run, -buildvcs=false and git worktrees do not stamp it; build with go build in a git clone)")
	}
	if i.Time != "" {
		parts = append(parts, i.Time)
	}
	if i.GoVersion != "" {
		parts = append(parts, i.GoVersion)
	}
	return strings.Join(parts, ", ")
}

// LogValue implements slog.LogValuer: a group of the fields above.
func (i Info) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("release", i.Release),
		slog.String("version", i.Version),
		slog.String("revision", i.Revision),
		slog.String("time", i.Time),
		slog.Bool("dirty", i.Dirty),
		slog.String("go_version", i.GoVersion),
	)
}
