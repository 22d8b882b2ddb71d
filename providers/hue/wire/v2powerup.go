package wire

import "github.com/tether-dev/tether/providers/hue/model"

// A light's powerup setting in CLIP v2's form: what a light reports (GET)
// and what is sent (PUT) have one shape, {preset, configured, on{mode,
// on{on}}, dimming{mode, dimming{brightness}}, color{mode,
// color_temperature{mirek}, color{xy}}} (CLIP v2 API reference, "light",
// powerup). color sits beside dimming, as a Bridge Pro reports it
// (home-assistant-libs/aiohue, tests/fixtures/v2_resources.json); openhue's
// API description nests it inside dimming, which no bridge does. A light
// without the feature has no powerup object.

type (
	v2Powerup struct {
		Preset     string `json:"preset"`
		Configured *bool  `json:"configured,omitempty"`
		On         *struct {
			Mode string `json:"mode"`
			On   *struct {
				On bool `json:"on"`
			} `json:"on,omitempty"`
		} `json:"on,omitempty"`
		Dimming *struct {
			Mode    string `json:"mode"`
			Dimming *struct {
				Brightness float64 `json:"brightness"`
			} `json:"dimming,omitempty"`
		} `json:"dimming,omitempty"`
		Color *struct {
			Mode             string `json:"mode"`
			ColorTemperature *struct {
				Mirek *int `json:"mirek"`
			} `json:"color_temperature,omitempty"`
			Color *struct {
				XY v2XY `json:"xy"`
			} `json:"color,omitempty"`
		} `json:"color,omitempty"`
	}
)

// model is the setting in Tether's units (bri 1-254).
func (p v2Powerup) model() model.Powerup {
	out := model.Powerup{Preset: p.Preset}
	if on := p.On; on != nil {
		out.On = &model.PowerupOn{Mode: on.Mode}
		if on.On != nil {
			v := on.On.On
			out.On.On = &v
		}
	}
	if d := p.Dimming; d != nil {
		out.Dimming = &model.PowerupDimming{Mode: d.Mode}
		if d.Dimming != nil {
			bri := briOf(d.Dimming.Brightness)
			out.Dimming.Bri = &bri
		}
	}
	if c := p.Color; c != nil {
		out.Color = &model.PowerupColor{Mode: c.Mode}
		if ct := c.ColorTemperature; ct != nil && ct.Mirek != nil {
			v := *ct.Mirek
			out.Color.CT = &v
		}
		if c.Color != nil {
			xy := [2]float64{model.RoundXY(c.Color.XY.X), model.RoundXY(c.Color.XY.Y)}
			out.Color.XY = &xy
		}
	}
	return out
}

// powerupPut is a powerup setting as a PUT sends it: only the preset for
// all but custom ("for all other presets, no other properties can be
// included", openhue-api's Powerup.preset).
func powerupPut(p model.Powerup) map[string]any {
	put := map[string]any{"preset": p.Preset}
	if p.Preset != model.PowerupCustom {
		return put
	}
	if on := p.On; on != nil {
		part := map[string]any{"mode": on.Mode}
		if on.On != nil {
			part["on"] = map[string]bool{"on": *on.On}
		}
		put["on"] = part
	}
	if d := p.Dimming; d != nil {
		part := map[string]any{"mode": d.Mode}
		if d.Bri != nil {
			part["dimming"] = map[string]float64{"brightness": brightnessOf(*d.Bri)}
		}
		put["dimming"] = part
	}
	if c := p.Color; c != nil {
		part := map[string]any{"mode": c.Mode}
		if c.CT != nil {
			part["color_temperature"] = map[string]int{"mirek": *c.CT}
		}
		if c.XY != nil {
			part["color"] = map[string]any{"xy": map[string]float64{"x": c.XY[0], "y": c.XY[1]}}
		}
		put["color"] = part
	}
	return put
}
