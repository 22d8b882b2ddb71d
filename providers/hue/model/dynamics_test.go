package model

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// TestSpeedFit: a speed is sent only to a light described in CLIP v2 that
// has dynamics; it is compared at the bridge's precision while the light
// plays something (a valid speed), sent when it plays nothing (no valid
// speed: once, then known from what the bridge accepted, which the note
// says); anything else is named and never sent.
func TestSpeedFit(t *testing.T) {
	dyn := func(l Light) Light { l.Capabilities.V2, l.Capabilities.Dynamics = true, true; return l }
	at := func(s *float64) LightState { return LightState{On: true, Reachable: true, Speed: s} }
	cases := []struct {
		name     string
		light    Light
		state    LightState
		assumed  []string
		speed    float64
		wantSend string // the Diff's body, "" for nothing to send
		note     string // part of the only note; "" for none
	}{
		{"another speed while playing is sent", dyn(extendedC), at(ptr.To(0.2)), nil, 0.5, `{"on":true,"speed":0.5}`, ""},
		{"the speed at the bridge's precision sends nothing", dyn(extendedC), at(ptr.To(0.5039)), nil, 0.5, "", ""},
		{"no valid speed (nothing plays): sent", dyn(extendedC), at(nil), nil, 0.5, `{"on":true,"speed":0.5}`, ""},
		{"accepted and not reported: taken as shown, named", dyn(extendedC), at(ptr.To(0.5)), []string{"speed"}, 0.5, "",
			"the bridge does not report dynamics.speed for this bulb: it accepted 0.5"},
		{"a light without dynamics is named", func() Light { l := extendedC; l.Capabilities.V2 = true; return l }(), at(nil), nil, 0.5, "",
			"this bulb (LCT015, Extended color light) has no dynamics: dynamics.speed is ignored"},
		{"a v1 light: speed is CLIP v2 only", extendedC, at(nil), nil, 0.5, "",
			"dynamics.speed is a CLIP v2 feature and this light's bridge speaks the v1 API"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fit := Fit(Desired{On: true, Speed: ptr.To(tc.speed)}, Known{Light: Light{ID: tc.light.ID, Type: tc.light.Type,
				ModelID: tc.light.ModelID, Capabilities: tc.light.Capabilities, State: tc.state}, Assumed: tc.assumed})
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
	body := StateBody{On: ptr.To(true), Speed: ptr.To(0.5)}
	if !body.LightOnly() || body.Without("speed").Key() != `{"on":true}` || !(LightState{On: true}).Applied(body).Shows(body, nil) {
		t.Error("a speed is light-only, can be left out, and shows once applied")
	}
}
