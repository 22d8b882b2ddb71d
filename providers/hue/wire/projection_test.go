package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// Bulbs as client_v1 reads them from real types and controls.
var (
	extendedC = Light{ID: "1", Type: "Extended color light", ModelID: "LCT015", Capabilities: capabilitiesOf("Extended color light",
		v1Control{ColorGamutType: "C", ColorGamut: json.RawMessage(`[[0.6915,0.3083],[0.17,0.7],[0.1532,0.0475]]`)})}
	colourA   = Light{ID: "2", Type: "Color light", ModelID: "LLC010", Capabilities: capabilitiesOf("Color light", v1Control{ColorGamutType: "A"})}
	ambiance  = Light{ID: "3", Type: "Color temperature light", ModelID: "LTW001", Capabilities: capabilitiesOf("Color temperature light", ctControl(153, 454))}
	white     = Light{ID: "4", Type: "Dimmable light", ModelID: "LWB010", Capabilities: capabilitiesOf("Dimmable light", v1Control{})}
	plug      = Light{ID: "5", Type: "On/Off plug-in unit", ModelID: "LOM001", Capabilities: capabilitiesOf("On/Off plug-in unit", v1Control{})}
	thirdPart = Light{ID: "6", Type: "Color temperature light", ModelID: "GL-C-006P", Capabilities: capabilitiesOf("Color temperature light", ctControl(0, 65535))}
	unknown   = Light{ID: "7", Type: "Some new light", Capabilities: capabilitiesOf("Some new light", v1Control{})}
)

func ctControl(lo, hi float64) v1Control {
	c := v1Control{}
	c.CT = &struct {
		Min float64 `json:"min"`
		Max float64 `json:"max"`
	}{lo, hi}
	return c
}

func TestProject(t *testing.T) {
	on := func(d Desired) Desired { d.On = true; return d }
	cases := []struct {
		name     string
		light    Light
		want     Desired
		wantBody string // FullBody of the projection
		note     string // part of the only note; "" for none
	}{
		{"in range stays", ambiance, on(Desired{CT: ptr.To(300)}), `{"on":true,"ct":300}`, ""},
		{"ct beyond the range is clamped", ambiance, on(Desired{CT: ptr.To(500)}), `{"on":true,"ct":454}`,
			"color.colorTemperature 500 is outside this bulb's 153-454 mireds; it shows 454"},
		{"a third-party range 0-65535 is no range", thirdPart, on(Desired{CT: ptr.To(500)}), `{"on":true,"ct":500}`, ""},
		{"xy in gamut stays", extendedC, on(Desired{XY: &[2]float64{0.3, 0.3}}), `{"on":true,"xy":[0.3,0.3]}`, ""},
		{"xy outside the gamut goes to its nearest point (here the red corner)", extendedC, on(Desired{XY: &[2]float64{0.8, 0.2}}), `{"on":true,"xy":[0.6915,0.3083]}`,
			"outside this bulb's gamut C"},
		{"gamut from the type when none is reported", colourA, on(Desired{XY: &[2]float64{0.1, 0.85}}), `{"on":true,"xy":[0.2151,0.7106]}`,
			"gamut A"},
		{"no ct on a colour light", colourA, on(Desired{Bri: ptr.To(9), CT: ptr.To(300)}), `{"on":true,"bri":9}`, "has no colour temperature"},
		{"no colour on an ambiance bulb", ambiance, on(Desired{XY: &[2]float64{0.3, 0.3}}), `{"on":true}`, "shows no colour: color.xy"},
		{"no colour on a white bulb", white, on(Desired{Hue: ptr.To(0), Sat: ptr.To(0)}), `{"on":true}`, "shows no colour: color.hue"},
		{"no brightness on a plug", plug, on(Desired{Bri: ptr.To(100)}), `{"on":true}`, "cannot dim"},
		{"an unknown type is held back from nothing", unknown, on(Desired{XY: &[2]float64{0.9, 0.05}}), `{"on":true,"xy":[0.9,0.05]}`, ""},
		{"off needs no fitting", plug, Desired{Bri: ptr.To(100)}, `{"on":false}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Project(tc.want, tc.light)
			if got := FullBody(p.Want).Key(); got != tc.wantBody {
				t.Fatalf("projected %s, want %s", got, tc.wantBody)
			}
			switch {
			case tc.note == "" && len(p.Notes) != 0:
				t.Fatalf("notes %q, want none", p.Notes)
			case tc.note != "" && (len(p.Notes) != 1 || !strings.Contains(p.Notes[0], tc.note)):
				t.Fatalf("notes %q, want one with %q", p.Notes, tc.note)
			}
		})
	}
}

func TestCapabilitiesOf(t *testing.T) {
	if c := ambiance.Capabilities; c.Color || !c.Dimmable || *c.ColorTemperature != (MiredRange{153, 454}) {
		t.Fatalf("LTW001: %+v", c)
	}
	if c := thirdPart.Capabilities; *c.ColorTemperature != (MiredRange{153, 500}) {
		t.Fatalf("ct 0-65535 should read as the API's 153-500: %+v", c.ColorTemperature)
	}
	if c := plug.Capabilities; c.Dimmable || c.Color || c.ColorTemperature != nil {
		t.Fatalf("plug: %+v", c)
	}
	if g := extendedC.Capabilities.Gamut; g == nil || g.Type != "C" || g.Green != [2]float64{0.17, 0.7} {
		t.Fatalf("LCT015 gamut: %+v", g)
	}
	status := CapabilitiesStatus(extendedC)
	if strings.Join(status.ColorModes, ",") != "xy,hs,ct" || status.ModelID != "LCT015" || status.Gamut.Type != "C" {
		t.Fatalf("status %+v", status)
	}
}
