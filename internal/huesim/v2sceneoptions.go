package huesim

import (
	"encoding/json"
	"fmt"
)

// What a CLIP v2 scene holds that a v1 scene has not (CLIP v2 API
// reference, "scene",
// https://developers.meethue.com/develop/hue-api-v2/api-reference/#resource_scene;
// openhue/openhue-api src/scene, as openhue-go v0.4.0 transcribes it in
// ScenePalette, ColorPaletteGet, ColorTemperaturePalettePost, ScenePost
// and ScenePut; aiohue models/scene.py):
//   - palette {color [{color {xy}, dimming {brightness}}] (at most 9),
//     color_temperature [{color_temperature {mirek}, dimming}] (at most 1),
//     dimming [{brightness}] (at most 1), effects [{effect}] (at most 3)};
//     a list past its limit, an xy outside 0..1, a brightness outside
//     0..100 or a mirek outside 153..500 is answered 400;
//   - speed, 0..1, of the dynamic palette; outside is answered 400;
//   - auto_dynamic, whether a recall plays the palette;
//   - per action, the light's effects {effect} and gradient, as a light PUT
//     takes them: an effect the light does not list and a gradient the
//     light cannot show are answered 400, as a light PUT's are
//     (effects.go, gradient.go).
// POST and PUT take each of them; a PUT without one leaves it as it is,
// and a PUT with a palette replaces the whole palette (inferred: the
// reference does not say; a room's children are replaced the same way).
// The words of refusals are the simulator's own. A recall applies the
// actions' v1 parts (on, dimming, colour); whether it starts the actions'
// effects or the palette is not modelled.

// Palette limits, from the CLIP v2 API reference's scene palette.
const (
	maxPaletteColors            = 9
	maxPaletteColorTemperatures = 1
	maxPaletteDimming           = 1
	maxPaletteEffects           = 3
)

// defaultSceneSpeed is the speed of a scene POSTed without one: the
// simulator's choice (real bridges' defaults are not recorded).
const defaultSceneSpeed = 0.5

// SceneV2 is a scene's CLIP v2 part.
type SceneV2 struct {
	Palette     ScenePalette
	Speed       float64
	AutoDynamic bool
	// Effects and Gradients are the actions' effects and gradients by
	// light id.
	Effects   map[string]string
	Gradients map[string]Gradient
}

// ScenePalette is a scene's palette, in CLIP v2's shape.
type ScenePalette struct {
	Color []struct {
		Color struct {
			XY xyJSON `json:"xy"`
		} `json:"color"`
		Dimming dimmingJSON `json:"dimming"`
	} `json:"color"`
	ColorTemperature []struct {
		ColorTemperature struct {
			Mirek int `json:"mirek"`
		} `json:"color_temperature"`
		Dimming dimmingJSON `json:"dimming"`
	} `json:"color_temperature"`
	Dimming []dimmingJSON `json:"dimming"`
	Effects []struct {
		Effect string `json:"effect"`
	} `json:"effects"`
}

type xyJSON struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

type dimmingJSON struct {
	Brightness float64 `json:"brightness"`
}

// json is the palette as GET shows it: every list, empty when unset.
func (p ScenePalette) json() map[string]any {
	out := map[string]any{"color": []any{}, "color_temperature": []any{}, "dimming": []any{}, "effects": []any{}}
	raw, _ := json.Marshal(p)
	var shown map[string]json.RawMessage
	_ = json.Unmarshal(raw, &shown)
	for k, v := range shown {
		if string(v) != "null" {
			out[k] = v
		}
	}
	return out
}

// paletteRefusal says why a v2 bridge answers 400 to a palette.
func paletteRefusal(p ScenePalette) string {
	switch {
	case len(p.Color) > maxPaletteColors:
		return fmt.Sprintf("invalid value for palette.color: %d colors, at most %d", len(p.Color), maxPaletteColors)
	case len(p.ColorTemperature) > maxPaletteColorTemperatures:
		return fmt.Sprintf("invalid value for palette.color_temperature: at most %d", maxPaletteColorTemperatures)
	case len(p.Dimming) > maxPaletteDimming:
		return fmt.Sprintf("invalid value for palette.dimming: at most %d", maxPaletteDimming)
	case len(p.Effects) > maxPaletteEffects:
		return fmt.Sprintf("invalid value for palette.effects: at most %d", maxPaletteEffects)
	}
	for i, c := range p.Color {
		if !unit(c.Color.XY.X) || !unit(c.Color.XY.Y) || !percent(c.Dimming.Brightness) {
			return fmt.Sprintf("invalid value for palette.color[%d]", i)
		}
	}
	for i, c := range p.ColorTemperature {
		if m := c.ColorTemperature.Mirek; m < 153 || m > 500 || !percent(c.Dimming.Brightness) {
			return fmt.Sprintf("invalid value for palette.color_temperature[%d]", i)
		}
	}
	for i, d := range p.Dimming {
		if !percent(d.Brightness) {
			return fmt.Sprintf("invalid value for palette.dimming[%d]", i)
		}
	}
	return ""
}

func percent(v float64) bool { return v >= 0 && v <= 100 }

// sceneOptionsPut is what POST and PUT take of a scene's CLIP v2 part.
type sceneOptionsPut struct {
	Palette     *ScenePalette `json:"palette"`
	Speed       *float64      `json:"speed"`
	AutoDynamic *bool         `json:"auto_dynamic"`
}

// refusal says why a v2 bridge answers 400 to the options.
func (o sceneOptionsPut) refusal() string {
	if o.Palette != nil {
		if why := paletteRefusal(*o.Palette); why != "" {
			return why
		}
	}
	if o.Speed != nil && (*o.Speed < 0 || *o.Speed > 1) {
		return fmt.Sprintf("invalid value for speed: %g", *o.Speed)
	}
	return ""
}

// apply sets the options a POST or PUT carries.
func (o sceneOptionsPut) apply(v *SceneV2) {
	if o.Palette != nil {
		v.Palette = *o.Palette
	}
	if o.Speed != nil {
		v.Speed = *o.Speed
	}
	if o.AutoDynamic != nil {
		v.AutoDynamic = *o.AutoDynamic
	}
}

// actionJSON adds light id's effect and gradient to its action.
func (v SceneV2) actionJSON(id string, a map[string]any) {
	if e, ok := v.Effects[id]; ok {
		a["effects"] = map[string]string{"effect": e}
	}
	if g, ok := v.Gradients[id]; ok {
		points := make([]map[string]any, len(g.Points))
		for i, p := range g.Points {
			points[i] = map[string]any{"color": map[string]any{"xy": map[string]float64{"x": p[0], "y": p[1]}}}
		}
		a["gradient"] = map[string]any{"points": points, "mode": g.Mode}
	}
}
