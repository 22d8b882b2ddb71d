package model

import (
	"fmt"
	"slices"
	"strings"
)

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
	if want.Gradient == nil || got.Gradient != nil && want.Gradient.Shows(*got.Gradient) {
		return
	}
	d.Body.Gradient = want.Gradient
	shown := "unknown"
	if got.Gradient != nil {
		shown = got.Gradient.String()
	}
	d.Changes = append(d.Changes, fmt.Sprintf("gradient: %s -> %s", shown, want.Gradient.String()))
}
