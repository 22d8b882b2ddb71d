package model

import (
	"fmt"
	"strings"
)

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
// is compared on on/off only, so nothing of it needs fitting.
func Project(want Desired, l Light) Projection {
	p := Projection{Want: want}
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
