package buildinfo

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"reflect"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/lesclefsdutresor/clefs", Version: "v0.0.0-20260501120000-5effcde1234a+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "5effcde1234a5effcde1234a5effcde1234a5eff"},
			{Key: "vcs.time", Value: "2026-05-01T12:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	unstamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/lesclefsdutresor/clefs", Version: "(devel)"},
		Settings:  []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}},
	}
	tests := []struct {
		name              string
		bi                *debug.BuildInfo
		injected, release string
		want              Info
	}{
		{"VCS stamp", stamped, "", "", Info{
			Version:  "v0.0.0-20260501120000-5effcde1234a+dirty",
			Revision: "5effcde1234a5effcde1234a5effcde1234a5eff", Time: "2026-05-01T12:00:00Z",
			Modified: true, GoVersion: "go1.26.8",
		}},
		// Wherever the build is named, it is the CHANGELOG's release, not
		// the pseudo-version or "(devel)" Go records.
		{"the VCS stamp wins over -X, the release over the module version", stamped, "injected", "0.3.0", Info{
			Version:  "0.3.0",
			Revision: "5effcde1234a5effcde1234a5effcde1234a5eff", Time: "2026-05-01T12:00:00Z",
			Modified: true, GoVersion: "go1.26.8",
		}},
		{"-buildvcs=false with -X", unstamped, "abc123", "", Info{Version: "(devel)", Revision: "abc123", GoVersion: "go1.26.8"}},
		{"-buildvcs=false alone", unstamped, "", "0.3.0", Info{Version: "0.3.0", GoVersion: "go1.26.8"}},
		{"no build information", nil, "abc123", "", Info{Revision: "abc123", GoVersion: runtime.Version()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBuildInfo(tt.bi, tt.injected, tt.release); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadHasGoVersion(t *testing.T) {
	if got := Read(); got.GoVersion != runtime.Version() {
		t.Errorf("Read().GoVersion = %q, want %q", got.GoVersion, runtime.Version())
	}
}

func TestReleaseOf(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"latest first", "# Changelog\n\n## [0.3.0] - 2026-12-02\n\n### Added\n\n## [0.2.0] - 2026-12-01\n", "0.3.0"},
		{"Unreleased skipped", "## [Unreleased]\n\n### Added\n- a\n\n## [1.0.0-rc.1] - 2027-01-01\n", "1.0.0-rc.1"},
		{"unreleased in any case, no brackets", "## unreleased\n## 0.2.0 - 2026-12-01\n", "0.2.0"},
		{"only Unreleased", "## [Unreleased]\n\n- a\n", ""},
		{"a link reference or a third-level heading is no release", "### [9.9.9]\n[0.1.0]: https://example.com\n## [0.1.0]\n", "0.1.0"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReleaseOf(tt.text); got != tt.want {
				t.Errorf("ReleaseOf = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLogValue: the start log carries the fields of GET /version.
func TestLogValue(t *testing.T) {
	for _, info := range []Info{{Version: "0.3.0", Revision: "abcdef", Modified: true}, {}} {
		var b bytes.Buffer
		slog.New(slog.NewJSONHandler(&b, nil)).Info("starting", "build", info)
		var got struct{ Build map[string]any }
		want := map[string]any{"version": info.Version, "revision": info.Revision, "time": "", "modified": info.Modified, "go_version": ""}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil || !reflect.DeepEqual(got.Build, want) {
			t.Errorf("start log %s: build %v, want /version's fields %v", b.Bytes(), got.Build, want)
		}
	}
}
