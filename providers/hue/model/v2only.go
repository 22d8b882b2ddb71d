package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// What only CLIP v2 lights have: an effect and the speed it plays at,
// what a bulb does when its power returns, and colours along a gradient.
// Each is fitted to the bulb (Project), compared with what it reports
// (Compare) and sent like the rest of a state; each is left out, with a
// note naming why, for a light without it or on a v1 bridge (the v1 API
// has none of them), since sent again it would be refused again. A command
// with any of them goes to its light alone (StateBody.LightOnly).

// An effect: what a light plays, one of the effect_values it lists (CLIP
// v2 API reference, "light", effects).

// fitEffect leaves out an effect the light does not list: a light shows
// only the effects its effect_values name, and the v1 API has none (a v2
// bridge refuses any other value, and sent again it would be refused
// again). The note names what the light lists, so the spec can be fixed.
func (p *Projection) fitEffect(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Effect == nil:
	case !c.V2:
		p.Want.Effect = nil
		p.note("effect %s is a CLIP v2 feature and this light's bridge speaks the v1 API: effect is ignored", *want.Effect)
	case c.Effects == nil:
		p.Want.Effect = nil
		p.note("this bulb (%s) has no effects: effect %s is ignored", describeBulb(l), *want.Effect)
	case !slices.Contains(c.Effects, *want.Effect):
		p.Want.Effect = nil
		p.note("this bulb (%s) has no effect %s (it lists %s): effect is ignored", describeBulb(l), *want.Effect,
			strings.Join(c.Effects, ", "))
	}
}

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

// fitSpeed leaves out a speed the light cannot take: a v1 bridge, or a
// light without a dynamics object (a v2 bridge refuses the feature).
func (p *Projection) fitSpeed(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Speed == nil:
	case !c.V2:
		p.Want.Speed = nil
		p.note("dynamics.speed is a CLIP v2 feature and this light's bridge speaks the v1 API: dynamics.speed is ignored")
	case !c.Dynamics:
		p.Want.Speed = nil
		p.note("this bulb (%s) has no dynamics: dynamics.speed is ignored", describeBulb(l))
	}
}

// compareSpeed sends the speed when the light plays something at another
// one. A light that reports no valid speed is sent it (once: then the
// cache knows it from what the bridge accepted).
func (d *Diff) compareSpeed(want Desired, got LightState) {
	sendUnlessShown(d, "dynamics.speed", want.Speed, got.Speed, NearSpeed, func(v float64) string { return fmt.Sprint(v) }, &d.Body.Speed)
}

// What a bulb does when its power returns: CLIP v2's powerup feature
// (CLIP v2 API reference, "light", powerup; openhue/openhue-api,
// src/light/schemas, which openhue-go v0.4.0 generates its Powerup from).
// It is a setting of the bulb, not its state: it is the same whether the
// light is on or off, so it is fitted and compared whatever spec.on says.
// The v1 API has no such setting.

// Powerup presets, as Hue names them. Only custom takes On, Dimming and
// Color: "for all other presets, no other properties can be included"
// (openhue-api's Powerup.preset).
const (
	PowerupSafety      = "safety"
	PowerupPowerfail   = "powerfail"
	PowerupLastOnState = "last_on_state"
	PowerupCustom      = "custom"
)

// Powerup modes that carry a value; the others (toggle, previous) do not.
const (
	powerupOnModeOn           = "on"
	powerupDimmingModeDimming = "dimming"
	powerupColorModeCT        = "color_temperature"
	powerupColorModeXY        = "color"
)

// Powerup is a light's powerup setting, in the bridge's units (bri 1-254,
// ct in mireds, xy in CIE 1931).
type Powerup struct {
	Preset  string          `json:"preset"`
	On      *PowerupOn      `json:"on,omitempty"`
	Dimming *PowerupDimming `json:"dimming,omitempty"`
	Color   *PowerupColor   `json:"color,omitempty"`
}

// PowerupOn is what on does at powerup: mode on (On says which), toggle or
// previous.
type PowerupOn struct {
	Mode string `json:"mode"`
	On   *bool  `json:"on,omitempty"`
}

// PowerupDimming is the brightness at powerup: mode dimming (Bri) or
// previous.
type PowerupDimming struct {
	Mode string `json:"mode"`
	Bri  *int   `json:"bri,omitempty"`
}

// PowerupColor is the colour at powerup: mode color_temperature (CT),
// color (XY) or previous.
type PowerupColor struct {
	Mode string      `json:"mode"`
	CT   *int        `json:"ct,omitempty"`
	XY   *[2]float64 `json:"xy,omitempty"`
}

// String is the setting as a note or a change names it: the preset, or a
// custom one whole.
func (p Powerup) String() string {
	if p.Preset != PowerupCustom {
		return p.Preset
	}
	data, _ := json.Marshal(p) // plain values: cannot fail
	return string(data)
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

// fitPowerup leaves out a powerup the light cannot take (a v1 bridge, a
// light without a powerup object: a v2 bridge refuses it, and sent again it
// would be refused again), and the parts of a custom one the bulb cannot
// show ("availability of color_temperature and color modes depend on the
// capabilities of the lamp", openhue-api's powerup.color.mode), with a
// colour temperature clamped to the bulb's range as the state's is.
func (p *Projection) fitPowerup(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Powerup == nil:
		return
	case !c.V2:
		p.Want.Powerup = nil
		p.note("powerup %s is a CLIP v2 feature and this light's bridge speaks the v1 API: powerup is ignored", want.Powerup.Preset)
		return
	case !c.Powerup:
		p.Want.Powerup = nil
		p.note("this bulb (%s) has no powerup setting: powerup is ignored", describeBulb(l))
		return
	}
	fitted := *want.Powerup
	if fitted.Dimming != nil && fitted.Dimming.Mode == powerupDimmingModeDimming && !c.Dimmable {
		fitted.Dimming = nil
		p.note("this bulb (%s) cannot dim: powerup.dimming is ignored", describeBulb(l))
	}
	if col := fitted.Color; col != nil {
		switch {
		case col.Mode == powerupColorModeXY && !c.Color:
			fitted.Color = nil
			p.note("this bulb (%s) shows no colour: powerup.color is ignored", describeBulb(l))
		case col.Mode == powerupColorModeCT && c.ColorTemperature == nil:
			fitted.Color = nil
			p.note("this bulb (%s) has no colour temperature: powerup.color is ignored", describeBulb(l))
		case col.Mode == powerupColorModeCT && col.CT != nil:
			r := *c.ColorTemperature
			if shown := min(max(*col.CT, r.Min), r.Max); shown != *col.CT {
				p.note("powerup.color.colorTemperature %d is outside this bulb's %d-%d mireds; it takes %d", *col.CT, r.Min, r.Max, shown)
				fitted.Color = &PowerupColor{Mode: col.Mode, CT: &shown}
			}
		}
	}
	p.Want.Powerup = &fitted
}

// comparePowerup sends the powerup setting when the light reports another,
// or does not say which it has.
func (d *Diff) comparePowerup(want Desired, got LightState) {
	sendUnlessShown(d, "powerup", want.Powerup, got.Powerup, Powerup.Shows, Powerup.String, &d.Body.Powerup)
}

// A gradient: several colours along one light (a gradient lightstrip),
// CLIP v2's gradient feature (CLIP v2 API reference, "light", gradient;
// openhue/openhue-api, src/light/schemas, which openhue-go v0.4.0
// generates its Gradient from). A light that has it reports
// points_capable, the number of points it shows, and may report
// mode_values, the ways it lays them out; a PUT sets at least two points
// ("for control of the gradient points through a PUT a minimum of 2 points
// need to be provided") and a mode, interpolated_palette when left out.
// The v1 API has no gradient.

// MinGradientPoints is the fewest points a gradient command sets.
const MinGradientPoints = 2

// Gradient is the colours along a light, in CIE 1931 xy, and how they
// are laid out (Mode, "" for the light's own or the bridge's default).
type Gradient struct {
	Points [][2]float64 `json:"points"`
	Mode   string       `json:"mode,omitempty"`
}

// GradientCapabilities is what a gradient light reports of the feature.
type GradientCapabilities struct {
	// PointsCapable is the number of points it shows.
	PointsCapable int
	// Modes are its mode_values; nil when it reports none (then no mode
	// is sent: the bridge keeps its default).
	Modes []string
}

// String names a gradient in a change: its points and mode.
func (g Gradient) String() string {
	points := make([]string, len(g.Points))
	for i, p := range g.Points {
		points[i] = fmt.Sprintf("[%g, %g]", p[0], p[1])
	}
	s := strings.Join(points, " ")
	if g.Mode != "" {
		s += " " + g.Mode
	}
	return s
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

// fitGradient leaves out a gradient the light cannot show (a v1 bridge, a
// light without the feature, whose bridge refuses it), keeps the points
// the light shows (the first points_capable), leaves out a mode it does
// not list, and moves a point outside its gamut to the nearest it shows,
// as for color.xy; each change is a note.
func (p *Projection) fitGradient(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Gradient == nil:
		return
	case !c.V2:
		p.Want.Gradient = nil
		p.note("gradient is a CLIP v2 feature and this light's bridge speaks the v1 API: gradient is ignored")
		return
	case c.Gradient == nil:
		p.Want.Gradient = nil
		p.note("this bulb (%s) has no gradient: gradient is ignored", describeBulb(l))
		return
	}
	g := Gradient{Points: slices.Clone(want.Gradient.Points), Mode: want.Gradient.Mode}
	if n := c.Gradient.PointsCapable; len(g.Points) > n {
		p.note("this bulb (%s) shows %d gradient points: gradient.points after the %s are ignored", describeBulb(l), n, ordinal(n))
		g.Points = g.Points[:n]
	}
	if len(g.Points) < MinGradientPoints {
		p.Want.Gradient = nil
		p.note("this bulb (%s) shows fewer than %d gradient points, the fewest a bridge takes: gradient is ignored",
			describeBulb(l), MinGradientPoints)
		return
	}
	if g.Mode != "" && !slices.Contains(c.Gradient.Modes, g.Mode) {
		if c.Gradient.Modes == nil {
			p.note("this bulb (%s) lists no gradient modes: gradient.mode %s is ignored", describeBulb(l), g.Mode)
		} else {
			p.note("this bulb (%s) has no gradient mode %s (it lists %s): gradient.mode is ignored", describeBulb(l), g.Mode,
				strings.Join(c.Gradient.Modes, ", "))
		}
		g.Mode = ""
	}
	if c.Gamut != nil {
		for i, pt := range g.Points {
			if !c.Gamut.contains(pt) {
				shown := c.Gamut.nearest(pt)
				g.Points[i] = [2]float64{RoundXY(shown[0]), RoundXY(shown[1])}
				p.note("gradient.points[%d] [%g, %g] is outside this bulb's gamut %s; it shows the nearest it can, [%g, %g]",
					i, pt[0], pt[1], gamutName(c.Gamut), g.Points[i][0], g.Points[i][1])
			}
		}
	}
	p.Want.Gradient = &g
}

// ordinal is 5th for 5.
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
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
