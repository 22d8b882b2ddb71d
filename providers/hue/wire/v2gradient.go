package wire

import "github.com/tether-dev/tether/providers/hue/model"

// A light's gradient in CLIP v2's form: {points[{color{xy}}],
// points_capable, mode, mode_values, pixel_count} (CLIP v2 API reference,
// "light", gradient; openhue-go v0.4.0's LightGet.Gradient), a point being
// {color{xy}} as aiohue's GradientPoint has it (openhue's description has
// a bare {xy}, which no bridge reports). A light
// without the feature has no gradient object; one that reports no
// mode_values takes no mode (diyHue's emulated gradient lights report only
// points and points_capable).

type v2Gradient struct {
	Points []struct {
		Color struct {
			XY v2XY `json:"xy"`
		} `json:"color"`
	} `json:"points"`
	PointsCapable int      `json:"points_capable"`
	Mode          string   `json:"mode"`
	ModeValues    []string `json:"mode_values"`
}

// capabilities is what the light reports of the feature.
func (g v2Gradient) capabilities() *model.GradientCapabilities {
	c := &model.GradientCapabilities{PointsCapable: g.PointsCapable}
	if g.ModeValues != nil {
		c.Modes = append([]string{}, g.ModeValues...)
	}
	return c
}

// model is the gradient the light shows, xy at the bridge's precision.
func (g v2Gradient) model() model.Gradient {
	out := model.Gradient{Mode: g.Mode, Points: make([][2]float64, 0, len(g.Points))}
	for _, p := range g.Points {
		out.Points = append(out.Points, [2]float64{model.RoundXY(p.Color.XY.X), model.RoundXY(p.Color.XY.Y)})
	}
	return out
}

// gradientPut is a gradient as a PUT sends it; without a mode the bridge
// lays the points out as interpolated_palette.
func gradientPut(g model.Gradient) map[string]any {
	points := make([]map[string]any, len(g.Points))
	for i, p := range g.Points {
		points[i] = map[string]any{"color": map[string]any{"xy": map[string]float64{"x": p[0], "y": p[1]}}}
	}
	put := map[string]any{"points": points}
	if g.Mode != "" {
		put["mode"] = g.Mode
	}
	return put
}
