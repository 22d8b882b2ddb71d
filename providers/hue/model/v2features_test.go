package model

// The fit (fit.go) and the comparison (diff.go) of what only CLIP v2 lights
// have: an effect, a speed, a powerup setting and a gradient.

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
			fit := Fit(Desired{On: true, Effect: ptr.To(tc.effect)}, knownAs(tc.light, tc.state, nil))
			checkFit(t, fit, tc.wantSend, tc.note)
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
			fit := Fit(Desired{On: true, Speed: ptr.To(tc.speed)}, knownAs(tc.light, tc.state, tc.assumed))
			checkFit(t, fit, tc.wantSend, tc.note)
		})
	}
	body := StateBody{On: ptr.To(true), Speed: ptr.To(0.5)}
	if !body.LightOnly() || body.Without("speed").Key() != `{"on":true}` || !(LightState{On: true}).Applied(body).Shows(body, nil) {
		t.Error("a speed is light-only, can be left out, and shows once applied")
	}
}

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
			fit := Fit(Desired{On: tc.on, Powerup: tc.powerup}, knownAs(tc.light, tc.state, nil))
			checkFit(t, fit, tc.wantSend, tc.note)
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
			fit := Fit(Desired{On: true, Gradient: &want}, knownAs(tc.light, tc.state, nil))
			checkFit(t, fit, tc.wantSend, tc.note)
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

// knownAs is the bulb light showing state, with the attributes assumed
// known only from what the bridge accepted.
func knownAs(light Light, state LightState, assumed []string) Known {
	return Known{Light: Light{ID: light.ID, Type: light.Type, ModelID: light.ModelID, Capabilities: light.Capabilities, State: state},
		Assumed: assumed}
}

// checkFit checks what a fit sends (the Diff's body, "" for nothing) and
// its one note (part of it, "" for none).
func checkFit(t *testing.T, fit Fitted, wantSend, note string) {
	t.Helper()
	got := ""
	if fit.Diff != nil {
		got = fit.Diff.Body.Key()
	}
	if got != wantSend {
		t.Errorf("sends %s, want %s", got, wantSend)
	}
	if note == "" && len(fit.Notes) > 0 || note != "" && (len(fit.Notes) != 1 || !strings.Contains(fit.Notes[0], note)) {
		t.Errorf("notes %q, want one containing %q", fit.Notes, note)
	}
}

// TestV2OnlyChangesAreNamed: what only CLIP v2 lights have is sent when the
// light reports another value or none, named in the change with what the
// light reported ("unknown" for none), and not sent when it shows the
// wanted value (a speed and gradient points at the bridge's precision).
func TestV2OnlyChangesAreNamed(t *testing.T) {
	on := LightState{On: true, Reachable: true}
	with := func(f func(*LightState)) LightState { s := on; f(&s); return s }
	gradient := Gradient{Points: [][2]float64{{0.1, 0.2}, {0.3, 0.4}}, Mode: "interpolated_palette"}
	cases := []struct {
		name   string
		want   Desired
		got    LightState
		change string // "" for nothing to send
	}{
		{"effect unknown", Desired{On: true, Effect: ptr.To("fire")}, on, "effect: unknown -> fire"},
		{"effect another", Desired{On: true, Effect: ptr.To("fire")}, with(func(s *LightState) { s.Effect = ptr.To("candle") }), "effect: candle -> fire"},
		{"effect shown", Desired{On: true, Effect: ptr.To("fire")}, with(func(s *LightState) { s.Effect = ptr.To("fire") }), ""},
		{"speed unknown", Desired{On: true, Speed: ptr.To(0.5)}, on, "dynamics.speed: unknown -> 0.5"},
		{"speed another", Desired{On: true, Speed: ptr.To(0.5)}, with(func(s *LightState) { s.Speed = ptr.To(0.25) }), "dynamics.speed: 0.25 -> 0.5"},
		{"speed shown at the bridge's precision", Desired{On: true, Speed: ptr.To(0.5)}, with(func(s *LightState) { s.Speed = ptr.To(0.5 + speedTolerance/2) }), ""},
		{"powerup another", Desired{On: true, Powerup: &Powerup{Preset: PowerupSafety}},
			with(func(s *LightState) { s.Powerup = &Powerup{Preset: PowerupPowerfail} }), "powerup: powerfail -> safety"},
		{"powerup shown", Desired{On: true, Powerup: &Powerup{Preset: PowerupSafety}}, with(func(s *LightState) { s.Powerup = &Powerup{Preset: PowerupSafety} }), ""},
		{"gradient unknown", Desired{On: true, Gradient: &gradient}, on, "gradient: unknown -> [0.1, 0.2] [0.3, 0.4] interpolated_palette"},
		{"gradient shown", Desired{On: true, Gradient: &gradient}, with(func(s *LightState) { s.Gradient = &gradient }), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.want, tc.got)
			switch {
			case tc.change == "" && d != nil:
				t.Fatalf("sends %s for a light that shows it", d)
			case tc.change != "" && (d == nil || d.String() != tc.change):
				t.Fatalf("changes %v, want %q", d, tc.change)
			case d != nil && !d.Body.LightOnly():
				t.Fatalf("a body with a CLIP v2 feature must go to its light alone: %s", d.Body.Key())
			}
		})
	}
}
