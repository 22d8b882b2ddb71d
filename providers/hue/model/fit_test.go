package model

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// Bulbs as client_v1 reads them from real types and controls (its
// capabilitiesOf; wire's TestCapabilitiesOf checks the same bulbs).
var (
	gamutC    = Gamut{Type: "C", Red: [2]float64{0.6915, 0.3083}, Green: [2]float64{0.17, 0.7}, Blue: [2]float64{0.1532, 0.0475}}
	gamutA    = Gamut{Type: "A", Red: [2]float64{0.704, 0.296}, Green: [2]float64{0.2151, 0.7106}, Blue: [2]float64{0.138, 0.08}}
	extendedC = Light{ID: "1", Type: "Extended color light", ModelID: "LCT015", Capabilities: Capabilities{Dimmable: true, Color: true, HueSat: true,
		ColorTemperature: &MiredRange{153, 500}, Gamut: &gamutC}}
	colourA   = Light{ID: "2", Type: "Color light", ModelID: "LLC010", Capabilities: Capabilities{Dimmable: true, Color: true, HueSat: true, Gamut: &gamutA}}
	ambiance  = Light{ID: "3", Type: "Color temperature light", ModelID: "LTW001", Capabilities: Capabilities{Dimmable: true, ColorTemperature: &MiredRange{153, 454}}}
	white     = Light{ID: "4", Type: "Dimmable light", ModelID: "LWB010", Capabilities: Capabilities{Dimmable: true}}
	plug      = Light{ID: "5", Type: "On/Off plug-in unit", ModelID: "LOM001"}
	thirdPart = Light{ID: "6", Type: "Color temperature light", ModelID: "GL-C-006P", Capabilities: Capabilities{Dimmable: true, ColorTemperature: &MiredRange{153, 500}}}
	unknown   = Light{ID: "7", Type: "Some new light", Capabilities: Capabilities{Dimmable: true, Color: true, HueSat: true, ColorTemperature: &MiredRange{153, 500}}}
)

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
