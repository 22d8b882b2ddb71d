package model

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// TestPowerupFit: a powerup setting is sent only to a light described in
// CLIP v2 that has a powerup object, whether the light should be on or off
// (it is a setting, not the state); the parts of a custom one the bulb
// cannot show are left out or clamped and named; anything else is named in
// a note and left out of what is compared and sent, so nothing is resent
// for it.
func TestPowerupFit(t *testing.T) {
	v2 := func(l Light, powerup bool) Light {
		l.Capabilities.V2, l.Capabilities.Powerup = true, powerup
		return l
	}
	reporting := func(on bool, p *Powerup) LightState { return LightState{On: on, Reachable: true, Powerup: p} }
	safety := &Powerup{Preset: PowerupSafety}
	custom := &Powerup{Preset: PowerupCustom, On: &PowerupOn{Mode: "on", On: ptr.To(false)}}
	customShown := &Powerup{Preset: PowerupCustom, On: &PowerupOn{Mode: "on", On: ptr.To(false)},
		Dimming: &PowerupDimming{Mode: "dimming", Bri: ptr.To(254)}}
	warm := func(ct int) *Powerup {
		return &Powerup{Preset: PowerupCustom, Color: &PowerupColor{Mode: "color_temperature", CT: ptr.To(ct)}}
	}
	cases := []struct {
		name     string
		light    Light
		state    LightState
		on       bool
		powerup  *Powerup
		wantSend string // the Diff's body, "" for nothing to send
		note     string // part of the only note; "" for none
	}{
		{"a preset is sent", v2(extendedC, true), reporting(true, safety), true, &Powerup{Preset: PowerupPowerfail},
			`{"on":true,"powerup":{"preset":"powerfail"}}`, ""},
		{"the preset it has sends nothing", v2(extendedC, true), reporting(true, safety), true, safety, "", ""},
		{"sent to a light that should be off too", v2(extendedC, true), reporting(false, safety), false, &Powerup{Preset: PowerupLastOnState},
			`{"on":false,"powerup":{"preset":"last_on_state"}}`, ""},
		{"custom: the parts it sets are compared, the rest is the bulb's", v2(extendedC, true), reporting(true, customShown), true, custom, "", ""},
		{"custom drift (on:true at powerup) is put back", v2(extendedC, true),
			reporting(true, &Powerup{Preset: PowerupCustom, On: &PowerupOn{Mode: "on", On: ptr.To(true)}}), true, custom,
			`{"on":true,"powerup":{"preset":"custom","on":{"mode":"on","on":false}}}`, ""},
		{"a colour temperature beyond the bulb's range is clamped", v2(ambiance, true), reporting(true, safety), true, warm(500),
			`{"on":true,"powerup":{"preset":"custom","color":{"mode":"color_temperature","ct":454}}}`,
			"powerup.color.colorTemperature 500 is outside this bulb's 153-454 mireds; it takes 454"},
		{"a colour on a white bulb is left out", v2(white, true), reporting(true, safety), true,
			&Powerup{Preset: PowerupCustom, Color: &PowerupColor{Mode: "color", XY: &[2]float64{0.3, 0.3}}},
			`{"on":true,"powerup":{"preset":"custom"}}`, "this bulb (LWB010, Dimmable light) shows no colour: powerup.color is ignored"},
		{"a v2 light without powerup is named", v2(extendedC, false), reporting(true, nil), true, safety, "",
			"this bulb (LCT015, Extended color light) has no powerup setting: powerup is ignored"},
		{"a v1 light: powerup is CLIP v2 only", extendedC, reporting(true, nil), true, safety, "",
			"powerup safety is a CLIP v2 feature and this light's bridge speaks the v1 API"},
		{"a v1 light that should be off: named all the same", extendedC, reporting(false, nil), false, safety, "",
			"powerup safety is a CLIP v2 feature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fit := Fit(Desired{On: tc.on, Powerup: tc.powerup}, Known{Light: Light{ID: tc.light.ID, Type: tc.light.Type,
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
			if tc.wantSend == "" && tc.note != "" && fit.Full.Powerup != nil {
				t.Errorf("the whole state still carries powerup %s: a pass would send it", fit.Full.Powerup)
			}
		})
	}
}

// TestPowerupReadBack: a state shows the powerup it reports, a command the
// bridge accepted makes the state report it, a refused one is not sent
// again with the same value, and a body with a powerup is for one light
// only.
func TestPowerupReadBack(t *testing.T) {
	body := StateBody{On: ptr.To(true), Powerup: &Powerup{Preset: PowerupPowerfail}}
	st := LightState{On: true, Powerup: &Powerup{Preset: PowerupSafety}}
	if st.Shows(body, nil) {
		t.Fatal("safety shows powerfail")
	}
	if after := st.Applied(body); !after.Shows(body, nil) || after.Powerup.Preset != PowerupPowerfail {
		t.Fatalf("after the bridge accepted powerfail: %+v", after.Powerup)
	}
	if !body.LightOnly() {
		t.Fatal("a body with a powerup went in a group command")
	}
	if got := body.Without("powerup").Key(); got != `{"on":true}` {
		t.Fatalf("without powerup: %s", got)
	}
	want := Desired{On: false, Powerup: &Powerup{Preset: PowerupPowerfail}}
	refused := map[string]Refused{"powerup": {Type: 7, Description: "invalid value", Value: body.Value("powerup")}}
	kept, notes := WithoutRefused(want, refused)
	if kept.Powerup != nil || len(notes) != 1 || !strings.Contains(notes[0], "refused powerup") {
		t.Fatalf("a refused powerup on a light that should be off: %+v %q", kept.Powerup, notes)
	}
}
