package hue

import (
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/model"
)

// gradientFrom converts a spec's gradient to the model's, nil when unset.
func gradientFrom(g *huev1alpha1.Gradient) *model.Gradient {
	if g == nil {
		return nil
	}
	out := &model.Gradient{Mode: g.Mode, Points: make([][2]float64, 0, len(g.Points))}
	for _, p := range g.Points {
		if len(p.XY) == 2 {
			out.Points = append(out.Points, [2]float64{float64(p.XY[0]), float64(p.XY[1])})
		}
	}
	return out
}

// gradientPoints is a model gradient's points as the API types show them.
func gradientPoints(points [][2]float64) []huev1alpha1.GradientPoint {
	out := make([]huev1alpha1.GradientPoint, len(points))
	for i, p := range points {
		out[i] = huev1alpha1.GradientPoint{XY: []huev1alpha1.Chromaticity{huev1alpha1.Chromaticity(p[0]), huev1alpha1.Chromaticity(p[1])}}
	}
	return out
}

// observedGradient is the gradient a bulb shows, nil for none.
func observedGradient(g *model.Gradient) *huev1alpha1.ObservedGradient {
	if g == nil {
		return nil
	}
	return &huev1alpha1.ObservedGradient{Points: gradientPoints(g.Points), Mode: g.Mode}
}

// gradientCapabilities is a gradient light's feature as the status shows
// it, nil for a light without one.
func gradientCapabilities(c *model.GradientCapabilities) *huev1alpha1.GradientCapabilities {
	if c == nil {
		return nil
	}
	return &huev1alpha1.GradientCapabilities{PointsCapable: int32(c.PointsCapable), Modes: append([]string(nil), c.Modes...)}
}
