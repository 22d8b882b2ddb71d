package model

import (
	"fmt"
	"slices"
	"strings"
)

// Fitting a wanted state to a bulb: what a HueLight's pass makes of its
// spec and its bulb, in one step (Fit): projected onto what the bulb can
// show (Project), without what the bridge refused with the same value
// (WithoutRefused), compared with what the bulb shows (diff.go), with the
// notes its Ready condition carries.

// Known is a bulb as Tether knows it: the last read with what the bridge
// accepted since (Light), what the bridge refused for it by parameter, and
// the attributes the bridge does not report for it, known only from what
// it accepted.
type Known struct {
	Light
	Refused map[string]Refused
	Assumed []string
}

// Fitted is a wanted state made to fit a bulb, and what to send for it.
type Fitted struct {
	// Want is the wanted state projected onto the bulb: what is watched
	// for drift.
	Want Desired
	// Full is the whole state to send, without what the bridge refused:
	// what a group command or a temporary scene sends, and what a command
	// in line is for.
	Full StateBody
	// Diff is what to send for the bulb to show it; nil when it does.
	Diff *Diff
	// Refused names what is not sent again; Notes what the bulb shows
	// instead and what Tether takes as shown without seeing it.
	Refused, Notes []string
}

// Fit fits want to the bulb k and says what to send.
func Fit(want Desired, k Known) Fitted {
	p := Project(want, k.Light)
	send, refused := WithoutRefused(p.Want, k.Refused)
	return Fitted{Want: p.Want, Full: FullBody(send), Diff: Compare(send, k.State), Refused: refused,
		Notes: append(p.Notes, assumedNotes(send, k.Assumed)...)}
}

// assumedNotes names the attributes want sets that the bridge does not
// report for the bulb (assumed): Tether knows them only from what the
// bridge accepted, and cannot see them change.
func assumedNotes(want Desired, assumed []string) []string {
	full := FullBody(want)
	var notes []string
	for _, p := range assumed {
		if value := full.Value(p); value != "" {
			notes = append(notes, fmt.Sprintf("the bridge does not report %s for this bulb: it accepted %s, which Tether takes as shown",
				specField(p), value))
		}
	}
	return notes
}

// A bulb shows only what it can, and the bridge makes the rest fit: a
// colour temperature beyond the bulb's range and a colour outside its gamut
// go to "the closest value it can produce" (Hue core concepts), and an
// attribute the bulb lacks is refused (error 6). Sending the spec as
// written would be corrected on every read and sent again for ever. So the
// wanted state is first projected onto the bulb's capabilities, the way the
// bridge does, and only the projection is compared and sent; each change
// the projection makes becomes a note in the Ready condition.

// maxXY is the largest chromaticity coordinate a bulb holds, whatever its
// gamut: Zigbee's CurrentX/Y tops out at 65279/65535 (deconz-rest-plugin
// #973). It matters for bulbs whose gamut Tether does not know.
const maxXY = 0.9961

// Projection is a wanted state made to fit a bulb, and what it changed.
type Projection struct {
	Want  Desired
	Notes []string
}

// Project fits want to what the bulb can show. A light that should be off
// is compared on on/off (and its powerup setting) only, so nothing else of
// it needs fitting.
func Project(want Desired, l Light) Projection {
	p := Projection{Want: want}
	p.fitPowerup(want, l)
	if !want.On {
		return p
	}
	c := l.Capabilities
	p.Want.gamut = c.Gamut
	if want.Bri != nil && !c.Dimmable {
		p.Want.Bri = nil
		p.note("this bulb (%s) cannot dim: brightness is ignored", describeBulb(l))
	}
	switch {
	case want.XY != nil && !c.Color:
		p.Want.XY = nil
		p.note("this bulb (%s) shows no colour: color.xy is ignored", describeBulb(l))
	case want.XY != nil && c.Gamut != nil:
		shown := c.Gamut.nearest(*want.XY)
		if !c.Gamut.contains(*want.XY) {
			shown = [2]float64{RoundXY(shown[0]), RoundXY(shown[1])}
			p.Want.XY = &shown
			p.note("color.xy [%g, %g] is outside this bulb's gamut %s; it shows the nearest it can, [%g, %g]",
				want.XY[0], want.XY[1], gamutName(c.Gamut), shown[0], shown[1])
		}
	case want.XY != nil && (want.XY[0] > maxXY || want.XY[1] > maxXY):
		shown := [2]float64{min(want.XY[0], maxXY), min(want.XY[1], maxXY)}
		p.Want.XY = &shown
		p.note("color.xy [%g, %g] is beyond what a bulb holds; it shows [%g, %g]", want.XY[0], want.XY[1], shown[0], shown[1])
	case want.CT != nil && c.ColorTemperature == nil:
		p.Want.CT = nil
		p.note("this bulb (%s) has no colour temperature: color.colorTemperature is ignored", describeBulb(l))
	case want.CT != nil:
		r := *c.ColorTemperature
		if shown := min(max(*want.CT, r.Min), r.Max); shown != *want.CT {
			p.Want.CT = &shown
			p.note("color.colorTemperature %d is outside this bulb's %d-%d mireds; it shows %d", *want.CT, r.Min, r.Max, shown)
		}
	case want.Hue != nil && !c.Color:
		p.Want.Hue, p.Want.Sat = nil, nil
		p.note("this bulb (%s) shows no colour: color.hue and color.saturation are ignored", describeBulb(l))
	case want.Hue != nil && want.Sat != nil && !c.HueSat:
		// The bridge takes only xy (CLIP v2): the same colour as xy, in
		// the bulb's gamut. Not a note: the bulb shows what was asked.
		xy := HueSatToXY(*want.Hue, *want.Sat, c.Gamut)
		p.Want.XY, p.Want.Hue, p.Want.Sat = &xy, nil, nil
	}
	p.fitEffect(want, l)
	p.fitGradient(want, l)
	p.fitSpeed(want, l)
	return p
}

func (p *Projection) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// describeBulb names a bulb's product for a note: "LTW001, Color
// temperature light".
func describeBulb(l Light) string {
	parts := make([]string, 0, 2)
	for _, s := range []string{l.ModelID, l.Type} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "light " + l.ID
	}
	return strings.Join(parts, ", ")
}

func gamutName(g *Gamut) string {
	if g.Type == "" {
		return "(reported)"
	}
	return g.Type
}

// A bridge answers a command attribute by attribute: it applies what it can
// and refuses the rest (error 6 parameter not available, 7 invalid value,
// 8 not modifiable, 201 device off), each with its address. What it
// accepted counts; a refused attribute is not sent again with the same
// value, and the HueLight's Ready condition names it, until the spec asks
// for another value or the bulb changes (another model; switched on, for
// error 201).

// Refused is an attribute a bridge refused for a bulb, with the value sent.
type Refused struct {
	Type        int // the bridge's error type
	Description string
	Value       string // the value sent, as JSON
}

// WithoutRefused leaves out of want the attributes refused (by parameter)
// with the very value want has, and says so.
func WithoutRefused(want Desired, refused map[string]Refused) (Desired, []string) {
	if len(refused) == 0 {
		return want, nil
	}
	full := FullBody(want)
	params := make([]string, 0, len(refused))
	for p := range refused {
		params = append(params, p)
	}
	slices.Sort(params)
	var notes []string
	for _, p := range params {
		ref := refused[p]
		if ref.Value == "" || full.Value(p) != ref.Value {
			continue
		}
		want = want.Without(p)
		notes = append(notes, fmt.Sprintf("the bridge refused %s %s (error %d: %s): not sent again until the spec or the bulb changes",
			specField(p), ref.Value, ref.Type, ref.Description))
	}
	return want, notes
}

// specField names a bridge attribute as the HueLight's spec does.
func specField(param string) string {
	switch param {
	case "bri":
		return "brightness"
	case "xy":
		return "color.xy"
	case "ct":
		return "color.colorTemperature"
	case "hue":
		return "color.hue"
	case "sat":
		return "color.saturation"
	case "transitiontime":
		return "transitionTime"
	case "effect":
		return "effect"
	case "powerup":
		return "powerup"
	case "gradient":
		return "gradient"
	case "speed":
		return "dynamics.speed"
	}
	return param
}

// What only CLIP v2 lights have (light.go) is fitted like the rest: each
// is left out, with a note naming why, for a light without it or on a v1
// bridge (the v1 API has none of them), since sent again it would be
// refused again.

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
