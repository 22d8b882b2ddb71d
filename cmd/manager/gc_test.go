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
