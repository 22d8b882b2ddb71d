package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	cases := []struct {
		name, env string
		unset     bool
		// inForce is what the runtime runs with before setGCPercent: what
		// GOGC in the environment made it at start-up.
		inForce, want int
	}{
		{name: "GOGC unset: the manager's default", unset: true, inForce: 100, want: defaultGCPercent},
		{name: "GOGC empty: as unset", env: "", inForce: 100, want: defaultGCPercent},
		{name: "GOGC set: the environment decides", env: "200", inForce: 200, want: 200},
		{name: "GOGC=off: the environment decides", env: "off", inForce: -1, want: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unset {
				t.Setenv("GOGC", "")
				unsetenv(t, "GOGC")
			} else {
				t.Setenv("GOGC", tc.env)
			}
			debug.SetGCPercent(tc.inForce)
			if got := setGCPercent(); got != tc.want {
				t.Errorf("setGCPercent() = %d, want %d", got, tc.want)
			}
			if got := debug.SetGCPercent(tc.want); got != tc.want {
				t.Errorf("the runtime runs at GOGC=%d, want %d", got, tc.want)
			}
		})
	}
}

// unsetenv removes key for the test; t.Setenv before it restores the value
// the process had.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const none = int64(1<<63 - 1) // the runtime's "no limit"
	cases := []struct {
		name, limit, gomemlimit string
		want, inForce           int64
	}{
		{name: "the container's limit: 90% of it", limit: "268435456", want: 241591910, inForce: 241591910},
		{name: "no limit passed", limit: "", want: 0, inForce: none},
		{name: "not a number: left alone", limit: "256Mi", want: 0, inForce: none},
		{name: "GOMEMLIMIT set: the environment decides", limit: "268435456", gomemlimit: "100MiB", want: 100 << 20, inForce: 100 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TETHER_MEMORY_LIMIT", tc.limit)
			t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			// What GOMEMLIMIT in the environment made it at start-up.
			debug.SetMemoryLimit(none)
			if tc.gomemlimit != "" {
				debug.SetMemoryLimit(100 << 20)
			}
			if got := setMemoryLimit(); got != tc.want {
				t.Errorf("setMemoryLimit() = %d, want %d", got, tc.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tc.inForce {
				t.Errorf("the runtime's memory limit is %d, want %d", got, tc.inForce)
			}
		})
	}
}
