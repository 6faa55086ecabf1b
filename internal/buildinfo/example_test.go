package buildinfo_test

import (
	"fmt"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

func ExampleInfo_String() {
	fmt.Println(buildinfo.Info{Version: "0.3.0", Revision: "5effcde1234a", Time: "2026-05-01T12:00:00Z", Modified: true, GoVersion: "go1.26.8"})
	fmt.Println(buildinfo.Info{Version: "0.3.0", GoVersion: "go1.26.8"})
	fmt.Println(buildinfo.Info{Version: "(devel)", Revision: "5effcde1234a", GoVersion: "go1.26.8"})
	// Output:
	// 0.3.0, revision 5effcde1234a-dirty, 2026-05-01T12:00:00Z, go1.26.8
	// 0.3.0, revision unknown (go run, -buildvcs=false and git worktrees do not stamp it; build with go build in a git clone), go1.26.8
	// (devel), revision 5effcde1234a, go1.26.8
}

func ExampleReleaseOf() {
	fmt.Println(buildinfo.ReleaseOf("# Changelog\n\n## [Unreleased]\n\n### Added\n\n- x\n\n## [0.3.0] - 2026-12-02\n\n## [0.2.0] - 2026-12-01\n"))
	// Output:
	// 0.3.0
}
