package main

import (
	"os"
	"runtime/debug"
)

// Garbage-collector defaults for the bot, applied by tuneGC.
const (
	// defaultGCPercent lets the heap grow to 5× what is live before a
	// collection. The bot's live heap is a few MiB (state lives in the
	// store) and an interaction allocates a few KiB, so Go's default of 100
	// collects several times a second under load, each time competing with
	// the handlers for the CPU: in `clefs loadtest` this costs a tenth of the
	// bot's CPU (BENCHMARKS.md).
	defaultGCPercent = 400
	// defaultMemoryLimit is a soft limit on the Go runtime's memory: past
	// it the collector runs as often as needed, so the larger growth factor
	// never takes the process far (the bot is meant to stay under 64 MiB).
	defaultMemoryLimit = 40 << 20
)

// tuneGC applies the bot's collector defaults unless the operator chose
// them with GOGC or GOMEMLIMIT. It returns the settings in effect.
func tuneGC() (percent int, limit int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	percent = debug.SetGCPercent(-1) // read it back…
	debug.SetGCPercent(percent)      // …and restore it
	return percent, debug.SetMemoryLimit(-1)
}
