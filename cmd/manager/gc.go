package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the manager's GOGC unless its environment sets one.
// Go's default, 100, lets the heap grow to twice what the last collection
// found live before it collects again: for a manager of a few tables that
// headroom is a large part of its RSS (bench figure 16). At 50 the heap
// grows by half, for a collection twice as often (the CPU rows of bench
// figures 4 and 16 show the cost). GOGC in the environment still decides.
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
