package hue

import (
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/model"
)

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
