// Package buildinfo tells which build of clefs is running: the release
// (CHANGELOG.md), the VCS revision, commit time and state, the module and
// Go versions:
//
//	log.Info("starting", "build", buildinfo.Read())
package buildinfo

import (
	"cmp"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// Changelog is the text of CHANGELOG.md, which Read takes the release from.
// Package main, which can embed the file, sets it first thing.
var Changelog string

// ReleaseOf returns the version of the first "## [0.3.0] - 2026-12-02"
// heading of changelog (Keep a Changelog; brackets and date optional) that
// is not "Unreleased", or "".
func ReleaseOf(changelog string) string {
	for line := range strings.Lines(changelog) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "## ")
		name, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		name = strings.Trim(name, "[]")
		if ok && name != "" && !strings.EqualFold(name, "unreleased") {
			return name
		}
	}
	return ""
}

// Revision is a VCS revision set at link time, for builds without a VCS
// stamp (the Docker image):
//
//	go build -ldflags "-X github.com/lesclefsdutresor/clefs/internal/buildinfo.Revision=$(git rev-parse HEAD)"
//
// Read uses it only when the binary has no vcs.revision of its own.
var Revision string

// Info describes a build, as GET /version, clefs version, the start log
// and the clefs_build_info metric show it. Empty strings are unknown.
type Info struct {
	// Version is the release, ReleaseOf(Changelog) ("0.3.0"), else the main
	// module's version: a tag, a pseudo-version or "(devel)".
	Version   string `json:"version"`
	Revision  string `json:"revision"`   // vcs.revision, else the Revision variable
	Time      string `json:"time"`       // vcs.time, RFC 3339 in UTC
	Modified  bool   `json:"modified"`   // vcs.modified; false when unknown
	GoVersion string `json:"go_version"` // e.g. "go1.26.8"
}

// Read returns the running binary's build information. It never fails:
// what the binary does not record is left empty.
func Read() Info {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	return fromBuildInfo(bi, Revision, ReleaseOf(Changelog))
}

// fromBuildInfo extracts an Info from bi (nil when unavailable).
func fromBuildInfo(bi *debug.BuildInfo, revision, release string) Info {
	info := Info{GoVersion: runtime.Version()}
	if bi != nil {
		info.Version, info.GoVersion = bi.Main.Version, cmp.Or(bi.GoVersion, info.GoVersion)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	info.Version, info.Revision = cmp.Or(release, info.Version), cmp.Or(info.Revision, revision)
	return info
}

// String describes the build on one line, e.g.
// "0.3.0, revision 5effcde…-dirty, 2026-05-01T12:00:00Z, go1.26.8"; a build
// without a revision says why.
func (i Info) String() string {
	rev := "revision unknown (go run, -buildvcs=false and git worktrees do not stamp it; build with go build in a git clone)"
	if i.Revision != "" {
		rev = "revision " + i.Revision
	}
	if i.Revision != "" && i.Modified {
		rev += "-dirty"
	}
	parts := []string{cmp.Or(i.Version, "unknown version"), rev, i.Time, i.GoVersion}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), ", ")
}

// LogValue implements slog.LogValuer: the start log says what GET /version
// says, field by field.
func (i Info) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("version", i.Version),
		slog.String("revision", i.Revision),
		slog.String("time", i.Time),
		slog.Bool("modified", i.Modified),
		slog.String("go_version", i.GoVersion),
	)
}
