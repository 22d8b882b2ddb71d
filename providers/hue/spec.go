package hue

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/model"
)

// A HueLight's spec (and a HueGroup's or a HueScene light's, which share
// its fields) in the model's units, which are the bridge's, and a bulb's
// capabilities as the HueLight's status shows them: the adapters' border
// between the API types and the light model.

// desiredFrom converts a spec. Ranges were checked by the API server.
func desiredFrom(spec huev1alpha1.HueLightSpec) model.Desired {
	d := model.Desired{On: spec.On == nil || *spec.On, Bri: intPtr(spec.Brightness)}
	if c := spec.Color; c != nil {
		if len(c.XY) == 2 {
			d.XY = &[2]float64{float64(c.XY[0]), float64(c.XY[1])}
		}
		d.CT, d.Hue, d.Sat = intPtr(c.ColorTemperature), intPtr(c.Hue), intPtr(c.Saturation)
	}
	if spec.TransitionTime != nil {
		t := deciseconds(spec.TransitionTime.Duration)
		d.Transition = &t
	}
	if spec.Effect != nil {
		e := *spec.Effect
		d.Effect = &e
	}
	d.Powerup = powerupFrom(spec.Powerup)
	d.Gradient = gradientFrom(spec.Gradient)
	if dyn := spec.Dynamics; dyn != nil && dyn.Speed != nil {
		v := float64(*dyn.Speed)
		d.Speed = &v
	}
	return d
}

// powerupFrom converts a spec's powerup to the model's, nil when unset.
// The API server checked which parts go with which preset and mode.
func powerupFrom(p *huev1alpha1.Powerup) *model.Powerup {
	if p == nil {
		return nil
	}
	out := &model.Powerup{Preset: p.Preset}
	if on := p.On; on != nil {
		out.On = &model.PowerupOn{Mode: on.Mode}
		if on.On != nil {
			v := *on.On
			out.On.On = &v
		}
	}
	if d := p.Dimming; d != nil {
		out.Dimming = &model.PowerupDimming{Mode: d.Mode, Bri: intPtr(d.Brightness)}
	}
	if c := p.Color; c != nil {
		out.Color = &model.PowerupColor{Mode: c.Mode, CT: intPtr(c.ColorTemperature)}
		if len(c.XY) == 2 {
			out.Color.XY = &[2]float64{float64(c.XY[0]), float64(c.XY[1])}
		}
	}
	return out
}

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

// deciseconds converts a duration to the bridge's transitiontime unit,
// rounding to the nearest 100 ms (the API server only lets multiples in).
func deciseconds(d time.Duration) int {
	return int(math.Round(float64(d) / float64(100*time.Millisecond)))
}

func intPtr(p *int32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// transitionOf is a transitionTime in the bridge's unit, nil when unset.
func transitionOf(d *metav1.Duration) *int {
	if d == nil {
		return nil
	}
	t := deciseconds(d.Duration)
	return &t
}

// capabilitiesStatus is the bulb's capabilities as the HueLight shows them.
func capabilitiesStatus(l model.Light) *huev1alpha1.LightCapabilities {
	c := l.Capabilities
	out := &huev1alpha1.LightCapabilities{Type: l.Type, ModelID: l.ModelID, Dimmable: c.Dimmable,
		Effects: append([]string(nil), c.Effects...), Powerup: c.Powerup,
		Gradient: gradientCapabilities(c.Gradient), Dynamics: c.Dynamics}
	if c.Color {
		out.ColorModes = append(out.ColorModes, huev1alpha1.ColorModeXY, huev1alpha1.ColorModeHueSaturation)
	}
	if r := c.ColorTemperature; r != nil {
		out.ColorModes = append(out.ColorModes, huev1alpha1.ColorModeColorTemperature)
		out.ColorTemperature = &huev1alpha1.MiredRange{Min: int32(r.Min), Max: int32(r.Max)}
	}
	if g := c.Gamut; g != nil {
		point := func(p [2]float64) []huev1alpha1.Chromaticity {
			return []huev1alpha1.Chromaticity{huev1alpha1.Chromaticity(p[0]), huev1alpha1.Chromaticity(p[1])}
		}
		out.Gamut = &huev1alpha1.Gamut{Type: g.Type, Red: point(g.Red), Green: point(g.Green), Blue: point(g.Blue)}
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
