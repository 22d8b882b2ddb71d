package wire

import (
	"fmt"
	"slices"

	"github.com/tether-dev/tether/providers/hue/model"
)

// What a CLIP v2 scene holds besides its actions (CLIP v2 API reference,
// "scene"; openhue/openhue-api src/scene, as openhue-go v0.4.0 transcribes
// it in ScenePalette, ColorPaletteGet and ColorTemperaturePalettePost;
// aiohue models/scene.py): a palette {color [{color{xy}, dimming
// {brightness}}] up to 9, color_temperature [{color_temperature{mirek},
// dimming{brightness}}] up to 1, dimming [{brightness}] up to 1, effects
// up to 3}, the speed of its dynamic palette (0-1) and auto_dynamic (play
// the palette when recalled). A v1 scene has none of them.

// SceneOptions are a scene's CLIP v2 options: in a SceneSpec, nil fields
// are not managed (left as the bridge has them, and never sent); read from
// a v2 scene, Palette is always set.
type SceneOptions struct {
	Palette     *ScenePalette
	Speed       *float64
	AutoDynamic *bool
}

// ScenePalette is a scene's palette, brightness in the v1 unit (1-254) as
// every other brightness in Tether's types.
type ScenePalette struct {
	Colors            []PaletteColor
	ColorTemperatures []PaletteColorTemperature
	Bri               *int     // the palette's dimming entry
	Effects           []string // the palette's effects, in order
}

// PaletteColor is one colour of a palette.
type PaletteColor struct {
	XY  [2]float64
	Bri int
}

// PaletteColorTemperature is a palette's white.
type PaletteColorTemperature struct {
	CT  int
	Bri int
}

// Set reports whether any option is managed.
func (o SceneOptions) Set() bool { return o.Palette != nil || o.Speed != nil || o.AutoDynamic != nil }

// Changes lists what differs between the wanted options o and those a
// scene has, got: only the options o manages, the palette's colours at
// the bridge's xy precision and the speed at its precision.
func (o SceneOptions) Changes(got SceneOptions) []string {
	var out []string
	if o.Palette != nil && (got.Palette == nil || !o.Palette.same(*got.Palette)) {
		out = append(out, fmt.Sprintf("palette: %s -> %s", got.Palette, o.Palette))
	}
	if o.Speed != nil && (got.Speed == nil || !model.NearSpeed(*o.Speed, *got.Speed)) {
		out = append(out, fmt.Sprintf("speed: %s -> %g", fmtFloat(got.Speed), *o.Speed))
	}
	if o.AutoDynamic != nil && (got.AutoDynamic == nil || *o.AutoDynamic != *got.AutoDynamic) {
		out = append(out, fmt.Sprintf("auto_dynamic: %s -> %t", fmtBool(got.AutoDynamic), *o.AutoDynamic))
	}
	return out
}

// same reports whether two palettes are one at the bridge's precision.
func (p ScenePalette) same(q ScenePalette) bool {
	sameBri := (p.Bri == nil) == (q.Bri == nil) && (p.Bri == nil || *p.Bri == *q.Bri)
	return sameBri && slices.Equal(p.ColorTemperatures, q.ColorTemperatures) && slices.Equal(p.Effects, q.Effects) &&
		slices.EqualFunc(p.Colors, q.Colors, func(a, b PaletteColor) bool { return a.Bri == b.Bri && model.NearXY(a.XY, b.XY) })
}

// String names a palette in a change.
func (p *ScenePalette) String() string {
	if p == nil {
		return "none"
	}
	s := fmt.Sprintf("colors %v, color_temperature %v", p.Colors, p.ColorTemperatures)
	if p.Bri != nil {
		s += fmt.Sprintf(", bri %d", *p.Bri)
	}
	if len(p.Effects) > 0 {
		s += fmt.Sprintf(", effects %v", p.Effects)
	}
	return s
}

func fmtFloat(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}

func fmtBool(v *bool) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}

// v2Palette is a palette as CLIP v2 writes and reads it.
type v2Palette struct {
	Color []struct {
		Color struct {
			XY v2XY `json:"xy"`
		} `json:"color"`
		Dimming v2Dimming `json:"dimming"`
	} `json:"color"`
	ColorTemperature []struct {
		ColorTemperature struct {
			Mirek int `json:"mirek"`
		} `json:"color_temperature"`
		Dimming v2Dimming `json:"dimming"`
	} `json:"color_temperature"`
	Dimming []v2Dimming `json:"dimming"`
	// Effects may be left out by the bridge (Bridge Pro firmware of
	// 2026-07 omits an empty list: aiohue PR #659): none then.
	Effects []struct {
		Effect string `json:"effect"`
	} `json:"effects"`
}

type v2Dimming struct {
	Brightness float64 `json:"brightness"`
}

// model is the palette in Tether's units.
func (p v2Palette) model() *ScenePalette {
	out := &ScenePalette{}
	for _, c := range p.Color {
		out.Colors = append(out.Colors, PaletteColor{XY: [2]float64{model.RoundXY(c.Color.XY.X), model.RoundXY(c.Color.XY.Y)},
			Bri: briOf(c.Dimming.Brightness)})
	}
	for _, c := range p.ColorTemperature {
		out.ColorTemperatures = append(out.ColorTemperatures, PaletteColorTemperature{CT: c.ColorTemperature.Mirek, Bri: briOf(c.Dimming.Brightness)})
	}
	if len(p.Dimming) > 0 {
		bri := briOf(p.Dimming[0].Brightness)
		out.Bri = &bri
	}
	for _, e := range p.Effects {
		out.Effects = append(out.Effects, e.Effect)
	}
	return out
}

// palettePut is a palette as a POST or PUT sends it: every list present,
// as the bridge's own palettes are (an empty list clears it).
func palettePut(p ScenePalette) map[string]any {
	colors := []map[string]any{}
	for _, c := range p.Colors {
		colors = append(colors, map[string]any{"color": map[string]any{"xy": map[string]float64{"x": c.XY[0], "y": c.XY[1]}},
			"dimming": map[string]float64{"brightness": brightnessOf(c.Bri)}})
	}
	cts := []map[string]any{}
	for _, c := range p.ColorTemperatures {
		cts = append(cts, map[string]any{"color_temperature": map[string]int{"mirek": c.CT},
			"dimming": map[string]float64{"brightness": brightnessOf(c.Bri)}})
	}
	dimming := []map[string]float64{}
	if p.Bri != nil {
		dimming = append(dimming, map[string]float64{"brightness": brightnessOf(*p.Bri)})
	}
	effects := []map[string]string{}
	for _, e := range p.Effects {
		effects = append(effects, map[string]string{"effect": e})
	}
	return map[string]any{"color": colors, "color_temperature": cts, "dimming": dimming, "effects": effects}
}

// optionsPut adds the managed options to a scene's POST or PUT body.
func optionsPut(body map[string]any, o SceneOptions) {
	if o.Palette != nil {
		body["palette"] = palettePut(*o.Palette)
	}
	if o.Speed != nil {
		body["speed"] = *o.Speed
	}
	if o.AutoDynamic != nil {
		body["auto_dynamic"] = *o.AutoDynamic
	}
}
