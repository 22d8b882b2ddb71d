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
// a client nobody here wrote, through its public API only, with a bulb of
// every model. node-hue-api decides what it may send a light from the state
// keys GET /lights reports and its gamut from capabilities.control, so it
// proves each model is described as a bridge describes it: a white bulb
// gets no colour, a plug no brightness, and only colour bulbs take RGB.
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

	names, models := modelBulbs()
	s, err := Start(Options{Lights: append([]string{"hallway", "kitchen"}, names...), Models: models}, "127.0.0.1:0")
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
		Models   []struct {
			Name      string         `json:"name"`
			Type      string         `json:"type"`
			ModelID   string         `json:"modelid"`
			Gamut     map[string]any `json:"gamut"`
			Supported []string       `json:"supported"`
			Set       bool           `json:"set"`
			RGB       string         `json:"rgb"`
			State     map[string]any `json:"state"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("script output %q: %v", out, err)
	}
	// brightness(50) is a percentage: node-hue-api sends bri 127.
	if !strings.HasPrefix(strings.Join(got.Names, ","), "hallway,kitchen") || !got.Set || !got.On || got.Bri != 127 || got.BridgeID == "" {
		t.Fatalf("node-hue-api saw %+v", got)
	}
	for _, m := range got.Models {
		model := Models[models[m.Name]]
		if models[m.Name] == "" {
			model = Models[DefaultModel]
		}
		t.Run(model.ID+"/"+m.Name, func(t *testing.T) {
			if m.Type != model.Type || m.ModelID != model.ID || !m.Set {
				t.Fatalf("node-hue-api saw %s %s (set %t), want %s %s", m.Type, m.ModelID, m.Set, model.Type, model.ID)
			}
			// What it may send: the state keys of the type, plus
			// transitiontime and the _inc variants it derives.
			want := map[string]bool{"transitiontime": true}
			for _, k := range model.stateKeys() {
				want[k] = true
				if strings.Contains("bri sat hue ct xy", k) {
					want[k+"_inc"] = true
				}
			}
			if len(m.Supported) != len(want) {
				t.Fatalf("supported states %v, want the keys of %v", m.Supported, want)
			}
			for _, k := range m.Supported {
				if !want[k] {
					t.Fatalf("supported states %v include %s", m.Supported, k)
				}
			}
			if model.colour() != (m.Gamut != nil) || model.colour() != (m.RGB == "sent") {
				t.Fatalf("gamut %v, rgb %q for a %s", m.Gamut, m.RGB, model.Type)
			}
			if m.State["on"] != true {
				t.Fatalf("not on after node-hue-api's command: %v", m.State)
			}
			_, hasBri := m.State["bri"]
			if model.dimmable() != hasBri || (hasBri && m.State["bri"] != float64(127) && !model.colour()) {
				t.Fatalf("bri in %v for a %s", m.State, model.Type)
			}
			// ct 500 shows as the end of the bulb's range (colour bulbs
			// got an RGB colour after it, which leaves ct as it was).
			if ct, ok := m.State["ct"]; model.colourTemperature() != ok || (ok && ct != float64(model.shownCT()[1])) {
				t.Fatalf("ct in %v for a %s showing %v", m.State, model.Type, model.shownCT())
			}
		})
	}
	if l, _ := s.LightByName("hallway"); !l.State.On || l.State.Bri != 127 {
		t.Fatalf("simulator state after node-hue-api: %+v", l.State)
	}
}

// modelBulbs is one bulb of every model, named after it.
func modelBulbs() ([]string, map[string]string) {
	var names []string
	models := map[string]string{}
	for _, id := range ModelIDs() {
		name := "m-" + strings.ToLower(id)
		names = append(names, name)
		models[name] = id
	}
	return names, models
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
