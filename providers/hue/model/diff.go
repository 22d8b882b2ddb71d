package model

import (
	"fmt"
	"math"
	"strings"
)

// xyTolerance absorbs the bridge's precision: it reports xy with four
// decimals, from a bulb that holds it as a 16-bit Zigbee value, so what it
// reads back may be up to about 0.00012 from what was sent (0.4 reads
// 0.3999). A larger difference is a real colour change.
const xyTolerance = 0.0002

// Desired is a HueLight's spec in the bridge's units.
type Desired struct {
	On  bool
	Bri *int
	XY  *[2]float64
	CT  *int
	Hue *int
	Sat *int
	// Transition is in tenths of a second, nil for the bridge's default.
	Transition *int
	// Effect is a CLIP v2 effect name (candle, no_effect, ...); nil leaves
	// whatever the light plays.
	Effect *string
	// Powerup is the bulb's CLIP v2 powerup setting; nil leaves the
	// bulb's. Unlike the state, it is wanted whether the light is on or off.
	Powerup *Powerup
	// Gradient is a CLIP v2 gradient; nil leaves the light's.
	Gradient *Gradient
	// Speed is a CLIP v2 dynamics.speed, 0 to 1; nil leaves the light's.
	Speed *float64
	// gamut is the bulb's, set by project: hue/sat are compared as the
	// colour they make on it.
	gamut *Gamut
}

// FullBody is the whole state a HueLight wants, as a command: what a group
// command sends, since the lights of a group may differ in different ways.
// Like Compare it sets colour only by priority (xy, ct, hue/sat), and
// nothing but on/off (and the powerup setting) for a light that should be
// off.
func FullBody(want Desired) StateBody {
	on := want.On
	b := StateBody{On: &on, TransitionTime: want.Transition, Powerup: want.Powerup}
	if !on {
		return b
	}
	b.Bri = want.Bri
	switch {
	case want.XY != nil:
		b.XY = want.XY
	case want.CT != nil:
		b.CT = want.CT
	case want.Hue != nil && want.Sat != nil:
		b.Hue, b.Sat = want.Hue, want.Sat
	}
	b.Effect = want.Effect
	b.Gradient = want.Gradient
	b.Speed = want.Speed
	return b
}

// Diff is what must be sent for a bulb to match a wanted state, and the
// changes in words.
type Diff struct {
	Body    StateBody
	Changes []string
}

// String lists the changes: "on: false -> true, brightness: 127 -> 254".
func (d *Diff) String() string { return strings.Join(d.Changes, ", ") }

// Compare returns what must be sent for the bulb to match want, or nil.
// A light that should be off is only compared on on/off: its brightness
// and colour cannot be changed while it is off (error 201) and do not show;
// its powerup setting is compared either way.
func Compare(want Desired, got LightState) *Diff {
	d := &Diff{}
	if want.On != got.On {
		d.Changes = append(d.Changes, fmt.Sprintf("on: %t -> %t", got.On, want.On))
	}
	if want.On {
		d.compareBrightness(want, got)
		d.compareColour(want, got)
		d.compareEffect(want, got)
		d.compareGradient(want, got)
		d.compareSpeed(want, got)
	}
	d.comparePowerup(want, got)
	if len(d.Changes) == 0 {
		return nil
	}
	on := want.On
	d.Body.On = &on
	d.Body.TransitionTime = want.Transition
	return d
}

func (d *Diff) compareBrightness(want Desired, got LightState) {
	if want.Bri != nil && !equal(got.Bri, *want.Bri) {
		d.Body.Bri = want.Bri
		d.Changes = append(d.Changes, fmt.Sprintf("brightness: %s -> %d", show(got.Bri), *want.Bri))
	}
}

func (d *Diff) compareColour(want Desired, got LightState) {
	switch {
	case want.XY != nil:
		if got.ColorMode != "xy" || got.XY == nil || !NearXY(*got.XY, *want.XY) {
			d.Body.XY = want.XY
			d.Changes = append(d.Changes, fmt.Sprintf("xy: %s -> [%g, %g]", describeColour(got), want.XY[0], want.XY[1]))
		}
	case want.CT != nil:
		if got.ColorMode != "ct" || !equal(got.CT, *want.CT) {
			d.Body.CT = want.CT
			d.Changes = append(d.Changes, fmt.Sprintf("colorTemperature: %s -> %d", describeColour(got), *want.CT))
		}
	case want.Hue != nil && want.Sat != nil:
		if !showsHueSat(*want.Hue, *want.Sat, got, want.gamut) {
			d.Body.Hue, d.Body.Sat = want.Hue, want.Sat
			d.Changes = append(d.Changes, fmt.Sprintf("hue/saturation: %s -> %d/%d", describeColour(got), *want.Hue, *want.Sat))
		}
	}
}

func equal(got *int, want int) bool { return got != nil && *got == want }

// show prints a reported value, or "unknown" for one the bridge left out.
func show(v *int) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprint(*v)
}

// NearXY reports whether two xy colours are one at the bridge's precision
// (xyTolerance).
func NearXY(a, b [2]float64) bool {
	return math.Abs(a[0]-b[0]) <= xyTolerance && math.Abs(a[1]-b[1]) <= xyTolerance
}

func describeColour(s LightState) string {
	switch {
	case s.ColorMode == "xy" && s.XY != nil:
		return fmt.Sprintf("xy [%g, %g]", s.XY[0], s.XY[1])
	case s.ColorMode == "ct" && s.CT != nil:
		return fmt.Sprintf("ct %d", *s.CT)
	case s.ColorMode == "hs" && s.Hue != nil && s.Sat != nil:
		return fmt.Sprintf("hue/saturation %d/%d", *s.Hue, *s.Sat)
	}
	return "unknown"
}

// SameState compares two stored states, xy at the bridge's precision.
func SameState(a, b StateBody) bool {
	if (a.XY == nil) != (b.XY == nil) || (a.XY != nil && !NearXY(*a.XY, *b.XY)) {
		return false
	}
	a.XY, b.XY = nil, nil
	return a.Key() == b.Key()
}

// Without returns want without the attribute param.
func (d Desired) Without(param string) Desired {
	switch param {
	case "bri":
		d.Bri = nil
	case "xy":
		d.XY = nil
	case "ct":
		d.CT = nil
	case "hue", "sat":
		d.Hue, d.Sat = nil, nil
	case "transitiontime":
		d.Transition = nil
	case "effect":
		d.Effect = nil
	case "powerup":
		d.Powerup = nil
	case "gradient":
		d.Gradient = nil
	case "speed":
		d.Speed = nil
	}
	return d
}

// SameSceneState reports whether a scene's stored state b is the wanted
// state a: as SameState, but a gradient without a mode is the one stored in
// whatever mode the bridge gave it (its default, interpolated_palette), as
// a light's is (Gradient.Shows).
func SameSceneState(a, b StateBody) bool {
	if a.Gradient != nil && b.Gradient != nil && a.Gradient.Shows(*b.Gradient) {
		a.Gradient, b.Gradient = nil, nil
	}
	return SameState(a, b)
}

// What only CLIP v2 lights have (light.go) is compared like the rest:
// sent when the light reports another value or none, at the bridge's
// precision, and named in the changes.

// compareEffect sends the effect when the light plays another one, or
// does not say which it plays.
func (d *Diff) compareEffect(want Desired, got LightState) {
	sendUnlessShown(d, "effect", want.Effect, got.Effect, func(want, got string) bool { return want == got },
		func(e string) string { return e }, &d.Body.Effect)
}

// The speed of what plays on a light: CLIP v2's dynamics.speed, 0 to 1
// (CLIP v2 API reference, "light", dynamics; aiohue's DynamicsFeature,
// models/feature.py; openhue-go v0.4.0's LightDynamics). "The speed is
// valid for the dynamic palette if the status is dynamic_palette or for
// the corresponding effect listed in status. In case of status none, the
// speed is not valid": a light reports speed_valid, and a speed it says is
// not valid says nothing of what it would play at. So a light that plays
// nothing reports no speed (LightState.Speed nil): a wanted speed is sent
// once and from then on known from what the bridge accepted (the cache's
// Assumed), and compared, and put back, while something plays. The v1 API
// has no speed.

// speedTolerance absorbs the bridge's precision: it reports speed as a
// 32-bit float of steps of its own (Home Assistant's Hue tests show a
// dynamic scene at 0.6269841194152832, 79/126:
// home-assistant/core, tests/components/hue/test_scene.py). A hundredth is
// above that and below any speed anyone tells apart.
const speedTolerance = 0.01

// NearSpeed reports whether two speeds are one at the bridge's precision.
func NearSpeed(a, b float64) bool { return math.Abs(a-b) <= speedTolerance }

// compareSpeed sends the speed when the light plays something at another
// one. A light that reports no valid speed is sent it (once: then the
// cache knows it from what the bridge accepted).
func (d *Diff) compareSpeed(want Desired, got LightState) {
	sendUnlessShown(d, "dynamics.speed", want.Speed, got.Speed, NearSpeed, func(v float64) string { return fmt.Sprint(v) }, &d.Body.Speed)
}

// Shows reports whether the reported setting got is the wanted one: the
// same preset and, for custom, each part the wanted one sets (a part it
// leaves out is the bulb's).
func (p Powerup) Shows(got Powerup) bool {
	if p.Preset != got.Preset {
		return false
	}
	if p.Preset != PowerupCustom {
		return true
	}
	return showsPowerupOn(p.On, got.On) && showsPowerupDimming(p.Dimming, got.Dimming) && showsPowerupColor(p.Color, got.Color)
}

func showsPowerupOn(want, got *PowerupOn) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.On == nil || got.On != nil && *got.On == *want.On)
}

func showsPowerupDimming(want, got *PowerupDimming) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.Bri == nil || got.Bri != nil && *got.Bri == *want.Bri)
}

func showsPowerupColor(want, got *PowerupColor) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.CT == nil || got.CT != nil && *got.CT == *want.CT) &&
		(want.XY == nil || got.XY != nil && NearXY(*got.XY, *want.XY))
}

// comparePowerup sends the powerup setting when the light reports another,
// or does not say which it has.
func (d *Diff) comparePowerup(want Desired, got LightState) {
	sendUnlessShown(d, "powerup", want.Powerup, got.Powerup, Powerup.Shows, Powerup.String, &d.Body.Powerup)
}

// Shows reports whether the reported gradient got shows the wanted one:
// the same points at the bridge's precision and, when one is wanted, the
// same mode.
func (g Gradient) Shows(got Gradient) bool {
	if len(g.Points) != len(got.Points) || g.Mode != "" && g.Mode != got.Mode {
		return false
	}
	for i, p := range g.Points {
		if !NearXY(p, got.Points[i]) {
			return false
		}
	}
	return true
}

// compareGradient sends the gradient when the light shows another, or
// does not say which.
func (d *Diff) compareGradient(want Desired, got LightState) {
	sendUnlessShown(d, "gradient", want.Gradient, got.Gradient, Gradient.Shows, Gradient.String, &d.Body.Gradient)
}

// sendUnlessShown puts want into the command (into) and names the change
// when the light does not show it: it reports another value (shows says
// which are one), or none. Nothing is sent when the spec asks for nothing.
func sendUnlessShown[T any](d *Diff, name string, want, got *T, shows func(want, got T) bool, describe func(T) string, into **T) {
	if want == nil || got != nil && shows(*want, *got) {
		return
	}
	*into = want
	shown := "unknown"
	if got != nil {
		shown = describe(*got)
	}
	d.Changes = append(d.Changes, fmt.Sprintf("%s: %s -> %s", name, shown, describe(*want)))
}
