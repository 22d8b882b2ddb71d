package main

import (
	"os"
	"runtime/debug"
	"strconv"
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

// memoryLimitShare is the part of the container's memory limit the Go
// runtime may use for its heap before collecting hard (GOMEMLIMIT): the
// rest is for what the runtime does not count (stacks, the binary, the
// kernel's buffers), so that the collector works before the kernel kills.
const memoryLimitShare = 0.9

// setMemoryLimit sets the runtime's soft memory limit to memoryLimitShare
// of TETHER_MEMORY_LIMIT, the container's memory limit in bytes that the
// install passes through the downward API. GOMEMLIMIT in the environment
// still decides. It returns the limit in force, 0 when none was set here.
func setMemoryLimit() int64 {
	if v, set := os.LookupEnv("GOMEMLIMIT"); set && v != "" {
		return debug.SetMemoryLimit(-1)
	}
	limit, err := strconv.ParseInt(os.Getenv("TETHER_MEMORY_LIMIT"), 10, 64)
	if err != nil || limit <= 0 {
		return 0
	}
	soft := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	return soft
}
