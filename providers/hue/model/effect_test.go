package model

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// TestEffectFit: an effect is sent only to a light described in CLIP v2
// that lists it; anything else is named in a note and left out of what is
// compared and sent, so nothing is resent for it.
func TestEffectFit(t *testing.T) {
	v2 := func(l Light, effects []string) Light {
		l.Capabilities.V2, l.Capabilities.Effects = true, effects
		return l
	}
	withEffects := v2(extendedC, []string{"no_effect", "candle", "fire"})
	playing := func(e string) LightState { return LightState{On: true, Reachable: true, Effect: ptr.To(e)} }
	cases := []struct {
		name     string
		light    Light
		state    LightState
		effect   string
		wantSend string // the Diff's body, "" for nothing to send
		note     string // part of the only note; "" for none
	}{
		{"a listed effect is sent", withEffects, playing("no_effect"), "candle", `{"on":true,"effect":"candle"}`, ""},
		{"a listed effect already played sends nothing", withEffects, playing("candle"), "candle", "", ""},
		{"drift (fire played) puts candle back", withEffects, playing("fire"), "candle", `{"on":true,"effect":"candle"}`, ""},
		{"an effect the light does not list is named with the list", withEffects, playing("no_effect"), "prism", "",
			"has no effect prism (it lists no_effect, candle, fire)"},
		{"a v2 light without effects is named", v2(extendedC, nil), LightState{On: true, Reachable: true}, "candle", "",
			"this bulb (LCT015, Extended color light) has no effects: effect candle is ignored"},
		{"a v1 light: effects are CLIP v2 only", extendedC, LightState{On: true, Reachable: true}, "candle", "",
			"effect candle is a CLIP v2 feature and this light's bridge speaks the v1 API"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fit := Fit(Desired{On: true, Effect: ptr.To(tc.effect)}, Known{Light: Light{ID: tc.light.ID, Type: tc.light.Type,
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
			if tc.note != "" && fit.Full.Effect != nil {
				t.Errorf("the whole state still carries effect %s: a group command or a pass would send it", *fit.Full.Effect)
			}
		})
	}
}

// TestEffectReadBack: a state shows an effect it plays, a command the
// bridge accepted makes the state play it, and a body with an effect is
// for one light only.
func TestEffectReadBack(t *testing.T) {
	body := StateBody{On: ptr.To(true), Effect: ptr.To("candle")}
	st := LightState{On: true, Effect: ptr.To("no_effect")}
	if st.Shows(body, nil) {
		t.Fatal("no_effect shows candle")
	}
	if after := st.Applied(body); !after.Shows(body, nil) || *after.Effect != "candle" {
		t.Fatalf("after the bridge accepted candle: %+v", after)
	}
	if !body.LightOnly() || (StateBody{On: ptr.To(true), Bri: ptr.To(10)}).LightOnly() {
		t.Fatal("LightOnly is for bodies with an effect, and only those")
	}
	if got := body.Without("effect").Key(); got != `{"on":true}` {
		t.Fatalf("without effect: %s", got)
	}
}
