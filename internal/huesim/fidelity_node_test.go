package huesim

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeHueAPIFidelity drives the simulator with node-hue-api 4.0.11 (npm),
// a client nobody here wrote, through its public API only.
func TestNodeHueAPIFidelity(t *testing.T) {
	modules, err := filepath.Abs("../../hack/npm/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "node-hue-api")); err != nil {
		t.Skip("node-hue-api is not installed: run `npm ci` in hack/npm (the Makefile's test target does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; it is needed to run node-hue-api")
	}

	s, err := Start(Options{Lights: []string{"hallway", "kitchen"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.PressLinkButton()
	host, port, _ := net.SplitHostPort(s.Addr())

	out, err := exec.Command(node, "testdata/nodehue.js", host, port, modules).Output()
	if err != nil {
		t.Fatalf("node-hue-api script: %v\n%s", err, stderrOf(err))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Names    []string `json:"names"`
		Set      bool     `json:"set"`
		On       bool     `json:"on"`
		Bri      int      `json:"bri"`
		BridgeID string   `json:"bridgeid"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("script output %q: %v", out, err)
	}
	// brightness(50) is a percentage: node-hue-api sends bri 127.
	if strings.Join(got.Names, ",") != "hallway,kitchen" || !got.Set || !got.On || got.Bri != 127 || got.BridgeID == "" {
		t.Fatalf("node-hue-api saw %+v", got)
	}
	if l, _ := s.LightByName("hallway"); !l.State.On || l.State.Bri != 127 {
		t.Fatalf("simulator state after node-hue-api: %+v", l.State)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
