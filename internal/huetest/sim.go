package huetest

import (
	"testing"

	"github.com/tether-dev/tether/internal/huesim"
)

// User is the username the simulated bridges know.
const User = "tether-sender-test"

// StartSim serves a simulated bridge that knows User, with a bulb of every
// model when opts names no lights.
func StartSim(t *testing.T, opts huesim.Options) *huesim.Server {
	t.Helper()
	opts.Usernames = append(opts.Usernames, User)
	if len(opts.Lights) == 0 {
		opts.Models = map[string]string{}
		for _, m := range huesim.ModelIDs() {
			opts.Lights = append(opts.Lights, "bulb "+m)
			opts.Models["bulb "+m] = m
		}
	}
	sim, err := huesim.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}
