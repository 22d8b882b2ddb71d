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
