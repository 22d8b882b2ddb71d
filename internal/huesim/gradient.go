package huesim

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A light's gradient, several colours along one light: a CLIP v2 feature
// only. A light that has it carries a gradient object {points
// [{color{xy}}], points_capable, mode, mode_values} and one without it
// none; a client sets it with PUT {"gradient": {"points": [...], "mode":
// ...}} (CLIP v2 API reference, "light", gradient,
// https://developers.meethue.com/develop/hue-api-v2/api-reference/#resource_light;
// openhue/openhue-api, src/light/schemas, from which openhue-go v0.4.0
// generates LightGet.Gradient and LightPut.Gradient). The rules the
// simulator keeps, from that description:
//   - "for control of the gradient points through a PUT a minimum of 2
//     points need to be provided", and a light shows at most
//     points_capable of them: fewer or more is answered 400;
//   - mode, "if not provided during PUT/POST it will be defaulted to
//     interpolated_palette"; a mode the light does not list is answered
//     400, as an effect it does not list is;
//   - a point is {"color": {"xy": {x, y}}} (aiohue's GradientPoint,
//     models/feature.py; the shape a Bridge Pro reports), x and y 0..1 as
//     color.xy's; a point without color.xy is answered 400. openhue's
//     description makes a point a bare {"xy": ...}, which no bridge
//     reports, so openhue-go sends its points in a shape the simulator
//     refuses.
// Like an effect, a gradient sent to a light that stays off does not
// apply. The points are kept as sent: whether a real bridge reports them
// moved into the gamut is not recorded (Tether fits them to the gamut
// before sending). Words of refusals are the simulator's own.

// defaultGradientMode is the mode a PUT without one sets.
const defaultGradientMode = "interpolated_palette"

// minGradientPoints is the fewest points a PUT sets.
const minGradientPoints = 2

// gradientModes are the modes openhue-go v0.4.0 names
// (SupportedGradientMode); the simulator's gradient model lists them.
var gradientModes = []string{"interpolated_palette", "interpolated_palette_mirrored", "random_pixelated"}

// GradientCaps is a model's gradient feature: the points it shows and
// the modes it lists.
type GradientCaps struct {
	PointsCapable int
	Modes         []string
}

// Gradient is the colours along a light and how they are laid out.
type Gradient struct {
	Points [][2]float64
	Mode   string
}

// gradientOf is the gradient the light shows: none set yet is no points
// in the default mode.
func gradientOf(st LightState) Gradient {
	if st.V2Gradient == nil {
		return Gradient{Points: [][2]float64{}, Mode: defaultGradientMode}
	}
	return *st.V2Gradient
}

// gradientJSON is the light's gradient object.
func gradientJSON(caps GradientCaps, st LightState) map[string]any {
	g := gradientOf(st)
	points := make([]map[string]any, len(g.Points))
	for i, p := range g.Points {
		points[i] = map[string]any{"color": map[string]any{"xy": map[string]float64{"x": p[0], "y": p[1]}}}
	}
	return map[string]any{"points": points, "points_capable": caps.PointsCapable, "mode": g.Mode, "mode_values": caps.Modes}
}

// gradientPut is a PUT's gradient object.
type gradientPut struct {
	Points []struct {
		Color *struct {
			XY *struct {
				X float64 `json:"x"`
				Y float64 `json:"y"`
			} `json:"xy"`
		} `json:"color"`
	} `json:"points"`
	Mode *string `json:"mode"`
}

// decodeGradient reads a PUT's gradient object into what the light would
// show, or says why a v2 bridge answers 400.
func decodeGradient(m Model, raw json.RawMessage) (Gradient, string) {
	var p gradientPut
	if err := json.Unmarshal(raw, &p); err != nil {
		return Gradient{}, "invalid value for gradient: " + err.Error()
	}
	caps := m.Gradient
	switch {
	case caps == nil:
		return Gradient{}, "invalid value for gradient: the light has no gradient feature"
	case len(p.Points) < minGradientPoints || len(p.Points) > caps.PointsCapable:
		return Gradient{}, fmt.Sprintf("invalid value for gradient.points: %d points, the light takes %d to %d",
			len(p.Points), minGradientPoints, caps.PointsCapable)
	case p.Mode != nil && !slices.Contains(caps.Modes, *p.Mode):
		return Gradient{}, fmt.Sprintf("invalid value for gradient.mode: %q is not one of the light's mode_values", *p.Mode)
	}
	g := Gradient{Mode: defaultGradientMode}
	if p.Mode != nil {
		g.Mode = *p.Mode
	}
	for i, pt := range p.Points {
		if pt.Color == nil || pt.Color.XY == nil {
			return Gradient{}, fmt.Sprintf("invalid value for gradient.points[%d]: a point is {\"color\": {\"xy\": ...}}", i)
		}
		xy := pt.Color.XY
		if !unit(xy.X) || !unit(xy.Y) {
			return Gradient{}, fmt.Sprintf("invalid value for gradient.points[%d].color.xy: [%g, %g]", i, xy.X, xy.Y)
		}
		g.Points = append(g.Points, [2]float64{xy.X, xy.Y})
	}
	return g, ""
}
