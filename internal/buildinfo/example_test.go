package buildinfo_test

import (
	"fmt"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

func ExampleInfo_String() {
	fmt.Println(buildinfo.Info{
		Version: "v1.2.0", Revision: "5effcde1234a", Time: "2026-05-01T12:00:00Z", Dirty: true, GoVersion: "go1.26.8",
	})
	fmt.Println(buildinfo.Info{Version: "(devel)", GoVersion: "go1.26.8"})
	// Output:
	// v1.2.0, revision 5effcde1234a, 2026-05-01T12:00:00Z, modified, go1.26.8
	// (devel), unknown revision, go1.26.8
}
