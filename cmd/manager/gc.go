package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the manager's GOGC unless its environment sets one.
// Go's default, 100, lets the heap grow to twice what the last collection
// found live before it collects again. A manager of a few tables holds a
// few MiB live, so that headroom was a fifth of its RSS (bench figure 16:
// 50 tables, 51.5 MiB at 100, 50.5 at 50 with the start-up floor 4.7 MiB
// higher in that run); at 50 the heap grows by half before each collection,
// which costs a collection twice as often, measured in the CPU figures of
// bench figures 4 and 16. GOGC in the environment still decides.
const defaultGCPercent = 50

// setGCPercent applies defaultGCPercent where GOGC is not set and returns
// the percentage in force.
func setGCPercent() int {
	if v, set := os.LookupEnv("GOGC"); set && v != "" {
		prev := debug.SetGCPercent(-1)
		debug.SetGCPercent(prev)
		return prev
	}
	debug.SetGCPercent(defaultGCPercent)
	return defaultGCPercent
}
