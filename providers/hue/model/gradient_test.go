package model

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// TestGradientFit: a gradient is sent only to a light described in CLIP v2
// that reports the feature, with no more points than it shows, a mode only
// if it lists it, and points inside its gamut; anything else is named in a
// note and fitted or left out, so nothing is resent for it.
func TestGradientFit(t *testing.T) {
	strip := func(capable int, modes []string) Light {
		l := extendedC
		l.ModelID = "LCX004"
		l.Capabilities.V2 = true
		l.Capabilities.Gradient = &GradientCapabilities{PointsCapable: capable, Modes: modes}
		return l
	}
	modes := []string{"interpolated_palette", "random_pixelated"}
	two := [][2]float64{{0.3, 0.3}, {0.4, 0.4}}
	showing := func(g *Gradient) LightState { return LightState{On: true, Reachable: true, Gradient: g} }
	cases := []struct {
		name     string
		light    Light
		state    LightState
		want     Gradient
		wantSend string // the Diff's body, "" for nothing to send
		note     string // part of the only note; "" for none
	}{
		{"two points are sent", strip(5, modes), showing(&Gradient{Points: [][2]float64{{0.5, 0.4}, {0.5, 0.4}}, Mode: "interpolated_palette"}),
			Gradient{Points: two}, `{"on":true,"gradient":{"points":[[0.3,0.3],[0.4,0.4]]}}`, ""},
		{"the points shown, at the bridge's precision, send nothing", strip(5, modes),
			showing(&Gradient{Points: [][2]float64{{0.3001, 0.3}, {0.4, 0.3999}}, Mode: "random_pixelated"}), Gradient{Points: two}, "", ""},
		{"a listed mode is compared", strip(5, modes), showing(&Gradient{Points: two, Mode: "interpolated_palette"}),
			Gradient{Points: two, Mode: "random_pixelated"}, `{"on":true,"gradient":{"points":[[0.3,0.3],[0.4,0.4]],"mode":"random_pixelated"}}`, ""},
		{"points beyond points_capable are left out", strip(2, modes), showing(&Gradient{Points: two}),
			Gradient{Points: [][2]float64{{0.3, 0.3}, {0.4, 0.4}, {0.2, 0.2}}}, "",
			"this bulb (LCX004, Extended color light) shows 2 gradient points: gradient.points after the 2nd are ignored"},
		{"a mode the light does not list is left out", strip(5, modes), showing(&Gradient{Points: two}),
			Gradient{Points: two, Mode: "segmented_palette"}, "",
			"has no gradient mode segmented_palette (it lists interpolated_palette, random_pixelated)"},
		{"a mode on a light without mode_values is left out", strip(5, nil), showing(&Gradient{Points: two}),
			Gradient{Points: two, Mode: "random_pixelated"}, "", "lists no gradient modes: gradient.mode random_pixelated is ignored"},
		{"a point outside the gamut goes to its nearest", strip(5, modes), showing(&Gradient{Points: two}),
			Gradient{Points: [][2]float64{{0.3, 0.3}, {0.8, 0.2}}}, `{"on":true,"gradient":{"points":[[0.3,0.3],[0.6915,0.3083]]}}`,
			"gradient.points[1] [0.8, 0.2] is outside this bulb's gamut C"},
		{"a v2 light without gradient is named", func() Light { l := extendedC; l.Capabilities.V2 = true; return l }(),
			LightState{On: true, Reachable: true}, Gradient{Points: two}, "",
			"this bulb (LCT015, Extended color light) has no gradient: gradient is ignored"},
		{"a v1 light: gradient is CLIP v2 only", extendedC, LightState{On: true, Reachable: true}, Gradient{Points: two}, "",
			"gradient is a CLIP v2 feature and this light's bridge speaks the v1 API"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			fit := Fit(Desired{On: true, Gradient: &want}, Known{Light: Light{ID: tc.light.ID, Type: tc.light.Type,
				ModelID: tc.light.ModelID, Capabilities: tc.light.Capabilities, State: tc.state}})
			got := ""
			if fit.Diff != nil {
				got = fit.Diff.Body.Key()
			}
			if got != tc.wantSend {
				t.Errorf("sends %s, want %s", got, tc.wantSend)
			}
			if tc.note == "" && len(fit.Notes) > 0 || tc.note != "" && (len(fit.Notes) != 1 || !strings.Contains(fit.Notes[0], tc.note)) {
				t.Errorf("notes %q, want one containing %q", fit.Notes, tc.note)
			}
		})
	}
}

// TestGradientReadBack: a state shows the gradient it reports, a command
// the bridge accepted makes the state show it, and a body with a gradient
// is for one light only.
func TestGradientReadBack(t *testing.T) {
	body := StateBody{On: ptr.To(true), Gradient: &Gradient{Points: [][2]float64{{0.3, 0.3}, {0.4, 0.4}}}}
	st := LightState{On: true, Gradient: &Gradient{Points: [][2]float64{{0.3, 0.3}}}}
	if st.Shows(body, nil) {
		t.Fatal("one point shows two")
	}
	if after := st.Applied(body); !after.Shows(body, nil) {
		t.Fatalf("after the bridge accepted the gradient: %+v", after.Gradient)
	}
	if !body.LightOnly() {
		t.Fatal("a body with a gradient went in a group command")
	}
	if got := body.Without("gradient").Key(); got != `{"on":true}` {
		t.Fatalf("without gradient: %s", got)
	}
}
